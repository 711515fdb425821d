#include "cost/ledger.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "ledger_fixture.h"

namespace steward::cost {
namespace {

using ::testing::HasSubstr;
using namespace steward::cost::testing;

struct Totals {
  int windows = 0;
  int records = 0;
  double allocated = 0;
  double sm = 0;
  double capacity = 0;
};

Totals Sum(const Ledger& ledger) {
  Totals t;
  Status s = ledger.ForEachWindow({0, INT64_MAX / 2}, [&](const StoredWindow& w) {
    ++t.windows;
    for (const StoredModel& m : w.models) t.capacity += m.capacity_gpu_hours;
    for (const AllocationRecord& r : w.records) {
      ++t.records;
      t.allocated += r.allocated_gpu_hours;
      t.sm += r.sm_active_gpu_hours;
    }
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  return t;
}

TEST(LedgerTest, RoundTripsRecordsLabelsWasteAndFrozenPrices) {
  TempLedgerPath tmp;
  auto ledger = OpenFixtureLedger(tmp.path());
  ASSERT_NE(ledger, nullptr);
  std::vector<StoredWindow> seen;
  ASSERT_TRUE(ledger->ForEachWindow(kW1, [&](const StoredWindow& w) { seen.push_back(w); }).ok());
  ASSERT_EQ(seen.size(), 1u);  // W2 starts where W1 ends: half-open, no overlap.
  const StoredWindow& w = seen[0];
  EXPECT_EQ(w.window, kW1);
  ASSERT_EQ(w.models.size(), 2u);
  EXPECT_EQ(w.models[0].gpu_model, "H100");
  EXPECT_DOUBLE_EQ(w.models[0].capacity_gpu_hours, 8);
  EXPECT_DOUBLE_EQ(w.PriceOf("H100"), kH100);
  EXPECT_DOUBLE_EQ(w.PriceOf("L4"), kL4);
  ASSERT_EQ(w.records.size(), 3u);
  EXPECT_EQ(w.records[0].workload, "a");
  EXPECT_EQ(w.records[0].labels.at("app"), "llm");
  EXPECT_DOUBLE_EQ(w.records[0].waste_gpu_hours_by_cause.at("over_request"), 1);
  EXPECT_DOUBLE_EQ(w.records[2].gpu_share, 1.0 / 7);
  EXPECT_DOUBLE_EQ(w.records[2].allocated_gpu_hours, 1.0 / 7);
  EXPECT_EQ(*ledger->LatestEnd(), kW2.end);
  EXPECT_EQ(ledger->ListWindows()->size(), 2u);
}

TEST(LedgerTest, RewritingAWindowReplacesItNeverDoubleCounts) {
  TempLedgerPath tmp;
  auto ledger = OpenFixtureLedger(tmp.path());
  ASSERT_NE(ledger, nullptr);
  const Totals before = Sum(*ledger);
  // 4 + 2 + 1/7 + 8 + 1 allocated.
  EXPECT_NEAR(before.allocated, 15 + 1.0 / 7, 1e-12);
  EXPECT_EQ(before.records, 5);
  // A re-run writes the same window again: totals unchanged.
  ASSERT_TRUE(ledger->WriteWindow(kW1, W1Records(), kCapacity).ok());
  const Totals again = Sum(*ledger);
  EXPECT_EQ(again.records, 5);
  EXPECT_NEAR(again.allocated, before.allocated, 1e-12);
  // A corrected window replaces the old one whole: only "a" remains in W1.
  ASSERT_TRUE(ledger->WriteWindow(kW1, {W1Records()[0]}, kCapacity).ok());
  const Totals fixed = Sum(*ledger);
  EXPECT_EQ(fixed.records, 3);
  EXPECT_NEAR(fixed.allocated, 4 + 8 + 1, 1e-12);
  EXPECT_EQ(fixed.windows, 2);
}

TEST(LedgerTest, RefusesPartlyOverlappingWindow) {
  TempLedgerPath tmp;
  auto ledger = OpenFixtureLedger(tmp.path());
  ASSERT_NE(ledger, nullptr);
  Status s = ledger->WriteWindow({kT0 + 1800, kT0 + 5400}, {}, kCapacity);
  EXPECT_EQ(s.code(), Status::Code::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("overlaps stored window [2026-01-01T00:00:00Z"));
  EXPECT_EQ(Sum(*ledger).windows, 2);
}

TEST(LedgerTest, PersistsAcrossReopen) {
  TempLedgerPath tmp;
  { ASSERT_NE(OpenFixtureLedger(tmp.path()), nullptr); }
  LedgerOptions ro;
  ro.create_if_missing = false;
  auto reopened = Ledger::Open(tmp.path(), ro);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_NEAR(Sum(**reopened).allocated, 15 + 1.0 / 7, 1e-12);
  EXPECT_EQ((*reopened)->cluster(), "cluster-one");
  EXPECT_EQ((*reopened)->currency(), "USD");
}

// The ledger survives a writer killed in the middle of a window: the child process starts
// replacing W1 (and then writing a new window W3) and dies before committing; the parent
// reopens the file and finds exactly the previous totals, with no partial rows.
TEST(LedgerTest, WriterKilledMidTransactionLeavesPreviousVersion) {
  TempLedgerPath tmp;
  Totals before;
  {
    auto ledger = OpenFixtureLedger(tmp.path());
    ASSERT_NE(ledger, nullptr);
    before = Sum(*ledger);
  }
  for (const Window& target : {kW1, Window{kT0 + 7200, kT0 + 10800}}) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      LedgerOptions options;
      options.cost_model = FixtureCostModel();
      auto ledger = Ledger::Open(tmp.path(), options);
      if (!ledger.ok()) _exit(2);
      // 3 real records plus 3000 small ones with labels: enough pages to spill into the WAL.
      std::vector<AllocationRecord> more = W1Records();
      for (int i = 0; i < 3000; ++i) {
        more.push_back(Rec("e" + std::to_string(i), "ml", "research",
                           {{"app", "filler"}, {"index", std::to_string(i)}}, "L4", 1, 0.0001, 0, 0,
                           {{"zombie", 0.0001}}));
      }
      (*ledger)->TEST_CrashAfterRows(2500);
      (void)(*ledger)->WriteWindow(target, more, kCapacity);
      _exit(3);  // Not reached: the hook exits after two rows.
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), Ledger::kTestCrashExitCode);
    // Uncommitted pages did reach the disk: recovery has something to discard.
    EXPECT_GT(std::filesystem::file_size(tmp.path().string() + "-wal"), 100000u);
    LedgerOptions ro;
    ro.create_if_missing = false;
    auto reopened = Ledger::Open(tmp.path(), ro);
    ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
    const Totals after = Sum(**reopened);
    EXPECT_EQ(after.windows, before.windows);
    EXPECT_EQ(after.records, before.records);
    EXPECT_NEAR(after.allocated, before.allocated, 1e-12);
    EXPECT_NEAR(after.capacity, before.capacity, 1e-12);
    // And the interrupted window can be written again: still counted once.
    ASSERT_TRUE((*reopened)->WriteWindow(kW1, W1Records(), kCapacity).ok());
    EXPECT_NEAR(Sum(**reopened).allocated, before.allocated, 1e-12);
  }
}

struct InvalidCase {
  const char* name;
  std::function<void(Window*, std::vector<AllocationRecord>*, CapacityByModel*)> mutate;
  const char* message;
};

class LedgerValidationTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(LedgerValidationTest, RejectsAndWritesNothing) {
  TempLedgerPath tmp;
  auto ledger = OpenFixtureLedger(tmp.path());
  ASSERT_NE(ledger, nullptr);
  Window w{kT0 + 7200, kT0 + 10800};
  std::vector<AllocationRecord> recs = W1Records();
  CapacityByModel cap = kCapacity;
  GetParam().mutate(&w, &recs, &cap);
  Status s = ledger->WriteWindow(w, recs, cap);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(GetParam().message));
  EXPECT_EQ(Sum(*ledger).windows, 2);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LedgerValidationTest,
    ::testing::Values(
        InvalidCase{"EmptyWindow", [](Window* w, auto*, auto*) { w->end = w->start; },
                    "end must be after start"},
        InvalidCase{"DuplicateWorkload",
                    [](auto*, std::vector<AllocationRecord>* r, auto*) { r->push_back((*r)[0]); },
                    "workload a: appears twice"},
        InvalidCase{"ZeroShare",
                    [](auto*, std::vector<AllocationRecord>* r, auto*) { (*r)[2].gpu_share = 0; },
                    "gpu_share 0 must be in (0, 1]"},
        InvalidCase{
            "SmAboveAllocated",
            [](auto*, std::vector<AllocationRecord>* r, auto*) { (*r)[0].sm_active_gpu_hours = 5; },
            "must not exceed allocated"},
        InvalidCase{"NegativeWaste",
                    [](auto*, std::vector<AllocationRecord>* r, auto*) {
                      (*r)[0].waste_gpu_hours_by_cause["zombie"] = -1;
                    },
                    "waste zombie is -1"},
        InvalidCase{"UnknownWasteCause",
                    [](auto*, std::vector<AllocationRecord>* r, auto*) {
                      (*r)[0].waste_gpu_hours_by_cause["zombies"] = 1;
                    },
                    "waste cause zombies is not a workload cause"},
        InvalidCase{"ClusterWasteCauseOnARecord",
                    [](auto*, std::vector<AllocationRecord>* r, auto*) {
                      (*r)[0].waste_gpu_hours_by_cause["queueing"] = 1;
                    },
                    "waste cause queueing is not a workload cause"},
        InvalidCase{"NaNHours",
                    [](auto*, std::vector<AllocationRecord>* r, auto*) {
                      (*r)[1].busy_gpu_hours = std::nan("");
                    },
                    "busy_gpu_hours is nan"},
        InvalidCase{"ModelWithoutCapacity",
                    [](auto*, auto*, CapacityByModel* c) { c->erase("L4"); },
                    "gpu_model L4 has no capacity"},
        InvalidCase{"OverCapacity", [](auto*, auto*, CapacityByModel* c) { (*c)["H100"] = 4; },
                    "H100 allocated 4.142857142857143 GPU-hours but capacity is 4"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(LedgerOpenTest, MissingFileWithoutCreateIsNotFound) {
  TempLedgerPath tmp;
  LedgerOptions ro;
  ro.create_if_missing = false;
  auto l = Ledger::Open(tmp.path(), ro);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().code(), Status::Code::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(tmp.path()));
}

TEST(LedgerOpenTest, NonLedgerFilesAreCorrupt) {
  TempLedgerPath tmp;
  { std::ofstream(tmp.path()) << "this is not sqlite at all, just some text padding it out\n"; }
  auto l = Ledger::Open(tmp.path());
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().code(), Status::Code::kCorrupt) << l.status().ToString();
}

TEST(LedgerOpenTest, CurrencyMismatchRefusesToWrite) {
  TempLedgerPath tmp;
  { ASSERT_NE(OpenFixtureLedger(tmp.path()), nullptr); }
  LedgerOptions eur;
  eur.cost_model.set_currency("EUR");
  auto l = Ledger::Open(tmp.path(), eur);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ((*l)->WriteWindow({kT0 + 7200, kT0 + 10800}, {}, kCapacity).code(),
            Status::Code::kFailedPrecondition);
}

TEST(LedgerOpenTest, SchemaIsPrintable) {
  EXPECT_THAT(std::string(Ledger::Schema()), HasSubstr("CREATE TABLE IF NOT EXISTS allocations("));
}

}  // namespace
}  // namespace steward::cost
