#include "place/published_results.h"

#include <array>

namespace steward::place {
namespace {

int PolicyIndex(std::string_view policy) {
  for (int i = 0; i < 6; ++i)
    if (kPaperPolicies[i] == policy) return i;
  return -1;
}

struct Row {
  std::string_view workload;
  std::array<double, 6> v;
};

// fgd-protocol.md §8.2.
constexpr Row kFinal[] = {
    {"default", {87.47, 90.85, 91.88, 92.00, 93.08, 95.39}},
    {"cpu050", {91.24, 93.27, 93.79, 93.72, 93.79, 95.21}},
    {"cpu100", {89.11, 91.95, 92.64, 92.72, 93.44, 95.35}},
    {"cpu200", {83.77, 87.70, 89.92, 90.22, 92.40, 95.04}},
    {"cpu250", {80.41, 83.80, 87.99, 88.28, 91.45, 93.41}},
    {"gpushare40", {86.00, 89.56, 90.02, 90.03, 91.69, 94.15}},
    {"gpushare60", {83.65, 87.11, 87.20, 87.45, 89.36, 91.40}},
    {"gpushare80", {81.22, 84.49, 84.85, 85.00, 87.01, 89.30}},
    {"gpushare100", {79.44, 82.42, 82.65, 82.57, 85.01, 86.90}},
    {"multigpu20", {88.69, 92.06, 93.56, 93.71, 93.93, 95.65}},
    {"multigpu30", {89.27, 93.28, 94.72, 94.87, 94.72, 96.46}},
    {"multigpu40", {90.09, 94.19, 95.50, 95.74, 95.23, 96.99}},
    {"multigpu50", {90.28, 94.85, 95.81, 96.18, 95.74, 97.18}},
    {"gpuspec10", {87.43, 90.39, 92.18, 92.46, 93.30, 94.95}},
    {"gpuspec20", {87.24, 89.97, 92.25, 92.94, 93.30, 94.84}},
    {"gpuspec25", {86.94, 89.63, 92.08, 92.98, 93.23, 94.74}},
    {"gpuspec33", {86.46, 89.14, 92.12, 93.22, 93.09, 94.55}},
};

// §8.1 (allocation at levels).
constexpr int kAllocLevels[] = {80, 90, 95, 100, 105, 110, 120, 130};
constexpr double kAlloc[6][8] = {{78.66, 85.02, 85.72, 86.30, 86.62, 86.88, 87.28, 87.47},
                                 {80.02, 89.98, 90.58, 90.62, 90.67, 90.70, 90.77, 90.85},
                                 {80.02, 89.98, 91.60, 91.65, 91.70, 91.73, 91.80, 91.88},
                                 {80.02, 89.98, 91.74, 91.78, 91.83, 91.85, 91.92, 92.00},
                                 {80.02, 89.99, 92.82, 92.86, 92.91, 92.94, 93.00, 93.08},
                                 {80.02, 89.98, 94.91, 95.23, 95.27, 95.30, 95.35, 95.39}};
// §8.3 / §8.4 (fragmentation ratio / amount at levels).
constexpr int kFragLevels[] = {20, 40, 50, 60, 70, 80, 90, 100, 110, 130};
constexpr double kFragRatio[6][10] = {
    {18.33, 24.89, 30.17, 38.37, 51.63, 74.64, 96.65, 98.44, 98.86, 99.18},
    {17.58, 21.33, 24.19, 28.57, 35.92, 50.50, 94.18, 99.19, 99.20, 99.25},
    {18.07, 21.67, 24.23, 27.97, 34.23, 46.86, 84.33, 98.40, 98.39, 98.47},
    {18.06, 21.55, 24.02, 27.80, 33.95, 46.43, 83.60, 98.88, 98.88, 98.94},
    {16.72, 19.47, 21.62, 24.93, 30.44, 41.49, 74.08, 98.84, 98.84, 98.92},
    {14.85, 16.51, 17.86, 19.90, 23.17, 29.86, 49.97, 99.07, 99.07, 99.10}};
constexpr double kFragAmount[6][10] = {
    {14.67, 14.93, 15.09, 15.45, 15.90, 15.92, 14.48, 13.49, 12.97, 12.43},
    {14.07, 12.80, 12.09, 11.43, 10.78, 10.09, 9.43, 9.30, 9.23, 9.08},
    {14.46, 13.00, 12.11, 11.19, 10.27, 9.36, 8.45, 8.21, 8.14, 8.00},
    {14.44, 12.92, 12.01, 11.12, 10.18, 9.28, 8.37, 8.13, 8.05, 7.91},
    {13.38, 11.68, 10.81, 9.97, 9.13, 8.29, 7.41, 7.05, 6.98, 6.85},
    {11.88, 9.91, 8.93, 7.96, 6.95, 5.97, 5.00, 4.73, 4.66, 4.57}};

std::string_view StripPrefix(std::string_view w) {
  constexpr std::string_view kPrefix = "openb_pod_list_";
  if (w.substr(0, kPrefix.size()) == kPrefix) w.remove_prefix(kPrefix.size());
  return w;
}

template <size_t N>
std::optional<double> Lookup(const int (&levels)[N], const double (&table)[6][N],
                             std::string_view policy, int level) {
  int p = PolicyIndex(policy);
  if (p < 0) return std::nullopt;
  for (size_t i = 0; i < N; ++i)
    if (levels[i] == level) return table[p][i];
  return std::nullopt;
}

}  // namespace

std::optional<double> PublishedFinalAlloc(std::string_view workload, std::string_view policy) {
  int p = PolicyIndex(policy);
  if (p < 0) return std::nullopt;
  workload = StripPrefix(workload);
  for (const Row& r : kFinal)
    if (r.workload == workload) return r.v[p];
  return std::nullopt;
}

std::optional<double> PublishedDefaultAlloc(std::string_view policy, int level) {
  return Lookup(kAllocLevels, kAlloc, policy, level);
}
std::optional<double> PublishedDefaultFragAmount(std::string_view policy, int level) {
  return Lookup(kFragLevels, kFragAmount, policy, level);
}
std::optional<double> PublishedDefaultFragRatio(std::string_view policy, int level) {
  return Lookup(kFragLevels, kFragRatio, policy, level);
}

}  // namespace steward::place
