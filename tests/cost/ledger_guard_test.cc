// The ledger's guards: one writer at a time, one run per ledger, readers that never change a
// file and work where they may not write, and invariants checked on every window read.
#include <fcntl.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cost/ledger.h"
#include "ledger_fixture.h"
#include "store/sqlite_db.h"

namespace steward::cost {
namespace {

using testing::FixtureCostModel;
using ::testing::HasSubstr;
using testing::kCapacity;
using testing::kW1;
using testing::kW2;
using testing::OpenFixtureLedger;
using testing::TempLedgerPath;
using testing::W1Records;

LedgerOptions ReadOnly() {
  LedgerOptions o;
  o.read_only = true;
  return o;
}

LedgerOptions WriterOf(std::optional<LedgerRun> run) {
  LedgerOptions o;
  o.cost_model = FixtureCostModel();
  o.run = std::move(run);
  return o;
}

LedgerRun RunA() { return {"case1", "00000000000000aa", 1, "H100=8,L4=4"}; }

std::string FileBytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every window's status (the first error stops the walk).
Status ReadAll(const Ledger& ledger) {
  return ledger.ForEachWindow({0, INT64_MAX / 2}, [](const StoredWindow&) {});
}

// Runs `sql` on the ledger file directly, as `sqlite3 FILE` would.
void Tamper(const std::filesystem::path& path, const std::string& sql) {
  auto db = store::SqliteDb::Open(path.string());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_TRUE((*db)->Exec(sql).ok()) << sql;
}

TEST(LedgerWriterLockTest, SecondWriterIsRefusedNamingTheHolder) {
  TempLedgerPath tmp;
  auto first = OpenFixtureLedger(tmp.path());
  ASSERT_NE(first, nullptr);
  auto second = Ledger::Open(tmp.path(), WriterOf(std::nullopt));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Status::Code::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), HasSubstr(tmp.path().string()));
  EXPECT_THAT(second.status().message(), HasSubstr(fmt::format("pid {} on host", getpid())));
  // Readers are not writers: they open while the writer holds the lock.
  auto reader = Ledger::Open(tmp.path(), ReadOnly());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE(ReadAll(**reader).ok());
  first.reset();  // The lock goes with the writer.
  auto third = Ledger::Open(tmp.path(), WriterOf(std::nullopt));
  EXPECT_TRUE(third.ok()) << third.status().ToString();
}

// Another process holds the lock, then dies without cleaning up (kill -9): the lock goes too.
TEST(LedgerWriterLockTest, WriterInAnotherProcessThenKilled) {
  TempLedgerPath tmp;
  { ASSERT_NE(OpenFixtureLedger(tmp.path()), nullptr); }
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto ledger = Ledger::Open(tmp.path(), WriterOf(std::nullopt));
    const char c = ledger.ok() ? 'y' : 'n';
    (void)!write(ready[1], &c, 1);
    pause();  // Until killed.
    _exit(0);
  }
  close(ready[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  ASSERT_EQ(c, 'y');
  auto refused = Ledger::Open(tmp.path(), WriterOf(std::nullopt));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr(fmt::format("pid {} on host", pid)));
  kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  auto after = Ledger::Open(tmp.path(), WriterOf(std::nullopt));
  EXPECT_TRUE(after.ok()) << after.status().ToString();
}

TEST(LedgerRunTest, WindowsOfAnotherRunAreRefused) {
  TempLedgerPath tmp;
  {
    auto a = Ledger::Open(tmp.path(), WriterOf(RunA()));
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE((*a)->WriteWindow(kW1, W1Records(), kCapacity).ok());
  }
  // The same run again (a re-run replacing its windows) is welcome.
  {
    auto again = Ledger::Open(tmp.path(), WriterOf(RunA()));
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ((*again)->run(), RunA());
  }
  LedgerRun other_seed = RunA();
  other_seed.seed = 2;
  LedgerRun other_scenario = RunA();
  other_scenario.scenario_hash = "00000000000000bb";
  LedgerRun other_capacity = RunA();
  other_capacity.capacity = "H100=16,L4=4";
  for (const std::optional<LedgerRun>& writer :
       {std::optional<LedgerRun>(other_seed), std::optional<LedgerRun>(other_scenario),
        std::optional<LedgerRun>(other_capacity), std::optional<LedgerRun>()}) {
    auto l = Ledger::Open(tmp.path(), WriterOf(writer));
    ASSERT_FALSE(l.ok());
    EXPECT_EQ(l.status().code(), Status::Code::kFailedPrecondition);
    EXPECT_THAT(l.status().message(), HasSubstr("holds windows of " + RunA().Describe()));
  }
  // Readers see which run wrote it.
  auto reader = Ledger::Open(tmp.path(), ReadOnly());
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->run(), RunA());
}

TEST(LedgerRunTest, ARunDoesNotAdoptWindowsOfAnUnrecordedWriter) {
  TempLedgerPath tmp;
  { ASSERT_NE(OpenFixtureLedger(tmp.path()), nullptr); }  // No run recorded.
  auto l = Ledger::Open(tmp.path(), WriterOf(RunA()));
  ASSERT_FALSE(l.ok());
  EXPECT_THAT(l.status().message(), HasSubstr("2 window(s) of a writer that recorded no run"));
}

TEST(LedgerReadOnlyTest, ReadingNeverChangesTheFile) {
  TempLedgerPath tmp;
  { ASSERT_NE(OpenFixtureLedger(tmp.path()), nullptr); }
  // A rollback-journal file, as `steward cost schema | sqlite3 FILE` makes: a writer would
  // convert it to WAL, a reader must not.
  Tamper(tmp.path(), "PRAGMA journal_mode=DELETE");
  std::filesystem::remove(tmp.path().string() + ".lock");  // The writer's; readers take none.
  const std::string before = FileBytes(tmp.path());
  {
    auto reader = Ledger::Open(tmp.path(), ReadOnly());
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_TRUE(ReadAll(**reader).ok());
    Status w = (*reader)->WriteWindow({kW2.end, kW2.end + 3600}, {}, kCapacity);
    EXPECT_EQ(w.code(), Status::Code::kFailedPrecondition);
    EXPECT_THAT(w.message(), HasSubstr("read-only"));
  }
  EXPECT_EQ(FileBytes(tmp.path()), before);
  EXPECT_FALSE(std::filesystem::exists(tmp.path().string() + ".lock"));
}

TEST(LedgerReadOnlyTest, EmptyFileIsNotALedgerAndStaysEmpty) {
  TempLedgerPath tmp;
  { std::ofstream touch(tmp.path()); }
  auto reader = Ledger::Open(tmp.path(), ReadOnly());
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), Status::Code::kCorrupt);
  EXPECT_THAT(reader.status().message(), HasSubstr("0-byte"));
  EXPECT_EQ(std::filesystem::file_size(tmp.path()), 0u);
  // A missing file is not created either.
  std::filesystem::remove(tmp.path());
  EXPECT_EQ(Ledger::Open(tmp.path(), ReadOnly()).status().code(), Status::Code::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(tmp.path()));
}

// A ledger in a directory the reader may not write (file 0444, directory 0555), read by an
// unprivileged process (root ignores permissions, so a root test run drops to nobody).
TEST(LedgerReadOnlyTest, ReportsWorkInAReadOnlyDirectory) {
  char dir_template[] = "/tmp/steward_ro_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::filesystem::path dir(dir_template);
  const std::filesystem::path path = dir / "ledger.db";
  { ASSERT_NE(OpenFixtureLedger(path), nullptr); }  // Closed cleanly: no -wal/-shm left.
  std::filesystem::remove(path.string() + ".lock");
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  ASSERT_EQ(chmod(dir.c_str(), 0555), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(10);
    if (access(dir.c_str(), W_OK) == 0) _exit(11);  // Still privileged: the test proves nothing.
    auto reader = Ledger::Open(path, ReadOnly());
    if (!reader.ok()) {
      fprintf(stderr, "%s\n", reader.status().ToString().c_str());
      _exit(12);
    }
    int windows = 0;
    Status s =
        (*reader)->ForEachWindow({0, INT64_MAX / 2}, [&](const StoredWindow&) { ++windows; });
    _exit(s.ok() && windows == 2 ? 0 : 13);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  chmod(dir.c_str(), 0755);
  const std::vector<std::string> left = [&] {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      names.push_back(e.path().filename());
    }
    return names;
  }();
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(left, std::vector<std::string>{"ledger.db"});
}

TEST(LedgerInvariantTest, TamperedWindowsAreNamedOnRead) {
  struct Case {
    const char* sql;
    const char* expect;
  };
  const Case cases[] = {
      // More GPU-hours than the window had (a flipped digit).
      {"UPDATE allocations SET allocated_gpu_hours = 40, busy_gpu_hours = 3 WHERE workload = 'a' "
       "AND window_id = (SELECT min(id) FROM windows)",
       "H100 allocated 40.142857142857146 GPU-hours but capacity is 8"},
      // Infinity passes the schema's CHECK (>= 0); the reader refuses it.
      {"UPDATE allocations SET busy_gpu_hours = 9e999 WHERE workload = 'b'",
       "busy_gpu_hours is inf"},
      {"PRAGMA ignore_check_constraints = ON; UPDATE allocations SET sm_active_gpu_hours = -1 "
       "WHERE workload = 'c'",
       "sm_active_gpu_hours is -1"},
      {"PRAGMA ignore_check_constraints = ON; UPDATE window_models SET usd_per_gpu_hour = 0 "
       "WHERE gpu_model = 'L4'",
       "L4 price 0 per GPU-hour"},
      {"PRAGMA ignore_check_constraints = ON; UPDATE window_models SET capacity_gpu_hours = -8 "
       "WHERE gpu_model = 'H100'",
       "capacity of H100 is -8"},
  };
  for (const Case& c : cases) {
    TempLedgerPath tmp;
    { ASSERT_NE(OpenFixtureLedger(tmp.path()), nullptr); }
    Tamper(tmp.path(), c.sql);
    auto reader = Ledger::Open(tmp.path(), ReadOnly());
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    Status s = ReadAll(**reader);
    EXPECT_EQ(s.code(), Status::Code::kCorrupt) << c.sql;
    EXPECT_THAT(s.message(), HasSubstr("window [2026-01-01T00:00:00Z, 2026-01-01T01:00:00Z)"))
        << c.sql;
    EXPECT_THAT(s.message(), HasSubstr(c.expect)) << c.sql;
    EXPECT_THAT(s.message(), HasSubstr(tmp.path().string())) << c.sql;
  }
}

}  // namespace
}  // namespace steward::cost
