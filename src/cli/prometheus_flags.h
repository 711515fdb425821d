// The one `--prometheus-config FILE` flag of every command that reads Prometheus (diagnose,
// metrics query, and operate and twin snapshot to come): a Prometheus-style HTTP client config
// (telemetry/prometheus_http_config.h) for https, credentials and tenant headers.
//
//   std::string config;  double timeout = 30;
//   AddPrometheusConfigFlag(cmd, &config);
//   Result<telemetry::PrometheusClientOptions> o = LoadPrometheusClientOptions(config, timeout);
//
// Cost: reads one small file. Thread-safety: none needed (called while parsing flags).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "model/status.h"
#include "telemetry/prometheus_client.h"

namespace steward::cli {

// Registers --prometheus-config on `cmd`, storing the path in `*file`.
void AddPrometheusConfigFlag(CLI::App* cmd, std::string* file);

// Client options: `timeout_seconds`, and the config file when `file` is not empty.
Result<telemetry::PrometheusClientOptions> LoadPrometheusClientOptions(const std::string& file,
                                                                       double timeout_seconds);

}  // namespace steward::cli
