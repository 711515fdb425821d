// The XID catalog: what an NVIDIA driver Xid code means and what to do about it.
//
// The data is data/xid_catalog.csv (sources named in its header), compiled into the binary by
// CMake so `steward` works from any directory; XidCatalog::Parse also loads an edited copy.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "health/remediation/fault_signal.h"
#include "model/status.h"

namespace steward::health {

// XidAction (none, restart-workload, reset-gpu, reboot, drain-and-rma) is shared with the
// remediation controller: health/remediation/fault_signal.h.
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

}  // namespace steward::health
