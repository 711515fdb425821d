#include "telemetry/exposition_labels.h"

#include <fmt/format.h>

#include <optional>
#include <unordered_set>

#include "telemetry/exposition_syntax.h"

namespace steward::telemetry::expo {
namespace {

// Up to this many labels the duplicate check compares names pairwise: at most 496 comparisons,
// most rejected on length, and no allocation (a dcgm-exporter line has about a dozen labels).
// Past it, a hash set built once for the line keeps the check linear.
constexpr uint32_t kPairwiseLabels = 32;

}  // namespace

struct LabelReader::SeenNames {
  std::optional<std::unordered_set<std::string_view>> set;  // Built past kPairwiseLabels.
};

std::string_view LabelReader::Own(std::string s) {
  out_.owned_strings.push_back(std::move(s));
  return out_.owned_strings.back();
}

bool LabelReader::ReadQuotedName(std::string_view line, size_t& p, std::string_view* name,
                                 SyntaxError* err) {
  const size_t col = p;
  QuotedString q = ScanQuoted(line, p);
  if (!q.ok) {
    *err = {col, "unterminated quoted name (missing '\"')"};
    return false;
  }
  if (q.raw.empty()) {
    *err = {col, "a quoted name must not be empty"};
    return false;
  }
  if (q.non_ascii && !IsValidUtf8(q.raw)) {
    *err = {col, "quoted name is not valid UTF-8"};
    return false;
  }
  *name = q.escaped ? Own(Unescape(q.raw)) : q.raw;
  p = q.end;
  return true;
}

// Adds `lname` to the label set begun at `label_begin` unless it is already there: pairwise
// for small sets, then through `seen` (built once per label set), so the check stays linear.
bool LabelReader::IsDuplicate(uint32_t label_begin, std::string_view lname, SeenNames& names) {
  std::optional<std::unordered_set<std::string_view>>& seen = names.set;
  const uint32_t count = static_cast<uint32_t>(out_.labels.size()) - label_begin;
  if (count < kPairwiseLabels) {
    *name_compares_ += count;
    for (uint32_t i = label_begin; i < out_.labels.size(); ++i) {
      if (out_.labels[i].name == lname) return true;
    }
    return false;
  }
  if (!seen) {
    seen.emplace();
    seen->reserve(4 * count);
    for (uint32_t i = label_begin; i < out_.labels.size(); ++i) seen->insert(out_.labels[i].name);
    *name_compares_ += count;
  }
  ++*name_compares_;
  return !seen->insert(lname).second;
}

bool LabelReader::ReadSet(std::string_view line, size_t& p, uint32_t label_begin,
                          std::string_view* metric_name, SyntaxError* err) {
  auto fail = [err](size_t column, std::string message) { *err = {column, std::move(message)}; };
  ++p;  // '{'
  bool after_comma = false;
  SeenNames seen;
  while (true) {
    if (!om_) {
      while (p < line.size() && IsBlank(line[p])) ++p;
    }
    if (p >= line.size()) {
      fail(p, "unterminated label set (missing '}')");
      return false;
    }
    if (line[p] == '}') {
      if (after_comma && om_) {
        fail(p, "trailing comma in label set");
        return false;
      }
      ++p;
      return true;
    }
    const size_t name_col = p;
    std::string_view lname;
    if (line[p] == '"') {
      if (!ReadQuotedName(line, p, &lname, err)) return false;
      if (!om_) {
        while (p < line.size() && IsBlank(line[p])) ++p;
      }
      if (p < line.size() && (line[p] == ',' || line[p] == '}')) {
        if (metric_name == nullptr) {
          fail(name_col, "expected a label name (an exemplar has no metric name)");
          return false;
        }
        if (!metric_name->empty()) {
          fail(name_col, fmt::format("metric name already set ({})", *metric_name));
          return false;
        }
        *metric_name = lname;
        if (line[p] == '}') {
          ++p;
          return true;
        }
        ++p;
        after_comma = true;
        if (om_ && p < line.size() && line[p] == ',') {
          fail(p, "empty label between commas");
          return false;
        }
        continue;
      }
    } else {
      size_t q = p;
      while (q < line.size() && IsLabelNameChar(line[q])) ++q;
      lname = line.substr(p, q - p);
      if (lname.empty() || !IsLabelNameStart(lname[0])) {
        fail(name_col, after_comma || out_.labels.size() == label_begin
                           ? "expected a label name"
                           : "expected ',' or '}' after a label value");
        return false;
      }
      p = q;
      if (!om_) {
        while (p < line.size() && IsBlank(line[p])) ++p;
      }
    }
    if (p >= line.size() || line[p] != '=') {
      fail(p, fmt::format("expected '=' after label name {}", lname));
      return false;
    }
    ++p;
    if (!om_) {
      while (p < line.size() && IsBlank(line[p])) ++p;
    }
    if (p >= line.size() || line[p] != '"') {
      fail(p, fmt::format("expected '\"' to open the value of label {}", lname));
      return false;
    }
    QuotedString value = ScanQuoted(line, p);
    if (!value.ok) {
      fail(p, fmt::format("unterminated value of label {}", lname));
      return false;
    }
    // Escapes are ASCII, so the raw bytes are UTF-8 exactly when the value is.
    if (value.non_ascii && !IsValidUtf8(value.raw)) {
      fail(p, fmt::format("value of label {} is not valid UTF-8", lname));
      return false;
    }
    p = value.end;
    if (IsDuplicate(label_begin, lname, seen)) {
      fail(name_col, fmt::format("duplicate label {}", lname));
      return false;
    }
    if (lname == "__name__") {
      fail(name_col, "label name __name__ is reserved");
      return false;
    }
    out_.labels.push_back(Label{lname, value.escaped ? Own(Unescape(value.raw)) : value.raw});
    if (!om_) {
      while (p < line.size() && IsBlank(line[p])) ++p;
    }
    if (p < line.size() && line[p] == ',') {
      ++p;
      after_comma = true;
      if (om_ && p < line.size() && line[p] == ',') {
        fail(p, "empty label between commas");
        return false;
      }
      continue;
    }
    if (p < line.size() && line[p] == '}') {
      ++p;
      return true;
    }
    fail(p, "expected ',' or '}' after a label value");
    return false;
  }
}

}  // namespace steward::telemetry::expo
