#include "twin/service_model.h"

#include <algorithm>
#include <cmath>

namespace steward::twin {
namespace {

// Log-scale latency buckets from 0.1 ms: 100 per decade (2.3 % wide) up to 10^6 ms.
constexpr double kMinMs = 0.1;
constexpr int kBucketsPerDecade = 100;
constexpr int kBuckets = 7 * kBucketsPerDecade;

int Bucket(double ms) {
  if (ms <= kMinMs) return 0;
  const int b = static_cast<int>(std::floor(std::log10(ms / kMinMs) * kBucketsPerDecade));
  return std::clamp(b, 0, kBuckets - 1);
}
double BucketUpper(int b) {
  return kMinMs * std::pow(10.0, static_cast<double>(b + 1) / kBucketsPerDecade);
}

}  // namespace

ServiceModel::ServiceModel(const ServingSpec& spec, int min_replicas, int max_replicas,
                           uint64_t seed, SimTime now)
    : spec_(spec),
      traffic_(spec.traffic, seed),
      hpa_(spec.autoscaler, min_replicas, max_replicas, min_replicas),
      last_(now),
      histogram_(kBuckets, 0.0) {
  last_rps_ = traffic_.RateAt(now);
  hpa_ = Hpa(spec.autoscaler, min_replicas, max_replicas,
             hpa_.Wanted(last_rps_, spec.capacity_per_replica));
}

void ServiceModel::Account(SimTime now) {
  const double seconds = (now - last_).ToSeconds();
  // A new service takes traffic once a replica is ready (a load balancer sends requests to
  // ready endpoints only): its first start is not an outage.
  if (seconds <= 0 || !serving_) return;
  // Unlike replicas (a neighbour slows some): the mixture; else the homogeneous formula.
  int slowed = 0;
  for (const ReplicaGroup& g : last_sharing_.groups)
    if (g.slowed()) slowed += g.replicas;
  const double p99 =
      slowed > 0 ? MixtureP99LatencyMs(spec_.latency, last_rps_, last_sharing_.groups,
                                       spec_.capacity_per_replica)
                 : P99LatencyMs(spec_.latency, last_rps_, last_ready_, spec_.capacity_per_replica);
  const double requests = last_rps_ * seconds;
  requests_ += requests;
  replica_hours_ += last_ready_ * seconds / 3600;
  shared_replica_hours_ += last_sharing_.shared * seconds / 3600;
  slowed_replica_hours_ += slowed * seconds / 3600;
  histogram_[Bucket(p99)] += requests;
  if (spec_.slo_p99_ms > 0 && p99 > spec_.slo_p99_ms && last_rps_ > 0) violated_seconds_ += seconds;
}

int ServiceModel::Step(SimTime now, int ready, ReplicaSharing sharing) {
  const int desired = Step(now, ready);
  last_sharing_ = std::move(sharing);
  sharing_seen_ = true;
  return desired;
}

int ServiceModel::Step(SimTime now, int ready) {
  Account(now);
  last_sharing_.groups.clear();
  last_sharing_.shared = 0;
  last_ = now;
  last_rps_ = traffic_.RateAt(now);
  last_ready_ = ready;
  serving_ = serving_ || ready > 0;
  peak_rps_ = std::max(peak_rps_, last_rps_);
  return hpa_.Sync(now, last_rps_, spec_.capacity_per_replica, ready);
}

void ServiceModel::Close(SimTime now) {
  Account(now);
  last_ = now;
}

ServiceStats ServiceModel::Stats() const {
  ServiceStats s;
  s.slo_p99_ms = spec_.slo_p99_ms;
  s.slo_minutes_violated = violated_seconds_ / 60;
  s.requests = requests_;
  s.replica_hours = replica_hours_;
  s.peak_rps = peak_rps_;
  s.sharing = sharing_seen_;
  s.shared_replica_hours = shared_replica_hours_;
  s.slowed_replica_hours = slowed_replica_hours_;
  // The bucket holding the 99th percentile of requests (its upper bound: never optimistic).
  double seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += histogram_[b];
    if (requests_ > 0 && seen >= 0.99 * requests_) {
      s.p99_latency_ms = BucketUpper(b);
      break;
    }
  }
  return s;
}

}  // namespace steward::twin
