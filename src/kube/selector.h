// Kubernetes label and field selectors, as the API server parses and applies them.
//
//   Result<LabelSelector> s = LabelSelector::Parse("team=research,tier in (dev,ci),!spot");
//   if (s.ok() && s->Matches(pod_labels)) ...
//   Result<FieldSelector> f = FieldSelector::Parse("spec.nodeName=node-7,status.phase!=Failed");
//   f->Matches([&](std::string_view field) -> std::optional<std::string> { ... });
//
// Label syntax (labels.Parse): requirements separated by commas; `k=v`, `k==v`, `k!=v`,
// `k in (a,b)`, `k notin (a,b)`, `k` (exists), `!k` (does not exist), and `k>N` / `k<N` (integer
// comparison, as labels.Parse accepts: `nvidia.com/gpu.count>4`). Keys and values are
// checked as the API server checks them (qualified names of at most 63 characters with an
// optional DNS-subdomain prefix; values of at most 63 characters), so a typo is a 400, not an
// empty list. `k!=v` and `notin` also match objects without the key, as in Kubernetes.
// Field syntax (fields.ParseSelector): `f=v`, `f==v`, `f!=v`, separated by commas; which
// fields exist is the resource's business (see FieldSelector::CheckFields).
//
// Matching is O(requirements x log labels). Selectors are immutable values: thread-compatible.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"

namespace steward::kube {

enum class LabelOp : uint8_t {
  kEquals,
  kNotEquals,
  kIn,
  kNotIn,
  kExists,
  kDoesNotExist,
  kGreaterThan,  // `k>N`: the label parses as an integer greater than N (text syntax only).
  kLessThan,     // `k<N`.
};

struct LabelRequirement {
  std::string key;
  LabelOp op = LabelOp::kEquals;
  // One for kEquals / kNotEquals / kGreaterThan / kLessThan; sorted and distinct for kIn / kNotIn.
  std::vector<std::string> values;
};

class LabelSelector {
 public:
  // The selector that matches everything (an empty string, or `{}` in JSON).
  LabelSelector() = default;

  // Parses the `labelSelector` query syntax. InvalidArgument names the bad requirement.
  static Result<LabelSelector> Parse(std::string_view text);
  // A metav1.LabelSelector object (matchLabels + matchExpressions with operators In, NotIn,
  // Exists, DoesNotExist). `{}` matches everything. A JSON null is `nothing` (callers that
  // treat null as "everything" check for it first); see matches_nothing().
  static Result<LabelSelector> FromJson(const nlohmann::json& selector);

  bool Matches(const std::map<std::string, std::string>& labels) const;
  // `labels`: a metadata.labels JSON object (or null / absent = no labels).
  bool Matches(const nlohmann::json& labels) const;

  bool empty() const { return requirements_.empty() && !nothing_; }
  bool matches_nothing() const { return nothing_; }
  const std::vector<LabelRequirement>& requirements() const { return requirements_; }
  // Canonical text form (requirements sorted by key), which Parse reads back. A selector that
  // matches nothing has no text form: "" as in Kubernetes, so check matches_nothing() first.
  std::string ToString() const;

 private:
  std::vector<LabelRequirement> requirements_;  // Sorted by key.
  bool nothing_ = false;
};

// The API server's checks of a label key (qualified name: optional DNS-1123 subdomain prefix of
// at most 253 characters and '/', then 1..63 of [A-Za-z0-9._-] starting and ending alphanumeric)
// and of a label value (0..63 of the same). InvalidArgument says what is wrong.
Status CheckLabelKey(std::string_view key);
Status CheckLabelValue(std::string_view value);

struct FieldRequirement {
  std::string field;
  bool equals = true;  // false: `!=`.
  std::string value;
};

class FieldSelector {
 public:
  FieldSelector() = default;  // Matches everything.

  static Result<FieldSelector> Parse(std::string_view text);

  // InvalidArgument ("field label not supported: X") for a field not in `supported`, as the
  // API server answers an unknown field selector.
  Status CheckFields(const std::vector<std::string_view>& supported) const;
  // `get(field)` returns the object's value of `field` (nullopt: treat as "").
  bool Matches(const std::function<std::optional<std::string>(std::string_view)>& get) const;
  // The value a requirement `field=value` pins, if any (for index lookups such as pods by node).
  std::optional<std::string_view> EqualityValue(std::string_view field) const;

  bool empty() const { return requirements_.empty(); }
  const std::vector<FieldRequirement>& requirements() const { return requirements_; }
  std::string ToString() const;

 private:
  std::vector<FieldRequirement> requirements_;
};

}  // namespace steward::kube
