// The fault signals the remediation controller accepts, kept as plain structs so the
// controller does not depend on the XID catalog's or NPD's exact types: the caller maps a
// catalog entry to {code, action} and an NPD condition to {type, status}.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "model/xid_catalog.h"

namespace steward::health {

// The catalog's recommended action for an XID (model/xid_catalog.h).
using model::ParseXidAction;
using model::XidAction;
using model::XidActionName;

struct XidEvent {
  int code = 0;
  XidAction action = XidAction::kNone;
  // Fault family for incident grouping (e.g. "nvlink" for XID 74 and 144-150). Empty means
  // "xid<code>", so only identical codes group.
  std::string category;
  int gpu = -1;  // GPU index on the node, when known (for the ticket text only).
};

// Builds an XidEvent without brace-init warnings (-Wmissing-field-initializers).
inline XidEvent MakeXid(int code, XidAction action, std::string category = "", int gpu = -1) {
  XidEvent e;
  e.code = code;
  e.action = action;
  e.category = std::move(category);
  e.gpu = gpu;
  return e;
}

// An NPD-style node condition (NodeCondition in the node's status). status true = the problem
// is present (NPD's convention); false = it cleared.
struct NodeConditionSignal {
  std::string type;  // e.g. "GPUXidFatal", "GPUMissing".
  bool status = true;
  std::string reason;
};

// What a ticket asks the repair side to do, ordered by how much it costs; an episode's
// tickets ask for the worst action any of its faults called for.
enum class RepairKind : uint8_t {
  kNone = 0,
  kResetGpu = 1,
  kReboot = 2,
  kInvestigate = 3,  // Cause unknown (failed diagnostic, NPD condition, shared component).
  kRma = 4,
};
std::string_view RepairKindName(RepairKind kind);  // "none", "reset-gpu", "reboot", ...
bool ParseRepairKind(std::string_view text, RepairKind* kind);

}  // namespace steward::health
