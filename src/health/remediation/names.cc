// Text names of the remediation enums (node_state.h, fault_signal.h).
#include <array>
#include <string_view>

#include "health/remediation/fault_signal.h"
#include "health/remediation/node_state.h"

namespace steward::health {
namespace {

constexpr std::array<std::string_view, kNumNodeStates> kStateNames = {
    "healthy", "suspect", "cordoned", "draining", "in-repair", "validating", "quarantined"};
constexpr std::array<std::string_view, 5> kRepairNames = {"none", "reset-gpu", "reboot",
                                                          "investigate", "rma"};

template <typename E, size_t N>
bool ParseName(const std::array<std::string_view, N>& names, std::string_view text, E* out) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == text) {
      *out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

template <size_t N>
std::string_view NameOf(const std::array<std::string_view, N>& names, size_t i) {
  return i < N ? names[i] : std::string_view("unknown");
}

}  // namespace

std::string_view NodeStateName(NodeState s) { return NameOf(kStateNames, static_cast<size_t>(s)); }
bool ParseNodeState(std::string_view text, NodeState* s) { return ParseName(kStateNames, text, s); }
std::string_view RepairKindName(RepairKind k) {
  return NameOf(kRepairNames, static_cast<size_t>(k));
}
bool ParseRepairKind(std::string_view text, RepairKind* k) {
  return ParseName(kRepairNames, text, k);
}

}  // namespace steward::health
