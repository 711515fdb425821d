// Checked reads from yaml-cpp trees, shared by every YAML reader (scenarios, Kueue/Volcano
// policies): numbers that are what the field means — finite, integral where a count is meant,
// inside the target type (4294967304 GPUs is an error, not 8 after a wrap-around) — and
// mappings without duplicate keys (yaml-cpp keeps both; Kubernetes' strict decoding refuses).
//
//   int gpus;  Status s = ReadYamlNumber(node, &gpus);   // "4294967304 is out of range [...]"
//   Status d = CheckYamlDuplicateKeys(root, "scenario.yaml");
//
// ReadYamlNumber's errors say why, without a location: callers add file, line, column and
// field. Pure functions: thread-safe.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "model/status.h"

namespace steward::model {

// `text` (a YAML scalar) as a finite double: decimal, exponent, YAML's .inf/.nan refused.
Result<double> ParseFiniteNumber(std::string_view text);
// `text` as an integer in [min, max]: digits, or an integral number such as 1.28e3.
Result<int64_t> ParseBoundedInteger(std::string_view text, int64_t min, int64_t max);
Result<uint64_t> ParseBoundedUnsigned(std::string_view text, uint64_t max);

// Reads scalar `n` into `*out` (an integral or floating type other than bool), checked as above;
// `*out` is untouched on error.
template <typename T>
Status ReadYamlNumber(const YAML::Node& n, T* out) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
  if (!n.IsScalar()) return Status::InvalidArgument("must be a number");
  const std::string& text = n.Scalar();
  if constexpr (std::is_floating_point_v<T>) {
    STEWARD_ASSIGN_OR_RETURN(double v, ParseFiniteNumber(text));
    if (std::abs(v) > static_cast<double>(std::numeric_limits<T>::max()))
      return Status::InvalidArgument("'" + text + "' is out of range");
    *out = static_cast<T>(v);
  } else if constexpr (std::is_signed_v<T>) {
    STEWARD_ASSIGN_OR_RETURN(int64_t v, ParseBoundedInteger(text, std::numeric_limits<T>::min(),
                                                            std::numeric_limits<T>::max()));
    *out = static_cast<T>(v);
  } else {
    STEWARD_ASSIGN_OR_RETURN(uint64_t v, ParseBoundedUnsigned(text, std::numeric_limits<T>::max()));
    *out = static_cast<T>(v);
  }
  return Status::Ok();
}

// Every YAML document of `text` (CR-only and CR LF line endings read as LF), like
// YAML::LoadAll, but never hangs: yaml-cpp 0.7's LoadAll loops forever, allocating, on a stray
// flow indicator at block level (`,` or `[a]\n,`), so a first pass over the parser's events
// refuses a document that does not move the parser forward. Errors name `source`, line and
// column. O(size) twice.
Result<std::vector<YAML::Node>> LoadYamlDocuments(std::string_view text, std::string_view source);

// The one YAML document of `text` (line endings as above), or an input error naming `source`,
// the line and column where the parser stopped, and `field`. O(size).
Result<YAML::Node> LoadYamlDocument(std::string_view text, std::string_view source,
                                    std::string_view field = "");

// The first mapping in `root` (at any depth) with a key twice, as an input error at the second
// key's line and column of `source` naming the key; OK when there is none. O(nodes).
Status CheckYamlDuplicateKeys(const YAML::Node& root, std::string_view source);

}  // namespace steward::model
