#include "twin/pod_names.h"

#include <fmt/format.h>

#include "twin/twin.h"

namespace steward::twin {

std::string NameSuffix(uint64_t seed, int length) {
  // Kubernetes' name-suffix alphabet (no vowels, no confusable digits).
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
  x ^= x >> 29;
  std::string s;
  for (int i = 0; i < length; ++i) {
    s += kAlphabet[x % 27];
    x /= 27;
  }
  return s;
}

uint64_t NameHash(std::string_view text) {
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string ReplicaSetName(const model::Workload& w) {
  return fmt::format("{}-{}", w.name, NameSuffix(NameHash(w.name), 10));
}

PodSlot SlotOf(const model::Workload& w, int index) {
  if (w.kind == model::WorkloadKind::kInference) return {0, index};
  PodSlot slot{0, index};
  const int sets = static_cast<int>(w.pod_sets.size());
  while (slot.pod_set + 1 < sets && slot.ordinal >= w.pod_sets[slot.pod_set].count) {
    slot.ordinal -= w.pod_sets[slot.pod_set].count;
    ++slot.pod_set;
  }
  return slot;
}

std::string PodName(const model::Workload& w, PodSlot slot, int32_t pod_id) {
  switch (w.kind) {
    case model::WorkloadKind::kInference:
      return fmt::format("{}-{}", ReplicaSetName(w), NameSuffix(static_cast<uint64_t>(pod_id), 5));
    case model::WorkloadKind::kNotebook:
      return fmt::format("{}-{}", w.name, slot.ordinal);
    default: {
      const std::string set = slot.pod_set < static_cast<int>(w.pod_sets.size())
                                  ? w.pod_sets[slot.pod_set].name
                                  : std::string();
      return fmt::format("{}-{}-{}-{}", w.name, set.empty() ? "main" : set, slot.ordinal,
                         NameSuffix(static_cast<uint64_t>(pod_id), 5));
    }
  }
}

std::string PodName(const WorkloadRun& run, int index) {
  return PodName(run.spec, SlotOf(run.spec, index), run.pods[index].pod_id);
}

}  // namespace steward::twin
