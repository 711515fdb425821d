// LeaderElector: client-go-style leader election on a coordination.k8s.io/v1 Lease, so that of
// several replicas of `steward operate` only one writes to the cluster.
//
//   LeaderElectionOptions o;
//   o.lease_namespace = "steward-system";
//   o.lease_name = "steward-operate";
//   auto elector = LeaderElector::Create(client, o);     // identity: hostname_<random>
//   (*elector)->Start();                                  // acquires, then renews, on a thread
//   gate_options.is_leader = [e = elector->get()] { return e->IsLeader(); };
//   ...
//   (*elector)->Stop();                                   // releases the Lease: others take over
//
// Tests drive the same logic without a thread: each Step() is one attempt to acquire or renew
// (a GET and a PUT at most), timed by the injected Clock, and returns when the next is due.
//
// The rules, as client-go's leaderelection applies them:
//   - A candidate takes the Lease when it is absent (create; AlreadyExists = re-read), has no
//     holder, or has not changed for leaseDurationSeconds *as measured by this client's clock*
//     from the moment it first saw the current record (never from the remote renewTime, so
//     clock offsets between machines do not matter; only clock rates do). Every write carries
//     the resourceVersion read: of two candidates racing, the server lets exactly one win (409).
//   - A takeover increments leaseTransitions and sets acquireTime; a renewal keeps both.
//   - The leader renews every retry_period. IsLeader() turns false, by the clock alone, at
//     renew_deadline after the start of its last successful renewal, even while a request hangs.
//     Another replica saw that renewal only after it was sent, and waits lease_duration from
//     then; renew_deadline < lease_duration, so the old leader has stopped before a new one may
//     start (given clock rates within lease_duration / renew_deadline of each other). This is
//     stricter than client-go, whose deadline starts a retry period after the last renewal.
//   - Stop() releases the Lease as client-go's ReleaseOnCancel does (holderIdentity empty,
//     leaseDurationSeconds 1), so a follower takes over at its next step, not a lease later.
//   - After losing (deadline passed, or another holder seen) the elector is a candidate again.
//
// There is no fencing: a write the caller checked IsLeader() for may still reach the server
// after leadership ends (as with client-go). Keep the KubeClient's timeouts well under
// renew_deadline so a stuck request is not the reason for a lost lease.
//
// Cost: a follower makes one GET per retry_period; a leader one PUT (a GET and a PUT after a
// conflict). Thread-safety: IsLeader(), Leader() and identity() may be called from any thread
// at any time. Step() and Stop() are serialised internally; while Start()'s thread runs, only
// it calls Step(). Callbacks run on the stepping thread and must not call Step(), Start() or
// Stop().
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "kube/lease.h"
#include "live/clock.h"
#include "live/kube_client.h"
#include "model/status.h"

namespace steward::live {

struct LeaderElectionOptions {
  // Who this replica is in holderIdentity; "" = hostname + "_" + a random suffix.
  std::string identity;
  std::string lease_namespace = "default";
  std::string lease_name;  // Required.
  // How long a follower waits after the record last changed before taking it over (written as
  // leaseDurationSeconds). Longer: slower failover; shorter: more renew traffic.
  std::chrono::seconds lease_duration{15};
  // How long the leader stays leader after the start of its last successful renewal. Must be
  // less than lease_duration; the difference is the margin for request latency and clock rate.
  std::chrono::milliseconds renew_deadline{std::chrono::seconds(10)};
  // Pause between attempts (renewals and acquisitions). Must be less than renew_deadline.
  std::chrono::milliseconds retry_period{std::chrono::seconds(2)};
  // Stop() gives the Lease up (false: it expires a lease_duration after the last renewal).
  bool release_on_stop = true;
  // Time source for all of the above and the Lease's timestamps; null = RealClock().
  Clock* clock = nullptr;
  // Called on the stepping thread when this replica becomes leader / stops being leader, and
  // when it observes a new non-empty holder (itself included).
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  std::function<void(const std::string& identity)> on_new_leader;
};

// hostname + "_" + 8 random hex digits.
std::string DefaultLeaderIdentity();

class LeaderElector {
 public:
  // InvalidArgument when the lease name is empty or the durations are out of order
  // (0 < retry_period < renew_deadline < lease_duration). `client` must outlive the elector.
  static Result<std::unique_ptr<LeaderElector>> Create(KubeClient* client,
                                                       LeaderElectionOptions options);
  ~LeaderElector();  // Stop().
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // One attempt to acquire or renew; returns when the next is due (on the options' clock).
  // API errors are not fatal: they show as an attempt that failed, retried next time. After
  // Stop() it does nothing.
  std::chrono::steady_clock::time_point Step();

  // Runs Step() on a thread of its own until Stop(). Failed acquisitions wait retry_period plus
  // up to 20 % jitter, as client-go's do.
  void Start();
  // Ends the thread (if started), stops leading (IsLeader() is false before the release is
  // sent) and, with release_on_stop, releases the Lease. Idempotent.
  void Stop();

  // True while this replica holds the Lease and its renew deadline has not passed.
  bool IsLeader() const;
  // The holder last observed ("" = none seen yet, or released).
  std::string Leader() const;
  const std::string& identity() const { return options_.identity; }
  // Why the last attempt failed ("" after one that completed, won or not), for logs.
  std::string LastError() const;

 private:
  LeaderElector(KubeClient* client, LeaderElectionOptions options);
  std::string LeasePath() const;
  // The attempt; REQUIRES step_mu_.
  void StepLocked(std::chrono::steady_clock::time_point start);
  bool TryRenew(std::chrono::steady_clock::time_point start);
  // PUTs `desired` with its resourceVersion; on success this replica leads from `start`.
  bool Write(const kube::Lease& desired, std::chrono::steady_clock::time_point start);
  std::optional<kube::Lease> Decode(const ApiResult& answer);
  void Fail(const ApiResult& answer, const char* what);
  void Observe(const kube::Lease& lease, std::chrono::steady_clock::time_point when);
  void BecomeLeader(std::chrono::steady_clock::time_point start);
  void StopLeading();
  void ReleaseLocked();
  kube::Lease Desired(const kube::Lease& base, bool takeover) const;

  KubeClient* const client_;
  const LeaderElectionOptions options_;
  Clock* const clock_;

  std::mutex step_mu_;  // Serialises Step() and Stop().
  bool stopped_ = false;
  bool leading_ = false;  // This replica's view: it won and has not lost since.
  // The last record read or written, and when it was first seen in that form (this clock).
  std::optional<kube::Lease> observed_;
  std::chrono::steady_clock::time_point observed_since_{};

  // For IsLeader(): leadership holds until this steady-clock instant (ns since its epoch).
  std::atomic<bool> is_leader_{false};
  std::atomic<int64_t> leader_until_ns_{0};
  mutable std::mutex leader_mu_;
  std::string leader_;      // Guarded by leader_mu_.
  std::string last_error_;  // Guarded by leader_mu_.

  std::mutex run_mu_;
  std::condition_variable run_cv_;
  bool run_stop_ = false;  // Guarded by run_mu_.
  std::thread runner_;
};

}  // namespace steward::live
