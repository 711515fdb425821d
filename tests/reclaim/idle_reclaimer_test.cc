// Idle reclaim on the twin (reclaim/idle_reclaimer.h), on one 8-GPU node so every time and
// GPU-hour below is computed by hand. Common timeline: workloads arrive at 0, start after the
// 90 s startup, compute for `active_hours` and then idle holding their GPUs; with the default
// policy a notice goes out 30 min into the idle streak and the reclaim comes at 60 min.
#include "reclaim/idle_reclaimer.h"

#include <gtest/gtest.h>

#include "../twin/twin_test_util.h"
#include "twin/twin.h"

namespace steward::reclaim {
namespace {

using twin::testing::MustParse;
using twin::testing::SmallScenarioYaml;

constexpr double kStartup = 90.0 / 3600;  // Hours.

SimTime At(double hours) { return kSimStart + SecondsF(hours * 3600); }

struct Rig {
  std::unique_ptr<twin::Twin> twin;
  IdleReclaimer* reclaimer = nullptr;
};

Rig Make(const std::string& yaml) {
  Rig r;
  auto t = twin::Twin::Create(MustParse(yaml));
  if (!t.ok()) throw std::runtime_error(t.status().message());
  r.twin = std::move(t).value();
  auto c = AttachReclaim(*r.twin, /*keep_log=*/true);
  if (!c.ok()) throw std::runtime_error(c.status().message());
  r.reclaimer = *c;
  return r;
}

// A notebook of `gpus` GPUs, 10 h long, computing for its first 2 h: idle from
// X = 90 s + 2 h, natural end at 90 s + 10 h.
std::string Notebook(int gpus, const std::string& extra = "") {
  return "  - {name: nb, team: a, kind: notebook, arrival: {process: once, count: 1},"
         " gpus_per_pod: " +
         std::to_string(gpus) +
         ", duration_hours: 10, usage: {sm_active: 0.2, busy: 0.4, active_hours: 2}" + extra +
         "}\n";
}

std::string Reclaim(const std::string& fields) {
  return "reclaim: {enabled: true" + fields + "}\n";
}

constexpr double kIdleFrom = kStartup + 2;  // X.

TEST(IdleReclaimerTest, NotifiesAtT1AndReclaimsAtT2) {
  Rig r = Make(
      SmallScenarioYaml(1, "a:8", Reclaim(", dry_run: false") + "generators:\n" + Notebook(1)));
  r.twin->RunUntil(At(kIdleFrom + 0.5 - 1.0 / 3600));
  EXPECT_TRUE(r.reclaimer->actions().empty());  // The 90 s startup streak never got far.
  r.twin->RunUntil(At(kIdleFrom + 0.5));
  ASSERT_EQ(r.reclaimer->actions().size(), 1u);
  EXPECT_EQ(r.reclaimer->actions()[0].kind, ReclaimAction::Kind::kNotify);
  EXPECT_EQ(r.reclaimer->actions()[0].at, At(kIdleFrom + 0.5));
  EXPECT_EQ(r.reclaimer->actions()[0].name, "a/nb-000000");
  EXPECT_EQ(r.twin->FindRun("nb-000000")->state, twin::RunState::kRunning);

  r.twin->RunUntil(At(kIdleFrom + 1));
  ASSERT_EQ(r.reclaimer->actions().size(), 2u);
  EXPECT_EQ(r.reclaimer->actions()[1].kind, ReclaimAction::Kind::kReclaim);
  EXPECT_EQ(r.reclaimer->actions()[1].at, At(kIdleFrom + 1));
  EXPECT_EQ(r.twin->FindRun("nb-000000")->state, twin::RunState::kDone);
  EXPECT_EQ(r.twin->state().free_gpus(), 8);

  const twin::Report rep = r.twin->Run();
  const twin::ReclaimReport& c = rep.reclaim;
  EXPECT_TRUE(c.enabled);
  EXPECT_FALSE(c.dry_run);
  EXPECT_EQ(c.notifications, 1);
  EXPECT_EQ(c.reclaims, 1);
  EXPECT_EQ(c.reclaims_by_kind.at("notebook"), 1);
  // 1 GPU from the reclaim (90 s + 3 h) to the natural end (90 s + 10 h): 7 GPU-hours.
  EXPECT_NEAR(c.gpu_hours_reclaimed, 7.0, 1e-9);
  EXPECT_NEAR(c.gpu_hours_reclaimed_by_team.at("a"), 7.0, 1e-9);
  EXPECT_EQ(c.gpu_hours_reused, 0);  // Nothing else wanted the GPU.
  EXPECT_EQ(rep.workloads_stopped, 1);
  EXPECT_EQ(rep.workloads_completed, 0);
  // The twin's meter agrees: it held 1 GPU for 3 h + 90 s in all.
  EXPECT_NEAR(rep.allocated_gpu_hours, kIdleFrom + 1, 1e-9);
}

TEST(IdleReclaimerTest, ExemptLabelIsRespected) {
  Rig r = Make(SmallScenarioYaml(
      1, "a:8",
      Reclaim(", dry_run: false") + "generators:\n" +
          Notebook(1, ", labels: {steward.io/reclaim-exempt: \"true\"}") +
          "  - {name: other, team: a, kind: notebook, arrival: {process: once, count: 1},"
          " gpus_per_pod: 1, duration_hours: 10, labels: {steward.io/reclaim-exempt: \"no\"},"
          " usage: {sm_active: 0.2, active_hours: 2}}\n"));
  const twin::Report rep = r.twin->Run();
  // The exempt one runs to its end; the one whose label value does not match is reclaimed.
  EXPECT_EQ(rep.reclaim.exempted, 1);
  EXPECT_EQ(rep.reclaim.reclaims, 1);
  EXPECT_EQ(rep.reclaim.notifications, 1);  // Exempt workloads get no notice either.
  EXPECT_EQ(r.twin->FindRun("nb-000000")->state, twin::RunState::kDone);
  EXPECT_EQ(rep.workloads_completed, 1);
  for (const ReclaimAction& a : r.reclaimer->actions()) {
    if (a.name == "a/nb-000000") {
      EXPECT_EQ(a.kind, ReclaimAction::Kind::kExempt);
    }
  }
}

TEST(IdleReclaimerTest, AnyValueExemptsWithStar) {
  Rig r = Make(SmallScenarioYaml(1, "a:8",
                                 Reclaim(", dry_run: false, exempt_labels: {serving: \"*\"}") +
                                     "generators:\n" + Notebook(1, ", labels: {serving: chat}")));
  const twin::Report rep = r.twin->Run();
  EXPECT_EQ(rep.reclaim.exempted, 1);
  EXPECT_EQ(rep.reclaim.reclaims, 0);
}

TEST(IdleReclaimerTest, DryRunEvictsNothingButCounts) {
  const std::string body = "generators:\n" + Notebook(1);
  Rig dry = Make(SmallScenarioYaml(1, "a:8", Reclaim("") + body));  // dry_run is the default.
  const twin::Report d = dry.twin->Run();
  auto plain = twin::Twin::Create(MustParse(SmallScenarioYaml(1, "a:8", body)));
  ASSERT_TRUE(plain.ok());
  const twin::Report p = (*plain)->Run();
  EXPECT_TRUE(d.reclaim.dry_run);
  EXPECT_EQ(d.reclaim.notifications, 1);
  EXPECT_EQ(d.reclaim.reclaims, 0);
  EXPECT_EQ(d.reclaim.would_reclaim, 1);
  EXPECT_NEAR(d.reclaim.would_reclaim_gpu_hours, 7.0, 1e-9);
  EXPECT_EQ(d.reclaim.gpu_hours_reclaimed, 0);
  EXPECT_EQ(d.workloads_stopped, 0);
  EXPECT_EQ(d.workloads_completed, 1);
  // Nothing changed in the simulated world.
  EXPECT_EQ(d.allocated_gpu_hours, p.allocated_gpu_hours);
  EXPECT_NEAR(d.allocated_gpu_hours, 10 + kStartup, 1e-9);
  EXPECT_EQ(p.reclaim.enabled, false);
  ASSERT_EQ(dry.reclaimer->actions().size(), 2u);
  EXPECT_EQ(dry.reclaimer->actions()[1].kind, ReclaimAction::Kind::kWouldReclaim);
  EXPECT_EQ(dry.reclaimer->actions()[1].at, At(kIdleFrom + 1));
}

// A notebook and a batch job (both 1 GPU) go idle at the same instant X, so both are due at
// X + 60 min: `kinds` order decides who goes first.
std::string BothIdle(const std::string& kinds) {
  return SmallScenarioYaml(
      1, "a:8",
      Reclaim(", dry_run: false, kinds: " + kinds) + "generators:\n" +
          "  - {name: job, team: a, kind: batch, arrival: {process: once, count: 1},"
          " gpus_per_pod: 1, duration_hours: 10, usage: {sm_active: 0.3, active_hours: 2}}\n" +
          Notebook(1));
}

TEST(IdleReclaimerTest, NotebooksGoBeforeOtherKindsDueAtTheSameTime) {
  Rig r = Make(BothIdle("[notebook, batch]"));
  r.twin->RunUntil(At(kIdleFrom + 1));
  std::vector<std::string> reclaimed;
  for (const ReclaimAction& a : r.reclaimer->actions())
    if (a.kind == ReclaimAction::Kind::kReclaim) {
      EXPECT_EQ(a.at, At(kIdleFrom + 1));
      reclaimed.push_back(a.name);
    }
  EXPECT_EQ(reclaimed, (std::vector<std::string>{"a/nb-000000", "a/job-000000"}));

  Rig reversed = Make(BothIdle("[batch, notebook]"));
  reversed.twin->RunUntil(At(kIdleFrom + 1));
  reclaimed.clear();
  for (const ReclaimAction& a : reversed.reclaimer->actions())
    if (a.kind == ReclaimAction::Kind::kReclaim) reclaimed.push_back(a.name);
  EXPECT_EQ(reclaimed, (std::vector<std::string>{"a/job-000000", "a/nb-000000"}));
}

TEST(IdleReclaimerTest, KindsNotListedAreLeftAlone) {
  Rig r = Make(BothIdle("[notebook]"));
  const twin::Report rep = r.twin->Run();
  EXPECT_EQ(rep.reclaim.reclaims, 1);
  EXPECT_EQ(rep.reclaim.reclaims_by_kind.count("batch"), 0u);
  EXPECT_EQ(r.twin->FindRun("job-000000")->state, twin::RunState::kDone);  // Finished by itself.
  EXPECT_EQ(rep.workloads_completed, 1);
}

TEST(IdleReclaimerTest, ActivityResetsTheStreak) {
  // Idle below 5% SM-active means idle; a workload at 4% per GPU is idle, at 6% it is not.
  for (double sm : {0.04, 0.06}) {
    Rig r = Make(SmallScenarioYaml(
        1, "a:8",
        Reclaim(", dry_run: false, kinds: [batch]") + "generators:\n" +
            "  - {name: low, team: a, kind: batch, arrival: {process: once, count: 1},"
            " gpus_per_pod: 2, duration_hours: 5, usage: {busy: 0.5, sm_active: " +
            std::to_string(sm) + "}}\n"));
    const twin::Report rep = r.twin->Run();
    EXPECT_EQ(rep.reclaim.reclaims, sm < 0.05 ? 1 : 0) << sm;
  }
}

// One node: an idle 8-GPU notebook holds every GPU; an 8-GPU batch job arriving at 1 h waits
// until the reclaim at R = X + 60 min and is placed at that instant on the freed GPUs.
std::string Contended(bool dry_run) {
  return SmallScenarioYaml(
      1, "a:16",
      Reclaim(dry_run ? "" : ", dry_run: false") + "generators:\n" + Notebook(8) +
          "  - {name: job, team: a, kind: batch, arrival: {process: once, count: 1,"
          " start_hours: 1}, gpus_per_pod: 8, duration_hours: 4, usage: {sm_active: 0.5}}\n");
}

TEST(IdleReclaimerTest, PendingJobGetsTheReclaimedGpusAtTheReclaimInstant) {
  Rig r = Make(Contended(false));
  const double reclaim_at = kIdleFrom + 1;
  r.twin->RunUntil(At(reclaim_at - 1.0 / 3600));
  const twin::WorkloadRun* job = r.twin->FindRun("job-000000");
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->state, twin::RunState::kPending);
  EXPECT_EQ(job->reason, "insufficient_capacity");
  r.twin->RunUntil(At(reclaim_at));
  job = r.twin->FindRun("job-000000");
  EXPECT_EQ(job->state, twin::RunState::kStarting);
  ASSERT_EQ(job->pods.size(), 1u);
  EXPECT_EQ(job->pods[0].node, 0);
  EXPECT_EQ(job->pods[0].gpus, 0xffu);  // The eight GPUs the notebook held.
  EXPECT_EQ(r.twin->state().free_gpus(), 0);

  const twin::Report rep = r.twin->Run();
  // Reclaimed: 8 GPUs x (natural end 90 s + 10 h - reclaim 90 s + 3 h) = 56 GPU-hours.
  EXPECT_NEAR(rep.reclaim.gpu_hours_reclaimed, 56, 1e-9);
  // Reused: the job holds all 8 from R to R + 90 s + 4 h, inside the window: 8 x 4.025 h.
  EXPECT_NEAR(rep.reclaim.gpu_hours_reused, 8 * (4 + kStartup), 1e-9);
  EXPECT_EQ(rep.workloads_completed, 1);
}

TEST(IdleReclaimerTest, DryRunLeavesTheJobWaitingForTheNotebookToEnd) {
  Rig r = Make(Contended(true));
  r.twin->RunUntil(At(kIdleFrom + 1));
  EXPECT_EQ(r.twin->FindRun("job-000000")->state, twin::RunState::kPending);
  r.twin->RunUntil(At(10 + kStartup));  // The notebook ends by itself.
  EXPECT_EQ(r.twin->FindRun("job-000000")->state, twin::RunState::kStarting);
  const twin::Report rep = r.twin->Run();
  EXPECT_EQ(rep.reclaim.would_reclaim, 1);
  EXPECT_NEAR(rep.reclaim.would_reclaim_gpu_hours, 56, 1e-9);
  EXPECT_EQ(rep.reclaim.gpu_hours_reused, 0);
}

TEST(IdleReclaimerTest, ReuseStopsCountingAtTheNaturalEnd) {
  // The job runs 10 h from R = 90 s + 3 h: past the notebook's natural end (90 s + 10 h), so
  // only the 7 h inside the window count as reuse.
  Rig r = Make(SmallScenarioYaml(
      1, "a:16",
      Reclaim(", dry_run: false") + "generators:\n" + Notebook(8) +
          "  - {name: job, team: a, kind: batch, arrival: {process: once, count: 1,"
          " start_hours: 1}, gpus_per_pod: 8, duration_hours: 10, usage: {sm_active: 0.5}}\n",
      /*days=*/1));
  const twin::Report rep = r.twin->Run();
  EXPECT_NEAR(rep.reclaim.gpu_hours_reclaimed, 56, 1e-9);
  EXPECT_NEAR(rep.reclaim.gpu_hours_reused, 56, 1e-9);
}

// A notebook on a MIG 2g.20gb instance holds 2/7 of a GPU (what accounting charges): its idle
// streak is judged on that share, and it is reclaimed and reused by that share. The whole-node
// job cannot start while the notebook's GPU is in MIG mode, so it waits for the reclaim.
TEST(IdleReclaimerTest, MigNotebookIsReclaimedByItsShare) {
  Rig r = Make(SmallScenarioYaml(
      1, "a:16",
      Reclaim(", dry_run: false") + "generators:\n" +
          "  - {name: nb, team: a, kind: notebook, arrival: {process: once, count: 1},"
          " gpus_per_pod: 1, mig_profile: 2g.20gb, duration_hours: 10,"
          " usage: {sm_active: 0.7, busy: 0.7, active_hours: 2}}\n"
          "  - {name: job, team: a, kind: batch, arrival: {process: once, count: 1,"
          " start_hours: 1}, gpus_per_pod: 8, duration_hours: 4, usage: {sm_active: 0.5}}\n"));
  r.twin->RunUntil(At(kIdleFrom + 1));
  EXPECT_EQ(r.twin->FindRun("nb-000000")->state, twin::RunState::kDone);
  EXPECT_EQ(r.twin->FindRun("job-000000")->state, twin::RunState::kStarting);
  const twin::Report rep = r.twin->Run();
  EXPECT_EQ(rep.reclaim.notifications, 1);
  EXPECT_EQ(rep.reclaim.reclaims, 1);
  // 2/7 GPU from the reclaim (90 s + 3 h) to the natural end (90 s + 10 h).
  EXPECT_NEAR(rep.reclaim.gpu_hours_reclaimed, 2.0 / 7 * 7, 1e-9);
  // The job holds the freed GPU from the reclaim for 90 s + 4 h, inside the window: the
  // reclaimed 2/7 of it count as reused, not the whole GPU.
  EXPECT_NEAR(rep.reclaim.gpu_hours_reused, 2.0 / 7 * (4 + kStartup), 1e-9);
  ASSERT_EQ(r.reclaimer->actions().size(), 2u);
  EXPECT_NEAR(r.reclaimer->actions()[1].gpus, 2.0 / 7, 1e-12);
}

TEST(IdleReclaimerTest, NotAttachedWhenDisabled) {
  auto t =
      twin::Twin::Create(MustParse(SmallScenarioYaml(1, "a:8", "generators:\n" + Notebook(1))));
  ASSERT_TRUE(t.ok());
  auto c = AttachReclaim(**t);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, nullptr);
  EXPECT_TRUE((*t)->controllers().empty());
}

TEST(IdleReclaimerTest, SameScenarioSameActions) {
  Rig a = Make(Contended(false)), b = Make(Contended(false));
  a.twin->Run();
  b.twin->Run();
  ASSERT_EQ(a.reclaimer->actions().size(), b.reclaimer->actions().size());
  for (size_t i = 0; i < a.reclaimer->actions().size(); ++i) {
    EXPECT_EQ(a.reclaimer->actions()[i].at, b.reclaimer->actions()[i].at);
    EXPECT_EQ(a.reclaimer->actions()[i].name, b.reclaimer->actions()[i].name);
  }
}

}  // namespace
}  // namespace steward::reclaim
