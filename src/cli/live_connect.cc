#include "cli/live_connect.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>

namespace steward::cli {
std::string IsoTime(int64_t micros) {
  const std::time_t secs = static_cast<std::time_t>(micros / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Result<LiveConnection> ConnectLive(const LiveConnectOptions& o, int* exit_code) {
  *exit_code = 2;
  live::ConfigSources sources;
  sources.kubeconfig = o.kubeconfig;
  sources.context = o.context;
  LiveConnection c;
  STEWARD_ASSIGN_OR_RETURN(c.config, live::ResolveRestConfig(sources));
  STEWARD_ASSIGN_OR_RETURN(c.client, live::KubeClient::Create(c.config));
  *exit_code = 1;
  live::ClusterCacheOptions cache_options;
  cache_options.events = o.events;
  STEWARD_ASSIGN_OR_RETURN(c.cache, live::ClusterCache::Start(c.client.get(), cache_options));
  if (!c.cache->WaitForSync(std::chrono::milliseconds(static_cast<int64_t>(o.sync_timeout * 1000))))
    return Status::Unavailable(fmt::format("the cluster cache did not sync within {}s ({})",
                                           o.sync_timeout, c.config.server));
  *exit_code = 0;
  return c;
}

std::string AuditLine(const store::AuditRow& r) {
  std::string s = fmt::format("{} {} {} {}", IsoTime(r.at_micros), r.mode, r.action, r.object);
  if (!r.before.empty())
    s += fmt::format(": {} -> {}", r.before, r.after);
  else if (!r.after.empty())
    s += fmt::format(": {}", r.after);
  if (!r.reason.empty()) s += fmt::format(" ({})", r.reason);
  if (!r.error.empty()) s += fmt::format(" error: {}", r.error);
  return s;
}

}  // namespace steward::cli
