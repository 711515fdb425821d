// The exposition parser: a hand-written, line-at-a-time scanner over string_views.
//
// Rules and their sources (docs/telemetry.md has the full list):
//  - Prometheus text 0.0.4: prometheus/docs content/docs/instrumenting/exposition_formats.md
//    (blanks/tabs between tokens, empty lines ignored, "# HELP name doc", "# TYPE name type" once
//    per name and before its first sample, a family's lines contiguous), and what Prometheus 3's
//    parsers accept: prometheus/prometheus model/textparse/promlex.l + promparse.go (the scrape
//    parser: quoted UTF-8 names inside the braces and in metadata, quoted label names) and
//    prometheus/common expfmt/text_parse.go (also a quoted name before the braces).
//  - OpenMetrics 1.0: OpenObservability/OpenMetrics specification/OpenMetrics.md (# EOF, # UNIT,
//    exactly one space between tokens, no blank lines, the extra types, exemplars, float seconds
//    timestamps, counters' _total suffix), with quoted names as Prometheus' OpenMetrics parser
//    (model/textparse/openmetricslex.l, openmetricsparse.go) reads them.
#include "telemetry/exposition_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

#include "telemetry/exposition_checks.h"
#include "telemetry/exposition_errors.h"
#include "telemetry/exposition_labels.h"
#include "telemetry/exposition_syntax.h"
#include "telemetry/exposition_types.h"

namespace steward::telemetry::expo {
namespace {

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options, Scrape& out)
      : text_(text),
        options_(options),
        out_(out),
        om_(ResolveDialect(text, options.dialect) == Dialect::kOpenMetrics),
        errors_(out, options.max_kept_errors),
        labels_(om_, out, &work_.label_name_compares) {}

  void Run() {
    out_.dialect = om_ ? Dialect::kOpenMetrics : Dialect::kPrometheusText;
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

  const ParseWork& work() const { return work_; }

 private:
  struct FamilyState {
    bool has_type = false;
    bool has_help = false;
    bool has_unit = false;
    bool closed = false;  // Had samples, then another family started.
  };

  // kAuto: OpenMetrics if the input's last line is "# EOF".
  static Dialect ResolveDialect(std::string_view text, Dialect d) {
    if (d != Dialect::kAuto) return d;
    std::string_view t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.remove_suffix(1);
    size_t nl = t.rfind('\n');
    std::string_view last = nl == std::string_view::npos ? t : t.substr(nl + 1);
    return last == "# EOF" ? Dialect::kOpenMetrics : Dialect::kPrometheusText;
  }

  void Error(size_t col0, std::string message) {
    errors_.At(line_no_, static_cast<int>(col0) + 1, std::move(message));
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
    const size_t name_col = p;
    std::string_view name;
    if (p < line.size() && line[p] == '"') {
      // A quoted UTF-8 name: `# TYPE "my.metric" counter` (promlex.l sMeta1).
      SyntaxError err;
      if (!labels_.ReadQuotedName(line, p, &name, &err)) {
        Error(err.column, std::move(err.message));
        return;
      }
    } else {
      size_t q = p;
      while (q < line.size() && IsMetricNameChar(line[q])) ++q;
      name = line.substr(p, q - p);
      if (name.empty() || !IsMetricNameStart(name[0])) {
        Error(name_col, fmt::format("expected a metric name after \"# {}\"", keyword));
        return;
      }
      p = q;
    }
    if (p < line.size() && !IsBlank(line[p])) {
      Error(p, line[name_col] == '"'
                   ? std::string("expected a blank after the quoted metric name")
                   : fmt::format("invalid character '{}' in metric name", line[p]));
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
        // Both Prometheus parsers refuse a HELP text that is not UTF-8 (promparse.go).
        if (!IsValidUtf8(doc)) {
          Error(p, fmt::format("HELP text of {} is not valid UTF-8", name));
          return;
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
        std::optional<MetricType> type = ParseMetricType(t, om_);
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

  // The family named exactly `name`, if any.
  const uint32_t* FindFamily(std::string_view name) {
    ++work_.family_probes;
    auto it = family_by_name_.find(name);
    return it == family_by_name_.end() ? nullptr : &it->second;
  }

  // OpenMetrics: a TYPE whose sample names would collide with another family's name (e.g.
  // counter "a" owns "a_created", so a gauge "a_created" clashes). A constant number of lookups:
  // the new family's own suffixed names, and the base names `name` could be a suffix of.
  bool ClashesWithFamily(std::string_view name, std::string_view line, size_t p) {
    size_t q = p;
    while (q < line.size() && IsBlank(line[q])) ++q;
    size_t r = q;
    std::string_view t = Token(line, r);
    std::optional<MetricType> type = ParseMetricType(t, om_);
    if (!type) return false;
    for (std::string_view suffix : SuffixesFor(*type, om_).suffixes) {
      scratch_.assign(name);
      scratch_.append(suffix);
      if (FindFamily(scratch_)) {
        Error(0, fmt::format("{} {} clashes with family {}", t, name, scratch_));
        return true;
      }
    }
    for (std::string_view suffix : AllSuffixes()) {
      if (name.size() <= suffix.size() || name.substr(name.size() - suffix.size()) != suffix) {
        continue;
      }
      const uint32_t* other = FindFamily(name.substr(0, name.size() - suffix.size()));
      if (!other) continue;
      const Family& f = out_.families[*other];
      if (OwnedSuffix(f.name, f.type, om_, name)) {
        Error(0, fmt::format("{} clashes with the samples of {} {}", name, MetricTypeName(f.type),
                             f.name));
        return true;
      }
    }
    return false;
  }

  uint32_t FindOrCreateFamily(std::string_view name) {
    if (const uint32_t* idx = FindFamily(name)) return *idx;
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
      CheckFamily(out_, f, om_, errors_);
    }
    current_ = -1;
  }

  // The family owning sample name `name`, creating an untyped one if none does. Sets *suffix.
  uint32_t ResolveFamily(std::string_view name, std::string_view* suffix, bool* bad_suffix) {
    *bad_suffix = false;
    if (current_ >= 0) {
      ++work_.family_probes;
      const Family& f = out_.families[current_];
      if (auto s = OwnedSuffix(f.name, f.type, om_, name)) {
        *suffix = *s;
        return static_cast<uint32_t>(current_);
      }
    }
    const uint32_t* exact = FindFamily(name);
    if (exact) {
      const Family& f = out_.families[*exact];
      if (auto s = OwnedSuffix(f.name, f.type, om_, name)) {
        *suffix = *s;
        return *exact;
      }
    }
    for (std::string_view s : AllSuffixes()) {
      if (name.size() > s.size() && name.substr(name.size() - s.size()) == s) {
        if (const uint32_t* base = FindFamily(name.substr(0, name.size() - s.size()))) {
          const Family& f = out_.families[*base];
          if (OwnedSuffix(f.name, f.type, om_, name)) {
            *suffix = s;
            return *base;
          }
        }
      }
    }
    if (exact) {
      // The name is a declared family whose type does not allow a bare sample name.
      *bad_suffix = true;
      return *exact;
    }
    *suffix = "";
    return FindOrCreateFamily(name);
  }

  void ParseSample(std::string_view line, size_t p) {
    const size_t name_col = p;
    const uint32_t label_begin = static_cast<uint32_t>(out_.labels.size());
    auto fail = [&](size_t col, std::string msg) {
      out_.labels.resize(label_begin);
      Error(col, std::move(msg));
    };
    std::string_view name;
    bool quoted_name = false;
    if (line[p] == '"') {
      // `"my.metric"{...}`: prometheus/common expfmt reads a quoted name before the braces;
      // Prometheus' OpenMetrics parser (and the OpenMetrics 2.0 ABNF) only inside them.
      if (om_) {
        Error(p, "a quoted metric name goes inside the braces: {\"name\", ...}");
        return;
      }
      SyntaxError err;
      if (!labels_.ReadQuotedName(line, p, &name, &err)) {
        fail(err.column, std::move(err.message));
        return;
      }
      quoted_name = true;
    } else if (line[p] != '{') {
      size_t q = p;
      while (q < line.size() && IsMetricNameChar(line[q])) ++q;
      name = line.substr(p, q - p);
      if (name.empty() || !IsMetricNameStart(name[0])) {
        Error(name_col, "expected a metric name");
        return;
      }
      p = q;
    }
    const size_t name_end = p;
    if (!om_) {
      while (p < line.size() && IsBlank(line[p])) ++p;
    }
    if (p < line.size() && line[p] == '{') {
      SyntaxError err;
      if (!labels_.ReadSet(line, p, label_begin, &name, &err)) {
        fail(err.column, std::move(err.message));
        return;
      }
      if (name.empty()) {
        fail(name_col,
             "no metric name: a label set without a name before it needs a quoted name "
             "inside it, {\"name\", ...}");
        return;
      }
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
      fail(p, quoted_name ? std::string("expected '{' or a blank after the quoted metric name")
                          : fmt::format("invalid character '{}' in metric name", line[p]));
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

  // 0.0.4: milliseconds as Go's strconv.ParseInt (expfmt; the format's own example has a
  // negative one). OpenMetrics: seconds as a "realnumber" (no NaN or Inf), kept as milliseconds.
  bool ParseTimestamp(std::string_view ts, int64_t* ms) const {
    if (!om_) return ParseInt64(ts, ms);
    double seconds = 0;
    if (!ParseRealNumber(ts, &seconds)) return false;
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
    size_t open = p;
    SyntaxError err;
    if (!labels_.ReadSet(line, p, begin, nullptr, &err)) {
      out_.labels.resize(begin);
      Error(err.column, std::move(err.message));
      return false;
    }
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
    return true;
  }

  std::string_view text_;
  const ParseOptions& options_;
  Scrape& out_;
  const bool om_;
  ErrorSink errors_;
  ParseWork work_;
  LabelReader labels_;
  int line_no_ = 0;
  int64_t current_ = -1;
  std::vector<FamilyState> state_;
  std::unordered_map<std::string_view, uint32_t> family_by_name_;
  std::string scratch_;  // Reused for suffixed names in clash lookups.
};

}  // namespace

void RunParser(std::string_view text, const ParseOptions& options, Scrape& out, ParseWork* work) {
  Parser parser(text, options, out);
  parser.Run();
  if (work) *work = parser.work();
}

}  // namespace steward::telemetry::expo
