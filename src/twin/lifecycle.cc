#include "twin/lifecycle.h"

namespace steward::twin {

std::string_view LifecycleKindName(LifecycleKind kind) {
  static constexpr std::string_view kNames[] = {"arrive",     "admit",  "place", "start",
                                                "checkpoint", "finish", "fail",  "drain",
                                                "preempt",    "stop",   "scale", "resize"};
  return kNames[static_cast<int>(kind)];
}

}  // namespace steward::twin
