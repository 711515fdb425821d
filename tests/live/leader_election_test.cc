// LeaderElector against a loopback kube::ApiServer (and once against the twin's API front):
// each candidate has its own fake clock and its own client, and the tests step them by hand.

#include "live/leader_election.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "../server/server_test_util.h"
#include "kube/lease.h"
#include "kubefront/kube_front.h"
#include "live_test_util.h"

namespace steward::live {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::Eventually;
using testing::FakeClock;
using testing::KubeTestServer;
using testing::KubeTestServerOptions;

constexpr char kNamespace[] = "steward";
constexpr char kLeaseName[] = "steward-operate";
constexpr char kLeasePath[] =
    "/apis/coordination.k8s.io/v1/namespaces/steward/leases/steward-operate";
constexpr int64_t kMicrosPerSecond = 1'000'000;

// One replica: its clock, its client, its elector, and what its callbacks saw.
struct Candidate {
  FakeClock clock;
  std::unique_ptr<KubeClient> client;
  std::unique_ptr<LeaderElector> elector;
  std::chrono::steady_clock::time_point next_step{};
  std::atomic<int> started{0}, stopped{0};

  // Steps when the elector asked to be stepped again (as its runner would).
  void StepIfDue() {
    if (clock.Now() >= next_step) next_step = elector->Step();
  }
  bool leader() const { return elector->IsLeader(); }
};

std::unique_ptr<Candidate> MakeCandidate(const RestConfig& config, const std::string& identity,
                                         LeaderElectionOptions o = {}) {
  auto c = std::make_unique<Candidate>();
  KubeClientOptions client_options;
  client_options.qps = 0;
  client_options.clock = &c->clock;
  auto client = KubeClient::Create(config, client_options);
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  c->client = std::move(client).value();
  o.identity = identity;
  o.lease_namespace = kNamespace;
  o.lease_name = kLeaseName;
  o.clock = &c->clock;
  Candidate* raw = c.get();
  o.on_started_leading = [raw] { ++raw->started; };
  o.on_stopped_leading = [raw] { ++raw->stopped; };
  auto elector = LeaderElector::Create(c->client.get(), o);
  EXPECT_TRUE(elector.ok()) << elector.status().ToString();
  c->elector = std::move(elector).value();
  return c;
}

class LeaderElectionTest : public ::testing::Test {
 protected:
  explicit LeaderElectionTest(KubeTestServerOptions options = {})
      : server_(std::make_unique<KubeTestServer>(std::move(options))) {
    server_->PutNamespace(kNamespace);  // As on a real server, a Lease needs its namespace.
    KubeClientOptions o;
    o.qps = 0;
    observer_ = std::move(KubeClient::Create(server_->Config(), o)).value();
  }

  std::unique_ptr<Candidate> Make(const std::string& identity, LeaderElectionOptions o = {}) {
    return MakeCandidate(server_->Config(), identity, std::move(o));
  }
  // The Lease as the server holds it.
  kube::Lease ReadLease() {
    ApiResult got = observer_->Get(kLeasePath);
    EXPECT_TRUE(got.ok()) << got.error().message;
    if (!got.ok()) return {};
    kube::JsonDecoder d("lease");
    kube::Lease lease = kube::DecodeLease(d, got.value());
    EXPECT_TRUE(d.status().ok()) << d.status().ToString();
    return lease;
  }
  // Writes the Lease as some other replica would (create, or replace at the current version).
  void PutForeignLease(const std::string& holder, int64_t renew_micros) {
    kube::Lease lease;
    lease.metadata.name = kLeaseName;
    lease.metadata.namespace_name = kNamespace;
    lease.holder_identity = holder;
    lease.lease_duration_seconds = 15;
    lease.acquire_time = lease.renew_time = renew_micros;
    ApiResult current = observer_->Get(kLeasePath);
    if (!current.ok()) {
      ApiResult created = observer_->Create(
          "/apis/coordination.k8s.io/v1/namespaces/steward/leases", kube::ToJson(lease));
      ASSERT_TRUE(created.ok()) << created.error().message;
      return;
    }
    lease.metadata.resource_version = current.value()["metadata"]["resourceVersion"];
    ApiResult replaced = observer_->Replace(kLeasePath, kube::ToJson(lease));
    ASSERT_TRUE(replaced.ok()) << replaced.error().message;
  }

  std::unique_ptr<KubeTestServer> server_;
  std::unique_ptr<KubeClient> observer_;
};

TEST_F(LeaderElectionTest, FirstCandidateCreatesTheLeaseAndRenewsItWithOnePut) {
  auto a = Make("replica-a");
  EXPECT_FALSE(a->leader());
  a->StepIfDue();
  ASSERT_TRUE(a->leader()) << a->elector->LastError();
  EXPECT_EQ(a->started, 1);
  EXPECT_EQ(a->elector->Leader(), "replica-a");
  kube::Lease lease = ReadLease();
  EXPECT_EQ(lease.holder_identity, "replica-a");
  EXPECT_EQ(lease.lease_duration_seconds, 15);
  EXPECT_EQ(lease.lease_transitions, 0);
  EXPECT_EQ(lease.acquire_time, FakeClock::kWallStart);
  EXPECT_EQ(lease.renew_time, FakeClock::kWallStart);

  a->clock.Advance(seconds(2));
  const int before = server_->requests();
  a->StepIfDue();
  EXPECT_EQ(server_->requests() - before, 1) << "a leader renews with one PUT, no GET";
  EXPECT_TRUE(a->leader());
  lease = ReadLease();
  EXPECT_EQ(lease.renew_time, FakeClock::kWallStart + 2 * kMicrosPerSecond);
  EXPECT_EQ(lease.acquire_time, FakeClock::kWallStart) << "a renewal keeps acquireTime";
  EXPECT_EQ(lease.lease_transitions, 0);
  EXPECT_EQ(a->started, 1);
}

TEST_F(LeaderElectionTest, SecondCandidateStaysFollowerWhileTheLeaderRenews) {
  auto a = Make("replica-a");
  auto b = Make("replica-b");
  for (int tick = 0; tick < 600; ++tick) {  // 60 s in 100 ms steps.
    a->StepIfDue();
    b->StepIfDue();
    ASSERT_TRUE(a->leader()) << "tick " << tick << ": " << a->elector->LastError();
    ASSERT_FALSE(b->leader()) << "tick " << tick;
    a->clock.Advance(milliseconds(100));
    b->clock.Advance(milliseconds(100));
  }
  EXPECT_EQ(b->elector->Leader(), "replica-a");
  EXPECT_EQ(b->started, 0);
  EXPECT_EQ(ReadLease().lease_transitions, 0);
}

// A partition: the leader stops stepping (it can reach nothing). Its IsLeader() goes false at
// its renew deadline by its clock; the follower takes over a lease duration after it saw the
// last renewal, by its own clock. At no simulated instant are both leaders.
TEST_F(LeaderElectionTest, PartitionedLeaderStepsDownBeforeTheFollowerTakesOver) {
  auto a = Make("replica-a");
  auto b = Make("replica-b");
  const milliseconds tick(100);
  const milliseconds partition_at(5'000);
  milliseconds now(0), last_renewal(-1), a_down(-1), b_up(-1);
  auto check = [&] {
    ASSERT_FALSE(a->leader() && b->leader()) << "both lead at " << now.count() << " ms";
    if (a_down.count() < 0 && last_renewal.count() >= 0 && !a->leader()) a_down = now;
    if (b_up.count() < 0 && b->leader()) b_up = now;
  };
  for (; now < seconds(40); now += tick) {
    if (now < partition_at && a->clock.Now() >= a->next_step) {
      a->StepIfDue();
      ASSERT_TRUE(a->leader()) << a->elector->LastError();
      last_renewal = now;
    }
    ASSERT_NO_FATAL_FAILURE(check());
    b->StepIfDue();
    ASSERT_NO_FATAL_FAILURE(check());
    a->clock.Advance(tick);
    b->clock.Advance(tick);
  }
  ASSERT_GE(last_renewal.count(), 0);
  ASSERT_GE(a_down.count(), 0) << "the partitioned leader never stepped down";
  ASSERT_GE(b_up.count(), 0) << "the follower never took over";
  EXPECT_EQ(a_down, last_renewal + milliseconds(10'000)) << "renew deadline after the renewal";
  EXPECT_LT(a_down, b_up);
  // The follower saw the last renewal at its next step (every 2 s) and then waited 15 s.
  EXPECT_GE(b_up, last_renewal + seconds(15));
  EXPECT_LE(b_up, last_renewal + seconds(15) + milliseconds(2'000) + tick);
  kube::Lease lease = ReadLease();
  EXPECT_EQ(lease.holder_identity, "replica-b");
  EXPECT_EQ(lease.lease_transitions, 1);
  EXPECT_GT(*lease.acquire_time, FakeClock::kWallStart + 15 * kMicrosPerSecond);
  EXPECT_EQ(a->stopped, 0) << "the callback runs when the partitioned replica steps";

  // The partition heals: the old leader steps, reports the loss and follows.
  a->StepIfDue();
  EXPECT_EQ(a->stopped, 1);
  EXPECT_FALSE(a->leader());
  EXPECT_EQ(a->elector->Leader(), "replica-b");
  EXPECT_TRUE(b->leader());
}

// client-go's rule: expiry is measured from when this client saw the record change, on its own
// clock, never from the remote renewTime (which may come from a clock far off).
TEST_F(LeaderElectionTest, FollowerMeasuresExpiryFromItsOwnObservation) {
  PutForeignLease("ghost", FakeClock::kWallStart - 3600 * kMicrosPerSecond);  // An hour "old".
  auto b = Make("replica-b");
  b->elector->Step();
  EXPECT_FALSE(b->leader()) << "a renewTime in the past is not expiry";
  EXPECT_EQ(b->elector->Leader(), "ghost");

  // The ghost renews at 10 s: the follower's wait restarts from when it sees that.
  b->clock.Advance(seconds(10));
  PutForeignLease("ghost", FakeClock::kWallStart - 3000 * kMicrosPerSecond);
  b->elector->Step();  // Sees the change at 10 s.
  b->clock.Advance(seconds(14));
  b->elector->Step();  // 24 s: past 15 s from the first sighting, 14 s after the renewal.
  EXPECT_FALSE(b->leader());
  b->clock.Advance(seconds(1));
  b->elector->Step();  // 25 s: 15 s after it saw the renewal.
  ASSERT_TRUE(b->leader()) << b->elector->LastError();
  kube::Lease lease = ReadLease();
  EXPECT_EQ(lease.holder_identity, "replica-b");
  EXPECT_EQ(lease.lease_transitions, 1);
}

TEST_F(LeaderElectionTest, ReleaseOnStopLetsTheFollowerTakeOverAtOnce) {
  auto a = Make("replica-a");
  auto b = Make("replica-b");
  a->elector->Step();
  b->elector->Step();
  ASSERT_TRUE(a->leader());
  ASSERT_FALSE(b->leader());

  a->elector->Stop();
  EXPECT_FALSE(a->leader());
  EXPECT_EQ(a->stopped, 1);
  kube::Lease released = ReadLease();
  EXPECT_EQ(released.holder_identity, "");
  EXPECT_EQ(released.lease_duration_seconds, 1);

  b->elector->Step();  // No time has passed.
  ASSERT_TRUE(b->leader()) << b->elector->LastError();
  EXPECT_EQ(ReadLease().lease_transitions, 1);
  a->elector->Step();  // Stopped: it no longer competes.
  EXPECT_FALSE(a->leader());
  EXPECT_EQ(ReadLease().holder_identity, "replica-b");
}

TEST_F(LeaderElectionTest, StopWithoutReleaseLeavesTheLeaseToExpire) {
  LeaderElectionOptions keep;
  keep.release_on_stop = false;
  auto a = Make("replica-a", keep);
  auto b = Make("replica-b");
  a->elector->Step();
  b->elector->Step();
  a->elector->Stop();
  EXPECT_FALSE(a->leader());
  EXPECT_EQ(ReadLease().holder_identity, "replica-a");
  b->clock.Advance(seconds(14));
  b->elector->Step();
  EXPECT_FALSE(b->leader());
  b->clock.Advance(seconds(1));
  b->elector->Step();
  EXPECT_TRUE(b->leader()) << b->elector->LastError();
}

TEST_F(LeaderElectionTest, LeaseTransitionsCountTakeoversNotRenewals) {
  auto a = Make("replica-a");
  auto b = Make("replica-b");
  auto c = Make("replica-c");
  a->elector->Step();
  for (int i = 0; i < 3; ++i) {
    a->clock.Advance(seconds(2));
    a->elector->Step();
  }
  EXPECT_EQ(ReadLease().lease_transitions, 0);
  a->elector->Stop();
  b->clock.Advance(seconds(1));
  b->elector->Step();
  ASSERT_TRUE(b->leader());
  const kube::Lease first = ReadLease();
  EXPECT_EQ(first.lease_transitions, 1);
  EXPECT_EQ(first.acquire_time, FakeClock::kWallStart + kMicrosPerSecond);
  b->elector->Stop();
  c->clock.Advance(seconds(3));
  c->elector->Step();
  ASSERT_TRUE(c->leader());
  const kube::Lease second = ReadLease();
  EXPECT_EQ(second.lease_transitions, 2);
  EXPECT_EQ(second.acquire_time, FakeClock::kWallStart + 3 * kMicrosPerSecond);
}

// Holds lease PUTs back until two have arrived, so that both carry the resourceVersion both
// candidates read: the server must let exactly one through.
class LeaseRaceTest : public LeaderElectionTest {
 protected:
  LeaseRaceTest() : LeaderElectionTest(Options(this)) {}
  static KubeTestServerOptions Options(LeaseRaceTest* self) {
    KubeTestServerOptions o;
    o.before_request = [self](const http::Request& r) {
      if (r.method != "PUT" || !self->hold_puts_.load()) return;
      std::unique_lock<std::mutex> lock(self->mu_);
      ++self->puts_held_;
      self->cv_.notify_all();
      self->cv_.wait_for(lock, seconds(10), [self] { return self->puts_held_ >= 2; });
    };
    return o;
  }
  std::atomic<bool> hold_puts_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  int puts_held_ = 0;
};

TEST_F(LeaseRaceTest, TwoCandidatesUpdatingTheSameVersionOneWins) {
  auto a = Make("replica-a");
  auto b = Make("replica-b");
  auto c = Make("replica-c");
  a->elector->Step();  // Creates the Lease (a POST: not held).
  ASSERT_TRUE(a->leader());
  b->elector->Step();
  c->elector->Step();
  // a is partitioned; the lease expires for both followers.
  a->clock.Advance(seconds(16));
  EXPECT_FALSE(a->leader());
  b->clock.Advance(seconds(16));
  c->clock.Advance(seconds(16));
  hold_puts_ = true;
  std::thread tb([&] { b->elector->Step(); });
  std::thread tc([&] { c->elector->Step(); });
  tb.join();
  tc.join();
  EXPECT_EQ(puts_held_, 2) << "both candidates sent their update";
  ASSERT_NE(b->leader(), c->leader()) << "exactly one wins";
  Candidate* winner = b->leader() ? b.get() : c.get();
  Candidate* loser = b->leader() ? c.get() : b.get();
  EXPECT_NE(loser->elector->LastError().find("Conflict"), std::string::npos)
      << loser->elector->LastError();
  kube::Lease lease = ReadLease();
  EXPECT_EQ(lease.holder_identity, winner->elector->identity());
  EXPECT_EQ(lease.lease_transitions, 1) << "one takeover, counted once";

  hold_puts_ = false;
  loser->elector->Step();
  EXPECT_FALSE(loser->leader());
  EXPECT_EQ(loser->elector->Leader(), winner->elector->identity());
  EXPECT_EQ(loser->started, 0);
}

TEST_F(LeaderElectionTest, RunnerThreadsElectOneAndHandOverOnStop) {
  LeaderElectionOptions fast;  // Real clock; the smallest lease a Lease can express.
  fast.lease_duration = seconds(1);
  fast.renew_deadline = milliseconds(600);
  fast.retry_period = milliseconds(50);
  KubeClientOptions o;
  o.qps = 0;
  auto client_a = std::move(KubeClient::Create(server_->Config(), o)).value();
  auto client_b = std::move(KubeClient::Create(server_->Config(), o)).value();
  fast.identity = "replica-a";
  fast.lease_namespace = kNamespace;
  fast.lease_name = kLeaseName;
  auto a = std::move(LeaderElector::Create(client_a.get(), fast)).value();
  fast.identity = "replica-b";
  auto b = std::move(LeaderElector::Create(client_b.get(), fast)).value();
  a->Start();
  ASSERT_TRUE(Eventually([&] { return a->IsLeader(); })) << a->LastError();
  b->Start();
  ASSERT_TRUE(Eventually([&] { return b->Leader() == "replica-a"; })) << b->LastError();
  EXPECT_FALSE(b->IsLeader());
  a->Stop();
  EXPECT_FALSE(a->IsLeader());
  ASSERT_TRUE(Eventually([&] { return b->IsLeader(); })) << b->LastError();
  EXPECT_FALSE(a->IsLeader());
  b->Stop();
  EXPECT_EQ(ReadLease().holder_identity, "");
}

TEST(LeaderElectionOptionsTest, RejectsDurationsOutOfOrderAndNamesTheDefaultIdentity) {
  KubeTestServer server;
  server.PutNamespace(kNamespace);
  auto client = std::move(KubeClient::Create(server.Config())).value();
  LeaderElectionOptions o;
  o.lease_name = kLeaseName;
  o.renew_deadline = seconds(15);  // Not below the lease duration.
  auto bad = LeaderElector::Create(client.get(), o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("renew deadline"), std::string::npos);
  o.renew_deadline = seconds(10);
  o.retry_period = seconds(10);
  EXPECT_FALSE(LeaderElector::Create(client.get(), o).ok());
  o.retry_period = seconds(2);
  o.lease_name.clear();
  EXPECT_FALSE(LeaderElector::Create(client.get(), o).ok());
  o.lease_name = kLeaseName;
  auto good = LeaderElector::Create(client.get(), o);
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  const std::string id = (*good)->identity();
  EXPECT_NE(id.find('_'), std::string::npos) << id;
  EXPECT_NE(id, DefaultLeaderIdentity()) << "the suffix is random";
}

// The twin's API front (`steward serve --kube-port`, whose namespaces include "steward") is a
// Lease store with optimistic concurrency too: two candidates elect one through it, and a
// release hands over at once.
TEST(LeaderElectionTwinFrontTest, ElectsThroughTheTwinsApiFront) {
  auto live = server::testing::MakeKueueLive();
  kubefront::KubeFrontOptions fo;
  fo.epoch_micros = FakeClock::kWallStart;
  kubefront::KubeFront front(live.get(), fo);
  Result<int> port = front.Start();
  ASSERT_TRUE(port.ok()) << port.status().ToString();
  RestConfig config;
  config.source = "test";
  config.server = "http://127.0.0.1:" + std::to_string(*port);
  {
    auto a = MakeCandidate(config, "replica-a");
    auto b = MakeCandidate(config, "replica-b");
    a->elector->Step();
    ASSERT_TRUE(a->leader()) << a->elector->LastError();
    b->elector->Step();
    EXPECT_FALSE(b->leader());
    EXPECT_EQ(b->elector->Leader(), "replica-a");
    a->clock.Advance(seconds(2));
    a->elector->Step();
    EXPECT_TRUE(a->leader()) << a->elector->LastError();
    a->elector->Stop();
    b->elector->Step();
    EXPECT_TRUE(b->leader()) << b->elector->LastError();
  }
  front.Stop();
}

}  // namespace
}  // namespace steward::live
