// `steward twin snapshot`: reads a cluster through its Kubernetes API (kubeconfig, context or
// in-cluster configuration, as kubectl resolves them) and writes a scenario directory that
// `twin validate`, `twin run` and `twin compare` take (snapshot/snapshot.h).
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/flag_checks.h"
#include "cli/prometheus_flags.h"
#include "live/kube_client.h"
#include "live/kubeconfig.h"
#include "snapshot/read_cluster.h"
#include "snapshot/snapshot.h"
#include "snapshot/usage_profiles.h"

namespace steward::cli {
namespace {

struct SnapshotArgs {
  std::string kubeconfig, context, out;
  std::string prometheus, prometheus_config, prometheus_window = "24h";
  double prometheus_timeout = 30;
  snapshot::SnapshotOptions options;
  double timeout_seconds = 60;
};

[[noreturn]] void FailSnapshot(const std::string& message) {
  std::cerr << "steward twin snapshot: " << message << "\n";
  Fail();
}

void Snapshot(const SnapshotArgs& a) {
  if (a.prometheus.empty() && !a.prometheus_config.empty())
    FailSnapshot("--prometheus-config needs --prometheus URL");
  std::optional<telemetry::PrometheusClient> prometheus;
  if (!a.prometheus.empty()) {
    Result<telemetry::PrometheusClientOptions> po =
        LoadPrometheusClientOptions(a.prometheus_config, a.prometheus_timeout);
    if (!po.ok()) FailSnapshot(po.status().message());
    Result<telemetry::PrometheusClient> c = telemetry::PrometheusClient::Create(a.prometheus, *po);
    if (!c.ok())
      FailSnapshot(fmt::format("--prometheus {}: {}", a.prometheus, c.status().message()));
    prometheus.emplace(std::move(*c));
  }
  Result<live::RestConfig> config =
      live::ResolveRestConfig({.kubeconfig = a.kubeconfig, .context = a.context});
  if (!config.ok()) FailSnapshot(config.status().message());
  Result<std::unique_ptr<live::KubeClient>> client = live::KubeClient::Create(*config);
  if (!client.ok()) FailSnapshot(client.status().message());
  Result<snapshot::ClusterObjects> objects = snapshot::ReadCluster(
      client->get(), std::chrono::milliseconds(static_cast<int64_t>(a.timeout_seconds * 1000)));
  if (!objects.ok())
    FailSnapshot(fmt::format("{}: {}", config->server, objects.status().message()));
  objects->source = config->context.empty()
                        ? config->server
                        : fmt::format("{} (context {})", config->server, config->context);
  Result<snapshot::Snapshot> s = snapshot::BuildSnapshot(*objects, a.options);
  if (!s.ok()) FailSnapshot(s.status().message());
  if (prometheus) {
    Result<std::vector<snapshot::GpuReading>> readings =
        snapshot::ReadGpuUsage(*prometheus, {.window = a.prometheus_window});
    if (!readings.ok()) FailSnapshot(readings.status().message());
    snapshot::UsageFit fit = snapshot::FitUsageProfiles(*readings, &s->workloads);
    s->notes.insert(s->notes.end(), fit.notes.begin(), fit.notes.end());
  }
  if (Status st = snapshot::WriteSnapshot(*s, a.out); !st.ok()) FailSnapshot(st.message());
  int nodes = 0, gpus = 0, running = 0, waiting = 0;
  for (const twin::PoolSpec& p : s->pools.pools)
    nodes += p.nodes, gpus += p.nodes * p.gpus_per_node;
  for (const snapshot::SnapshotWorkload& w : s->workloads.workloads)
    ++(w.running ? running : waiting);
  std::cout << fmt::format(
      "steward: snapshot of {} in {}: {} nodes, {} GPUs in {} pool(s); {} teams; {} running and "
      "{} waiting workloads; {}\n",
      objects->source, a.out, nodes, gpus, s->pools.pools.size(), s->workloads.teams.size(),
      running, waiting,
      s->kueue_yaml.empty()
          ? std::string("no Kueue (fifo-quota)")
          : fmt::format("{} Kueue objects in {}", s->policy_objects, snapshot::kPolicyFile));
  for (const std::string& n : s->notes) std::cout << "  note: " << n << "\n";
}

}  // namespace

void RegisterTwinSnapshotCommand(CLI::App& twin) {
  auto a = std::make_shared<SnapshotArgs>();
  auto* cmd = twin.add_subcommand(
      "snapshot",
      "Read a cluster (nodes, GPU pods, Kueue objects) and write a scenario directory of it");
  cmd->add_option("--kubeconfig", a->kubeconfig,
                  "Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)");
  cmd->add_option("--context", a->context, "Kubeconfig context (default: current-context)");
  cmd->add_option("-o,--out", a->out, "Directory to write scenario.yaml, workloads.csv, kueue.yaml")
      ->required();
  cmd->add_option("--days", a->options.horizon_days, "Horizon of the written scenario")
      ->check(Positive())
      ->capture_default_str();
  cmd->add_option("--duration-hours", a->options.duration_hours,
                  "How long each workload runs from the snapshot on (default: the horizon)")
      ->check(NonNegative());
  cmd->add_option("--name", a->options.name, "Scenario name")->capture_default_str();
  cmd->add_option("--pool-label", a->options.pools.pool_labels,
                  "Node label naming a node's pool (repeatable; default: GKE/EKS/Karpenter node "
                  "pools, instance type, steward.io/pool)");
  cmd->add_option("--timeout", a->timeout_seconds, "Seconds to wait for the cluster's lists")
      ->check(Positive())
      ->capture_default_str();
  cmd->add_option("--prometheus", a->prometheus,
                  "Prometheus with DCGM history: each running workload's usage profile");
  AddPrometheusConfigFlag(cmd, &a->prometheus_config);
  cmd->add_option("--prometheus-window", a->prometheus_window,
                  "PromQL duration of the DCGM history the profiles average")
      ->capture_default_str();
  cmd->add_option("--prometheus-timeout", a->prometheus_timeout, "Seconds per Prometheus query")
      ->check(Positive())
      ->capture_default_str();
  cmd->callback([a] { Snapshot(*a); });
}

}  // namespace steward::cli
