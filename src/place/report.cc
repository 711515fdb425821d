#include "place/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "model/text.h"
#include "place/policy_registry.h"
#include "place/published_results.h"

namespace steward::place {
namespace {

const std::vector<double>& Metric(const ExperimentResult& r, CurveMetric m) {
  switch (m) {
    case CurveMetric::kAlloc:
      return r.alloc_ratio;
    case CurveMetric::kFragRatio:
      return r.frag_ratio;
    case CurveMetric::kFragAmount:
      return r.frag_amount;
    case CurveMetric::kFailed:
      return r.failed_at;
  }
  return r.alloc_ratio;
}

std::string Short(std::string_view workload) {
  constexpr std::string_view kPrefix = "openb_pod_list_";
  if (workload.substr(0, kPrefix.size()) == kPrefix) workload.remove_prefix(kPrefix.size());
  return std::string(workload);
}

// Ordered unique values, in first-seen order.
template <typename F>
std::vector<std::string> Distinct(const std::vector<ExperimentResult>& runs, F key) {
  std::vector<std::string> out;
  for (const ExperimentResult& r : runs) {
    std::string k = key(r);
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  return out;
}

std::vector<double> MeanCurve(const std::vector<ExperimentResult>& runs, const std::string& w,
                              const std::string& p, CurveMetric m) {
  std::vector<double> sum(kCurvePoints, 0.0);
  int n = 0;
  for (const ExperimentResult& r : runs) {
    if (r.workload != w || r.policy != p) continue;
    const std::vector<double>& c = Metric(r, m);
    for (int k = 0; k < kCurvePoints; ++k) sum[k] += c[k];
    ++n;
  }
  if (n > 0)
    for (double& v : sum) v /= n;
  return sum;
}

constexpr const char* kColors[] = {"#7f7f7f", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e",
                                   "#d62728", "#17becf", "#e377c2", "#8c564b", "#bcbd22"};

struct Series {
  std::string name;
  std::vector<double> y;
};

std::string Svg(const std::vector<Series>& series, int x0, int x1, double y0, double y1,
                const std::string& title, const std::string& ylabel, bool diagonal) {
  const int w = 460, h = 300, ml = 50, mr = 110, mt = 24, mb = 36;
  const double pw = w - ml - mr, ph = h - mt - mb;
  auto X = [&](double x) { return ml + (x - x0) / (x1 - x0) * pw; };
  auto Y = [&](double y) { return mt + (1.0 - (std::clamp(y, y0, y1) - y0) / (y1 - y0)) * ph; };
  std::string s = fmt::format(
      "<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' font-family='sans-serif' "
      "font-size='11'><text x='{}' y='14' font-weight='bold'>{}</text>",
      w, h, ml, model::HtmlEscape(title));
  s += fmt::format("<rect x='{}' y='{}' width='{}' height='{}' fill='none' stroke='#999'/>", ml, mt,
                   pw, ph);
  for (int i = 0; i <= 5; ++i) {
    double yv = y0 + (y1 - y0) * i / 5.0;
    s += fmt::format("<line x1='{}' x2='{}' y1='{:.1f}' y2='{:.1f}' stroke='#eee'/>", ml, ml + pw,
                     Y(yv), Y(yv));
    s += fmt::format("<text x='{}' y='{:.1f}' text-anchor='end'>{:.4g}</text>", ml - 4, Y(yv) + 4,
                     yv);
    double xv = x0 + (x1 - x0) * i / 5.0;
    s += fmt::format("<text x='{:.1f}' y='{}' text-anchor='middle'>{:.0f}</text>", X(xv),
                     mt + ph + 14, xv);
  }
  s += fmt::format(
      "<text x='{:.1f}' y='{}' text-anchor='middle'>arrived GPU demand (% of capacity)</text>",
      ml + pw / 2, h - 4);
  s += fmt::format(
      "<text x='12' y='{:.1f}' transform='rotate(-90 12 {:.1f})' text-anchor='middle'>{}</text>",
      mt + ph / 2, mt + ph / 2, model::HtmlEscape(ylabel));
  if (diagonal)
    s += fmt::format(
        "<line x1='{:.1f}' y1='{:.1f}' x2='{:.1f}' y2='{:.1f}' stroke='#ccc' "
        "stroke-dasharray='4 3'/>",
        X(std::max<double>(x0, y0)), Y(std::max<double>(x0, y0)), X(std::min<double>(x1, y1)),
        Y(std::min<double>(x1, y1)));
  for (size_t i = 0; i < series.size(); ++i) {
    std::string pts;
    for (int k = x0; k <= x1 && k < static_cast<int>(series[i].y.size()); ++k)
      pts += fmt::format("{:.1f},{:.1f} ", X(k), Y(series[i].y[k]));
    const char* color = kColors[i % 10];
    s += fmt::format("<polyline fill='none' stroke='{}' stroke-width='1.6' points='{}'/>", color,
                     pts);
    s += fmt::format("<line x1='{}' x2='{}' y1='{}' y2='{}' stroke='{}' stroke-width='3'/>",
                     ml + pw + 8, ml + pw + 24, mt + 10 + 15 * i, mt + 10 + 15 * i, color);
    s += fmt::format("<text x='{}' y='{}'>{}</text>", ml + pw + 28, mt + 14 + 15 * i,
                     model::HtmlEscape(series[i].name));
  }
  return s + "</svg>";
}

const FinalStats* FindStats(const std::vector<FinalStats>& stats, const std::string& w,
                            const std::string& p) {
  for (const FinalStats& s : stats)
    if (s.workload == w && s.policy == p) return &s;
  return nullptr;
}

}  // namespace

std::string ResultJson(const ExperimentResult& r) {
  nlohmann::json j;
  j["policy"] = r.policy;
  j["workload"] = r.workload;
  j["seed"] = r.seed;
  j["tune"] = r.tune;
  j["total_gpus"] = r.total_gpus;
  j["nodes"] = r.nodes;
  j["pods"] = r.pods;
  j["failed_pods"] = r.failed_pods;
  j["failed_gpu_milli"] = r.failed_gpu_milli;
  j["final_alloc_ratio"] = r.final_alloc;
  j["alloc_ratio"] = r.alloc_ratio;
  j["frag_ratio"] = r.frag_ratio;
  j["frag_amount"] = r.frag_amount;
  j["failed_pods_at"] = r.failed_at;
  j["uses_future_pods"] = r.uses_future;
  j["seconds"] = r.seconds;
  j["decision_seconds"] = r.decision_seconds;
  return j.dump();
}

std::string CurvesCsv(const std::vector<ExperimentResult>& runs, CurveMetric metric) {
  std::string s = "workload,sc_policy,tune,seed,total_gpus";
  for (int k = 0; k < kCurvePoints; ++k) s += fmt::format(",{}", k);
  s += '\n';
  for (const ExperimentResult& r : runs) {
    s += fmt::format("{},{},{},{},{}", r.workload, r.policy, r.tune, r.seed, r.total_gpus);
    for (double v : Metric(r, metric)) s += fmt::format(",{:.2f}", v);
    s += '\n';
  }
  return s;
}

Status WriteTextFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return Status::IoError(fmt::format("{}: cannot open for writing", path.string()));
  out << text;
  if (!out) return Status::IoError(fmt::format("{}: write failed", path.string()));
  return Status::Ok();
}

Status WriteCsvFiles(const std::vector<ExperimentResult>& runs, const std::filesystem::path& path) {
  STEWARD_RETURN_IF_ERROR(WriteTextFile(path, CurvesCsv(runs, CurveMetric::kAlloc)));
  auto sibling = [&](std::string_view suffix) {
    std::filesystem::path p = path;
    p.replace_filename(path.stem().string() + std::string(suffix) + path.extension().string());
    return p;
  };
  STEWARD_RETURN_IF_ERROR(
      WriteTextFile(sibling("_frag_ratio"), CurvesCsv(runs, CurveMetric::kFragRatio)));
  STEWARD_RETURN_IF_ERROR(
      WriteTextFile(sibling("_frag_amount"), CurvesCsv(runs, CurveMetric::kFragAmount)));
  return WriteTextFile(sibling("_failed"), CurvesCsv(runs, CurveMetric::kFailed));
}

std::vector<FinalStats> SummariseFinal(const std::vector<ExperimentResult>& runs) {
  std::vector<FinalStats> out;
  for (const std::string& p : Distinct(runs, [](auto& r) { return r.policy; })) {
    for (const std::string& w : Distinct(runs, [](auto& r) { return r.workload; })) {
      FinalStats st;
      st.workload = w;
      st.policy = p;
      std::vector<double> v;
      double secs = 0;
      for (const ExperimentResult& r : runs)
        if (r.workload == w && r.policy == p) {
          v.push_back(r.alloc_ratio[kCurvePoints - 1]);
          secs += r.seconds;
        }
      if (v.empty()) continue;
      st.n = static_cast<int>(v.size());
      for (double x : v) st.mean += x;
      st.mean /= st.n;
      for (double x : v) st.stddev += (x - st.mean) * (x - st.mean);
      st.stddev = st.n > 1 ? std::sqrt(st.stddev / (st.n - 1)) : 0;
      st.min = *std::min_element(v.begin(), v.end());
      st.max = *std::max_element(v.begin(), v.end());
      st.mean_seconds = secs / st.n;
      out.push_back(st);
    }
  }
  return out;
}

double StudentT975(int df) {
  static constexpr double kTable[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                        2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                        2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                        2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return INFINITY;
  return df <= 30 ? kTable[df - 1] : 1.96;
}

PairedComparison CompareWith(const std::vector<ExperimentResult>& runs, const std::string& policy,
                             const std::string& baseline) {
  PairedComparison c;
  c.policy = policy;
  c.baseline = baseline;
  double ours_seconds = 0, base_seconds = 0;
  int64_t ours_pods = 0, base_pods = 0;
  for (const std::string& w : Distinct(runs, [](auto& r) { return r.workload; })) {
    PairedWorkload pw;
    pw.workload = Short(w);
    for (const ExperimentResult& a : runs) {
      if (a.workload != w || a.policy != policy) continue;
      for (const ExperimentResult& b : runs) {
        if (b.workload != w || b.policy != baseline || b.seed != a.seed) continue;
        const double x = a.alloc_ratio[kCurvePoints - 1], y = b.alloc_ratio[kCurvePoints - 1];
        pw.seed_diffs.push_back(x - y);
        pw.mean += x;
        pw.baseline_mean += y;
        pw.won += x > y;
        ours_seconds += a.decision_seconds;
        ours_pods += a.pods;
        base_seconds += b.decision_seconds;
        base_pods += b.pods;
        break;
      }
    }
    const int n = static_cast<int>(pw.seed_diffs.size());
    if (n == 0) continue;
    pw.mean /= n;
    pw.baseline_mean /= n;
    for (double d : pw.seed_diffs) pw.diff += d;
    pw.diff /= n;
    if (n > 1) {
      double ss = 0;
      for (double d : pw.seed_diffs) ss += (d - pw.diff) * (d - pw.diff);
      pw.se = std::sqrt(ss / (n - 1) / n);
    }
    pw.t = pw.se > 0 ? pw.diff / pw.se : 0;
    pw.significant = std::fabs(pw.t) > StudentT975(n - 1);
    c.wins += pw.diff > 0;
    c.significant_wins += pw.significant && pw.diff > 0;
    c.significant_losses += pw.significant && pw.diff < 0;
    c.workloads.push_back(std::move(pw));
  }
  if (ours_pods > 0 && base_pods > 0 && base_seconds > 0)
    c.decision_time_ratio = (ours_seconds / static_cast<double>(ours_pods)) /
                            (base_seconds / static_cast<double>(base_pods));
  return c;
}

namespace {

// What a policy knows, for the report's labels (fgd-protocol.md §4.1: FGD's typical pods come
// from the whole trace, so FGD knows the distribution of pods that have not arrived yet).
std::string Knowledge(const std::vector<ExperimentResult>& runs, const std::string& policy) {
  if (std::any_of(runs.begin(), runs.end(),
                  [&](auto& r) { return r.policy == policy && r.uses_future; }))
    return "reads future pods (lookahead), reported apart";
  const PolicyInfo* info = FindPolicy(policy);
  if (info && info->knows_workload)
    return "the whole workload before the first pod, as FGD: the distribution of pods not yet "
           "arrived, not their order";
  return "only the pods that have arrived";
}

std::string ComparisonSentence(const PairedComparison& c, int df, bool markdown) {
  const char* bold = markdown ? "**" : "";
  std::string s = fmt::format(
      "{} allocates more than {} on {}{} of {}{} workloads (mean over seeds); {} of these wins "
      "and {} losses are significant (paired t over seeds, |t| > {:.3f}, df {})",
      c.policy, c.baseline, bold, c.wins, c.workloads.size(), bold, c.significant_wins,
      c.significant_losses, StudentT975(df), df);
  if (c.decision_time_ratio > 0)
    s += fmt::format("; per decision it takes {:.2f}× {}'s time (decision loop, these runs)",
                     c.decision_time_ratio, c.baseline);
  return s + ".";
}

// The default trace's mean curves against the paper's published levels; `kind` 0 = allocation
// (§8.1), 1 = fragmentation ratio (§8.3), 2 = fragmentation amount (§8.4). Appends the cells
// more than 1 point off to `far`.
std::string CurveCheckTable(const std::vector<ExperimentResult>& runs, int kind,
                            std::vector<std::string>* far) {
  static constexpr const char* kNames[] = {"allocation", "fragmentation ratio",
                                           "fragmentation amount"};
  static constexpr CurveMetric kMetrics[] = {CurveMetric::kAlloc, CurveMetric::kFragRatio,
                                             CurveMetric::kFragAmount};
  const std::vector<int> levels = kind == 0
                                      ? std::vector<int>{80, 90, 95, 100, 105, 110, 120, 130}
                                      : std::vector<int>{20, 40, 50, 60, 70, 80, 90, 100, 110, 130};
  std::string w;
  for (const ExperimentResult& r : runs)
    if (Short(r.workload) == "default") w = r.workload;
  if (w.empty()) return "";
  std::string s = "| policy |";
  std::string sep = "|---|";
  for (int k : levels) {
    s += fmt::format(" {} |", k);
    sep += "---|";
  }
  s += "\n" + sep + "\n";
  bool any = false;
  for (std::string_view p : kPaperPolicies) {
    std::vector<double> mean = MeanCurve(runs, w, std::string(p), kMetrics[kind]);
    if (std::none_of(runs.begin(), runs.end(), [&](auto& r) { return r.policy == p; })) continue;
    any = true;
    s += fmt::format("| {} |", p);
    for (int k : levels) {
      auto pub = kind == 0   ? PublishedDefaultAlloc(p, k)
                 : kind == 1 ? PublishedDefaultFragRatio(p, k)
                             : PublishedDefaultFragAmount(p, k);
      if (!pub) {
        s += " |";
        continue;
      }
      const double d = mean[k] - *pub;
      s += fmt::format(" {:+.2f} |", d);
      if (std::fabs(d) > 1.0)
        far->push_back(fmt::format("{} {} at {}% ({:.2f} vs {:.2f}, {:+.2f})", p, kNames[kind], k,
                                   mean[k], *pub, d));
    }
    s += "\n";
  }
  return any ? s : "";
}

}  // namespace

std::string MarkdownSummary(const std::vector<ExperimentResult>& runs) {
  std::vector<FinalStats> stats = SummariseFinal(runs);
  std::vector<std::string> workloads = Distinct(runs, [](auto& r) { return r.workload; });
  std::vector<std::string> policies = Distinct(runs, [](auto& r) { return r.policy; });
  std::string s = "| workload |";
  std::string sep = "|---|";
  for (const std::string& p : policies) {
    bool paper = PublishedFinalAlloc("default", p).has_value();
    s += paper ? fmt::format(" {} ours / paper |", p) : fmt::format(" {} |", p);
    sep += "---|";
  }
  s += "\n" + sep + "\n";
  for (const std::string& w : workloads) {
    s += fmt::format("| {} |", Short(w));
    for (const std::string& p : policies) {
      const FinalStats* st = FindStats(stats, w, p);
      if (!st) {
        s += " |";
        continue;
      }
      auto pub = PublishedFinalAlloc(w, p);
      if (pub)
        s += fmt::format(" {:.2f} / {:.2f} ({:+.2f}) |", st->mean, *pub, st->mean - *pub);
      else
        s += fmt::format(" {:.2f} |", st->mean);
    }
    s += "\n";
  }
  // Ours vs FGD, paired by seed.
  const bool have_fgd = std::find(policies.begin(), policies.end(), "fgd") != policies.end();
  for (const std::string& p : policies) {
    if (!have_fgd || PublishedFinalAlloc("default", p).has_value()) continue;
    PairedComparison c = CompareWith(runs, p);
    if (c.workloads.empty()) continue;
    const int n = static_cast<int>(c.workloads[0].seed_diffs.size());
    s += fmt::format(
        "\n**{} vs fgd** — knows {}. Final allocation (% of GPU milli at 130% arrived), paired "
        "by seed; SE = standard error of the mean difference, t = diff / SE, * = significant:"
        "\n\n",
        p, Knowledge(runs, p));
    s += "| workload | fgd mean | " + p +
         " mean | diff | SE | t | seeds won | per-seed diff |\n|---|---|---|---|---|---|---|---|\n";
    for (const PairedWorkload& pw : c.workloads) {
      std::string per;
      for (double d : pw.seed_diffs) per += fmt::format("{:+.2f} ", d);
      s += fmt::format("| {} | {:.2f} | {:.2f} | {:+.2f}{} | {:.3f} | {:+.1f} | {}/{} | {}|\n",
                       pw.workload, pw.baseline_mean, pw.mean, pw.diff, pw.significant ? "*" : "",
                       pw.se, pw.t, pw.won, pw.seed_diffs.size(), per);
    }
    s += "\n" + ComparisonSentence(c, n - 1, true) + "\n";
  }
  // The default trace's curves against the published levels.
  std::vector<std::string> far;
  std::string alloc = CurveCheckTable(runs, 0, &far);
  std::string fratio = CurveCheckTable(runs, 1, &far);
  std::string famount = CurveCheckTable(runs, 2, &far);
  if (!alloc.empty()) {
    s += "\n**Default trace, allocation curve, ours − paper (§8.1), mean over seeds:**\n\n" + alloc;
    s += "\n**Default trace, fragmentation ratio curve, ours − paper (§8.3), mean over "
         "seeds:**\n\n" +
         fratio;
    s += "\n**Default trace, fragmentation amount curve (% of GPU capacity), ours − paper "
         "(§8.4), mean over seeds:**\n\n" +
         famount;
    s += fmt::format("\nCells more than 1 point from the paper: {}.\n",
                     far.empty() ? std::string("none") : fmt::format("{}", fmt::join(far, "; ")));
  }
  return s;
}

std::string HtmlReport(const std::vector<ExperimentResult>& runs, const std::string& title) {
  std::vector<std::string> workloads = Distinct(runs, [](auto& r) { return r.workload; });
  std::vector<std::string> policies = Distinct(runs, [](auto& r) { return r.policy; });
  std::vector<std::string> seeds = Distinct(runs, [](auto& r) { return std::to_string(r.seed); });
  std::vector<FinalStats> stats = SummariseFinal(runs);
  std::string h = fmt::format(
      "<!DOCTYPE html><html><head><meta charset='utf-8'><title>{0}</title><style>"
      "body{{font-family:sans-serif;margin:20px;max-width:1200px}}table{{border-collapse:"
      "collapse;font-size:12px}}td,th{{border:1px solid #ccc;padding:3px 6px;text-align:right}}"
      "th{{background:#f3f3f3}}.win{{background:#e6f4e6}}.lose{{background:#fbeaea}}"
      "</style></head><body><h1>{0}</h1>",
      model::HtmlEscape(title));
  h += fmt::format(
      "<p>{} runs: {} policies × {} workloads × {} seeds ({}). Allocation ratio = "
      "allocated milli-GPU / capacity; x axis = arrived GPU demand as % of capacity "
      "(fgd-protocol.md §7).</p>",
      runs.size(), policies.size(), workloads.size(), seeds.size(),
      model::HtmlEscape(fmt::format("{}", fmt::join(seeds, ","))));
  // Final-allocation table with the published numbers.
  h += "<h2>Final allocation ratio (arrival 130%), mean over seeds; paper in "
       "brackets</h2><table><tr><th>workload</th>";
  for (const std::string& p : policies) h += "<th>" + model::HtmlEscape(p) + "</th>";
  h += "</tr>";
  for (const std::string& w : workloads) {
    h += "<tr><th>" + model::HtmlEscape(Short(w)) + "</th>";
    for (const std::string& p : policies) {
      const FinalStats* st = FindStats(stats, w, p);
      if (!st) {
        h += "<td></td>";
        continue;
      }
      auto pub = PublishedFinalAlloc(w, p);
      h += fmt::format("<td title='n={} sd={:.2f} min={:.2f} max={:.2f}'>{:.2f}{}</td>", st->n,
                       st->stddev, st->min, st->max, st->mean,
                       pub ? fmt::format(" [{:.2f}]", *pub) : "");
    }
    h += "</tr>";
  }
  h += "</table>";
  // Our policies vs FGD, paired by seed: the summary first, then per workload and seed.
  const bool have_fgd = std::find(policies.begin(), policies.end(), "fgd") != policies.end();
  std::vector<PairedComparison> comparisons;
  for (const std::string& p : policies) {
    if (!have_fgd || PublishedFinalAlloc("default", p).has_value()) continue;
    PairedComparison c = CompareWith(runs, p);
    if (!c.workloads.empty()) comparisons.push_back(std::move(c));
  }
  if (!comparisons.empty()) {
    h += "<h2>Our policies vs FGD (final allocation at 130% arrived, paired by seed)</h2>"
         "<table><tr><th>policy</th><th>what it knows</th><th>workloads won, mean over "
         "seeds</th><th>significant wins / losses</th><th>time per decision vs fgd</th></tr>";
    for (const PairedComparison& c : comparisons)
      h += fmt::format(
          "<tr><th>{}</th><td style='text-align:left'>{}</td><td>{} of {}</td><td>{} / {}</td>"
          "<td>{}</td></tr>",
          model::HtmlEscape(c.policy), model::HtmlEscape(Knowledge(runs, c.policy)), c.wins,
          c.workloads.size(), c.significant_wins, c.significant_losses,
          c.decision_time_ratio > 0 ? fmt::format("{:.2f}×", c.decision_time_ratio) : "-");
    h += "</table><p>Significant: |t| above the two-sided 5% critical value of Student's t over "
         "the seeds (paired differences). Time per decision: Observe + Place per pod, summed over "
         "these runs (run concurrently, so indicative; bench/place_decisions measures it "
         "alone).</p>";
  }
  for (const PairedComparison& c : comparisons) {
    const int n = static_cast<int>(c.workloads[0].seed_diffs.size());
    h += fmt::format(
        "<h2>{} vs fgd</h2><p>Knows "
        "{}.</p><p>{}</p><table><tr><th>workload</th><th>fgd</th><th>{}</th>"
        "<th>diff</th><th>SE</th><th>t</th><th>seeds won</th>",
        model::HtmlEscape(c.policy), model::HtmlEscape(Knowledge(runs, c.policy)),
        model::HtmlEscape(ComparisonSentence(c, n - 1, false)), model::HtmlEscape(c.policy));
    for (const std::string& sd : seeds) h += "<th>seed " + sd + "</th>";
    h += "</tr>";
    for (const PairedWorkload& pw : c.workloads) {
      h += fmt::format(
          "<tr><th>{}</th><td>{:.2f}</td><td>{:.2f}</td><td class='{}'>{:+.2f}{}</td>"
          "<td>{:.3f}</td><td>{:+.1f}</td><td>{}/{}</td>",
          model::HtmlEscape(pw.workload), pw.baseline_mean, pw.mean, pw.diff > 0 ? "win" : "lose",
          pw.diff, pw.significant ? "*" : "", pw.se, pw.t, pw.won, pw.seed_diffs.size());
      for (const std::string& sd : seeds) {
        double a = NAN, b = NAN;
        for (const ExperimentResult& r : runs) {
          if (Short(r.workload) != pw.workload || std::to_string(r.seed) != sd) continue;
          if (r.policy == c.policy) a = r.alloc_ratio[kCurvePoints - 1];
          if (r.policy == "fgd") b = r.alloc_ratio[kCurvePoints - 1];
        }
        h += std::isnan(a) || std::isnan(b)
                 ? "<td></td>"
                 : fmt::format("<td class='{}'>{:+.2f}</td>", a > b ? "win" : "lose", a - b);
      }
      h += "</tr>";
    }
    h += "</table>";
  }
  // Curves per workload.
  for (const std::string& w : workloads) {
    std::vector<Series> alloc, zoom, famount, fratio;
    for (const std::string& p : policies) {
      alloc.push_back({p, MeanCurve(runs, w, p, CurveMetric::kAlloc)});
      famount.push_back({p, MeanCurve(runs, w, p, CurveMetric::kFragAmount)});
      fratio.push_back({p, MeanCurve(runs, w, p, CurveMetric::kFragRatio)});
    }
    h += "<h2>" + model::HtmlEscape(Short(w)) + "</h2><div>";
    h += Svg(alloc, 0, 130, 0, 100, "GPU allocation ratio (cf. Fig. 9a)", "% of GPU milli", true);
    h += Svg(alloc, 80, 130, 80, 100, "allocation, zoomed", "% of GPU milli", true);
    h += Svg(famount, 0, 130, 0, 20, "fragmented GPU (cf. Fig. 7)", "% of GPU capacity", false);
    h += Svg(fratio, 0, 130, 0, 100, "fragmentation ratio", "% of idle GPU", false);
    h += "</div>";
  }
  h += "</body></html>\n";
  return h;
}

}  // namespace steward::place
