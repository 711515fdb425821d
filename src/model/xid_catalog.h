// The XID catalog: what an NVIDIA driver Xid code means and what to do about it.
//
// It lives in the model because both sides of Steward need it: the twin decides what an
// injected XID does to the simulated GPU and its workloads (the recommended action says
// whether the GPU stays usable), and the remediation loop (health) decides how to repair it.
//
// The data is data/xid_catalog.csv (sources named in its header), compiled into the binary by
// CMake so `steward` works from any directory; XidCatalog::Parse also loads an edited copy.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"

namespace steward::model {

// The catalog's recommended action for an XID, in increasing disruption (NVIDIA Xid catalog
// resolution buckets: IGNORE, RESTART_APP, RESET_GPU, RESTART_BM, and drain-and-RMA for faults
// that need a replacement; see docs/remediation.md).
enum class XidAction : uint8_t {
  kNone = 0,             // Informational: counted, no node action.
  kRestartWorkload = 1,  // Application-level: the workload restarts; repeats escalate.
  kResetGpu = 2,         // Take the node out, reset the GPU, validate.
  kReboot = 3,           // Take the node out, reboot, validate.
  kDrainAndRma = 4,      // Take the node out, hardware replacement (RMA), validate.
};
std::string_view XidActionName(XidAction action);  // "none", "restart-workload", "reset-gpu", ...
bool ParseXidAction(std::string_view text, XidAction* action);
// True when the GPU is unusable after the XID until it is repaired (reset, reboot or RMA): the
// device plugin marks it unhealthy. Application-level XIDs (restart-workload) and informational
// ones leave it usable, as the NVIDIA device plugin's applicationErrorXids do.
inline bool DisablesGpu(XidAction a) { return a >= XidAction::kResetGpu; }

enum class XidSeverity { kNonFatal, kFatal };
std::string_view XidSeverityName(XidSeverity s);

struct XidEntry {
  int code = 0;
  std::string mnemonic;  // e.g. "GPU_HAS_FALLEN_OFF_THE_BUS".
  XidSeverity severity = XidSeverity::kNonFatal;
  XidAction action = XidAction::kNone;
  std::string nvidia_action;    // NVIDIA's resolution bucket, verbatim (e.g. "RESTART_BM").
  bool node_condition = false;  // EKS sets a node Condition (repair-eligible), not just an Event.
  std::string meaning;
};

class XidCatalog {
 public:
  // Parses the CSV format of data/xid_catalog.csv; `source` names the input in errors
  // ("FILE:LINE:COL: field: what").
  static Result<XidCatalog> Parse(std::string_view csv, std::string_view source);
  // The catalog compiled into the binary.
  static const XidCatalog& Builtin();

  const XidEntry* Find(int code) const;
  const std::map<int, XidEntry>& entries() const { return entries_; }
  // The source lines of the CSV header ("# Sources ..."), for `steward health xid`.
  const std::string& provenance() const { return provenance_; }

 private:
  std::map<int, XidEntry> entries_;
  std::string provenance_;
};

// Fault family of an XID, for grouping faults that point at one shared component: "nvlink"
// for the NVLink codes (74, 136, 144-150, 155), "ecc" for the memory codes (48, 63, 64, 92,
// 94, 95, 140), "" otherwise.
std::string_view XidFamily(int code);

}  // namespace steward::model
