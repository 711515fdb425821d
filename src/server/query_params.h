// Query parameters of one API request, read and checked against what the endpoint takes: an
// unknown parameter or a malformed value is an error (400), never silently ignored.
//
//   QueryParams p(request);
//   STEWARD_RETURN_IF_ERROR(p.Allow({"team", "limit"}));
//   STEWARD_ASSIGN_OR_RETURN(int limit, p.Int("limit", 100, 1, 1000));
//
// Cost: O(parameters) per call. Thread-safety: a view of the request; use it while it lives.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "http/message.h"
#include "model/status.h"

namespace steward::server {

// The largest `limit` a list endpoint accepts (its page size).
inline constexpr int kMaxLimit = 1000;

class QueryParams {
 public:
  explicit QueryParams(const http::Request& r) : r_(r) {}

  // Fails on a parameter the endpoint does not take (a typo should not be silently ignored).
  Status Allow(std::initializer_list<std::string_view> names) const;
  bool Has(const std::string& name) const { return r_.params.count(name) > 0; }
  std::string Get(const std::string& name, std::string fallback = {}) const;
  // An integer in lo..hi, or `fallback` when absent.
  Result<int> Int(const std::string& name, int fallback, int lo, int hi) const;
  // A finite number, or `fallback` when absent.
  Result<double> Double(const std::string& name, double fallback) const;
  // true/false (also 1/0), or `fallback` when absent.
  Result<bool> Bool(const std::string& name, bool fallback) const;

 private:
  const http::Request& r_;
};

}  // namespace steward::server
