#include "twin/run_table.h"

#include <utility>

namespace steward::twin {

RunTable::RunTable() = default;
RunTable::~RunTable() = default;
RunTable::RunTable(RunTable&&) noexcept = default;
RunTable& RunTable::operator=(RunTable&&) noexcept = default;

WorkloadRun& RunTable::Add(WorkloadRun run) {
  assert(run.spec.id == static_cast<model::WorkloadId>(size_));
  const size_t page = size_ >> kPageBits;
  if (page == pages_.size()) {
    pages_.push_back(std::make_unique<Page>());
    ++pages_held_;
  }
  Page& p = *pages_[page];
  auto& slot = p.slots[size_ & (kPageSize - 1)];
  slot = std::make_unique<WorkloadRun>(std::move(run));
  ++p.held;
  ++held_;
  ++size_;
  return *slot;
}

void RunTable::Release(model::WorkloadId id) {
  if (id < 0 || static_cast<size_t>(id) >= size_) return;
  const size_t page = static_cast<size_t>(id) >> kPageBits;
  std::unique_ptr<Page>& p = pages_[page];
  if (!p) return;
  auto& slot = p->slots[static_cast<size_t>(id) & (kPageSize - 1)];
  if (!slot) return;
  slot.reset();
  --held_;
  // A page is freed once every id on it is assigned and released (the last page keeps
  // taking new ids until it is full).
  if (--p->held == 0 && (page + 1) * kPageSize <= size_) {
    p.reset();
    --pages_held_;
  }
}

}  // namespace steward::twin
