// The rollout section of the twin's report (Report::rollouts): text and HTML from the sections
// the rollout controllers filled. Internal to report.cc; split out to keep it readable.
//
//   out += RolloutsText(report.rollouts);   // "" without rollouts
//
// Cost: O(batches + gates + decisions). Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "twin/report.h"

namespace steward::twin {

std::string RolloutsText(const std::vector<RolloutSection>& rollouts);
// From each section's status JSON: the batches with their nodes and states, every gate's last
// value against its conditions with the verdict, and the batch, gate and rollout decisions with
// their reasons.
std::string RolloutsHtml(const std::vector<RolloutSection>& rollouts);

}  // namespace steward::twin
