#include "rollout/twin_rollout.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/xid_catalog.h"
#include "rollout/status.h"
#include "twin/report.h"

namespace steward::rollout {
namespace {

int CountIn(const std::vector<SimTime>& times, SimTime from, SimTime to) {
  return static_cast<int>(std::lower_bound(times.begin(), times.end(), to) -
                          std::lower_bound(times.begin(), times.end(), from));
}

}  // namespace

Status TwinRollout::Attach(twin::TwinOps& ops) {
  ops_ = &ops;
  control_ = std::make_unique<twin::TwinClusterControl>(ops);
  engine_ = std::make_unique<RolloutEngine>(plan_, commit_, *control_, *this, store_);
  if (start_ > ops.Now()) {
    next_step_ = start_;
    return Status::Ok();
  }
  BeginRun();
  return status_;
}

void TwinRollout::BeginRun() {
  begun_ = true;
  status_ = engine_->Begin(RolloutEngine::Start::kReplay);
  next_step_ = ops_->Now() + plan_.tick;
}

void TwinRollout::OnSignal(const twin::TwinSignal& s) {
  if (s.kind != twin::TwinSignal::Kind::kXid) return;
  const std::string& node = ops_->cluster().node(s.node).name;
  xids_[node].push_back(s.at);
  const model::XidEntry* e = model::XidCatalog::Builtin().Find(s.xid);
  if (e != nullptr && e->action != model::XidAction::kNone) job_failures_[node].push_back(s.at);
}

void TwinRollout::OnWake(SimTime now) {
  if (!status_.ok() || !engine_) return;
  if (Paused() && human_ && now >= paused_at_ + human_delay_) {
    Status s = Answer(*human_, fmt::format("the scenario's human, {:.0f} min into the pause",
                                           human_delay_.ToSeconds() / 60));
    if (!s.ok()) status_ = s;
    return;
  }
  if (now < next_step_) return;
  if (!begun_) {
    BeginRun();
    return;
  }
  if (!engine_->Active()) return;
  ++steps_;
  status_ = engine_->Step();
  next_step_ = now + plan_.tick;
  if (status_.ok() && Paused()) {
    paused_at_ = now;
    AnswerPause();
  }
}

bool TwinRollout::Paused() const { return begun_ && engine_->run().state == RolloutState::kPaused; }

Status TwinRollout::Answer(RolloutEngine::Answer answer, const std::string& why) {
  if (!status_.ok()) return status_;
  if (!Paused())
    return Status::FailedPrecondition(
        fmt::format("rollout '{}' is not paused", begun_ ? engine_->run().plan_name : plan_.name));
  Status s = engine_->AnswerPause(answer, why);
  if (!s.ok()) return s;
  paused_at_ = SimTime::Never();
  next_step_ = ops_->Now() + plan_.tick;
  return Status::Ok();
}

// A replay gives a pause the answer the log holds (a human's, from an earlier run); past the
// log, the one asked for on the command line, if any.
void TwinRollout::AnswerPause() {
  if (store_ != nullptr) {
    Result<std::optional<Decision>> logged = store_->DecisionAt(engine_->run().decisions);
    if (!logged.ok()) {
      status_ = logged.status();
      return;
    }
    if (*logged && (*logged)->kind == "rollout" && (*logged)->from == "paused") {
      const std::string& reason = (*logged)->reason;
      const size_t colon = reason.find(": ");
      status_ = engine_->AnswerPause(reason.starts_with("resumed") ? RolloutEngine::Answer::kResume
                                                                   : RolloutEngine::Answer::kAbort,
                                     colon == std::string::npos ? "" : reason.substr(colon + 2));
      return;
    }
  }
  // The command line's answer is for the first pause past the log only (the one a human saw).
  if (!answer_) return;
  status_ = engine_->AnswerPause(*std::exchange(answer_, std::nullopt), answer_why_);
}

SimTime TwinRollout::NextDeadline() const {
  if (!status_.ok() || !engine_) return SimTime::Never();
  if (Paused() && human_) return paused_at_ + human_delay_;
  if (begun_ && !engine_->Active()) return SimTime::Never();
  return next_step_;
}

void TwinRollout::Contribute(twin::Report& report) const {
  if (!begun_ || !status_.ok()) return;
  StatusTextOptions text;
  text.node_steps = false;
  report.rollouts.push_back({StatusJson(engine_->run(), engine_->decisions()),
                             StatusText(engine_->run(), engine_->decisions(), text)});
}

std::optional<double> TwinRollout::Xids(const std::string& node, SimTime from, SimTime to) {
  auto it = xids_.find(node);
  return it == xids_.end() ? 0.0 : CountIn(it->second, from, to);
}

std::optional<double> TwinRollout::JobFailureRate(const std::vector<std::string>& nodes,
                                                  SimTime from, SimTime to) {
  int failures = 0, jobs = 0;
  for (const std::string& name : nodes) {
    auto it = job_failures_.find(name);
    if (it != job_failures_.end()) failures += CountIn(it->second, from, to);
    jobs += static_cast<int>(control_->PodsOnNode(name).size());
  }
  if (failures + jobs == 0) return 0.0;
  return static_cast<double>(failures) / (failures + jobs);
}

std::function<std::shared_ptr<const nlohmann::json>()> StatusFeed(
    std::vector<const TwinRollout*> rollouts) {
  struct Cache {
    std::vector<int64_t> key;  // Per rollout: -1 before it begins, else its decisions so far.
    std::shared_ptr<const nlohmann::json> json;
  };
  auto cache = std::make_shared<Cache>();
  return [rollouts = std::move(rollouts), cache]() {
    std::vector<int64_t> key;
    for (const TwinRollout* r : rollouts)
      key.push_back(r->begun() ? r->engine()->run().decisions : -1);
    if (key == cache->key && (cache->json || rollouts.empty())) return cache->json;
    cache->key = std::move(key);
    auto array = std::make_shared<nlohmann::json>(nlohmann::json::array());
    for (const TwinRollout* r : rollouts)
      if (r->begun()) array->push_back(StatusJson(r->engine()->run(), r->engine()->decisions()));
    cache->json = array->empty() ? nullptr : std::move(array);
    return cache->json;
  };
}

std::function<Status(twin::Twin&, const std::string&, bool, const std::string&)> PauseAnswerer(
    std::vector<TwinRollout*> rollouts) {
  return [rollouts = std::move(rollouts)](twin::Twin& twin, const std::string& rollout, bool resume,
                                          const std::string& why) -> Status {
    for (TwinRollout* r : rollouts) {
      if (r->name() != rollout) continue;
      Status s =
          r->Answer(resume ? RolloutEngine::Answer::kResume : RolloutEngine::Answer::kAbort, why);
      if (s.ok()) twin.Rewake(r);
      return s;
    }
    return Status::NotFound("no rollout named '" + rollout + "'");
  };
}

}  // namespace steward::rollout
