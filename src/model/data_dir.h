// Where Steward finds the real public data it reads by path and never copies (the Alibaba GPU
// trace, dcgm-exporter samples): $STEWARD_DATA, else ../shared/data relative to the working
// directory (the repository root in development and CI).
#pragma once

#include <filesystem>
#include <string>

namespace steward::model {

std::filesystem::path DataDir();

// Expands a leading "$STEWARD_DATA/" in `path` to DataDir(); other paths are returned as they
// are. Lets scenarios name shared data without hard-coding where it lives.
std::filesystem::path ExpandDataPath(const std::string& path);

}  // namespace steward::model
