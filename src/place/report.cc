#include "place/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

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

std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
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
      w, h, ml, Escape(title));
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
      mt + ph / 2, mt + ph / 2, Escape(ylabel));
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
                     Escape(series[i].name));
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
  // Ours vs FGD, per seed.
  for (const std::string& p : policies) {
    if (PublishedFinalAlloc("default", p).has_value()) continue;
    if (std::find(policies.begin(), policies.end(), "fgd") == policies.end()) break;
    s += fmt::format("\n**{} vs fgd** (final allocation, % of GPU milli, per seed):\n\n", p);
    s += "| workload | fgd mean | " + p +
         " mean | diff | seeds won | per-seed diff |\n|---|---|---|---|---|---|\n";
    int wins = 0;
    for (const std::string& w : workloads) {
      std::vector<double> diffs;
      for (const ExperimentResult& a : runs) {
        if (a.workload != w || a.policy != p) continue;
        for (const ExperimentResult& b : runs)
          if (b.workload == w && b.policy == "fgd" && b.seed == a.seed)
            diffs.push_back(a.alloc_ratio[kCurvePoints - 1] - b.alloc_ratio[kCurvePoints - 1]);
      }
      const FinalStats* ours = FindStats(stats, w, p);
      const FinalStats* fgd = FindStats(stats, w, "fgd");
      if (!ours || !fgd) continue;
      int won = static_cast<int>(
          std::count_if(diffs.begin(), diffs.end(), [](double d) { return d > 0; }));
      std::string per;
      for (double d : diffs) per += fmt::format("{:+.2f} ", d);
      wins += ours->mean > fgd->mean;
      s += fmt::format("| {} | {:.2f} | {:.2f} | {:+.2f} | {}/{} | {}|\n", Short(w), fgd->mean,
                       ours->mean, ours->mean - fgd->mean, won, diffs.size(), per);
    }
    s += fmt::format("\n{} beats fgd on {} of {} workloads (mean over seeds).\n", p, wins,
                     workloads.size());
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
      Escape(title));
  h += fmt::format(
      "<p>{} runs: {} policies × {} workloads × {} seeds ({}). Allocation ratio = "
      "allocated milli-GPU / capacity; x axis = arrived GPU demand as % of capacity "
      "(fgd-protocol.md §7).</p>",
      runs.size(), policies.size(), workloads.size(), seeds.size(),
      Escape(fmt::format("{}", fmt::join(seeds, ","))));
  // Final-allocation table with the published numbers.
  h += "<h2>Final allocation ratio (arrival 130%), mean over seeds; paper in "
       "brackets</h2><table><tr><th>workload</th>";
  for (const std::string& p : policies) h += "<th>" + Escape(p) + "</th>";
  h += "</tr>";
  for (const std::string& w : workloads) {
    h += "<tr><th>" + Escape(Short(w)) + "</th>";
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
  // Our policies vs FGD, with seeds.
  bool have_fgd = std::find(policies.begin(), policies.end(), "fgd") != policies.end();
  for (const std::string& p : policies) {
    if (!have_fgd || PublishedFinalAlloc("default", p).has_value()) continue;
    const bool future = std::any_of(runs.begin(), runs.end(),
                                    [&](auto& r) { return r.policy == p && r.uses_future; });
    h += fmt::format(
        "<h2>{} vs fgd{}</h2><table><tr><th>workload</th><th>fgd</th><th>{}</th>"
        "<th>diff</th>",
        Escape(p), future ? " (uses future pods: reported apart)" : "", Escape(p));
    for (const std::string& sd : seeds) h += "<th>seed " + sd + "</th>";
    h += "</tr>";
    for (const std::string& w : workloads) {
      const FinalStats* ours = FindStats(stats, w, p);
      const FinalStats* fgd = FindStats(stats, w, "fgd");
      if (!ours || !fgd) continue;
      double d = ours->mean - fgd->mean;
      h += fmt::format("<tr><th>{}</th><td>{:.2f}</td><td>{:.2f}</td><td class='{}'>{:+.2f}</td>",
                       Escape(Short(w)), fgd->mean, ours->mean, d > 0 ? "win" : "lose", d);
      for (const std::string& sd : seeds) {
        double a = NAN, b = NAN;
        for (const ExperimentResult& r : runs) {
          if (r.workload != w || std::to_string(r.seed) != sd) continue;
          if (r.policy == p) a = r.alloc_ratio[kCurvePoints - 1];
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
    h += "<h2>" + Escape(Short(w)) + "</h2><div>";
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
