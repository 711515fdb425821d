// How Steward reaches a Prometheus that users run behind TLS and authentication: a
// Prometheus-style HTTP client configuration file, the `http_config` shape of
// prometheus/common (config/http_config.go, headers.go) that `promtool --http.config.file`,
// scrape configs and remote-write read.
//
//   Result<PrometheusHttpConfig> c = LoadPrometheusHttpConfig("prom-client.yml");
//   PrometheusClientOptions o;       // telemetry/prometheus_client.h
//   o.http = *c;
//   auto client = PrometheusClient::Create("https://prometheus.example:9090", o);
//
// Steward reads this subset (docs/diagnose.md has the reference):
//   basic_auth: {username | username_file, password | password_file}
//   authorization: {type (default Bearer), credentials | credentials_file}
//   bearer_token | bearer_token_file        (the older form of authorization, type Bearer)
//   tls_config: {ca_file, cert_file, key_file, server_name, insecure_skip_verify,
//                min_version, max_version}
//   http_headers: {NAME: {values: [...], secrets: [...], files: [...]}}
//   follow_redirects (default true), enable_http2 (accepted; Steward speaks HTTP/1.1)
// and refuses, naming the field, what it does not do: proxy_url and the other proxy settings,
// oauth2, inline tls_config ca/cert/key. Unknown keys, wrong types and the combinations
// prometheus/common rejects (basic_auth with authorization, credentials with credentials_file,
// authorization type Basic, reserved header names such as Authorization or Host) are errors
// naming the file, line and field.
//
// Relative paths are taken from the config file's directory, as Prometheus does. Every file
// is checked to be readable when loading, and read again on each request (ResolveHeaders), so
// a rotated token or password is picked up, as Prometheus does. Secrets never appear in error
// messages.
//
// Cost: one small YAML parse; ResolveHeaders reads the credential files (a few bytes each).
// Thread-safety: a loaded config is a plain value; ResolveHeaders only reads it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/status.h"

namespace steward::telemetry {

struct PrometheusHttpConfig {
  std::string file;  // Where it was loaded from, for messages ("" = built in code).

  struct BasicAuth {
    std::string username, username_file;  // At most one of each pair.
    std::string password, password_file;
  };
  std::optional<BasicAuth> basic_auth;

  // bearer_token / bearer_token_file are loaded as type Bearer here.
  struct Authorization {
    std::string type = "Bearer";
    std::string credentials, credentials_file;  // At most one.
  };
  std::optional<Authorization> authorization;

  struct Tls {
    std::string ca_file;              // Empty: the system's CA store.
    std::string cert_file, key_file;  // Client certificate (both or neither).
    std::string server_name;          // Name to verify (and send as SNI) instead of the host.
    bool insecure_skip_verify = false;
    std::string min_version, max_version;  // "TLS10".."TLS13", empty = OpenSSL's default.
  };
  Tls tls;

  struct Header {
    std::vector<std::string> values, secrets, files;  // Each adds one value, in this order.
  };
  std::map<std::string, Header> headers;  // http_headers, by name as written.

  bool follow_redirects = true;
};

// Reads and validates `path`. Errors are "PATH:LINE:COL: FIELD: what" (model/status.h).
Result<PrometheusHttpConfig> LoadPrometheusHttpConfig(const std::string& path);

// The same from text: `name` is used in messages and as `file`, relative paths are joined to
// `base_dir` (empty: the working directory).
Result<PrometheusHttpConfig> ParsePrometheusHttpConfig(std::string_view yaml_text,
                                                       std::string_view name,
                                                       std::string_view base_dir);

// The headers a request carries, with every credential and header file read now (trimmed of
// surrounding white space, as Prometheus does): Authorization from basic_auth or
// authorization, then http_headers in name order.
Result<std::vector<std::pair<std::string, std::string>>> ResolveHeaders(
    const PrometheusHttpConfig& config);

}  // namespace steward::telemetry
