// ObjectMeta and OwnerReference (meta/v1), the part every Kubernetes object shares, and the
// conventions around them: uids, resourceVersions, timestamps.
//
//   ObjectMeta m;  m.name = "node-7";  m.labels["nvidia.com/gpu.product"] = "NVIDIA-H100";
//   nlohmann::json j = {{"metadata", ToJson(m)}};
//   JsonDecoder d("Node");  ObjectMeta back = DecodeMeta(d, j);
//
// Times are microseconds since the Unix epoch (nullopt = unset); Kubernetes prints them in
// RFC 3339 with second precision (Time) except where a MicroTime is meant (Lease renewTime).
// Plain values: thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kube/json_decoder.h"

namespace steward::kube {

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;
  bool operator==(const OwnerReference&) const = default;
};

struct ObjectMeta {
  std::string name;
  std::string namespace_name;  // "" for cluster-scoped objects.
  std::string generate_name;
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::optional<int64_t> creation_timestamp;
  std::optional<int64_t> deletion_timestamp;
  std::optional<int64_t> deletion_grace_period_seconds;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  bool operator==(const ObjectMeta&) const = default;

  // The owner reference with controller: true, if any.
  const OwnerReference* Controller() const;
  // "namespace/name", or "name" for a cluster-scoped object.
  std::string Key() const;
};

nlohmann::json ToJson(const ObjectMeta& meta);
nlohmann::json ToJson(const OwnerReference& owner);
// Reads `object.metadata` (errors go to `d`).
ObjectMeta DecodeMeta(JsonDecoder& d, const nlohmann::json& object);

// A deterministic UID (RFC 4122 layout, version 4 bits) derived from `seed` text, for the
// twin's objects; real clusters assign random ones.
std::string UidFor(std::string_view seed);

// Map helpers for building objects: an empty map becomes no field at all (omitempty).
void SetIfNotEmpty(nlohmann::json& object, const char* key,
                   const std::map<std::string, std::string>& values);

}  // namespace steward::kube
