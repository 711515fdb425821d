// The exposition parser: a hand-written, line-at-a-time scanner over string_views.
//
// Rules and their sources (docs/telemetry.md has the full list):
//  - Prometheus text 0.0.4: prometheus/docs content/docs/instrumenting/exposition_formats.md
//    (blanks/tabs between tokens, empty lines ignored, "# HELP name doc", "# TYPE name type" once
//    per name and before its first sample, a family's lines contiguous, histogram buckets
//    ascending with a mandatory le="+Inf" equal to _count, summary quantiles ascending).
//  - OpenMetrics 1.0: OpenObservability/OpenMetrics specification/OpenMetrics.md (# EOF, # UNIT,
//    exactly one space between tokens, no blank lines, the extra types, exemplars, float seconds
//    timestamps, counters' _total suffix).
#include "telemetry/exposition.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

namespace steward::telemetry {

std::string_view MetricTypeName(MetricType type) {
  switch (type) {
    case MetricType::kUntyped:
      return "untyped";
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
    case MetricType::kSummary:
      return "summary";
    case MetricType::kGaugeHistogram:
      return "gaugehistogram";
    case MetricType::kStateset:
      return "stateset";
    case MetricType::kInfo:
      return "info";
    case MetricType::kUnknown:
      return "unknown";
  }
  return "untyped";
}

std::string ParseError::ToString() const { return fmt::format("{}:{}: {}", line, column, message); }

std::string_view Scrape::LabelValue(const Sample& s, std::string_view name,
                                    std::string_view fallback) const {
  for (const Label& l : LabelsOf(s)) {
    if (l.name == name) return l.value;
  }
  return fallback;
}

bool Scrape::HasLabel(const Sample& s, std::string_view name) const {
  for (const Label& l : LabelsOf(s)) {
    if (l.name == name) return true;
  }
  return false;
}

namespace {

constexpr bool IsBlank(char c) { return c == ' ' || c == '\t'; }
constexpr bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool IsDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool IsMetricNameStart(char c) { return IsAlpha(c) || c == '_' || c == ':'; }
constexpr bool IsMetricNameChar(char c) { return IsMetricNameStart(c) || IsDigit(c); }
constexpr bool IsLabelNameStart(char c) { return IsAlpha(c) || c == '_'; }
constexpr bool IsLabelNameChar(char c) { return IsLabelNameStart(c) || IsDigit(c); }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// A float as Go's strconv.ParseFloat reads it, minus hex floats and underscores (rejected: no
// exporter we know emits them, and OpenMetrics forbids them). Accepts NaN, [+-]Inf, Infinity in
// any case, leading zeros and a leading '+'.
bool ParseNumber(std::string_view s, double* out) {
  if (s.empty()) return false;
  bool neg = false;
  std::string_view rest = s;
  if (rest[0] == '+' || rest[0] == '-') {
    neg = rest[0] == '-';
    rest.remove_prefix(1);
  }
  if (rest.empty()) return false;
  if (!IsDigit(rest[0]) && rest[0] != '.') {
    if (EqualsIgnoreCase(rest, "inf") || EqualsIgnoreCase(rest, "infinity")) {
      *out =
          neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
      return true;
    }
    if (EqualsIgnoreCase(rest, "nan")) {
      *out = std::numeric_limits<double>::quiet_NaN();
      return true;
    }
    return false;
  }
  for (char c : rest) {
    if (!(IsDigit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) return false;
  }
  double v = 0;
  auto [ptr, ec] =
      std::from_chars(rest.data(), rest.data() + rest.size(), v, std::chars_format::general);
  if (ec != std::errc() || ptr != rest.data() + rest.size()) return false;
  *out = neg ? -v : v;
  return true;
}

// A decimal int64 (0.0.4 timestamps are milliseconds as Go's strconv.ParseInt reads them).
bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  std::string_view digits = s;
  if (digits[0] == '+') digits.remove_prefix(1);
  if (digits.empty() || !(IsDigit(digits[0]) || digits[0] == '-')) return false;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *out);
  return ec == std::errc() && ptr == digits.data() + digits.size();
}

// Unescapes `raw` (the bytes between the quotes, or a HELP text). Known escapes are \\, \" and
// \n; an unknown escape keeps both bytes, as Prometheus' own scrape parser does.
std::string Unescape(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '\\' && i + 1 < raw.size()) {
      char n = raw[i + 1];
      if (n == '\\' || n == '"') {
        out.push_back(n);
        ++i;
        continue;
      }
      if (n == 'n') {
        out.push_back('\n');
        ++i;
        continue;
      }
    }
    out.push_back(c);
  }
  return out;
}

struct SuffixRule {
  bool bare = false;
  std::span<const std::string_view> suffixes;
};

// Which sample names a family of `type` owns: bare name and/or name + suffix.
SuffixRule SuffixesFor(MetricType type, bool om) {
  static constexpr std::string_view kOmCounter[] = {"_total", "_created"};
  static constexpr std::string_view kHistogram[] = {"_bucket", "_count", "_sum"};
  static constexpr std::string_view kOmHistogram[] = {"_bucket", "_count", "_sum", "_created"};
  static constexpr std::string_view kSummary[] = {"_count", "_sum"};
  static constexpr std::string_view kOmSummary[] = {"_count", "_sum", "_created"};
  static constexpr std::string_view kGaugeHistogram[] = {"_bucket", "_gcount", "_gsum"};
  static constexpr std::string_view kInfo[] = {"_info"};
  switch (type) {
    case MetricType::kCounter:
      if (om) return {false, kOmCounter};
      return {true, {}};
    case MetricType::kHistogram:
      return {false, om ? std::span<const std::string_view>(kOmHistogram)
                        : std::span<const std::string_view>(kHistogram)};
    case MetricType::kSummary:
      return {true, om ? std::span<const std::string_view>(kOmSummary)
                       : std::span<const std::string_view>(kSummary)};
    case MetricType::kGaugeHistogram:
      return {false, kGaugeHistogram};
    case MetricType::kInfo:
      return {false, kInfo};
    default:
      return {true, {}};
  }
}

// The suffix of `sample` relative to `family` if `family` owns it ("" = bare), else nullopt.
std::optional<std::string_view> OwnedSuffix(std::string_view family, MetricType type, bool om,
                                            std::string_view sample) {
  if (sample.size() < family.size() || sample.compare(0, family.size(), family) != 0) {
    return std::nullopt;
  }
  std::string_view rest = sample.substr(family.size());
  SuffixRule rule = SuffixesFor(type, om);
  if (rest.empty()) return rule.bare ? std::optional<std::string_view>("") : std::nullopt;
  for (std::string_view s : rule.suffixes) {
    if (rest == s) return s;
  }
  return std::nullopt;
}

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options, Scrape& out)
      : text_(text), options_(options), out_(out) {}

  void Run() {
    Dialect d = options_.dialect;
    if (d == Dialect::kAuto)
      d = LooksLikeOpenMetrics() ? Dialect::kOpenMetrics : Dialect::kPrometheusText;
    out_.dialect = d;
    om_ = d == Dialect::kOpenMetrics;
    out_.samples.reserve(static_cast<size_t>(std::count(text_.begin(), text_.end(), '\n')) + 1);
    // One '=' per label (a few more inside values): no regrowth of the flat label array.
    out_.labels.reserve(static_cast<size_t>(std::count(text_.begin(), text_.end(), '=')));

    size_t pos = 0;
    bool saw_eof = false;
    while (pos < text_.size()) {
      size_t end = text_.find('\n', pos);
      bool has_newline = end != std::string_view::npos;
      if (!has_newline) end = text_.size();
      std::string_view line = text_.substr(pos, end - pos);
      ++line_no_;
      pos = has_newline ? end + 1 : end;
      if (om_ && line == "# EOF") {
        saw_eof = true;
        if (pos < text_.size()) {
          ++line_no_;
          Error(0, "text after \"# EOF\"");
        }
        break;
      }
      ParseLine(line);
    }
    out_.lines = line_no_;
    CloseCurrentFamily();
    if (om_ && !saw_eof) Error(0, "missing \"# EOF\" at the end of an OpenMetrics exposition");
    std::stable_sort(out_.errors.begin(), out_.errors.end(),
                     [](const ParseError& a, const ParseError& b) { return a.line < b.line; });
  }

 private:
  struct FamilyState {
    bool has_type = false;
    bool has_help = false;
    bool has_unit = false;
    bool closed = false;  // Had samples, then another family started.
  };

  bool LooksLikeOpenMetrics() const {
    std::string_view t = text_;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.remove_suffix(1);
    size_t nl = t.rfind('\n');
    std::string_view last = nl == std::string_view::npos ? t : t.substr(nl + 1);
    return last == "# EOF";
  }

  void Error(size_t col0, std::string message) {
    ErrorAt(line_no_, static_cast<int>(col0) + 1, std::move(message));
  }
  void ErrorAt(int line, int column, std::string message) {
    ++out_.error_count;
    if (out_.errors.size() < options_.max_kept_errors) {
      out_.errors.push_back(ParseError{line, column, std::move(message)});
    }
  }

  std::string_view Own(std::string s) {
    out_.owned_strings.push_back(std::move(s));
    return out_.owned_strings.back();
  }

  void ParseLine(std::string_view line) {
    if (!line.empty() && line.back() == '\r') {
      if (om_) {
        Error(line.size() - 1, "carriage return is not allowed in OpenMetrics");
        return;
      }
      line.remove_suffix(1);
    }
    size_t p = 0;
    if (om_) {
      if (line.empty()) {
        Error(0, "blank line is not allowed in OpenMetrics");
        return;
      }
    } else {
      while (p < line.size() && IsBlank(line[p])) ++p;
      if (p == line.size()) return;  // Empty lines are ignored in 0.0.4.
    }
    if (line[p] == '#') {
      ParseComment(line, p);
    } else {
      ParseSample(line, p);
    }
  }

  // Reads a token up to the next blank (0.0.4) or space (OpenMetrics) from `p`.
  static std::string_view Token(std::string_view line, size_t& p) {
    size_t start = p;
    while (p < line.size() && !IsBlank(line[p])) ++p;
    return line.substr(start, p - start);
  }
  // Skips the separator between tokens: any run of blanks in 0.0.4, exactly one space in
  // OpenMetrics. Returns false (after reporting) if the separator is malformed.
  bool Separator(std::string_view line, size_t& p, std::string_view what) {
    if (p >= line.size() || !IsBlank(line[p])) {
      Error(p, fmt::format("expected a blank before {}", what));
      return false;
    }
    if (om_) {
      if (line[p] != ' ' || (p + 1 < line.size() && IsBlank(line[p + 1]))) {
        Error(p, fmt::format("expected exactly one space before {}", what));
        return false;
      }
      ++p;
      return true;
    }
    while (p < line.size() && IsBlank(line[p])) ++p;
    return true;
  }

  void ParseComment(std::string_view line, size_t p) {
    size_t hash = p;
    ++p;  // '#'
    if (p >= line.size() || !IsBlank(line[p])) {
      if (om_)
        Error(hash,
              "comments are not allowed in OpenMetrics (expected \"# HELP\", \"# TYPE\" or \"# "
              "UNIT\")");
      return;  // A plain comment in 0.0.4.
    }
    if (om_) {
      if (line[p] != ' ') {
        Error(p, "expected one space after '#'");
        return;
      }
      ++p;
    } else {
      while (p < line.size() && IsBlank(line[p])) ++p;
    }
    size_t kw_col = p;
    std::string_view keyword = Token(line, p);
    enum { kHelp, kType, kUnit } kind;
    if (keyword == "HELP") {
      kind = kHelp;
    } else if (keyword == "TYPE") {
      kind = kType;
    } else if (keyword == "UNIT" && om_) {
      kind = kUnit;
    } else {
      if (om_) Error(kw_col, fmt::format("unknown metadata \"# {}\"", keyword));
      return;  // Any other comment is ignored in 0.0.4.
    }
    if (!Separator(line, p, "the metric name")) return;
    size_t name_col = p;
    size_t q = p;
    while (q < line.size() && IsMetricNameChar(line[q])) ++q;
    std::string_view name = line.substr(p, q - p);
    if (name.empty() || !IsMetricNameStart(name[0])) {
      Error(name_col, fmt::format("expected a metric name after \"# {}\"", keyword));
      return;
    }
    p = q;
    if (p < line.size() && !IsBlank(line[p])) {
      Error(p, fmt::format("invalid character '{}' in metric name", line[p]));
      return;
    }
    if (om_ && kind != kType && (p >= line.size() || line[p] != ' ')) {
      Error(p, fmt::format("expected one space after the metric name in \"# {}\"", keyword));
      return;
    }
    if (om_ && kind == kType && ClashesWithFamily(name, line, p)) return;
    uint32_t fam = FindOrCreateFamily(name);
    FamilyState& st = state_[fam];
    Family& f = out_.families[fam];
    if (f.sample_count > 0 || st.closed) {
      Error(hash,
            fmt::format("\"# {}\" for {} after its samples (line {})", keyword, name, f.line));
      return;
    }
    switch (kind) {
      case kHelp: {
        if (st.has_help) {
          Error(hash, fmt::format("second HELP line for {}", name));
          return;
        }
        std::string_view doc;
        if (p < line.size()) {
          if (om_) {
            ++p;  // The one space; the rest, including spaces, is the docstring.
          } else {
            while (p < line.size() && IsBlank(line[p])) ++p;
          }
          doc = line.substr(p);
        }
        st.has_help = true;
        f.help = doc.find('\\') == std::string_view::npos ? doc : Own(Unescape(doc));
        break;
      }
      case kType: {
        if (st.has_type) {
          Error(hash, fmt::format("second TYPE line for {}", name));
          return;
        }
        if (!Separator(line, p, "the metric type")) return;
        size_t type_col = p;
        std::string_view t = Token(line, p);
        std::optional<MetricType> type = ParseType(t);
        if (!type) {
          Error(type_col, fmt::format("unknown metric type \"{}\"", t));
          return;
        }
        size_t r = p;
        while (r < line.size() && IsBlank(line[r])) ++r;
        if (r < line.size() || (om_ && p < line.size())) {
          Error(p, "unexpected text after the metric type");
          return;
        }
        if (om_ && st.has_unit && (*type == MetricType::kInfo || *type == MetricType::kStateset)) {
          Error(type_col, fmt::format("{} metrics cannot have a unit", t));
          return;
        }
        st.has_type = true;
        f.type = *type;
        break;
      }
      case kUnit: {
        if (st.has_unit) {
          Error(hash, fmt::format("second UNIT line for {}", name));
          return;
        }
        std::string_view unit;
        if (p < line.size()) {
          ++p;
          unit = line.substr(p);
        }
        if (unit.find(' ') != std::string_view::npos || unit.find('\t') != std::string_view::npos) {
          Error(p, "unit must be a single token");
          return;
        }
        if (!unit.empty() &&
            (name.size() < unit.size() + 1 || name.substr(name.size() - unit.size()) != unit ||
             name[name.size() - unit.size() - 1] != '_')) {
          Error(p, fmt::format("metric name {} must end with its unit _{}", name, unit));
          return;
        }
        if (st.has_type && (f.type == MetricType::kInfo || f.type == MetricType::kStateset)) {
          Error(hash, fmt::format("{} metrics cannot have a unit", MetricTypeName(f.type)));
          return;
        }
        st.has_unit = true;
        f.unit = unit;
        break;
      }
    }
    SwitchTo(fam);
  }

  // OpenMetrics: a TYPE whose sample names would collide with another family's name (e.g.
  // counter "a" owns "a_created", so a gauge "a_created" clashes).
  bool ClashesWithFamily(std::string_view name, std::string_view line, size_t p) {
    size_t q = p;
    while (q < line.size() && IsBlank(line[q])) ++q;
    size_t r = q;
    std::string_view t = Token(line, r);
    std::optional<MetricType> type = ParseType(t);
    if (!type) return false;
    SuffixRule rule = SuffixesFor(*type, om_);
    for (std::string_view suffix : rule.suffixes) {
      std::string owned = std::string(name) + std::string(suffix);
      if (family_by_name_.count(owned)) {
        Error(0, fmt::format("{} {} clashes with family {}", t, name, owned));
        return true;
      }
    }
    for (const auto& [other, idx] : family_by_name_) {
      const Family& f = out_.families[idx];
      if (other != name && OwnedSuffix(f.name, f.type, om_, name)) {
        Error(0, fmt::format("{} clashes with the samples of {} {}", name, MetricTypeName(f.type),
                             f.name));
        return true;
      }
    }
    return false;
  }

  std::optional<MetricType> ParseType(std::string_view t) const {
    if (t == "counter") return MetricType::kCounter;
    if (t == "gauge") return MetricType::kGauge;
    if (t == "histogram") return MetricType::kHistogram;
    if (t == "summary") return MetricType::kSummary;
    if (!om_) {
      if (t == "untyped") return MetricType::kUntyped;
      return std::nullopt;
    }
    if (t == "gaugehistogram") return MetricType::kGaugeHistogram;
    if (t == "stateset") return MetricType::kStateset;
    if (t == "info") return MetricType::kInfo;
    if (t == "unknown") return MetricType::kUnknown;
    return std::nullopt;
  }

  uint32_t FindOrCreateFamily(std::string_view name) {
    auto it = family_by_name_.find(name);
    if (it != family_by_name_.end()) return it->second;
    uint32_t idx = static_cast<uint32_t>(out_.families.size());
    Family f;
    f.name = name;
    f.line = line_no_;
    out_.families.push_back(f);
    state_.push_back({});
    family_by_name_.emplace(name, idx);
    return idx;
  }

  uint32_t ReopenFamily(uint32_t fam) {
    Family copy = out_.families[fam];
    copy.sample_count = 0;
    copy.line = line_no_;
    uint32_t idx = static_cast<uint32_t>(out_.families.size());
    out_.families.push_back(copy);
    FamilyState st = state_[fam];
    st.closed = false;
    state_.push_back(st);
    family_by_name_[copy.name] = idx;
    return idx;
  }

  // Makes `fam` the current family; validates and closes the previous one.
  void SwitchTo(uint32_t fam) {
    if (current_ == static_cast<int64_t>(fam)) return;
    CloseCurrentFamily();
    current_ = fam;
  }

  void CloseCurrentFamily() {
    if (current_ < 0) return;
    Family& f = out_.families[current_];
    if (f.sample_count > 0) {
      state_[current_].closed = true;
      ValidateFamily(f);
    }
    current_ = -1;
  }

  // The family owning sample name `name`, creating an untyped one if none does. Sets *suffix.
  uint32_t ResolveFamily(std::string_view name, std::string_view* suffix, bool* bad_suffix) {
    *bad_suffix = false;
    if (current_ >= 0) {
      const Family& f = out_.families[current_];
      if (auto s = OwnedSuffix(f.name, f.type, om_, name)) {
        *suffix = *s;
        return static_cast<uint32_t>(current_);
      }
    }
    auto it = family_by_name_.find(name);
    if (it != family_by_name_.end()) {
      const Family& f = out_.families[it->second];
      if (auto s = OwnedSuffix(f.name, f.type, om_, name)) {
        *suffix = *s;
        return it->second;
      }
    }
    static constexpr std::string_view kSuffixes[] = {"_bucket",  "_count",  "_sum",  "_total",
                                                     "_created", "_gcount", "_gsum", "_info"};
    for (std::string_view s : kSuffixes) {
      if (name.size() > s.size() && name.substr(name.size() - s.size()) == s) {
        auto base = family_by_name_.find(name.substr(0, name.size() - s.size()));
        if (base != family_by_name_.end()) {
          const Family& f = out_.families[base->second];
          if (OwnedSuffix(f.name, f.type, om_, name)) {
            *suffix = s;
            return base->second;
          }
        }
      }
    }
    if (it != family_by_name_.end()) {
      // The name is a declared family whose type does not allow a bare sample name.
      *bad_suffix = true;
      return it->second;
    }
    *suffix = "";
    return FindOrCreateFamily(name);
  }

  void ParseSample(std::string_view line, size_t p) {
    const size_t name_col = p;
    size_t q = p;
    while (q < line.size() && IsMetricNameChar(line[q])) ++q;
    std::string_view name = line.substr(p, q - p);
    if (name.empty() || !IsMetricNameStart(name[0])) {
      Error(name_col, "expected a metric name");
      return;
    }
    p = q;
    const uint32_t label_begin = static_cast<uint32_t>(out_.labels.size());
    auto fail = [&](size_t col, std::string msg) {
      out_.labels.resize(label_begin);
      Error(col, std::move(msg));
    };
    const size_t name_end = p;
    if (!om_) {
      while (p < line.size() && IsBlank(line[p])) ++p;
    }
    if (p < line.size() && line[p] == '{') {
      if (!ParseLabels(line, p, label_begin, fail)) return;
      if (p >= line.size()) {
        fail(p, fmt::format("missing value for {}", name));
        return;
      }
      if (!Separator(line, p, "the value")) {
        out_.labels.resize(label_begin);
        return;
      }
    } else if (p >= line.size()) {
      fail(p, fmt::format("missing value for {}", name));
      return;
    } else if (p == name_end && !IsBlank(line[p])) {
      fail(p, fmt::format("invalid character '{}' in metric name", line[p]));
      return;
    } else if (om_ && !Separator(line, p, "the value")) {
      return;
    }
    const size_t value_col = p;
    std::string_view value_tok = Token(line, p);
    if (value_tok.empty()) {
      fail(value_col, fmt::format("missing value for {}", name));
      return;
    }
    Sample s;
    if (!ParseNumber(value_tok, &s.value)) {
      fail(value_col, fmt::format("invalid value \"{}\"", value_tok));
      return;
    }
    // Timestamp and (OpenMetrics) exemplar.
    bool exemplar = false;
    size_t exemplar_col = 0;
    if (p < line.size()) {
      size_t before = p;
      if (!Separator(line, p, "the timestamp")) {
        out_.labels.resize(label_begin);
        return;
      }
      if (p >= line.size()) {
        if (om_) {
          fail(before, "trailing space after the value");
          return;
        }
      } else if (om_ && line[p] == '#') {
        exemplar = true;
        exemplar_col = p;
      } else {
        const size_t ts_col = p;
        std::string_view ts = Token(line, p);
        if (!ParseTimestamp(ts, &s.timestamp_ms)) {
          fail(ts_col, fmt::format("invalid timestamp \"{}\"", ts));
          return;
        }
        s.has_timestamp = true;
        if (p < line.size()) {
          size_t before_ex = p;
          if (!Separator(line, p, "the exemplar")) {
            out_.labels.resize(label_begin);
            return;
          }
          if (p >= line.size()) {
            if (om_) {
              fail(before_ex, "trailing space after the timestamp");
              return;
            }
          } else if (om_ && line[p] == '#') {
            exemplar = true;
            exemplar_col = p;
          } else {
            fail(p, "unexpected text after the timestamp");
            return;
          }
        }
      }
    }
    if (exemplar && !ParseExemplar(line, exemplar_col)) {
      out_.labels.resize(label_begin);
      return;
    }

    std::string_view suffix;
    bool bad_suffix = false;
    uint32_t fam = ResolveFamily(name, &suffix, &bad_suffix);
    Family& f = out_.families[fam];
    if (bad_suffix) {
      fail(name_col, fmt::format("sample {} is not a valid sample name for {} {}", name,
                                 MetricTypeName(f.type), f.name));
      return;
    }
    if (static_cast<int64_t>(fam) != current_ && state_[fam].closed) {
      if (om_) {
        fail(name_col,
             fmt::format("samples of {} are not contiguous (the family started at line {})", f.name,
                         f.line));
        return;
      }
      // 0.0.4 asks for one group per family, but Prometheus ingests split groups and real
      // exporter output has them (a100-mig-excerpt.prom), so keep the samples: the family
      // continues as a second Family record with the same name and metadata.
      fam = ReopenFamily(fam);
    }
    Family& fam_ref = out_.families[fam];
    if (exemplar && !ExemplarAllowed(fam_ref.type, suffix)) {
      fail(exemplar_col, fmt::format("exemplars are not allowed on {} samples of a {}", name,
                                     MetricTypeName(fam_ref.type)));
      return;
    }
    SwitchTo(fam);
    if (fam_ref.sample_count == 0) {
      fam_ref.sample_begin = static_cast<uint32_t>(out_.samples.size());
      if (fam_ref.line == 0) fam_ref.line = line_no_;
    }
    ++fam_ref.sample_count;
    s.name = name;
    s.family = fam;
    s.label_begin = label_begin;
    s.label_count = static_cast<uint32_t>(out_.labels.size()) - label_begin;
    s.line = line_no_;
    out_.samples.push_back(s);
  }

  static bool ExemplarAllowed(MetricType type, std::string_view suffix) {
    if (type == MetricType::kCounter) return suffix == "_total";
    if (type == MetricType::kHistogram || type == MetricType::kGaugeHistogram) {
      return suffix == "_bucket";
    }
    return false;
  }

  bool ParseTimestamp(std::string_view ts, int64_t* ms) const {
    if (!om_) return ParseInt64(ts, ms);
    double seconds = 0;
    if (!ParseNumber(ts, &seconds) || !std::isfinite(seconds)) return false;
    if (!IsDigit(ts[0]) && ts[0] != '-' && ts[0] != '+') return false;
    double v = std::round(seconds * 1000.0);
    // Saturate: OpenMetrics allows timestamps far past what int64 milliseconds can hold.
    if (v >= 9.2e18) {
      *ms = std::numeric_limits<int64_t>::max();
    } else if (v <= -9.2e18) {
      *ms = std::numeric_limits<int64_t>::min();
    } else {
      *ms = static_cast<int64_t>(v);
    }
    return true;
  }

  // `{ label="v", ... }` from line[p] == '{'; appends to out_.labels; on success p is past '}'.
  template <typename Fail>
  bool ParseLabels(std::string_view line, size_t& p, uint32_t label_begin, Fail& fail) {
    ++p;  // '{'
    bool after_comma = false;
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
      size_t name_col = p;
      size_t q = p;
      while (q < line.size() && IsLabelNameChar(line[q])) ++q;
      std::string_view lname = line.substr(p, q - p);
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
      ++p;
      size_t vstart = p;
      bool escaped = false;
      while (p < line.size() && line[p] != '"') {
        if (line[p] == '\\') {
          escaped = true;
          ++p;
        }
        ++p;
      }
      if (p >= line.size()) {
        fail(vstart - 1, fmt::format("unterminated value of label {}", lname));
        return false;
      }
      std::string_view raw = line.substr(vstart, p - vstart);
      ++p;  // Closing quote.
      for (uint32_t i = label_begin; i < out_.labels.size(); ++i) {
        if (out_.labels[i].name == lname) {
          fail(name_col, fmt::format("duplicate label {}", lname));
          return false;
        }
      }
      if (lname == "__name__") {
        fail(name_col, "label name __name__ is reserved");
        return false;
      }
      out_.labels.push_back(Label{lname, escaped ? Own(Unescape(raw)) : raw});
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

  // OpenMetrics exemplar: `# {labels} value [timestamp]` at line[p] == '#'.
  bool ParseExemplar(std::string_view line, size_t p) {
    ++p;
    if (p >= line.size() || line[p] != ' ') {
      Error(p, "expected one space after the exemplar '#'");
      return false;
    }
    ++p;
    if (p >= line.size() || line[p] != '{') {
      Error(p, "expected '{' to open the exemplar's labels");
      return false;
    }
    uint32_t begin = static_cast<uint32_t>(out_.labels.size());
    bool failed = false;
    auto fail = [&](size_t col, std::string msg) {
      out_.labels.resize(begin);
      Error(col, std::move(msg));
      failed = true;
    };
    size_t open = p;
    if (!ParseLabels(line, p, begin, fail)) return false;
    size_t runes = 0;
    for (uint32_t i = begin; i < out_.labels.size(); ++i) {
      for (std::string_view s : {out_.labels[i].name, out_.labels[i].value}) {
        for (char c : s) runes += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      }
    }
    out_.labels.resize(begin);  // Exemplar labels are validated, not kept.
    if (runes > 128) {
      Error(open, "exemplar label set exceeds 128 characters");
      return false;
    }
    if (!Separator(line, p, "the exemplar value")) return false;
    size_t vcol = p;
    std::string_view v = Token(line, p);
    double value = 0;
    if (!ParseNumber(v, &value)) {
      Error(vcol, fmt::format("invalid exemplar value \"{}\"", v));
      return false;
    }
    if (p < line.size()) {
      if (!Separator(line, p, "the exemplar timestamp")) return false;
      size_t tcol = p;
      std::string_view ts = Token(line, p);
      int64_t ms = 0;
      if (!ParseTimestamp(ts, &ms)) {
        Error(tcol, fmt::format("invalid exemplar timestamp \"{}\"", ts));
        return false;
      }
      if (p < line.size()) {
        Error(p, "unexpected text after the exemplar");
        return false;
      }
    }
    return !failed;
  }

  // Family-level rules checked when a family's group of lines ends. The samples stay; the
  // errors point at the offending sample's line.
  void ValidateFamily(const Family& f) {
    switch (f.type) {
      case MetricType::kHistogram:
      case MetricType::kGaugeHistogram:
        ValidateHistogram(f);
        break;
      case MetricType::kSummary:
        ValidateSummary(f);
        break;
      default:
        break;
    }
    if (om_) ValidateOpenMetricsValues(f);
  }

  // Labels other than `skip`, as a grouping key.
  std::string GroupKey(const Sample& s, std::string_view skip) const {
    std::string key;
    for (const Label& l : out_.LabelsOf(s)) {
      if (l.name == skip) continue;
      key.append(l.name);
      key.push_back('\x01');
      key.append(l.value);
      key.push_back('\x02');
    }
    return key;
  }

  std::string_view SuffixOf(const Family& f, const Sample& s) const {
    return s.name.substr(f.name.size());
  }

  void ValidateHistogram(const Family& f) {
    struct Group {
      int first_line = 0;
      double last_le = -std::numeric_limits<double>::infinity();
      double last_count = -std::numeric_limits<double>::infinity();
      bool any_bucket = false;
      bool has_inf = false;
      double inf_value = 0;
      bool has_count = false;
      double count = 0;
      int count_line = 0;
    };
    std::map<std::string, Group> groups;
    const std::string_view count_suffix =
        f.type == MetricType::kGaugeHistogram ? "_gcount" : "_count";
    for (uint32_t i = f.sample_begin; i < f.sample_begin + f.sample_count; ++i) {
      const Sample& s = out_.samples[i];
      std::string_view suffix = SuffixOf(f, s);
      Group& g = groups[GroupKey(s, "le")];
      if (g.first_line == 0) g.first_line = s.line;
      if (suffix == "_bucket") {
        std::string_view le_text;
        bool has_le = false;
        for (const Label& l : out_.LabelsOf(s)) {
          if (l.name == "le") {
            le_text = l.value;
            has_le = true;
          }
        }
        double le = 0;
        if (!has_le) {
          ErrorAt(s.line, 1, fmt::format("{} bucket without an le label", f.name));
          continue;
        }
        if (!ParseNumber(le_text, &le) || std::isnan(le)) {
          ErrorAt(s.line, 1, fmt::format("le=\"{}\" is not a number", le_text));
          continue;
        }
        if (om_ && std::isinf(le) && le_text != "+Inf") {
          ErrorAt(s.line, 1, fmt::format("le=\"{}\" must be written +Inf", le_text));
          continue;
        }
        if (g.any_bucket && le <= g.last_le) {
          ErrorAt(s.line, 1, fmt::format("{} buckets are not in increasing le order", f.name));
        }
        if (g.any_bucket && s.value < g.last_count) {
          ErrorAt(s.line, 1,
                  fmt::format("{} bucket counts decrease (buckets are cumulative)", f.name));
        }
        if (om_ && g.has_count) {
          ErrorAt(s.line, 1, fmt::format("{} bucket after its {}", f.name, count_suffix));
        }
        g.any_bucket = true;
        g.last_le = le;
        g.last_count = s.value;
        if (std::isinf(le) && le > 0) {
          g.has_inf = true;
          g.inf_value = s.value;
        }
      } else if (suffix == count_suffix) {
        g.has_count = true;
        g.count = s.value;
        g.count_line = s.line;
      }
    }
    for (const auto& [key, g] : groups) {
      if (!g.has_inf) {
        ErrorAt(g.first_line, 1, fmt::format("{} has no le=\"+Inf\" bucket", f.name));
      } else if (g.has_count && g.count != g.inf_value) {
        ErrorAt(g.count_line, 1,
                fmt::format("{}{} is {} but the le=\"+Inf\" bucket is {}", f.name, count_suffix,
                            g.count, g.inf_value));
      }
    }
  }

  void ValidateSummary(const Family& f) {
    std::map<std::string, double> last_quantile;
    for (uint32_t i = f.sample_begin; i < f.sample_begin + f.sample_count; ++i) {
      const Sample& s = out_.samples[i];
      if (!SuffixOf(f, s).empty()) continue;
      std::string_view q_text;
      bool has_q = false;
      for (const Label& l : out_.LabelsOf(s)) {
        if (l.name == "quantile") {
          q_text = l.value;
          has_q = true;
        }
      }
      if (!has_q) {
        ErrorAt(s.line, 1, fmt::format("summary {} sample without a quantile label", f.name));
        continue;
      }
      double q = 0;
      if (!ParseNumber(q_text, &q)) {
        ErrorAt(s.line, 1, fmt::format("quantile=\"{}\" is not a number", q_text));
        continue;
      }
      if (om_ && !(q >= 0 && q <= 1)) {
        ErrorAt(s.line, 1, fmt::format("quantile=\"{}\" is outside [0, 1]", q_text));
        continue;
      }
      std::string key = GroupKey(s, "quantile");
      auto it = last_quantile.find(key);
      if (it != last_quantile.end() && !(q > it->second)) {
        ErrorAt(s.line, 1, fmt::format("{} quantiles are not in increasing order", f.name));
      }
      last_quantile[key] = q;
    }
  }

  // OpenMetrics value and ordering rules (specification "Metric types" and "MetricPoint"):
  // counter-like values are non-negative and not NaN; _sum is non-negative unless a histogram
  // has negative buckets, in which case a histogram has no _sum at all; _sum and _count come
  // together; info values are 1 and stateset values 0 or 1; each Metric's samples are
  // contiguous; a repeated sample needs timestamps that never go backwards.
  void ValidateOpenMetricsValues(const Family& f) {
    struct MetricState {
      bool has_sum = false, has_count = false, negative_bucket = false;
      int first_line = 0;
      double sum = 0;
      int sum_line = 0;
    };
    struct SeriesState {
      bool has_ts = false;
      int64_t ts = 0;
    };
    std::map<std::string, MetricState> metrics;
    std::map<std::string, SeriesState> series;
    std::string prev_key;
    const bool hist = f.type == MetricType::kHistogram || f.type == MetricType::kGaugeHistogram;
    const std::string_view sum_suffix = f.type == MetricType::kGaugeHistogram ? "_gsum" : "_sum";
    const std::string_view count_suffix =
        f.type == MetricType::kGaugeHistogram ? "_gcount" : "_count";
    std::string_view group_label =
        f.type == MetricType::kHistogram || f.type == MetricType::kGaugeHistogram
            ? std::string_view("le")
        : f.type == MetricType::kSummary  ? std::string_view("quantile")
        : f.type == MetricType::kStateset ? f.name
                                          : std::string_view();
    for (uint32_t i = f.sample_begin; i < f.sample_begin + f.sample_count; ++i) {
      const Sample& s = out_.samples[i];
      std::string_view suffix = SuffixOf(f, s);
      std::string key = GroupKey(s, group_label);
      bool is_new = !metrics.count(key);
      MetricState& m = metrics[key];
      if (is_new) {
        m.first_line = s.line;
      } else if (key != prev_key) {
        ErrorAt(s.line, 1, fmt::format("samples of one {} metric are not contiguous", f.name));
      }
      prev_key = key;
      std::string series_key = std::string(s.name) + '\x03' + GroupKey(s, {});
      auto [it, inserted] = series.try_emplace(series_key);
      if (!inserted) {
        if (!it->second.has_ts || !s.has_timestamp) {
          ErrorAt(s.line, 1, fmt::format("repeated sample of {} without timestamps", s.name));
        } else if (s.timestamp_ms < it->second.ts) {
          ErrorAt(s.line, 1, fmt::format("timestamps of {} go backwards", s.name));
        }
      }
      it->second.has_ts = s.has_timestamp;
      it->second.ts = s.timestamp_ms;

      bool counter_like = false;
      switch (f.type) {
        case MetricType::kCounter:
          counter_like = suffix == "_total";
          break;
        case MetricType::kHistogram:
        case MetricType::kGaugeHistogram:
          counter_like = suffix == "_bucket" || suffix == count_suffix;
          break;
        case MetricType::kSummary:
          counter_like = suffix == "_count";
          if (suffix.empty() && s.value < 0) {
            ErrorAt(s.line, 1, fmt::format("{} quantile value must not be negative", f.name));
          }
          break;
        case MetricType::kInfo:
          if (s.value != 1) ErrorAt(s.line, 1, "info metric value must be 1");
          break;
        case MetricType::kStateset:
          if (s.value != 0 && s.value != 1) ErrorAt(s.line, 1, "stateset value must be 0 or 1");
          if (!out_.HasLabel(s, f.name)) {
            ErrorAt(s.line, 1, fmt::format("stateset sample needs a {} label", f.name));
          }
          break;
        default:
          break;
      }
      if (counter_like && (std::isnan(s.value) || s.value < 0)) {
        ErrorAt(s.line, 1, fmt::format("{} value must be a non-negative number", s.name));
      }
      if (hist && suffix == "_bucket") {
        std::string_view le = out_.LabelValue(s, "le");
        double v = 0;
        if (ParseNumber(le, &v) && v < 0) m.negative_bucket = true;
      }
      if ((hist || f.type == MetricType::kSummary) && suffix == sum_suffix) {
        m.has_sum = true;
        m.sum = s.value;
        m.sum_line = s.line;
      }
      if ((hist || f.type == MetricType::kSummary) && suffix == count_suffix) m.has_count = true;
    }
    if (!hist && f.type != MetricType::kSummary) return;
    for (const auto& [key, m] : metrics) {
      if (m.has_sum != m.has_count) {
        ErrorAt(m.first_line, 1,
                fmt::format("{} has {} without {}", f.name, m.has_sum ? sum_suffix : count_suffix,
                            m.has_sum ? count_suffix : sum_suffix));
      }
      if (!m.has_sum) continue;
      if (f.type == MetricType::kHistogram && m.negative_bucket) {
        ErrorAt(m.sum_line, 1,
                fmt::format("{} has negative buckets, so it must not have _sum", f.name));
      } else if (!m.negative_bucket && (std::isnan(m.sum) || m.sum < 0)) {
        ErrorAt(m.sum_line, 1,
                fmt::format("{}{} must be a non-negative number", f.name, sum_suffix));
      }
    }
  }

  std::string_view text_;
  const ParseOptions& options_;
  Scrape& out_;
  bool om_ = false;
  int line_no_ = 0;
  int64_t current_ = -1;
  std::vector<FamilyState> state_;
  std::unordered_map<std::string_view, uint32_t> family_by_name_;
};

}  // namespace

void AppendEscapedLabelValue(std::string& out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out.push_back(c);
    }
  }
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  AppendEscapedLabelValue(out, value);
  return out;
}

Scrape ParseExposition(std::string_view text, const ParseOptions& options) {
  Scrape scrape;
  Parser(text, options, scrape).Run();
  return scrape;
}

Scrape ParseExpositionOwned(std::string text, const ParseOptions& options) {
  auto owned = std::make_unique<std::string>(std::move(text));
  Scrape scrape = ParseExposition(*owned, options);
  scrape.owned_text = std::move(owned);
  return scrape;
}

}  // namespace steward::telemetry
