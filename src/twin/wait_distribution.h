// A distribution of waits (queue wait, job completion time) kept compactly, for the report's
// nearest-rank percentiles (issue 22: memory bounded by live state, not by every sample).
//
// Samples are integral microseconds (SimDuration), kept as distinct values with their counts,
// delta- and varint-encoded in ascending order (about 3-4 bytes per distinct value where a
// vector of samples took 8 per sample). While the encoding fits in `max_bytes` the percentiles
// are exact: identical to ComputePercentiles over every sample. Beyond that the distribution
// keeps each value's leading significant bits only (as a float's mantissa does), fewer until it
// fits in half the limit: a percentile is then the true one rounded down to that precision,
// lower than the true value by less than relative_error() of it (2^-(bits-1)). count and max
// stay exact.
//
//   WaitDistribution d;
//   d.Add(now - run.pending_since);
//   Percentiles p = d.Compute({/* pending waits so far */});
//
// Cost: Add is amortised O(1) (appends, merged in batches of kBatch samples or one sample per
// 8 bytes of the encoding, whichever is more: about 8 bytes re-encoded per sample); memory is
// at most max_bytes plus a batch (8 KB, up to max_bytes at the cap) and, while merging, a
// second copy. Compute sorts the batch and the extra samples and decodes the values once.
// Not thread-safe (the twin's thread).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "model/time.h"
#include "twin/report.h"

namespace steward::twin {

class WaitDistribution {
 public:
  // 256 KB: the default scenario's 30 days (up to 50,000 waits per distribution) stay exact.
  static constexpr size_t kDefaultMaxBytes = size_t{256} << 10;
  static constexpr size_t kBatch = 1024;  // The smallest batch.

  explicit WaitDistribution(size_t max_bytes = kDefaultMaxBytes);

  void Add(SimDuration wait);
  int64_t count() const { return count_; }
  // Nearest-rank p50/p95/p99 and max, in seconds, of the samples plus `extra` (e.g. the waits
  // so far of workloads still pending), which are not kept.
  Percentiles Compute(const std::vector<SimDuration>& extra = {}) const;
  // 0 while every sample is kept exactly; else the bound on a percentile's relative error.
  double relative_error() const;
  // Bytes held (encoded values and the unmerged batch), for the bounded-memory tests.
  size_t bytes() const { return encoded_.capacity() + fresh_.capacity() * sizeof(int64_t); }

 private:
  int64_t Quantize(int64_t us) const;
  void Merge();
  void Coarsen();

  size_t max_bytes_;
  int bits_ = 0;  // Significant bits kept; 0 = all (exact).
  int64_t count_ = 0;
  int64_t max_ = 0;
  // Ascending distinct values: varint(value - previous value), varint(count - 1) each.
  std::vector<uint8_t> encoded_;
  std::vector<int64_t> fresh_;  // Added since the last merge (quantized).
};

}  // namespace steward::twin
