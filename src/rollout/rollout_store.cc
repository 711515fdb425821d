#include "rollout/rollout_store.h"

#include <fmt/format.h>

namespace steward::rollout {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS rollout_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rollout_decisions (
  seq INTEGER PRIMARY KEY, at_us INTEGER NOT NULL, plan_commit TEXT NOT NULL,
  kind TEXT NOT NULL, object TEXT NOT NULL, from_state TEXT NOT NULL, to_state TEXT NOT NULL,
  reason TEXT NOT NULL);
)sql";

Result<std::string> Meta(store::SqliteDb& db, std::string_view key) {
  STEWARD_ASSIGN_OR_RETURN(store::SqliteStmt s,
                           db.Prepare("SELECT value FROM rollout_meta WHERE key = ?1"));
  s.Bind(1, key);
  STEWARD_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Text(0) : std::string();
}

Status SetMeta(store::SqliteDb& db, std::string_view key, const std::string& value) {
  STEWARD_ASSIGN_OR_RETURN(store::SqliteStmt s,
                           db.Prepare("INSERT INTO rollout_meta(key, value) VALUES(?1, ?2) "
                                      "ON CONFLICT(key) DO UPDATE SET value = excluded.value"));
  s.Bind(1, key).Bind(2, value);
  return s.Run();
}

Decision ReadDecision(const store::SqliteStmt& s) {
  Decision d;
  d.seq = s.Int(0);
  d.at = SimTime::FromMicros(s.Int(1));
  d.commit = s.Text(2);
  d.kind = s.Text(3);
  d.object = s.Text(4);
  d.from = s.Text(5);
  d.to = s.Text(6);
  d.reason = s.Text(7);
  return d;
}

}  // namespace

Result<std::unique_ptr<RolloutStore>> RolloutStore::Open(const std::string& path, bool create) {
  store::SqliteOpenOptions o;
  o.create_if_missing = create;
  STEWARD_ASSIGN_OR_RETURN(std::unique_ptr<store::SqliteDb> db, store::SqliteDb::Open(path, o));
  STEWARD_RETURN_IF_ERROR(db->Exec(kSchema));
  return std::unique_ptr<RolloutStore>(new RolloutStore(std::move(db)));
}

Result<std::optional<RolloutRun>> RolloutStore::Load() {
  STEWARD_ASSIGN_OR_RETURN(std::string text, Meta(*db_, "snapshot"));
  if (text.empty()) return std::optional<RolloutRun>();
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded())
    return Status::Corrupt(fmt::format("{}: snapshot is not JSON", db_->path()));
  STEWARD_ASSIGN_OR_RETURN(RolloutRun run, RunFromJson(j));
  return std::optional<RolloutRun>(std::move(run));
}

Result<std::string> RolloutStore::PlanText() { return Meta(*db_, "plan_text"); }

Status RolloutStore::SavePlanText(const std::string& text) {
  return SetMeta(*db_, "plan_text", text);
}

Result<int64_t> RolloutStore::Logged() {
  STEWARD_ASSIGN_OR_RETURN(store::SqliteStmt s,
                           db_->Prepare("SELECT COALESCE(MAX(seq) + 1, 0) FROM rollout_decisions"));
  STEWARD_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

Status RolloutStore::Commit(const RolloutRun& run, const std::vector<Decision>& decisions) {
  store::SqliteTransaction tx(db_.get());
  STEWARD_RETURN_IF_ERROR(tx.Begin());
  STEWARD_ASSIGN_OR_RETURN(int64_t logged, Logged());
  STEWARD_ASSIGN_OR_RETURN(
      store::SqliteStmt read,
      db_->Prepare("SELECT seq, at_us, plan_commit, kind, object, from_state, to_state, reason "
                   "FROM rollout_decisions WHERE seq = ?1"));
  STEWARD_ASSIGN_OR_RETURN(
      store::SqliteStmt insert,
      db_->Prepare("INSERT INTO rollout_decisions(seq, at_us, plan_commit, kind, object, "
                   "from_state, to_state, reason) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"));
  for (const Decision& d : decisions) {
    if (d.seq < logged) {
      read.Bind(1, d.seq);
      STEWARD_ASSIGN_OR_RETURN(bool row, read.Step());
      const Decision old = row ? ReadDecision(read) : Decision{};
      read.Reset();
      // The commit may differ (a revert re-runs the log under a new commit); the act may not.
      Decision mine = d;
      mine.commit = old.commit;
      if (!row || !(old == mine))
        return Status::Aborted(fmt::format(
            "{}: the run diverged from its decision log at #{}: logged {} {} {} -> {}, now {} {} "
            "{} -> {}",
            db_->path(), d.seq, old.kind, old.object, old.from, old.to, d.kind, d.object, d.from,
            d.to));
      continue;
    }
    insert.Bind(1, d.seq)
        .Bind(2, d.at.micros())
        .Bind(3, d.commit)
        .Bind(4, d.kind)
        .Bind(5, d.object)
        .Bind(6, d.from)
        .Bind(7, d.to)
        .Bind(8, d.reason);
    STEWARD_RETURN_IF_ERROR(insert.Run());
  }
  // In a replay, an older snapshot never replaces a newer one.
  if (run.decisions >= logged)
    STEWARD_RETURN_IF_ERROR(SetMeta(*db_, "snapshot", ToJson(run).dump()));
  return tx.Commit();
}

Result<std::optional<Decision>> RolloutStore::DecisionAt(int64_t seq) {
  STEWARD_ASSIGN_OR_RETURN(
      store::SqliteStmt s,
      db_->Prepare("SELECT seq, at_us, plan_commit, kind, object, from_state, to_state, reason "
                   "FROM rollout_decisions WHERE seq = ?1"));
  s.Bind(1, seq);
  STEWARD_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<Decision>();
  return std::optional<Decision>(ReadDecision(s));
}

Result<std::vector<Decision>> RolloutStore::Decisions() {
  STEWARD_ASSIGN_OR_RETURN(
      store::SqliteStmt s,
      db_->Prepare("SELECT seq, at_us, plan_commit, kind, object, from_state, to_state, reason "
                   "FROM rollout_decisions ORDER BY seq"));
  std::vector<Decision> out;
  while (true) {
    STEWARD_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(ReadDecision(s));
  }
  return out;
}

}  // namespace steward::rollout
