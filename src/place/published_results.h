// The FGD paper's published figures (the authors' expected results, tune 1.3, seeds 42-51),
// copied from fgd-protocol.md §8 so reports can show our figures beside them.
#pragma once

#include <optional>
#include <string_view>

namespace steward::place {

// The paper's six policies in the published tables' column order.
inline constexpr std::string_view kPaperPolicies[6] = {"random",  "dotprod", "clustering",
                                                       "packing", "bestfit", "fgd"};

// §8.2: mean final allocation ratio (col 130) of `policy` on `workload` ("default",
// "cpu050", ...; the "openb_pod_list_" prefix is optional), or nullopt.
std::optional<double> PublishedFinalAlloc(std::string_view workload, std::string_view policy);

// §8.1 / §8.4: default trace, mean allocation ratio / fragmentation amount at an arrival level
// that the paper tabulates, or nullopt.
std::optional<double> PublishedDefaultAlloc(std::string_view policy, int level);
std::optional<double> PublishedDefaultFragAmount(std::string_view policy, int level);
std::optional<double> PublishedDefaultFragRatio(std::string_view policy, int level);

}  // namespace steward::place
