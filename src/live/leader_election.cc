#include "live/leader_election.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <utility>

#include "kube/json_decoder.h"

namespace steward::live {
namespace {

using SteadyTime = std::chrono::steady_clock::time_point;

int64_t Nanos(SteadyTime t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

// The record as client-go compares it: the spec, not the metadata (a label change is no renewal).
bool SameRecord(const kube::Lease& a, const kube::Lease& b) {
  return a.holder_identity == b.holder_identity &&
         a.lease_duration_seconds == b.lease_duration_seconds && a.acquire_time == b.acquire_time &&
         a.renew_time == b.renew_time && a.lease_transitions == b.lease_transitions;
}

// Lease writes are not retried inside the client: the elector's own loop is the retry, and a
// write repeated after its deadline would only confuse the record.
const CallOptions kOnce{.max_retries = 0};

}  // namespace

std::string DefaultLeaderIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0')
    std::snprintf(host, 8, "steward");
  std::random_device random;
  return fmt::format("{}_{:08x}", host, static_cast<uint32_t>(random()));
}

Result<std::unique_ptr<LeaderElector>> LeaderElector::Create(KubeClient* client,
                                                             LeaderElectionOptions options) {
  if (client == nullptr) return Status::InvalidArgument("leader election: no Kubernetes client");
  if (options.lease_name.empty())
    return Status::InvalidArgument("leader election: the lease name is empty");
  if (options.lease_namespace.empty())
    return Status::InvalidArgument("leader election: the lease namespace is empty");
  const auto retry = options.retry_period, deadline = options.renew_deadline;
  const std::chrono::milliseconds lease = options.lease_duration;
  if (!(retry.count() > 0 && retry < deadline && deadline < lease))
    return Status::InvalidArgument(fmt::format(
        "leader election: need 0 < retry period ({} ms) < renew deadline ({} ms) < lease "
        "duration ({} ms)",
        retry.count(), deadline.count(), lease.count()));
  if (options.identity.empty()) options.identity = DefaultLeaderIdentity();
  return std::unique_ptr<LeaderElector>(new LeaderElector(client, std::move(options)));
}

LeaderElector::LeaderElector(KubeClient* client, LeaderElectionOptions options)
    : client_(client),
      options_(std::move(options)),
      clock_(options_.clock ? options_.clock : RealClock()) {}

LeaderElector::~LeaderElector() { Stop(); }

std::string LeaderElector::LeasePath() const {
  return ResourceRef{"coordination.k8s.io", "v1", "leases", true}.Path(options_.lease_namespace,
                                                                       options_.lease_name);
}

bool LeaderElector::IsLeader() const {
  return is_leader_.load() && Nanos(clock_->Now()) < leader_until_ns_.load();
}

std::string LeaderElector::Leader() const {
  std::lock_guard<std::mutex> lock(leader_mu_);
  return leader_;
}

std::string LeaderElector::LastError() const {
  std::lock_guard<std::mutex> lock(leader_mu_);
  return last_error_;
}

SteadyTime LeaderElector::Step() {
  std::lock_guard<std::mutex> lock(step_mu_);
  const SteadyTime start = clock_->Now();
  if (stopped_) return start + options_.retry_period;
  {
    std::lock_guard<std::mutex> l(leader_mu_);
    last_error_.clear();
  }
  StepLocked(start);
  return start + options_.retry_period;
}

void LeaderElector::StepLocked(SteadyTime start) {
  if (leading_ && !IsLeader()) StopLeading();  // The renew deadline passed.
  // The leader's fast path: renew the record it wrote last, without reading it first.
  if (leading_ && TryRenew(start)) return;

  ApiResult got = client_->Get(LeasePath(), kOnce);
  if (!got.ok() && got.error().code == 404) {
    kube::Lease base;
    base.metadata.name = options_.lease_name;
    base.metadata.namespace_name = options_.lease_namespace;
    const std::string collection =
        ResourceRef{"coordination.k8s.io", "v1", "leases", true}.Path(options_.lease_namespace);
    ApiResult created = client_->Create(collection, kube::ToJson(Desired(base, false)), kOnce);
    if (created.ok()) {
      if (std::optional<kube::Lease> lease = Decode(created)) {
        Observe(*lease, start);
        BecomeLeader(start);
      }
      return;
    }
    if (created.error().reason != "AlreadyExists") return Fail(created, "create");
    got = client_->Get(LeasePath(), kOnce);  // Another candidate created it first.
  }
  if (!got.ok()) return Fail(got, "get");
  std::optional<kube::Lease> lease = Decode(got);
  if (!lease) return;
  const SteadyTime seen = clock_->Now();
  Observe(*lease, seen);
  const bool mine = lease->holder_identity == options_.identity;
  if (!mine && leading_) StopLeading();  // Someone else holds it: this replica lost it.
  const std::chrono::seconds duration{
      lease->lease_duration_seconds.value_or(options_.lease_duration.count())};
  if (!mine && !lease->holder_identity.empty() && seen < observed_since_ + duration) return;
  Write(Desired(*lease, /*takeover=*/!mine), start);
}

bool LeaderElector::TryRenew(SteadyTime start) {
  if (!observed_ || observed_->holder_identity != options_.identity) return false;
  return Write(Desired(*observed_, false), start);
}

kube::Lease LeaderElector::Desired(const kube::Lease& base, bool takeover) const {
  kube::Lease l;
  l.metadata = base.metadata;  // Its resourceVersion makes the write conditional.
  l.holder_identity = options_.identity;
  l.lease_duration_seconds = options_.lease_duration.count();
  const int64_t wall = clock_->WallMicros();
  l.renew_time = wall;
  l.acquire_time = takeover || !base.acquire_time ? wall : *base.acquire_time;
  l.lease_transitions = base.lease_transitions + (takeover ? 1 : 0);
  return l;
}

bool LeaderElector::Write(const kube::Lease& desired, SteadyTime start) {
  ApiResult written = client_->Replace(LeasePath(), kube::ToJson(desired), kOnce);
  if (!written.ok()) {
    // 409: another candidate wrote first (or our view was stale); the next step re-reads.
    Fail(written, "update");
    return false;
  }
  std::optional<kube::Lease> lease = Decode(written);
  if (!lease) return false;
  // Our own write counts from before it was sent: followers saw it no earlier than that.
  Observe(*lease, start);
  BecomeLeader(start);
  return true;
}

void LeaderElector::Observe(const kube::Lease& lease, SteadyTime when) {
  if (!observed_ || !SameRecord(*observed_, lease)) observed_since_ = when;
  observed_ = lease;
  bool new_leader = false;
  {
    std::lock_guard<std::mutex> lock(leader_mu_);
    new_leader = lease.holder_identity != leader_ && !lease.holder_identity.empty();
    leader_ = lease.holder_identity;
  }
  if (new_leader && options_.on_new_leader) options_.on_new_leader(lease.holder_identity);
}

void LeaderElector::BecomeLeader(SteadyTime start) {
  // A renewal that completed after the deadline ends one term and starts another.
  if (leading_ && !IsLeader()) StopLeading();
  leader_until_ns_.store(Nanos(start + options_.renew_deadline));
  is_leader_.store(true);
  if (leading_) return;
  leading_ = true;
  if (options_.on_started_leading) options_.on_started_leading();
}

void LeaderElector::StopLeading() {
  is_leader_.store(false);
  if (!leading_) return;
  leading_ = false;
  if (options_.on_stopped_leading) options_.on_stopped_leading();
}

std::optional<kube::Lease> LeaderElector::Decode(const ApiResult& answer) {
  kube::JsonDecoder d(fmt::format("Lease {}/{}", options_.lease_namespace, options_.lease_name));
  kube::Lease lease = kube::DecodeLease(d, answer.value());
  if (d.status().ok()) return lease;
  std::lock_guard<std::mutex> lock(leader_mu_);
  last_error_ = d.status().ToString();
  return std::nullopt;
}

void LeaderElector::Fail(const ApiResult& answer, const char* what) {
  std::lock_guard<std::mutex> lock(leader_mu_);
  last_error_ = fmt::format("{} lease {}/{}: {} ({})", what, options_.lease_namespace,
                            options_.lease_name, answer.error().message, answer.error().reason);
}

void LeaderElector::Start() {
  if (runner_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(run_mu_);
    run_stop_ = false;
  }
  runner_ = std::thread([this] {
    std::mt19937_64 rng(std::random_device{}());
    std::uniform_int_distribution<int64_t> jitter(0, options_.retry_period.count() / 5);
    while (true) {
      const SteadyTime next = Step();
      auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - clock_->Now());
      // Candidates spread out so that they do not all read and race at the same instant.
      if (!IsLeader()) wait += std::chrono::milliseconds(jitter(rng));
      std::unique_lock<std::mutex> lock(run_mu_);
      if (run_cv_.wait_for(lock, wait, [this] { return run_stop_; })) return;
    }
  });
}

void LeaderElector::Stop() {
  {
    std::lock_guard<std::mutex> lock(run_mu_);
    run_stop_ = true;
  }
  run_cv_.notify_all();
  if (runner_.joinable()) runner_.join();
  std::lock_guard<std::mutex> lock(step_mu_);
  if (stopped_) return;
  stopped_ = true;
  StopLeading();  // Callers stop acting before the Lease is given away.
  if (options_.release_on_stop) ReleaseLocked();
}

void LeaderElector::ReleaseLocked() {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!observed_ || observed_->holder_identity != options_.identity) return;  // Not ours.
    kube::Lease released = *observed_;
    released.holder_identity.clear();
    released.lease_duration_seconds = 1;
    const int64_t wall = clock_->WallMicros();
    released.acquire_time = released.renew_time = wall;
    ApiResult written = client_->Replace(LeasePath(), kube::ToJson(released), kOnce);
    if (written.ok()) {
      if (std::optional<kube::Lease> lease = Decode(written)) Observe(*lease, clock_->Now());
      return;
    }
    Fail(written, "release");
    if (written.error().code != 409) return;
    // Our resourceVersion was stale: re-read; release only if the record still names us.
    ApiResult got = client_->Get(LeasePath(), kOnce);
    if (!got.ok()) return Fail(got, "get");
    std::optional<kube::Lease> lease = Decode(got);
    if (!lease) return;
    Observe(*lease, clock_->Now());
  }
}

}  // namespace steward::live
