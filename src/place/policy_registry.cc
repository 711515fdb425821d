#include "place/policy_registry.h"

#include <fmt/format.h>

#include "place/policies/policies.h"

namespace steward::place {
namespace {

using Factory = std::unique_ptr<PlacementPolicy> (*)();
struct Entry {
  PolicyInfo info;
  Factory make;
};

// The recommended policy of ours, the target of "best" (docs/placement.md, "Beyond FGD").
constexpr std::string_view kBest = "fgd-cpu-online";

const std::vector<Entry>& Table() {
  static const std::vector<Entry> table = {
      {{"random", "uniform among feasible nodes", true}, internal::NewRandomPolicy},
      {{"dotprod", "Tetris dot product of free and requested (CPU, GPU)", true},
       internal::NewDotProductPolicy},
      {{"clustering", "keep pods of one GPU shape on the same nodes", true},
       internal::NewGpuClusteringPolicy},
      {{"packing", "partly used GPUs first, then used nodes, then idle nodes", true},
       internal::NewGpuPackingPolicy},
      {{"bestfit", "least weighted CPU+GPU leftover", true}, internal::NewBestFitPolicy},
      {{"fgd", "fragmentation gradient descent (Weng et al., ATC'23)", true, true},
       internal::NewFgdPolicy},
      {{"fgd-bf", "FGD with ties broken by best fit instead of node order (ours)", false, true},
       internal::NewFgdBestFitPolicy},
      {{"fgd-cpu", "FGD + GPU milli stranded by the node's CPU/memory (ours)", false, true},
       internal::NewFgdCpuPolicy},
      {{"fgd-cpu-online", "fgd-cpu learned from arrived pods only (ours, recommended)", false,
        false},
       internal::NewFgdCpuOnlinePolicy},
      {{"fgd-online", "FGD learned from arrived pods only (control)", false, false},
       internal::NewFgdOnlinePolicy},
      {{"first-fit", "lowest-numbered node that fits (the twin's naive default)", false, false,
        /*in_matrix=*/false},
       internal::NewFirstFitPolicy},
      {{"binpack", "node left with the least free GPU milli (the guide's binpack)", false, false,
        /*in_matrix=*/false},
       internal::NewBinpackPolicy},
  };
  return table;
}

}  // namespace

const std::vector<PolicyInfo>& Policies() {
  static const std::vector<PolicyInfo> infos = [] {
    std::vector<PolicyInfo> v;
    for (const Entry& e : Table()) v.push_back(e.info);
    return v;
  }();
  return infos;
}

std::vector<std::string> PolicyNames() {
  std::vector<std::string> names;
  for (const Entry& e : Table()) names.emplace_back(e.info.name);
  names.emplace_back(kBestPolicyAlias);
  return names;
}

std::string_view ResolvePolicyAlias(std::string_view name) {
  return name == kBestPolicyAlias ? kBest : name;
}

const PolicyInfo* FindPolicy(std::string_view name) {
  std::string_view resolved = ResolvePolicyAlias(name);
  for (const Entry& e : Table())
    if (e.info.name == resolved) return &e.info;
  return nullptr;
}

Result<std::unique_ptr<PlacementPolicy>> NewPolicy(std::string_view name) {
  std::string_view resolved = ResolvePolicyAlias(name);
  for (const Entry& e : Table())
    if (e.info.name == resolved) return e.make();
  std::string valid;
  for (const std::string& n : PolicyNames()) valid += (valid.empty() ? "" : ", ") + n;
  return Status::NotFound(fmt::format("unknown placement policy '{}' (valid: {})", name, valid));
}

}  // namespace steward::place
