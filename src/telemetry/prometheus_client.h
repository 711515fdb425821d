// A client for Prometheus' HTTP query API (/api/v1/query, /api/v1/query_range) and the parser
// of its JSON answers.
//
// The envelope (prometheus/prometheus docs/querying/api.md) is
//   {"status": "success"|"error", "data": {"resultType": ..., "result": ...},
//    "errorType": ..., "error": ..., "warnings": [...], "infos": [...]}
// with resultType vector ([{"metric": {..}, "value": [t, "v"]}]), matrix
// ([{"metric": {..}, "values": [[t, "v"], ...]}]), scalar or string ([t, "v"]). Sample values
// are strings ("NaN", "+Inf", "-Inf" included). Extra members (VictoriaMetrics' isPartial,
// stats) are ignored. Native histograms ("histogram"/"histograms") are reported as an error
// rather than silently dropped.
//
// Errors never throw: a malformed answer gives a Status naming the JSON path
// ("data.result[3].value[1]: ..."); an error envelope gives "prometheus: <errorType>: <error>"
// with the HTTP status. Transport errors name the URL and say what to change: a certificate
// that does not verify, a handshake with a server that is not speaking https, a 401/403.
//
// The client speaks http and https (CA verification on by default, against the system store
// or tls_config.ca_file) and sends what a PrometheusHttpConfig asks (prometheus_http_config.h):
// basic auth, a bearer or other Authorization, extra headers such as X-Scope-OrgID for
// Mimir/Cortex tenants, a client certificate.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"
#include "telemetry/prometheus_http_config.h"

namespace steward::telemetry {

using PromLabels = std::map<std::string, std::string>;

enum class PromResultType { kVector, kMatrix, kScalar, kString };
std::string_view PromResultTypeName(PromResultType type);

struct PromPoint {
  double time = 0;  // Unix seconds.
  double value = 0;
};

struct PromSample {  // One element of an instant vector.
  PromLabels metric;
  PromPoint point;
};

struct PromSeries {  // One element of a range vector (matrix).
  PromLabels metric;
  std::vector<PromPoint> points;
};

struct PromQueryResult {
  PromResultType type = PromResultType::kVector;
  std::vector<PromSample> vector;  // kVector.
  std::vector<PromSeries> matrix;  // kMatrix.
  PromPoint scalar;                // kScalar (also the time of kString).
  std::string string_value;        // kString.
  std::vector<std::string> warnings;
  std::vector<std::string> infos;
};

// Parses an API answer. `http_status` is the HTTP code it came with (Prometheus sends error
// envelopes with 400, 422, 503...); a non-2xx status without a valid error envelope is an error
// naming the status and the start of the body.
Result<PromQueryResult> ParsePromResponse(std::string_view body, int http_status = 200);

// Parses a sample value string: Go's float syntax as Prometheus prints it ("1", "0.25",
// "1e-05", "NaN", "+Inf", "-Inf").
std::optional<double> ParsePromValue(std::string_view text);

struct PrometheusClientOptions {
  // Connect, read and write timeout of each request.
  double timeout_seconds = 10;
  // Authentication, TLS and headers (--prometheus-config); the default sends plain requests
  // and verifies https servers against the system's CA store.
  PrometheusHttpConfig http;
};

// Talks to one Prometheus server. Cheap to copy; each call opens its own connection, so a client
// may be used from several threads.
class PrometheusClient {
 public:
  // `base_url` is "http[s]://host[:port]" with an optional path prefix ("http://h:9090/prom"),
  // as Prometheus' --web.route-prefix allows; without a scheme, http. Credentials belong in
  // the options (basic_auth), not in the URL.
  static Result<PrometheusClient> Create(std::string_view base_url,
                                         PrometheusClientOptions options = {});

  // Instant query at `time` (Unix seconds; default: the server's now).
  Result<PromQueryResult> Query(std::string_view promql,
                                std::optional<double> time = std::nullopt) const;
  // Range query over [start, end] every `step` seconds.
  Result<PromQueryResult> QueryRange(std::string_view promql, double start, double end,
                                     double step) const;
  // GET /-/ready: true when the server answers 200.
  bool Ready() const;

  const std::string& host() const { return host_; }
  int port() const { return port_; }
  bool https() const { return https_; }
  // "https://host:port/prefix", for messages.
  std::string url() const;

 private:
  PrometheusClient() = default;
  Result<PromQueryResult> Post(const std::string& api,
                               const std::vector<std::pair<std::string, std::string>>& form) const;
  // One request on a fresh connection configured from options_ (TLS, headers, timeouts);
  // a null `form` sends a GET (readiness), else a form POST. Returns the status and body.
  struct Reply {
    int status = 0;
    std::string body;
  };
  Result<Reply> Send(const std::string& path,
                     const std::vector<std::pair<std::string, std::string>>* form,
                     double timeout_seconds) const;
  std::string host_;
  int port_ = 80;
  bool https_ = false;
  std::string prefix_;  // Path prefix without a trailing '/'.
  PrometheusClientOptions options_;
};

}  // namespace steward::telemetry
