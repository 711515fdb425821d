// Reading Kubernetes objects out of JSON without exceptions: every accessor tolerates a
// missing or null field (Kubernetes omits empty ones) and records a wrongly typed one as an
// error naming the object and the field, so a strange answer from a real API server becomes a
// clear message, never a crash.
//
//   JsonDecoder d("Pod team-a/train-0");
//   std::string node = d.String(j["spec"], "spec", "nodeName");
//   int64_t n = d.Int(j["spec"], "spec", "priority");
//   if (!d.status().ok()) return d.status();
//
// Accessors take the parent object, its dotted path (for messages) and the key. Cheap;
// thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "model/status.h"

namespace steward::kube {

class JsonDecoder {
 public:
  explicit JsonDecoder(std::string context) : context_(std::move(context)) {}

  std::string String(const nlohmann::json& parent, std::string_view path, const char* key);
  int64_t Int(const nlohmann::json& parent, std::string_view path, const char* key,
              int64_t fallback = 0);
  std::optional<int64_t> OptionalInt(const nlohmann::json& parent, std::string_view path,
                                     const char* key);
  bool Bool(const nlohmann::json& parent, std::string_view path, const char* key);
  // An object of string values (labels, annotations, resource lists, data).
  std::map<std::string, std::string> StringMap(const nlohmann::json& parent, std::string_view path,
                                               const char* key);
  // The member if it is an object (else an empty object; a non-object is an error).
  const nlohmann::json& Object(const nlohmann::json& parent, std::string_view path,
                               const char* key);
  // The member if it is an array (else an empty array; a non-array is an error).
  const nlohmann::json& Array(const nlohmann::json& parent, std::string_view path, const char* key);
  // An array of objects (containers, conditions, taints, ownerReferences): as Array, and an
  // element that is not an object is an error naming its index ("spec.containers[2]").
  const nlohmann::json& Objects(const nlohmann::json& parent, std::string_view path,
                                const char* key);
  // Records an error unless `object` is a JSON object (the top of a decoded object).
  void ExpectObject(const nlohmann::json& object, std::string_view path);
  // An int-or-string (PDB minAvailable: 3 or "50%"); nullopt when absent.
  std::optional<nlohmann::json> IntOrString(const nlohmann::json& parent, std::string_view path,
                                            const char* key);
  // An RFC 3339 time (Time or MicroTime) in microseconds since the epoch; nullopt when absent.
  std::optional<int64_t> Time(const nlohmann::json& parent, std::string_view path, const char* key);

  // Records an error of its own (e.g. a semantic check).
  void Fail(std::string_view path, std::string_view what);
  const Status& status() const { return status_; }

 private:
  const nlohmann::json* Member(const nlohmann::json& parent, const char* key) const;
  void TypeError(std::string_view path, const char* key, std::string_view expected,
                 const nlohmann::json& got);

  std::string context_;
  Status status_;  // The first error.
};

// RFC 3339 in UTC: "2026-12-03T21:06:58Z" (Time) or "2026-12-03T21:06:58.123456Z"
// (MicroTime, `micro` = true).
std::string FormatTime(int64_t unix_micros, bool micro = false);
// Parses RFC 3339 as metav1.Time does (Go's time.Parse): "YYYY-MM-DDThh:mm:ss", an optional
// fraction (kept to the microsecond), then Z or +hh:mm. Fields are digits only and in range
// (a real day of the month, seconds below 60); anything else is nullopt.
std::optional<int64_t> ParseTime(std::string_view text);

}  // namespace steward::kube
