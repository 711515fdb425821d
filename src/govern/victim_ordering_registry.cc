#include <fmt/format.h>

#include "govern/victim_ordering.h"

namespace steward::govern {
namespace {

struct OrderingEntry {
  std::string_view name;
  std::unique_ptr<VictimOrdering> (*make)();
};

// The one table of orderings (greppable; no static registrars).
constexpr OrderingEntry kOrderings[] = {
    {"kueue-classic", &NewKueueClassicOrdering},
    {"checkpoint-aware", &NewCheckpointAwareOrdering},
    {"largest-first", &NewLargestFirstOrdering},
};

}  // namespace

std::vector<std::string_view> VictimOrderingNames() {
  std::vector<std::string_view> names;
  for (const auto& e : kOrderings) names.push_back(e.name);
  return names;
}

Result<std::unique_ptr<VictimOrdering>> NewVictimOrdering(std::string_view name) {
  for (const auto& e : kOrderings)
    if (e.name == name) return e.make();
  return Status::InvalidArgument(fmt::format("unknown victim ordering \"{}\" (valid: {})", name,
                                             fmt::join(VictimOrderingNames(), ", ")));
}

}  // namespace steward::govern
