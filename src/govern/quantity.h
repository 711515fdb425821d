// Kubernetes resource quantities in Steward's canonical integer units.
//
// Amounts are int64 so quota arithmetic is exact and deterministic, as Kueue's is
// (pkg/resources: CPU as MilliValue, everything else as Value rounded up). CPU is kept in
// millicores internally and shown in cores at the edges ("500m" = 0.5); memory and storage in
// bytes ("1Gi" = 1073741824); GPUs and other extended resources as counts.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "model/status.h"

namespace steward::govern {

using Amount = int64_t;
// "No limit" for borrowing/lending limits and capabilities.
inline constexpr Amount kUnlimited = std::numeric_limits<Amount>::max();

// True for resources stored in milli-units (only "cpu", as in Kueue).
bool IsMilliResource(std::string_view resource);

// Parses a Kubernetes Quantity ("64", "500m", "1.5Gi", "2e3", "1k") for `resource` into its
// internal unit, rounding up like resource.Quantity.Value(). Rejects negatives, empty strings,
// unknown suffixes and values beyond int64.
Result<Amount> ParseQuantity(std::string_view text, std::string_view resource);

// Formats an internal amount back as a Quantity string that ParseQuantity reads to the same
// value ("500m", "2", "80Gi").
std::string FormatQuantity(Amount amount, std::string_view resource);

// The canonical unit value shown to users: cores for CPU, the amount itself otherwise.
double CanonicalValue(Amount amount, std::string_view resource);

// Saturating helpers: kUnlimited absorbs additions.
inline Amount SatAdd(Amount a, Amount b) {
  if (a == kUnlimited || b == kUnlimited) return kUnlimited;
  if (b > 0 && a > kUnlimited - b) return kUnlimited;
  return a + b;
}

}  // namespace steward::govern
