#include "cli/prometheus_flags.h"

namespace steward::cli {

void AddPrometheusConfigFlag(CLI::App* cmd, std::string* file) {
  cmd->add_option("--prometheus-config", *file,
                  "Prometheus HTTP client config (the file promtool --http.config.file reads): "
                  "basic_auth, authorization, tls_config, http_headers (docs/diagnose.md)");
}

Result<telemetry::PrometheusClientOptions> LoadPrometheusClientOptions(const std::string& file,
                                                                       double timeout_seconds) {
  telemetry::PrometheusClientOptions o;
  o.timeout_seconds = timeout_seconds;
  if (!file.empty()) {
    STEWARD_ASSIGN_OR_RETURN(o.http, telemetry::LoadPrometheusHttpConfig(file));
  }
  return o;
}

}  // namespace steward::cli
