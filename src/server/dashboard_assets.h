// The dashboard's files (web/), compiled into the binary at build time (cmake/dashboard.cmake
// generates their table), so `steward serve` works from any directory and offline.
#pragma once

#include <string_view>
#include <vector>

namespace steward::server {

struct Asset {
  std::string_view path;  // URL path, e.g. "/app.js".
  std::string_view content_type;
  std::string_view body;
};

// Every embedded file (generated).
const std::vector<Asset>& DashboardAssets();
// The asset served at `path`, or nullptr.
const Asset* FindDashboardAsset(std::string_view path);

}  // namespace steward::server
