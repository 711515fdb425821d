#include "server/dashboard_assets.h"

namespace steward::server {

const Asset* FindDashboardAsset(std::string_view path) {
  for (const Asset& a : DashboardAssets())
    if (a.path == path) return &a;
  return nullptr;
}

}  // namespace steward::server
