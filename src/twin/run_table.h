// The twin's workload runs by id, holding only the runs that are alive (issue 22): ids are
// assigned in arrival order and never reused; a finished run is released once nothing needs
// it, and a page of ids whose runs are all released is freed. Memory is bounded by the runs
// held (plus 8 bytes per 1,024 ids ever assigned), not by every workload that ever ran.
//
//   RunTable runs;
//   WorkloadRun& r = runs.Add(std::move(run));   // r.spec.id == runs.size() - 1
//   if (const WorkloadRun* p = runs.Find(id)) ...   // nullptr once released
//   for (const WorkloadRun& r : runs) ...           // held runs, in id order
//   runs.Release(id);
//
// operator[] requires a held run (checked with assert). Iteration costs O(held + pages).
// Not thread-safe: the twin's thread only, like the Twin.
#pragma once

#include <cassert>
#include <cstddef>
#include <iterator>
#include <memory>
#include <vector>

#include "model/workload.h"
#include "twin/workload_run.h"

namespace steward::twin {

// Finished runs a twin keeps readable by default (TwinOptions::finished_runs_kept), which the
// run-size estimate charges too.
inline constexpr int kDefaultFinishedRunsKept = 1024;

class RunTable {
 public:
  static constexpr size_t kPageBits = 10;
  static constexpr size_t kPageSize = size_t{1} << kPageBits;

  RunTable();
  ~RunTable();
  RunTable(RunTable&&) noexcept;
  RunTable& operator=(RunTable&&) noexcept;

  // Ids ever assigned (= workloads submitted); the next id is size().
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Runs held now.
  size_t held() const { return held_; }
  // Pages allocated now (for the bounded-memory test).
  size_t pages() const { return pages_held_; }

  // Takes `run` under id size() (its spec.id must say so) and returns it.
  WorkloadRun& Add(WorkloadRun run);
  // Frees run `id`; later Find(id) returns nullptr. No-op if it is not held.
  void Release(model::WorkloadId id);

  WorkloadRun* Find(model::WorkloadId id) {
    if (id < 0 || static_cast<size_t>(id) >= size_) return nullptr;
    const Page* p = pages_[static_cast<size_t>(id) >> kPageBits].get();
    return p ? p->slots[static_cast<size_t>(id) & (kPageSize - 1)].get() : nullptr;
  }
  const WorkloadRun* Find(model::WorkloadId id) const {
    return const_cast<RunTable*>(this)->Find(id);
  }
  WorkloadRun& operator[](model::WorkloadId id) {
    WorkloadRun* r = Find(id);
    assert(r != nullptr && "run released");
    return *r;
  }
  const WorkloadRun& operator[](model::WorkloadId id) const {
    return const_cast<RunTable&>(*this)[id];
  }

  // Forward iteration over held runs in id order.
  template <bool kConst>
  class Iter {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = WorkloadRun;
    using difference_type = std::ptrdiff_t;
    using reference = std::conditional_t<kConst, const WorkloadRun&, WorkloadRun&>;
    using pointer = std::conditional_t<kConst, const WorkloadRun*, WorkloadRun*>;
    Iter() = default;
    Iter(const RunTable* t, size_t id) : t_(t), id_(id) { Skip(); }
    reference operator*() const { return *const_cast<RunTable*>(t_)->Find(Id()); }
    pointer operator->() const { return const_cast<RunTable*>(t_)->Find(Id()); }
    Iter& operator++() {
      ++id_;
      Skip();
      return *this;
    }
    Iter operator++(int) {
      Iter it = *this;
      ++*this;
      return it;
    }
    bool operator==(const Iter& o) const { return id_ == o.id_; }

   private:
    model::WorkloadId Id() const { return static_cast<model::WorkloadId>(id_); }
    void Skip();
    const RunTable* t_ = nullptr;
    size_t id_ = 0;
  };
  using iterator = Iter<false>;
  using const_iterator = Iter<true>;
  iterator begin() { return iterator(this, 0); }
  iterator end() { return iterator(this, size_); }
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, size_); }

 private:
  struct Page {
    std::unique_ptr<WorkloadRun> slots[kPageSize];
    size_t held = 0;
  };
  std::vector<std::unique_ptr<Page>> pages_;
  size_t size_ = 0;
  size_t held_ = 0;
  size_t pages_held_ = 0;
};

template <bool kConst>
void RunTable::Iter<kConst>::Skip() {
  while (id_ < t_->size_) {
    const Page* p = t_->pages_[id_ >> kPageBits].get();
    if (p == nullptr) {
      id_ = ((id_ >> kPageBits) + 1) << kPageBits;  // The whole page is released.
      continue;
    }
    if (p->slots[id_ & (kPageSize - 1)]) return;
    ++id_;
  }
  id_ = t_->size_;
}

}  // namespace steward::twin
