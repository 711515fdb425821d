#include "kube/meta.h"

#include <fmt/format.h>

namespace steward::kube {

const OwnerReference* ObjectMeta::Controller() const {
  for (const OwnerReference& o : owner_references)
    if (o.controller) return &o;
  return nullptr;
}

std::string ObjectMeta::Key() const {
  return namespace_name.empty() ? name : namespace_name + "/" + name;
}

nlohmann::json ToJson(const OwnerReference& o) {
  nlohmann::json j = {
      {"apiVersion", o.api_version}, {"kind", o.kind}, {"name", o.name}, {"uid", o.uid}};
  if (o.controller) j["controller"] = true;
  if (o.block_owner_deletion) j["blockOwnerDeletion"] = true;
  return j;
}

void SetIfNotEmpty(nlohmann::json& object, const char* key,
                   const std::map<std::string, std::string>& values) {
  if (values.empty()) return;
  nlohmann::json& m = object[key] = nlohmann::json::object();
  for (const auto& [k, v] : values) m[k] = v;
}

nlohmann::json ToJson(const ObjectMeta& m) {
  nlohmann::json j = nlohmann::json::object();
  j["name"] = m.name;
  if (!m.generate_name.empty()) j["generateName"] = m.generate_name;
  if (!m.namespace_name.empty()) j["namespace"] = m.namespace_name;
  if (!m.uid.empty()) j["uid"] = m.uid;
  if (!m.resource_version.empty()) j["resourceVersion"] = m.resource_version;
  if (m.generation) j["generation"] = m.generation;
  if (m.creation_timestamp) j["creationTimestamp"] = FormatTime(*m.creation_timestamp);
  if (m.deletion_timestamp) j["deletionTimestamp"] = FormatTime(*m.deletion_timestamp);
  if (m.deletion_grace_period_seconds)
    j["deletionGracePeriodSeconds"] = *m.deletion_grace_period_seconds;
  SetIfNotEmpty(j, "labels", m.labels);
  SetIfNotEmpty(j, "annotations", m.annotations);
  if (!m.owner_references.empty()) {
    nlohmann::json& owners = j["ownerReferences"] = nlohmann::json::array();
    for (const OwnerReference& o : m.owner_references) owners.push_back(ToJson(o));
  }
  if (!m.finalizers.empty()) j["finalizers"] = m.finalizers;
  return j;
}

ObjectMeta DecodeMeta(JsonDecoder& d, const nlohmann::json& object) {
  d.ExpectObject(object, "");
  const nlohmann::json& j = d.Object(object, "", "metadata");
  constexpr std::string_view p = "metadata";
  ObjectMeta m;
  m.name = d.String(j, p, "name");
  m.generate_name = d.String(j, p, "generateName");
  m.namespace_name = d.String(j, p, "namespace");
  m.uid = d.String(j, p, "uid");
  m.resource_version = d.String(j, p, "resourceVersion");
  m.generation = d.Int(j, p, "generation");
  m.creation_timestamp = d.Time(j, p, "creationTimestamp");
  m.deletion_timestamp = d.Time(j, p, "deletionTimestamp");
  m.deletion_grace_period_seconds = d.OptionalInt(j, p, "deletionGracePeriodSeconds");
  m.labels = d.StringMap(j, p, "labels");
  m.annotations = d.StringMap(j, p, "annotations");
  for (const nlohmann::json& o : d.Objects(j, p, "ownerReferences")) {
    constexpr std::string_view op = "metadata.ownerReferences[]";
    OwnerReference r;
    r.api_version = d.String(o, op, "apiVersion");
    r.kind = d.String(o, op, "kind");
    r.name = d.String(o, op, "name");
    r.uid = d.String(o, op, "uid");
    r.controller = d.Bool(o, op, "controller");
    r.block_owner_deletion = d.Bool(o, op, "blockOwnerDeletion");
    m.owner_references.push_back(std::move(r));
  }
  for (const nlohmann::json& f : d.Array(j, p, "finalizers")) {
    if (f.is_string())
      m.finalizers.push_back(f.get<std::string>());
    else
      d.Fail("metadata.finalizers[]", "expected a string");
  }
  return m;
}

std::string UidFor(std::string_view seed) {
  // Two FNV-1a passes with different offsets give 128 bits; stable across runs and platforms.
  auto fnv = [&](uint64_t h) {
    for (unsigned char c : seed) {
      h ^= c;
      h *= 1099511628211ULL;
    }
    return h;
  };
  const uint64_t a = fnv(14695981039346656037ULL);
  const uint64_t b = fnv(a ^ 0x9e3779b97f4a7c15ULL);
  return fmt::format("{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffff, a & 0xfff,
                     0x8000 | ((b >> 48) & 0x3fff), b & 0xffffffffffffULL);
}

}  // namespace steward::kube
