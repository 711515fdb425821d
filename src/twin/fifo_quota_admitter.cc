// The foundation's naive admission: per-team StrictFIFO with a fixed quota. It is what a
// cluster without a queueing layer effectively does, and the baseline that governance beats.
#include <fmt/format.h>

#include <deque>

#include "twin/admitter.h"

namespace steward::twin {
namespace {

class FifoQuotaAdmitter final : public Admitter {
 public:
  explicit FifoQuotaAdmitter(std::vector<int> quota)
      : quota_(std::move(quota)),
        used_(quota_.size(), 0),
        queues_(quota_.size()),
        blocked_(quota_.size()) {}

  std::string_view Name() const override { return "fifo-quota"; }
  void Enqueue(model::WorkloadId id, int team) override { queues_[team].push_back(id); }
  void Released(const model::Workload& w, int gpus, bool) override { used_[w.team] -= gpus; }
  int used_gpus(int team) const override { return used_[team]; }
  // A grow takes only quota the team's queue head cannot use now (StrictFIFO's head is never
  // delayed by it at this moment; it may wait longer later, as behind any running job).
  bool Grow(AdmissionHost& host, const model::Workload& w, int gpus) override {
    const int budget = quota_[w.team] - used_[w.team];
    if (gpus > budget) return false;
    const auto& q = queues_[w.team];
    if (!q.empty() && host.GpusWanted(q.front()) <= budget) return false;
    used_[w.team] += gpus;
    return true;
  }
  // Lowering a quota below current use evicts nothing: it only stops further admissions.
  Status SetQuota(int team, int gpus) override {
    quota_[team] = gpus;
    return Status::Ok();
  }

  // O(teams + admitted): only queue heads are examined (head-of-line blocking is StrictFIFO's
  // defining cost, and the reason pending work behind a blocked head waits).
  void Cycle(AdmissionHost& host) override {
    for (size_t t = 0; t < queues_.size(); ++t) {
      auto& q = queues_[t];
      while (!q.empty()) {
        const model::WorkloadId id = q.front();
        // A head the quota stopped stays stopped until the team's use or quota changes (what a
        // workload wants does not): it is not looked at again until then.
        const QuotaBlock& b = blocked_[t];
        if (b.id == id && b.used == used_[t] && b.quota == quota_[t]) break;
        const int budget = quota_[t] - used_[t];
        const int wanted = host.GpusWanted(id);
        if (wanted > budget) {
          host.SetPendingReason(id, PendingReasonName(PendingReason::kQuotaExhausted));
          blocked_[t] = {id, used_[t], quota_[t], wanted};
          break;
        }
        blocked_[t].id = -1;  // Past the quota: TryPlace sets any reason from here on.
        bool done = false;
        const int placed = host.TryPlace(id, budget, &done);
        used_[t] += placed;
        if (!done) break;  // Host set the no-fit reason (or a service wants more replicas).
        q.pop_front();
      }
    }
  }

  // A blocked head's detail is written when reasons are read, with the numbers of the last
  // pass that stopped it (formatting it on every pass was 7 % of a 102,400-GPU run).
  void FlushPendingReasons(AdmissionHost& host) override {
    for (size_t t = 0; t < queues_.size(); ++t) {
      QuotaBlock& b = blocked_[t];
      if (b.id < 0) continue;
      if (!queues_[t].empty() && queues_[t].front() == b.id)
        host.SetPendingReason(b.id, PendingReasonName(PendingReason::kQuotaExhausted),
                              fmt::format("its team uses {} of its {}-GPU quota; needs {}", b.used,
                                          b.quota, b.wanted));
      b.id = -1;
    }
  }

 private:
  // The head a quota check stopped in the latest pass over a queue, and the numbers then.
  struct QuotaBlock {
    model::WorkloadId id = -1;
    int used = 0, quota = 0, wanted = 0;
  };

  std::vector<int> quota_;
  std::vector<int> used_;
  std::vector<std::deque<model::WorkloadId>> queues_;
  std::vector<QuotaBlock> blocked_;
};

}  // namespace

Result<std::unique_ptr<Admitter>> NewAdmitter(std::string_view name, std::vector<int> quota_gpus) {
  if (name == "fifo-quota")
    return std::unique_ptr<Admitter>(new FifoQuotaAdmitter(std::move(quota_gpus)));
  return Status::InvalidArgument(
      fmt::format("unknown admission policy '{}' (valid: fifo-quota)", name));
}

}  // namespace steward::twin
