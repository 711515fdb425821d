#include "twin/wait_distribution.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace steward::twin {
namespace {

void PutVarint(std::vector<uint8_t>& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v) | 0x80);
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

// Reads the (value, count) pairs of an encoding in order.
class Reader {
 public:
  explicit Reader(const std::vector<uint8_t>& in) : in_(in) {}
  bool Next(int64_t* value, int64_t* count) {
    if (pos_ >= in_.size()) return false;
    value_ += static_cast<int64_t>(Varint());
    *value = value_;
    *count = static_cast<int64_t>(Varint()) + 1;
    return true;
  }

 private:
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = in_[pos_++];
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  }
  const std::vector<uint8_t>& in_;
  size_t pos_ = 0;
  int64_t value_ = 0;
};

// Writes ascending (value, count) pairs, combining equal values.
class Writer {
 public:
  void Put(int64_t value, int64_t count) {
    if (has_ && value == value_) {
      count_ += count;
      return;
    }
    Flush();
    has_ = true;
    value_ = value;
    count_ = count;
  }
  std::vector<uint8_t> Finish() {
    Flush();
    return std::move(out_);
  }
  void Reserve(size_t n) { out_.reserve(n); }

 private:
  void Flush() {
    if (!has_) return;
    PutVarint(out_, static_cast<uint64_t>(value_ - written_));
    PutVarint(out_, static_cast<uint64_t>(count_ - 1));
    written_ = value_;
  }
  std::vector<uint8_t> out_;
  bool has_ = false;
  int64_t value_ = 0, count_ = 0, written_ = 0;
};

}  // namespace

WaitDistribution::WaitDistribution(size_t max_bytes)
    : max_bytes_(std::max<size_t>(max_bytes, 1024)) {}

int64_t WaitDistribution::Quantize(int64_t us) const {
  if (bits_ == 0 || us <= 0) return us;
  const int len = std::bit_width(static_cast<uint64_t>(us));
  if (len <= bits_) return us;
  const int drop = len - bits_;
  return (us >> drop) << drop;  // Truncation: monotone, so order statistics commute with it.
}

void WaitDistribution::Add(SimDuration wait) {
  const int64_t us = std::max<int64_t>(0, wait.micros());
  ++count_;
  max_ = count_ == 1 ? us : std::max(max_, us);
  fresh_.push_back(Quantize(us));
  // A merge re-encodes everything: batches grow with the encoding so its cost per sample stays
  // constant, about 8 bytes re-encoded per sample (at 102,400 GPUs merging in fixed batches
  // took 6 % of the run, and batches of an eighth of that, 32 bytes per sample, still 5 %).
  if (fresh_.size() >= std::max(kBatch, encoded_.size() / 8)) Merge();
}

void WaitDistribution::Merge() {
  if (fresh_.empty()) return;
  std::sort(fresh_.begin(), fresh_.end());
  Writer w;
  w.Reserve(encoded_.size() + 4 * fresh_.size());
  Reader r(encoded_);
  int64_t v = 0, c = 0;
  bool have = r.Next(&v, &c);
  size_t j = 0;
  while (have || j < fresh_.size()) {
    if (have && (j == fresh_.size() || v <= fresh_[j])) {
      w.Put(v, c);
      have = r.Next(&v, &c);
    } else {
      w.Put(fresh_[j++], 1);
    }
  }
  encoded_ = w.Finish();
  fresh_.clear();
  if (encoded_.size() > max_bytes_) Coarsen();
}

void WaitDistribution::Coarsen() {
  while (encoded_.size() > max_bytes_ / 2 && bits_ != 1) {
    bits_ = bits_ == 0 ? 24 : bits_ - 1;
    Writer w;
    Reader r(encoded_);
    for (int64_t v = 0, c = 0; r.Next(&v, &c);) w.Put(Quantize(v), c);
    encoded_ = w.Finish();
  }
  encoded_.shrink_to_fit();
}

double WaitDistribution::relative_error() const {
  return bits_ == 0 ? 0.0 : std::ldexp(1.0, -(bits_ - 1));
}

Percentiles WaitDistribution::Compute(const std::vector<SimDuration>& extra) const {
  Percentiles p;
  const size_t n = static_cast<size_t>(count_) + extra.size();
  p.count = static_cast<int>(n);
  if (n == 0) return p;
  std::vector<int64_t> loose = fresh_;
  int64_t max = max_;
  bool any = count_ > 0;
  for (SimDuration d : extra) {
    const int64_t us = std::max<int64_t>(0, d.micros());
    loose.push_back(Quantize(us));
    max = any ? std::max(max, us) : us;
    any = true;
  }
  std::sort(loose.begin(), loose.end());
  // Nearest rank, as ComputePercentiles: the smallest value with at least q of the samples at
  // or below it.
  auto rank = [&](double q) {
    const size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(n)));
    return std::clamp<size_t>(k, 1, n);
  };
  const size_t ranks[3] = {rank(0.50), rank(0.95), rank(0.99)};
  double* outs[3] = {&p.p50, &p.p95, &p.p99};
  size_t next = 0, seen = 0, j = 0;
  Reader r(encoded_);
  int64_t v = 0, c = 0;
  bool have = r.Next(&v, &c);
  while (next < 3 && (have || j < loose.size())) {
    int64_t value, count;
    if (have && (j == loose.size() || v <= loose[j])) {
      value = v;
      count = c;
      have = r.Next(&v, &c);
    } else {
      value = loose[j++];
      count = 1;
    }
    seen += static_cast<size_t>(count);
    while (next < 3 && ranks[next] <= seen) *outs[next++] = SimDuration::Micros(value).ToSeconds();
  }
  p.max = SimDuration::Micros(max).ToSeconds();
  p.relative_error = relative_error();
  return p;
}

}  // namespace steward::twin
