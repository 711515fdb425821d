#include "rollout/gate.h"

#include <fmt/format.h>

#include <cmath>

namespace steward::rollout {
namespace {

constexpr std::pair<Verdict, std::string_view> kVerdicts[] = {
    {Verdict::kRunning, "running"},
    {Verdict::kSuccessful, "successful"},
    {Verdict::kFailed, "failed"},
    {Verdict::kInconclusive, "inconclusive"},
    {Verdict::kError, "error"}};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

Result<bool> Comparison(std::string_view text, double result) {
  text = Trim(text);
  if (text == "isNaN(result)") return std::isnan(result);
  if (!text.starts_with("result"))
    return Status::InvalidArgument(fmt::format("'{}': expected 'result OP number'", text));
  std::string_view rest = Trim(text.substr(6));
  static constexpr std::string_view kOps[] = {">=", "<=", "==", "!=", ">", "<"};
  for (std::string_view op : kOps) {
    if (!rest.starts_with(op)) continue;
    const std::string number(Trim(rest.substr(op.size())));
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(number, &used);
    } catch (...) {
      used = 0;
    }
    if (number.empty() || used != number.size())
      return Status::InvalidArgument(fmt::format("'{}': '{}' is not a number", text, number));
    if (op == ">=") return result >= v;
    if (op == "<=") return result <= v;
    if (op == "==") return result == v;
    if (op == "!=") return result != v;
    if (op == ">") return result > v;
    return result < v;
  }
  return Status::InvalidArgument(
      fmt::format("'{}': expected a comparison (>=, <=, >, <, ==, !=) after result", text));
}

}  // namespace

std::string_view VerdictName(Verdict v) {
  for (const auto& [k, name] : kVerdicts)
    if (k == v) return name;
  return "?";
}

std::optional<Verdict> ParseVerdict(std::string_view name) {
  for (const auto& [k, n] : kVerdicts)
    if (n == name) return k;
  return std::nullopt;
}

Result<bool> EvaluateCondition(std::string_view condition, double result) {
  if (Trim(condition).empty()) return Status::InvalidArgument("empty condition");
  // a && b || c && d: || of && groups. Every part is evaluated so a typo anywhere shows.
  bool any = false;
  size_t start = 0;
  while (true) {
    const size_t bar = condition.find("||", start);
    const std::string_view group =
        condition.substr(start, bar == std::string_view::npos ? bar : bar - start);
    bool all = true;
    size_t g = 0;
    while (true) {
      const size_t amp = group.find("&&", g);
      STEWARD_ASSIGN_OR_RETURN(
          bool c,
          Comparison(group.substr(g, amp == std::string_view::npos ? amp : amp - g), result));
      all = all && c;
      if (amp == std::string_view::npos) break;
      g = amp + 2;
    }
    any = any || all;
    if (bar == std::string_view::npos) break;
    start = bar + 2;
  }
  return any;
}

Verdict AssessMeasurement(const GateSpec& gate, std::optional<double> value, std::string* why) {
  if (!value) {
    *why = "no value: the metric could not be measured";
    return Verdict::kError;
  }
  const double v = *value;
  auto matches = [&](const std::string& c) {
    if (c.empty()) return false;
    Result<bool> r = EvaluateCondition(c, v);
    return r.ok() && *r;
  };
  if (matches(gate.failure_condition)) {
    *why = fmt::format("{} = {:.4g}: failureCondition '{}' matched", gate.metric, v,
                       gate.failure_condition);
    return Verdict::kFailed;
  }
  if (matches(gate.success_condition)) {
    *why = fmt::format("{} = {:.4g}: successCondition '{}' matched", gate.metric, v,
                       gate.success_condition);
    return Verdict::kSuccessful;
  }
  if (!gate.success_condition.empty() && !gate.failure_condition.empty()) {
    *why = fmt::format("{} = {:.4g}: neither condition matched", gate.metric, v);
    return Verdict::kInconclusive;
  }
  if (!gate.success_condition.empty()) {
    *why = fmt::format("{} = {:.4g}: successCondition '{}' did not match", gate.metric, v,
                       gate.success_condition);
    return Verdict::kFailed;
  }
  *why = fmt::format("{} = {:.4g}: failureCondition '{}' did not match", gate.metric, v,
                     gate.failure_condition);
  return Verdict::kSuccessful;
}

void GateTally::Add(Verdict m) {
  ++measurements;
  consecutive_errors = m == Verdict::kError ? consecutive_errors + 1 : 0;
  successful += m == Verdict::kSuccessful;
  failed += m == Verdict::kFailed;
  inconclusive += m == Verdict::kInconclusive;
  errors += m == Verdict::kError;
}

Verdict JudgeGate(const GateSpec& gate, const GateTally& t) {
  if (t.failed > gate.failure_limit) return Verdict::kFailed;
  if (t.consecutive_errors > gate.consecutive_error_limit) return Verdict::kError;
  if (t.inconclusive > gate.inconclusive_limit) return Verdict::kInconclusive;
  if (t.measurements >= gate.count) return Verdict::kSuccessful;
  return Verdict::kRunning;
}

}  // namespace steward::rollout
