#include "telemetry/exposition_checks.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "telemetry/exposition_syntax.h"

namespace steward::telemetry::expo {
namespace {

class FamilyChecker {
 public:
  FamilyChecker(const Scrape& scrape, const Family& f, bool om, ErrorSink& errors)
      : s_(scrape), f_(f), om_(om), errors_(errors) {}

  void Run() {
    switch (f_.type) {
      case MetricType::kHistogram:
      case MetricType::kGaugeHistogram:
        CheckHistogram();
        break;
      case MetricType::kSummary:
        CheckSummary();
        break;
      default:
        break;
    }
    if (om_) CheckOpenMetricsValues();
  }

 private:
  void Error(const Sample& s, std::string message) { errors_.At(s.line, 1, std::move(message)); }

  std::string_view SuffixOf(const Sample& s) const { return s.name.substr(f_.name.size()); }

  // Labels other than `skip`, as a grouping key.
  std::string GroupKey(const Sample& s, std::string_view skip) const {
    std::string key;
    for (const Label& l : s_.LabelsOf(s)) {
      if (l.name == skip) continue;
      key.append(l.name);
      key.push_back('\x01');
      key.append(l.value);
      key.push_back('\x02');
    }
    return key;
  }

  // A gauge histogram's count is _gcount in OpenMetrics, _count in 0.0.4 (expfmt).
  std::string_view CountSuffix() const {
    return om_ && f_.type == MetricType::kGaugeHistogram ? "_gcount" : "_count";
  }
  std::string_view SumSuffix() const {
    return om_ && f_.type == MetricType::kGaugeHistogram ? "_gsum" : "_sum";
  }

  void CheckHistogram() {
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
    const std::string_view count_suffix = CountSuffix();
    for (uint32_t i = f_.sample_begin; i < f_.sample_begin + f_.sample_count; ++i) {
      const Sample& s = s_.samples[i];
      std::string_view suffix = SuffixOf(s);
      Group& g = groups[GroupKey(s, "le")];
      if (g.first_line == 0) g.first_line = s.line;
      if (suffix == "_bucket") {
        std::string_view le_text;
        bool has_le = false;
        for (const Label& l : s_.LabelsOf(s)) {
          if (l.name == "le") {
            le_text = l.value;
            has_le = true;
          }
        }
        double le = 0;
        if (!has_le) {
          Error(s, fmt::format("{} bucket without an le label", f_.name));
          continue;
        }
        if (!ParseNumber(le_text, &le) || std::isnan(le)) {
          Error(s, fmt::format("le=\"{}\" is not a number", le_text));
          continue;
        }
        if (om_ && std::isinf(le) && le_text != "+Inf") {
          Error(s, fmt::format("le=\"{}\" must be written +Inf", le_text));
          continue;
        }
        if (g.any_bucket && le <= g.last_le) {
          Error(s, fmt::format("{} buckets are not in increasing le order", f_.name));
        }
        if (g.any_bucket && s.value < g.last_count) {
          Error(s, fmt::format("{} bucket counts decrease (buckets are cumulative)", f_.name));
        }
        if (om_ && g.has_count) {
          Error(s, fmt::format("{} bucket after its {}", f_.name, count_suffix));
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
        errors_.At(g.first_line, 1, fmt::format("{} has no le=\"+Inf\" bucket", f_.name));
      } else if (g.has_count && g.count != g.inf_value) {
        errors_.At(g.count_line, 1,
                   fmt::format("{}{} is {} but the le=\"+Inf\" bucket is {}", f_.name, count_suffix,
                               g.count, g.inf_value));
      }
    }
  }

  void CheckSummary() {
    std::map<std::string, double> last_quantile;
    for (uint32_t i = f_.sample_begin; i < f_.sample_begin + f_.sample_count; ++i) {
      const Sample& s = s_.samples[i];
      if (!SuffixOf(s).empty()) continue;
      std::string_view q_text;
      bool has_q = false;
      for (const Label& l : s_.LabelsOf(s)) {
        if (l.name == "quantile") {
          q_text = l.value;
          has_q = true;
        }
      }
      if (!has_q) {
        Error(s, fmt::format("summary {} sample without a quantile label", f_.name));
        continue;
      }
      double q = 0;
      if (!ParseNumber(q_text, &q)) {
        Error(s, fmt::format("quantile=\"{}\" is not a number", q_text));
        continue;
      }
      if (om_) {
        // OpenMetrics: "Quantiles MAY be in any order" but "MUST be between 0 and 1". A repeated
        // quantile is a repeated sample (CheckOpenMetricsValues).
        if (!(q >= 0 && q <= 1)) {
          Error(s, fmt::format("quantile=\"{}\" is outside [0, 1]", q_text));
        }
        continue;
      }
      // 0.0.4: "the quantiles of a summary must appear in increasing numerical order".
      std::string key = GroupKey(s, "quantile");
      auto it = last_quantile.find(key);
      if (it != last_quantile.end() && !(q > it->second)) {
        Error(s, fmt::format("{} quantiles are not in increasing order", f_.name));
      }
      last_quantile[key] = q;
    }
  }

  // OpenMetrics value and ordering rules (specification "Metric types" and "MetricPoint"):
  // counter-like values are non-negative and not NaN; histogram bucket and count values, gauge
  // histogram bucket values and summary counts are integers; _sum is non-negative unless a
  // histogram has negative buckets, in which case a histogram has no _sum at all; _sum and
  // _count come together; info values are 1 and stateset values 0 or 1; each Metric's samples
  // are contiguous; a repeated sample needs timestamps that never go backwards.
  void CheckOpenMetricsValues() {
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
    const bool hist = f_.type == MetricType::kHistogram || f_.type == MetricType::kGaugeHistogram;
    const std::string_view sum_suffix = SumSuffix();
    const std::string_view count_suffix = CountSuffix();
    std::string_view group_label = hist                               ? std::string_view("le")
                                   : f_.type == MetricType::kSummary  ? std::string_view("quantile")
                                   : f_.type == MetricType::kStateset ? f_.name
                                                                      : std::string_view();
    for (uint32_t i = f_.sample_begin; i < f_.sample_begin + f_.sample_count; ++i) {
      const Sample& s = s_.samples[i];
      std::string_view suffix = SuffixOf(s);
      std::string key = GroupKey(s, group_label);
      bool is_new = !metrics.count(key);
      MetricState& m = metrics[key];
      if (is_new) {
        m.first_line = s.line;
      } else if (key != prev_key) {
        Error(s, fmt::format("samples of one {} metric are not contiguous", f_.name));
      }
      prev_key = key;
      std::string series_key = std::string(s.name) + '\x03' + GroupKey(s, {});
      auto [it, inserted] = series.try_emplace(series_key);
      if (!inserted) {
        if (!it->second.has_ts || !s.has_timestamp) {
          Error(s, fmt::format("repeated sample of {} without timestamps", s.name));
        } else if (s.timestamp_ms < it->second.ts) {
          Error(s, fmt::format("timestamps of {} go backwards", s.name));
        }
      }
      it->second.has_ts = s.has_timestamp;
      it->second.ts = s.timestamp_ms;

      bool counter_like = false;
      bool integer = false;
      switch (f_.type) {
        case MetricType::kCounter:
          counter_like = suffix == "_total";
          break;
        case MetricType::kHistogram:
          counter_like = suffix == "_bucket" || suffix == count_suffix;
          integer = counter_like;  // "Count and bucket values MUST be integers."
          break;
        case MetricType::kGaugeHistogram:
          counter_like = suffix == "_bucket" || suffix == count_suffix;
          integer = suffix == "_bucket";  // "Bucket values MUST be integers."
          break;
        case MetricType::kSummary:
          counter_like = suffix == "_count";
          integer = counter_like;  // "Count MUST be an integer."
          if (suffix.empty() && s.value < 0) {
            Error(s, fmt::format("{} quantile value must not be negative", f_.name));
          }
          break;
        case MetricType::kInfo:
          if (s.value != 1) Error(s, "info metric value must be 1");
          break;
        case MetricType::kStateset:
          if (s.value != 0 && s.value != 1) Error(s, "stateset value must be 0 or 1");
          if (!s_.HasLabel(s, f_.name)) {
            Error(s, fmt::format("stateset sample needs a {} label", f_.name));
          }
          break;
        default:
          break;
      }
      if (counter_like && (std::isnan(s.value) || s.value < 0)) {
        Error(s, fmt::format("{} value must be a non-negative number", s.name));
      } else if (integer && !(std::isfinite(s.value) && s.value == std::trunc(s.value))) {
        // An integral value may be written 17.0 (the specification's own examples do).
        Error(s, fmt::format("{} value must be an integer", s.name));
      }
      if (hist && suffix == "_bucket") {
        std::string_view le = s_.LabelValue(s, "le");
        double v = 0;
        if (ParseNumber(le, &v) && v < 0) m.negative_bucket = true;
      }
      if ((hist || f_.type == MetricType::kSummary) && suffix == sum_suffix) {
        m.has_sum = true;
        m.sum = s.value;
        m.sum_line = s.line;
      }
      if ((hist || f_.type == MetricType::kSummary) && suffix == count_suffix) m.has_count = true;
    }
    if (!hist && f_.type != MetricType::kSummary) return;
    for (const auto& [key, m] : metrics) {
      if (m.has_sum != m.has_count) {
        errors_.At(
            m.first_line, 1,
            fmt::format("{} has {} without {}", f_.name, m.has_sum ? sum_suffix : count_suffix,
                        m.has_sum ? count_suffix : sum_suffix));
      }
      if (!m.has_sum) continue;
      if (f_.type == MetricType::kHistogram && m.negative_bucket) {
        errors_.At(m.sum_line, 1,
                   fmt::format("{} has negative buckets, so it must not have _sum", f_.name));
      } else if (!m.negative_bucket && (std::isnan(m.sum) || m.sum < 0)) {
        errors_.At(m.sum_line, 1,
                   fmt::format("{}{} must be a non-negative number", f_.name, sum_suffix));
      }
    }
  }

  const Scrape& s_;
  const Family& f_;
  bool om_;
  ErrorSink& errors_;
};

}  // namespace

void CheckFamily(const Scrape& scrape, const Family& family, bool om, ErrorSink& errors) {
  FamilyChecker(scrape, family, om, errors).Run();
}

}  // namespace steward::telemetry::expo
