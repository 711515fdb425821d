#include "store/event_log.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace steward::store {
namespace {

std::string TempPath(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "steward_event_log_test";
  std::filesystem::create_directories(dir);
  const auto p = dir / name;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(p.string() + suffix);
  return p.string();
}

EventRow Row(double t, const std::string& kind, const std::string& workload) {
  EventRow r;
  r.t_seconds = t;
  r.kind = kind;
  r.workload = workload;
  r.team = "a";
  r.gpus = 8;
  return r;
}

TEST(EventLogTest, RowsComeBackInOrderAndByWorkload) {
  const std::string path = TempPath("order.db");
  auto log = EventLog::Create(path, "test run");
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_TRUE((*log)->Append(Row(0, "arrive", "ns/a")).ok());
  ASSERT_TRUE((*log)->Append(Row(0, "arrive", "ns/b")).ok());
  EventRow lost = Row(60, "preempt", "ns/a");
  lost.lost_gpu_hours = 1.5;
  lost.detail = "by ns/b";
  ASSERT_TRUE((*log)->Append(lost).ok());
  ASSERT_TRUE((*log)->Finish().ok());

  auto all = EventLog::Read(path, std::nullopt);
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[1].workload, "ns/b");
  EXPECT_EQ((*all)[2].seq, 2);
  auto a = EventLog::Read(path, std::nullopt, "ns/a");
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->size(), 2u);
  EXPECT_EQ((*a)[1].kind, "preempt");
  EXPECT_DOUBLE_EQ((*a)[1].lost_gpu_hours, 1.5);
  EXPECT_EQ((*a)[1].detail, "by ns/b");
  EXPECT_DOUBLE_EQ((*a)[1].t_seconds, 60);
}

// A writer killed before Finish() leaves an incomplete run: readers keep reading the last
// complete one, and a rerun is a new run, so nothing is counted twice.
TEST(EventLogTest, AnUnfinishedRunIsNeverTakenForTheLatest) {
  const std::string path = TempPath("killed.db");
  {
    auto first = EventLog::Create(path, "first");
    ASSERT_TRUE(first.ok());
    ASSERT_TRUE((*first)->Append(Row(0, "arrive", "ns/a")).ok());
    ASSERT_TRUE((*first)->Finish().ok());
  }
  {
    auto killed = EventLog::Create(path, "killed");
    ASSERT_TRUE(killed.ok());
    // More than one batch: the first 4096 rows are committed, the rest never are.
    for (int i = 0; i < 5000; ++i) ASSERT_TRUE((*killed)->Append(Row(i, "arrive", "ns/x")).ok());
  }  // Destroyed without Finish(), as a killed process would leave it.
  auto runs = EventLog::Runs(path);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_TRUE((*runs)[0].complete);
  EXPECT_EQ((*runs)[0].events, 1);
  EXPECT_FALSE((*runs)[1].complete);
  EXPECT_EQ((*runs)[1].events, 4096);
  auto latest = EventLog::Read(path, std::nullopt);
  ASSERT_TRUE(latest.ok());
  ASSERT_EQ(latest->size(), 1u);
  EXPECT_EQ((*latest)[0].workload, "ns/a");
  auto partial = EventLog::Read(path, (*runs)[1].id);
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(partial->size(), 4096u);
}

TEST(EventLogTest, MissingOrForeignFilesAreClearErrors) {
  auto missing = EventLog::Read(TempPath("missing.db"), std::nullopt);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("missing.db"), std::string::npos);
  const std::string foreign = TempPath("foreign.db");
  std::ofstream(foreign) << "";  // An empty file is a valid, empty SQLite database.
  auto f = EventLog::Read(foreign, std::nullopt);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("not a Steward event log"), std::string::npos);
  const std::string empty = TempPath("empty.db");
  ASSERT_TRUE(EventLog::Create(empty, "never finished").ok());
  auto none = EventLog::Read(empty, std::nullopt);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no complete run"), std::string::npos);
}

}  // namespace
}  // namespace steward::store
