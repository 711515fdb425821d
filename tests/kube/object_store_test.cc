// ObjectStore: etcd's semantics as Kubernetes clients see them (kube-api-facts.md §3.4): one
// resourceVersion counter for the whole store, one watch event per change in order, consistent
// snapshots, a bounded history past which a watch or a past read is Gone (410 Expired).
#include "kube/object_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

namespace steward::kube {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

StoredResourceSpec Resource(std::string name, bool namespaced = true) {
  StoredResourceSpec spec;
  spec.name = std::move(name);
  spec.namespaced = namespaced;
  return spec;
}

ObjectStoreOptions ClockedOptions(std::function<Clock::time_point()> clock) {
  ObjectStoreOptions options;
  options.clock = std::move(clock);
  return options;
}

ObjectStoreOptions CountBoundOptions(size_t max_history_events) {
  ObjectStoreOptions options;
  options.max_history_events = max_history_events;
  return options;
}

json Obj(const std::string& name, const std::string& value = "a") {
  return {{"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"labels", {{"app", value}}}}},
          {"data", {{"v", value}}}};
}

// A clock tests move by hand.
struct FakeClock {
  Clock::time_point now = Clock::time_point() + std::chrono::hours(1000);
  std::function<Clock::time_point()> Fn() {
    return [this] { return now; };
  }
};

std::vector<StoreEvent> AllEventsAfter(const ObjectStore& store, int64_t from) {
  std::vector<StoreEvent> out;
  EXPECT_TRUE(store.WaitForEvents(from, 1000, Clock::now(), &out));
  return out;
}

class ObjectStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    maps_ = store_.AddResource(Resource("configmaps", true));
    nodes_ = store_.AddResource(Resource("nodes", false));
  }
  ObjectStore store_;
  int maps_ = 0, nodes_ = 0;
};

TEST_F(ObjectStoreTest, OneMonotonicVersionForTheWholeStore) {
  EXPECT_EQ(store_.resource_version(), 0);
  int64_t last = 0;
  for (int i = 0; i < 3; ++i) {
    auto a = store_.Commit({{maps_, "ns", "m" + std::to_string(i), Obj("m")}});
    auto b = store_.Commit({{nodes_, "", "n" + std::to_string(i), Obj("n")}});
    ASSERT_TRUE(a[0] && b[0]);
    EXPECT_GT(a[0]->resource_version, last);
    EXPECT_GT(b[0]->resource_version, a[0]->resource_version);
    last = b[0]->resource_version;
    // The version is written into the object as clients read it.
    EXPECT_EQ(b[0]->Parse()["metadata"]["resourceVersion"], std::to_string(last));
  }
  EXPECT_EQ(store_.resource_version(), last);
  EXPECT_EQ(store_.Snapshot(maps_).resource_version, last);
}

TEST_F(ObjectStoreTest, EveryChangeIsExactlyOneEventInOrder) {
  store_.Commit({{maps_, "ns", "a", Obj("a", "1")},
                 {maps_, "ns", "a", Obj("a", "2")},
                 {nodes_, "", "gone", std::nullopt},  // Absent: skipped, no version.
                 {maps_, "ns", "b", Obj("b")}});
  store_.Commit({{maps_, "ns", "a", std::nullopt}});
  auto updated = store_.Update(maps_, "ns", "b", [](const StoredObject* cur) {
    EXPECT_NE(cur, nullptr);
    return std::variant<std::optional<json>, ApiError>(std::optional<json>(Obj("b", "2")));
  });
  ASSERT_TRUE(std::holds_alternative<ObjectPtr>(updated));

  const std::vector<StoreEvent> events = AllEventsAfter(store_, 0);
  ASSERT_EQ(events.size(), 5u);
  const std::vector<std::pair<WatchEventType, std::string>> expected = {
      {WatchEventType::kAdded, "a"},
      {WatchEventType::kModified, "a"},
      {WatchEventType::kAdded, "b"},
      {WatchEventType::kDeleted, "a"},
      {WatchEventType::kModified, "b"}};
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].resource_version, static_cast<int64_t>(i + 1));
    EXPECT_EQ(events[i].type, expected[i].first) << i;
    EXPECT_EQ(events[i].object->name, expected[i].second) << i;
  }
  // A MODIFIED carries the state it replaced; a DELETED reports the last state at its version.
  EXPECT_EQ(events[1].previous->Parse()["data"]["v"], "1");
  EXPECT_EQ(events[3].object->resource_version, 4);
  EXPECT_EQ(events[3].object->Parse()["data"]["v"], "2");
  EXPECT_EQ(store_.resource_version(), 5);
  EXPECT_EQ(WatchEventName(events[3].type), "DELETED");
}

TEST_F(ObjectStoreTest, NoOpUpdateKeepsTheVersionAndEmitsNothing) {
  auto first = store_.Commit({{maps_, "ns", "a", Obj("a")}})[0];
  const size_t history = store_.history_size();
  auto same = store_.Update(maps_, "ns", "a", [](const StoredObject*) {
    return std::variant<std::optional<json>, ApiError>(std::optional<json>(Obj("a")));
  });
  ASSERT_TRUE(std::holds_alternative<ObjectPtr>(same));
  EXPECT_EQ(std::get<ObjectPtr>(same)->resource_version, first->resource_version);
  EXPECT_EQ(store_.resource_version(), first->resource_version);
  EXPECT_EQ(store_.history_size(), history);
  // Deleting what is absent is no change either.
  auto none = store_.Update(maps_, "ns", "absent", [](const StoredObject*) {
    return std::variant<std::optional<json>, ApiError>(std::optional<json>());
  });
  ASSERT_TRUE(std::holds_alternative<ObjectPtr>(none));
  EXPECT_EQ(std::get<ObjectPtr>(none), nullptr);
  EXPECT_EQ(store_.resource_version(), first->resource_version);
}

TEST_F(ObjectStoreTest, RefusedUpdateChangesNothing) {
  store_.Commit({{maps_, "ns", "a", Obj("a")}});
  auto r = store_.Update(maps_, "ns", "a", [](const StoredObject*) {
    return std::variant<std::optional<json>, ApiError>(
        ApiError::Conflict("configmaps", "", "a", "stale"));
  });
  ASSERT_TRUE(std::holds_alternative<ApiError>(r));
  EXPECT_EQ(std::get<ApiError>(r).code, 409);
  EXPECT_EQ(store_.resource_version(), 1);
  EXPECT_EQ(store_.Get(maps_, "ns", "a")->Parse()["data"]["v"], "a");
}

TEST_F(ObjectStoreTest, SnapshotsAreConsistentAndPastOnesAreRebuilt) {
  store_.Commit({{maps_, "ns", "a", Obj("a", "1")}, {maps_, "ns", "b", Obj("b", "1")}});  // 1, 2
  const ObjectStore::View at2 = store_.Snapshot(maps_);
  store_.Commit({{maps_, "ns", "a", Obj("a", "2")}});  // 3
  store_.Commit({{maps_, "ns", "b", std::nullopt}});   // 4
  store_.Commit({{maps_, "ns", "c", Obj("c", "1")}});  // 5
  store_.Commit({{nodes_, "", "n", Obj("n")}});        // 6, another resource

  // A snapshot taken earlier does not move.
  ASSERT_EQ(at2.resource_version, 2);
  ASSERT_EQ(at2.items->size(), 2u);
  EXPECT_EQ((*at2.items)[0]->Parse()["data"]["v"], "1");

  // SnapshotAt rebuilds each past state, sorted by (namespace, name).
  auto names = [](const ObjectStore::View& v) {
    std::vector<std::string> out;
    for (const ObjectPtr& o : *v.items)
      out.push_back(o->name + "=" + o->Parse()["data"]["v"].get<std::string>());
    return out;
  };
  std::map<int64_t, std::vector<std::string>> expected = {{1, {"a=1"}},        {2, {"a=1", "b=1"}},
                                                          {3, {"a=2", "b=1"}}, {4, {"a=2"}},
                                                          {5, {"a=2", "c=1"}}, {6, {"a=2", "c=1"}}};
  for (const auto& [rv, want] : expected) {
    auto v = store_.SnapshotAt(maps_, rv);
    ASSERT_TRUE(std::holds_alternative<ObjectStore::View>(v)) << rv;
    EXPECT_EQ(std::get<ObjectStore::View>(v).resource_version, rv);
    EXPECT_EQ(names(std::get<ObjectStore::View>(v)), want) << "at " << rv;
  }
  // A version the store has not reached: 504 Timeout ("Too large resource version").
  auto future = store_.SnapshotAt(maps_, 7);
  ASSERT_TRUE(std::holds_alternative<ApiError>(future));
  EXPECT_EQ(std::get<ApiError>(future).code, 504);
  EXPECT_EQ(store_.Get(maps_, "ns", "b"), nullptr);
  EXPECT_EQ(store_.Get(maps_, "ns", "c")->resource_version, 5);
}

class ObjectStoreHistoryTest : public ::testing::Test {
 protected:
  ObjectStoreHistoryTest() : store_(ClockedOptions(clock_.Fn())) {
    maps_ = store_.AddResource(Resource("configmaps", true));
  }
  FakeClock clock_;
  ObjectStore store_;
  int maps_ = 0;
};

TEST_F(ObjectStoreHistoryTest, DefaultWindowIsFiveMinutes) {
  EXPECT_EQ(ObjectStoreOptions().history_window, std::chrono::minutes(5));
}

TEST_F(ObjectStoreHistoryTest, EventsOlderThanTheWindowAreGone) {
  store_.Commit({{maps_, "ns", "a", Obj("a", "1")}});  // 1 at t0
  store_.Commit({{maps_, "ns", "a", Obj("a", "2")}});  // 2 at t0
  clock_.now += std::chrono::minutes(4);
  store_.Commit({{maps_, "ns", "a", Obj("a", "3")}});  // 3 at t0+4m
  EXPECT_FALSE(store_.CheckWatchable(0).has_value()) << "4 minutes is inside the window";

  clock_.now += std::chrono::minutes(2);               // t0+6m: 1 and 2 are out of the window.
  store_.Commit({{maps_, "ns", "a", Obj("a", "4")}});  // 4
  std::optional<ApiError> gone = store_.CheckWatchable(1);
  ASSERT_TRUE(gone.has_value());
  EXPECT_EQ(gone->code, 410);
  EXPECT_EQ(gone->reason, "Expired");
  // From 2 on, every later event is still there.
  EXPECT_FALSE(store_.CheckWatchable(2).has_value());
  std::vector<StoreEvent> out;
  EXPECT_TRUE(store_.WaitForEvents(2, 10, Clock::now(), &out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].resource_version, 3);
  out.clear();
  EXPECT_FALSE(store_.WaitForEvents(1, 10, Clock::now(), &out));
  // A past list is as old as the history reaches.
  auto past = store_.SnapshotAt(maps_, 1);
  ASSERT_TRUE(std::holds_alternative<ApiError>(past));
  EXPECT_EQ(std::get<ApiError>(past).code, 410);
  EXPECT_TRUE(std::holds_alternative<ObjectStore::View>(store_.SnapshotAt(maps_, 2)));
}

TEST_F(ObjectStoreHistoryTest, HistoryExpiresEvenWhenNothingIsWritten) {
  // etcd compacts on a timer, not on writes: an idle store's old versions expire too.
  store_.Commit({{maps_, "ns", "a", Obj("a", "1")}});  // 1
  store_.Commit({{maps_, "ns", "a", Obj("a", "2")}});  // 2
  clock_.now += std::chrono::minutes(6);
  std::optional<ApiError> gone = store_.CheckWatchable(1);
  ASSERT_TRUE(gone.has_value());
  EXPECT_EQ(gone->code, 410);
  auto past = store_.SnapshotAt(maps_, 1);
  ASSERT_TRUE(std::holds_alternative<ApiError>(past));
  EXPECT_EQ(std::get<ApiError>(past).code, 410);
  std::vector<StoreEvent> out;
  EXPECT_FALSE(store_.WaitForEvents(1, 10, Clock::now(), &out));
  // The current version stays watchable and readable.
  EXPECT_FALSE(store_.CheckWatchable(2).has_value());
  EXPECT_TRUE(std::holds_alternative<ObjectStore::View>(store_.SnapshotAt(maps_, 2)));
}

TEST(ObjectStoreBoundTest, HistoryIsBoundedByCount) {
  ObjectStore store(CountBoundOptions(3));
  const int maps = store.AddResource(Resource("configmaps"));
  for (int i = 0; i < 5; ++i) store.Commit({{maps, "ns", "a", Obj("a", std::to_string(i))}});
  EXPECT_EQ(store.history_size(), 3u);
  EXPECT_EQ(store.compacted(), 2);
  EXPECT_TRUE(store.CheckWatchable(1).has_value());
  EXPECT_FALSE(store.CheckWatchable(2).has_value());
}

TEST(ObjectStoreBoundTest, WatcherOvertakenByCompactionIsTold) {
  ObjectStore store(CountBoundOptions(2));
  const int maps = store.AddResource(Resource("configmaps"));
  store.Commit({{maps, "ns", "a", Obj("a", "0")}});
  const int64_t cursor = store.resource_version();
  for (int i = 1; i < 5; ++i) store.Commit({{maps, "ns", "a", Obj("a", std::to_string(i))}});
  std::vector<StoreEvent> out;
  EXPECT_FALSE(store.WaitForEvents(cursor, 10, Clock::now() + std::chrono::seconds(5), &out));
  EXPECT_FALSE(store.closed());
}

TEST(ObjectStoreWaitTest, WaitReturnsAtTheDeadlineWithNothing) {
  ObjectStore store;
  store.AddResource(Resource("configmaps"));
  std::vector<StoreEvent> out;
  EXPECT_TRUE(store.WaitForEvents(0, 10, Clock::now(), &out));
  EXPECT_TRUE(out.empty());
}

TEST(ObjectStoreWaitTest, CommitWakesAWaiter) {
  ObjectStore store;
  const int maps = store.AddResource(Resource("configmaps"));
  auto waiter = std::async(std::launch::async, [&] {
    std::vector<StoreEvent> out;
    const bool ok = store.WaitForEvents(0, 10, Clock::now() + std::chrono::seconds(60), &out);
    return std::make_pair(ok, out.size());
  });
  store.Commit({{maps, "ns", "a", Obj("a")}});
  ASSERT_EQ(waiter.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  EXPECT_EQ(waiter.get(), std::make_pair(true, size_t{1}));
}

TEST(ObjectStoreWaitTest, CloseWakesWaitersAndEndsWatching) {
  ObjectStore store;
  store.AddResource(Resource("configmaps"));
  auto waiter = std::async(std::launch::async, [&] {
    std::vector<StoreEvent> out;
    return store.WaitForEvents(0, 10, Clock::now() + std::chrono::seconds(60), &out);
  });
  // Let the waiter block (if it has not yet, it sees closed_ on entry: same outcome).
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  store.Close();
  ASSERT_EQ(waiter.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  EXPECT_FALSE(waiter.get());
  EXPECT_TRUE(store.closed());
  std::vector<StoreEvent> out;
  EXPECT_FALSE(store.WaitForEvents(0, 10, Clock::now() + std::chrono::seconds(60), &out));
}

}  // namespace
}  // namespace steward::kube
