#include "model/xid_catalog.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <iterator>

namespace steward::model {

// Defined in the CMake-generated xid_catalog_data.cc (data/xid_catalog.csv verbatim).
std::string_view BuiltinXidCatalogCsv();

namespace {
constexpr std::string_view kActionNames[] = {"none", "restart-workload", "reset-gpu", "reboot",
                                             "drain-and-rma"};
}  // namespace

std::string_view XidActionName(XidAction a) {
  const size_t i = static_cast<size_t>(a);
  return i < std::size(kActionNames) ? kActionNames[i] : std::string_view("unknown");
}

bool ParseXidAction(std::string_view text, XidAction* a) {
  for (size_t i = 0; i < std::size(kActionNames); ++i) {
    if (kActionNames[i] == text) {
      *a = static_cast<XidAction>(i);
      return true;
    }
  }
  return false;
}

std::string_view XidFamily(int code) {
  if (code == 74 || code == 136 || code == 155 || (code >= 144 && code <= 150)) return "nvlink";
  if (code == 48 || code == 63 || code == 64 || code == 92 || code == 94 || code == 95 ||
      code == 140)
    return "ecc";
  return "";
}

std::string_view XidSeverityName(XidSeverity s) {
  return s == XidSeverity::kFatal ? "fatal" : "nonfatal";
}

Result<XidCatalog> XidCatalog::Parse(std::string_view csv, std::string_view source) {
  static constexpr std::string_view kColumns[] = {"code",   "mnemonic",      "severity",
                                                  "action", "nvidia_action", "node_condition"};
  XidCatalog cat;
  int line_no = 0;
  size_t pos = 0;
  bool in_header = true;
  while (pos < csv.size()) {
    size_t end = csv.find('\n', pos);
    if (end == std::string_view::npos) end = csv.size();
    std::string_view line = csv.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line[0] == '#') {
      if (in_header) {
        cat.provenance_.append(line.substr(std::min<size_t>(2, line.size())));
        cat.provenance_.push_back('\n');
      }
      continue;
    }
    in_header = false;
    // Six comma-separated fields, then the meaning (the rest of the line).
    std::string_view fields[6];
    size_t col = 0;
    for (int i = 0; i < 6; ++i) {
      size_t comma = line.find(',', col);
      if (comma == std::string_view::npos) {
        return MakeInputError(source, line_no, static_cast<int>(col) + 1, kColumns[i],
                              "missing (expected code,mnemonic,severity,action,nvidia_action,"
                              "node_condition,meaning)");
      }
      fields[i] = line.substr(col, comma - col);
      col = comma + 1;
    }
    XidEntry e;
    auto [p, ec] = std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), e.code);
    if (ec != std::errc() || p != fields[0].data() + fields[0].size() || e.code <= 0) {
      return MakeInputError(source, line_no, 1, "code",
                            fmt::format("\"{}\" is not a positive integer", fields[0]));
    }
    e.mnemonic = fields[1];
    if (fields[2] == "fatal") {
      e.severity = XidSeverity::kFatal;
    } else if (fields[2] == "nonfatal") {
      e.severity = XidSeverity::kNonFatal;
    } else {
      return MakeInputError(source, line_no, 0, "severity",
                            fmt::format("\"{}\" is not fatal or nonfatal", fields[2]));
    }
    if (!ParseXidAction(fields[3], &e.action)) {
      return MakeInputError(source, line_no, 0, "action",
                            fmt::format("\"{}\" is not none, restart-workload, reset-gpu, reboot "
                                        "or drain-and-rma",
                                        fields[3]));
    }
    e.nvidia_action = fields[4];
    if (fields[5] != "yes" && fields[5] != "no") {
      return MakeInputError(source, line_no, 0, "node_condition",
                            fmt::format("\"{}\" is not yes or no", fields[5]));
    }
    e.node_condition = fields[5] == "yes";
    e.meaning = line.substr(col);
    if (e.meaning.empty()) return MakeInputError(source, line_no, 0, "meaning", "empty");
    int code = e.code;
    if (!cat.entries_.emplace(code, std::move(e)).second) {
      return MakeInputError(source, line_no, 1, "code", fmt::format("duplicate code {}", code));
    }
  }
  return cat;
}

const XidCatalog& XidCatalog::Builtin() {
  static const XidCatalog* kCatalog = [] {
    Result<XidCatalog> r = Parse(BuiltinXidCatalogCsv(), "data/xid_catalog.csv");
    // The embedded file is checked by tests; a broken one is a build defect.
    STEWARD_CHECK(r.ok());
    return new XidCatalog(std::move(r).value());
  }();
  return *kCatalog;
}

const XidEntry* XidCatalog::Find(int code) const {
  auto it = entries_.find(code);
  return it == entries_.end() ? nullptr : &it->second;
}

}  // namespace steward::model
