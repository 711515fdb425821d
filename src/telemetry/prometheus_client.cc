#include "telemetry/prometheus_client.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <httplib.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>

namespace steward::telemetry {

namespace {

using nlohmann::json;

Status Bad(const std::string& path, std::string_view what) {
  return Status::Corrupt(fmt::format("prometheus response: {}: {}", path, what));
}

std::string Snippet(std::string_view body) {
  std::string s(body.substr(0, 200));
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return body.size() > 200 ? s + "..." : s;
}

Status ParseLabels(const json& j, const std::string& path, PromLabels* out) {
  if (!j.is_object()) return Bad(path, "expected an object of labels");
  for (const auto& [k, v] : j.items()) {
    if (!v.is_string()) return Bad(path + "." + k, "label value is not a string");
    out->emplace(k, v.get<std::string>());
  }
  return Status::Ok();
}

// [<unix seconds>, "<value>"]
Status ParsePoint(const json& j, const std::string& path, PromPoint* out) {
  if (!j.is_array() || j.size() != 2) return Bad(path, "expected [time, \"value\"]");
  if (!j[0].is_number()) return Bad(path + "[0]", "time is not a number");
  out->time = j[0].get<double>();
  if (!j[1].is_string()) return Bad(path + "[1]", "value is not a string");
  const std::string& text = j[1].get_ref<const std::string&>();
  std::optional<double> v = ParsePromValue(text);
  if (!v) return Bad(path + "[1]", fmt::format("\"{}\" is not a number", text));
  out->value = *v;
  return Status::Ok();
}

Status ParseStrings(const json& env, const char* key, std::vector<std::string>* out) {
  auto it = env.find(key);
  if (it == env.end() || it->is_null()) return Status::Ok();
  if (!it->is_array()) return Bad(key, "expected a list of strings");
  for (size_t i = 0; i < it->size(); ++i) {
    if (!(*it)[i].is_string()) return Bad(fmt::format("{}[{}]", key, i), "not a string");
    out->push_back((*it)[i].get<std::string>());
  }
  return Status::Ok();
}

Status ParseData(const json& data, PromQueryResult* r) {
  if (!data.is_object()) return Bad("data", "expected an object");
  auto type = data.find("resultType");
  if (type == data.end() || !type->is_string()) return Bad("data.resultType", "missing");
  const std::string& t = type->get_ref<const std::string&>();
  auto result = data.find("result");
  if (result == data.end()) return Bad("data.result", "missing");
  const json& res = *result;
  if (t == "vector" || t == "matrix") {
    // Prometheus sends [] for an empty vector; some proxies send null.
    if (res.is_null()) {
      r->type = t == "vector" ? PromResultType::kVector : PromResultType::kMatrix;
      return Status::Ok();
    }
    if (!res.is_array()) return Bad("data.result", "expected a list");
  }
  if (t == "vector") {
    r->type = PromResultType::kVector;
    r->vector.reserve(res.size());
    for (size_t i = 0; i < res.size(); ++i) {
      const std::string path = fmt::format("data.result[{}]", i);
      const json& e = res[i];
      if (!e.is_object()) return Bad(path, "expected an object");
      PromSample s;
      if (auto m = e.find("metric"); m != e.end()) {
        STEWARD_RETURN_IF_ERROR(ParseLabels(*m, path + ".metric", &s.metric));
      }
      auto v = e.find("value");
      if (v == e.end()) {
        if (e.contains("histogram")) return Bad(path, "native histograms are not supported");
        return Bad(path + ".value", "missing");
      }
      STEWARD_RETURN_IF_ERROR(ParsePoint(*v, path + ".value", &s.point));
      r->vector.push_back(std::move(s));
    }
    return Status::Ok();
  }
  if (t == "matrix") {
    r->type = PromResultType::kMatrix;
    r->matrix.reserve(res.size());
    for (size_t i = 0; i < res.size(); ++i) {
      const std::string path = fmt::format("data.result[{}]", i);
      const json& e = res[i];
      if (!e.is_object()) return Bad(path, "expected an object");
      PromSeries s;
      if (auto m = e.find("metric"); m != e.end()) {
        STEWARD_RETURN_IF_ERROR(ParseLabels(*m, path + ".metric", &s.metric));
      }
      auto v = e.find("values");
      if (v == e.end()) {
        if (e.contains("histograms")) return Bad(path, "native histograms are not supported");
        return Bad(path + ".values", "missing");
      }
      if (!v->is_array()) return Bad(path + ".values", "expected a list");
      s.points.resize(v->size());
      for (size_t k = 0; k < v->size(); ++k) {
        STEWARD_RETURN_IF_ERROR(
            ParsePoint((*v)[k], fmt::format("{}.values[{}]", path, k), &s.points[k]));
      }
      r->matrix.push_back(std::move(s));
    }
    return Status::Ok();
  }
  if (t == "scalar") {
    r->type = PromResultType::kScalar;
    return ParsePoint(res, "data.result", &r->scalar);
  }
  if (t == "string") {
    r->type = PromResultType::kString;
    if (!res.is_array() || res.size() != 2 || !res[0].is_number() || !res[1].is_string())
      return Bad("data.result", "expected [time, \"string\"]");
    r->scalar.time = res[0].get<double>();
    r->scalar.value = std::numeric_limits<double>::quiet_NaN();
    r->string_value = res[1].get<std::string>();
    return Status::Ok();
  }
  return Bad("data.resultType", fmt::format("unknown result type \"{}\"", t));
}

}  // namespace

std::string_view PromResultTypeName(PromResultType type) {
  switch (type) {
    case PromResultType::kVector:
      return "vector";
    case PromResultType::kMatrix:
      return "matrix";
    case PromResultType::kScalar:
      return "scalar";
    case PromResultType::kString:
      return "string";
  }
  return "?";
}

std::optional<double> ParsePromValue(std::string_view text) {
  // Prometheus formats with Go's strconv.FormatFloat(v, 'f', -1, 64) and spells the specials
  // "NaN", "+Inf", "-Inf".
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "+Inf" || text == "Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  if (text.empty()) return std::nullopt;
  const char* b = text.data();
  const char* e = b + text.size();
  if (*b == '+') ++b;
  double v = 0;
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || ptr != e) return std::nullopt;
  return v;
}

Result<PromQueryResult> ParsePromResponse(std::string_view body, int http_status) {
  json env;
  try {
    env = json::parse(body.begin(), body.end());
  } catch (const json::parse_error& e) {
    if (http_status < 200 || http_status >= 300) {
      return Status::FailedPrecondition(
          fmt::format("prometheus: HTTP {}: {}", http_status, Snippet(body)));
    }
    return Status::Corrupt(
        fmt::format("prometheus response: not JSON (byte {}): {}", e.byte, Snippet(body)));
  }
  try {
    if (!env.is_object()) return Bad("(root)", "expected an object");
    auto st = env.find("status");
    if (st == env.end() || !st->is_string()) {
      if (http_status < 200 || http_status >= 300) {
        return Status::FailedPrecondition(
            fmt::format("prometheus: HTTP {}: {}", http_status, Snippet(body)));
      }
      return Bad("status", "missing");
    }
    const std::string& status = st->get_ref<const std::string&>();
    if (status == "error") {
      const std::string type = env.value("errorType", std::string("unknown"));
      const std::string error = env.value("error", std::string("(no message)"));
      return Status::FailedPrecondition(
          fmt::format("prometheus: {}: {} (HTTP {})", type, error, http_status));
    }
    if (status != "success") return Bad("status", fmt::format("unknown status \"{}\"", status));
    if (http_status < 200 || http_status >= 300) {
      return Status::FailedPrecondition(
          fmt::format("prometheus: HTTP {} with a success envelope", http_status));
    }
    PromQueryResult r;
    STEWARD_RETURN_IF_ERROR(ParseStrings(env, "warnings", &r.warnings));
    STEWARD_RETURN_IF_ERROR(ParseStrings(env, "infos", &r.infos));
    auto data = env.find("data");
    if (data == env.end()) return Bad("data", "missing");
    STEWARD_RETURN_IF_ERROR(ParseData(*data, &r));
    return r;
  } catch (const json::exception& e) {
    // Type errors the checks above missed; never let them cross the module boundary.
    return Status::Corrupt(fmt::format("prometheus response: {}", e.what()));
  }
}

Result<PrometheusClient> PrometheusClient::Create(std::string_view base_url,
                                                  PrometheusClientOptions options) {
  std::string_view rest = base_url;
  PrometheusClient c;
  constexpr std::string_view kHttp = "http://", kHttps = "https://";
  if (rest.substr(0, kHttp.size()) == kHttp) {
    rest.remove_prefix(kHttp.size());
  } else if (rest.substr(0, kHttps.size()) == kHttps) {
    rest.remove_prefix(kHttps.size());
    c.https_ = true;
    c.port_ = 443;
  } else if (rest.find("://") != std::string_view::npos) {
    return Status::InvalidArgument(
        fmt::format("prometheus URL {}: only http:// and https:// are supported", base_url));
  }
  c.options_ = std::move(options);
  const size_t slash = rest.find('/');
  std::string_view hostport = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    c.prefix_ = std::string(rest.substr(slash));
    while (!c.prefix_.empty() && c.prefix_.back() == '/') c.prefix_.pop_back();
  }
  if (hostport.find('@') != std::string_view::npos) {
    // Never echo the URL here: it holds a password.
    return Status::InvalidArgument(
        "prometheus URL: credentials in the URL are not supported; put them in "
        "--prometheus-config (basic_auth)");
  }
  const size_t colon = hostport.rfind(':');
  if (colon != std::string_view::npos && hostport.find(']') == std::string_view::npos) {
    std::string_view port = hostport.substr(colon + 1);
    int p = 0;
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
    if (ec != std::errc() || ptr != port.data() + port.size() || p <= 0 || p > 65535) {
      return Status::InvalidArgument(
          fmt::format("prometheus URL {}: bad port \"{}\"", base_url, port));
    }
    c.port_ = p;
    hostport = hostport.substr(0, colon);
  }
  if (hostport.empty()) {
    return Status::InvalidArgument(fmt::format("prometheus URL {}: no host", base_url));
  }
  c.host_ = std::string(hostport);
  return c;
}

std::string PrometheusClient::url() const {
  return fmt::format("{}://{}:{}{}", https_ ? "https" : "http", host_, port_, prefix_);
}

namespace {

void SetTimeouts(httplib::ClientImpl& http, double t) {
  const auto sec = static_cast<time_t>(t);
  const auto usec = static_cast<time_t>((t - static_cast<double>(sec)) * 1e6);
  http.set_connection_timeout(sec, usec);
  http.set_read_timeout(sec, usec);
  http.set_write_timeout(sec, usec);
}

int TlsVersion(const std::string& name) {
  if (name == "TLS10") return TLS1_VERSION;
  if (name == "TLS11") return TLS1_1_VERSION;
  if (name == "TLS12") return TLS1_2_VERSION;
  if (name == "TLS13") return TLS1_3_VERSION;
  return 0;  // OpenSSL's default.
}

// The numeric address of `host`, so a connection can go there while TLS verifies another name
// (tls_config.server_name); httplib's address map takes numeric addresses only.
Result<std::string> NumericAddress(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return Status::IoError(fmt::format("cannot resolve {}: {}", host, gai_strerror(rc)));
  }
  char text[INET6_ADDRSTRLEN] = {};
  const void* addr =
      found->ai_family == AF_INET6
          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(found->ai_addr)->sin6_addr)
          : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr);
  inet_ntop(found->ai_family, addr, text, sizeof(text));
  freeaddrinfo(found);
  return std::string(text);
}

// A TLS server's answer to a plain-http request (Go's net/http, as Prometheus serves).
bool IsPlainHttpRefusal(const httplib::Response& r) {
  return r.status == 400 && r.body.find("HTTP request to an HTTPS server") != std::string::npos;
}

Status SpeaksHttps(const std::string& where) {
  return Status::FailedPrecondition(
      fmt::format("{}: the server speaks https: use an https:// URL", where));
}

}  // namespace

Result<PrometheusClient::Reply> PrometheusClient::Send(
    const std::string& path, const std::vector<std::pair<std::string, std::string>>* form,
    double timeout_seconds) const {
  const PrometheusHttpConfig& cfg = options_.http;
  const std::string where = fmt::format("prometheus {}{}", url(), path);
  STEWARD_ASSIGN_OR_RETURN(auto header_list, ResolveHeaders(cfg));
  httplib::Headers headers(header_list.begin(), header_list.end());

  std::unique_ptr<httplib::ClientImpl> http;
  httplib::SSLClient* tls = nullptr;
  if (https_) {
    const PrometheusHttpConfig::Tls& t = cfg.tls;
    // With server_name, connect to the URL's host but verify (and send as SNI) the name.
    std::string tls_host = host_;
    if (!t.server_name.empty() && t.server_name != host_) {
      STEWARD_ASSIGN_OR_RETURN(std::string address, NumericAddress(host_, port_));
      tls_host = t.server_name;
      headers.emplace("Host", fmt::format("{}:{}", host_, port_));
      auto c = t.cert_file.empty()
                   ? std::make_unique<httplib::SSLClient>(tls_host, port_)
                   : std::make_unique<httplib::SSLClient>(tls_host, port_, t.cert_file, t.key_file);
      c->set_hostname_addr_map({{tls_host, address}});
      http = std::move(c);
    } else if (t.cert_file.empty()) {
      http = std::make_unique<httplib::SSLClient>(tls_host, port_);
    } else {
      http = std::make_unique<httplib::SSLClient>(tls_host, port_, t.cert_file, t.key_file);
    }
    tls = static_cast<httplib::SSLClient*>(http.get());
    if (!tls->is_valid()) {
      return Status::InvalidArgument(fmt::format(
          "{}: TLS: cannot use the client certificate {} with key {} (tls_config of {})", where,
          t.cert_file, t.key_file, cfg.file));
    }
    tls->enable_server_certificate_verification(!t.insecure_skip_verify);
    if (!t.ca_file.empty()) tls->set_ca_cert_path(t.ca_file);
    if (int v = TlsVersion(t.min_version)) SSL_CTX_set_min_proto_version(tls->ssl_context(), v);
    if (int v = TlsVersion(t.max_version)) SSL_CTX_set_max_proto_version(tls->ssl_context(), v);
  } else {
    http = std::make_unique<httplib::ClientImpl>(host_, port_);
  }
  SetTimeouts(*http, timeout_seconds);
  http->set_follow_location(cfg.follow_redirects);

  httplib::Result res = form == nullptr ? http->Get(prefix_ + path, headers)
                                        : http->Post(prefix_ + path, headers,
                                                     httplib::Params(form->begin(), form->end()));
  if (!res) {
    const httplib::Error e = res.error();
    if (e == httplib::Error::SSLServerVerification && tls != nullptr) {
      const long verify = tls->get_openssl_verify_result();
      if (verify != X509_V_OK) {
        return Status::IoError(fmt::format(
            "{}: TLS: the server's certificate does not verify: {}; give the CA that signed it "
            "as tls_config.ca_file in --prometheus-config{}",
            where, X509_verify_cert_error_string(verify),
            cfg.tls.ca_file.empty() ? " (the system's CA store was used)"
                                    : fmt::format(" (used {})", cfg.tls.ca_file)));
      }
      return Status::IoError(fmt::format(
          "{}: TLS: the server's certificate does not name {}; set tls_config.server_name in "
          "--prometheus-config to a name it holds",
          where, cfg.tls.server_name.empty() ? host_ : cfg.tls.server_name));
    }
    if (e == httplib::Error::SSLLoadingCerts) {
      return Status::IoError(
          fmt::format("{}: TLS: cannot load the CA file {}", where,
                      cfg.tls.ca_file.empty() ? "(system store)" : cfg.tls.ca_file));
    }
    if (e == httplib::Error::SSLConnection) {
      return Status::IoError(fmt::format(
          "{}: TLS handshake failed: is the server speaking https (a plain-http server needs "
          "an http:// URL), and does it accept the TLS versions allowed?",
          where));
    }
    if (tls != nullptr && (e == httplib::Error::Read || e == httplib::Error::Write)) {
      // With TLS 1.3 a server refuses a client certificate after the handshake: the first read
      // fails. OpenSSL's queue holds the alert ("tlsv13 alert certificate required").
      const unsigned long ssl_error = ERR_get_error();
      const char* reason = ssl_error != 0 ? ERR_reason_error_string(ssl_error) : nullptr;
      ERR_clear_error();
      return Status::IoError(fmt::format(
          "{}: TLS: the server closed the connection{}{}", where,
          reason != nullptr ? fmt::format(" ({})", reason) : "",
          cfg.tls.cert_file.empty()
              ? "; if it requires a client certificate, give tls_config.cert_file and key_file "
                "in --prometheus-config"
              : ""));
    }
    if (tls == nullptr && (e == httplib::Error::Read || e == httplib::Error::Write)) {
      // A TLS server answers plain http with a 400 and closes; when the request had a body it
      // left unread, the close may reset the connection before that answer is read. Ask once
      // more without a body, only to name the cause.
      if (httplib::Result probe = http->Get("/", headers); probe && IsPlainHttpRefusal(*probe))
        return SpeaksHttps(where);
    }
    return Status::IoError(fmt::format("{}: {}", where, httplib::to_string(e)));
  }
  if (res->status == 401 || res->status == 403) {
    const bool has_auth = cfg.basic_auth || cfg.authorization;
    return Status::FailedPrecondition(fmt::format(
        "{}: HTTP {} {}: {}", where, res->status, res->status == 401 ? "Unauthorized" : "Forbidden",
        !has_auth ? "the server wants credentials; give basic_auth or authorization in "
                    "--prometheus-config"
                  : fmt::format("the server refused the credentials of {}", cfg.file)));
  }
  if (IsPlainHttpRefusal(*res)) return SpeaksHttps(where);
  return Reply{res->status, std::move(res->body)};
}

Result<PromQueryResult> PrometheusClient::Post(
    const std::string& api, const std::vector<std::pair<std::string, std::string>>& form) const {
  STEWARD_ASSIGN_OR_RETURN(Reply reply, Send(api, &form, options_.timeout_seconds));
  return ParsePromResponse(reply.body, reply.status);
}

namespace {
std::string FormatTime(double t) { return fmt::format("{:.3f}", t); }
}  // namespace

Result<PromQueryResult> PrometheusClient::Query(std::string_view promql,
                                                std::optional<double> time) const {
  std::vector<std::pair<std::string, std::string>> form = {{"query", std::string(promql)}};
  if (time) form.emplace_back("time", FormatTime(*time));
  return Post("/api/v1/query", form);
}

Result<PromQueryResult> PrometheusClient::QueryRange(std::string_view promql, double start,
                                                     double end, double step) const {
  if (!(step > 0)) return Status::InvalidArgument("query_range: step must be positive");
  if (end < start) return Status::InvalidArgument("query_range: end before start");
  return Post("/api/v1/query_range", {{"query", std::string(promql)},
                                      {"start", FormatTime(start)},
                                      {"end", FormatTime(end)},
                                      {"step", fmt::format("{}", step)}});
}

bool PrometheusClient::Ready() const {
  Result<Reply> r = Send("/-/ready", nullptr, std::min(options_.timeout_seconds, 2.0));
  return r.ok() && r->status == 200;
}

}  // namespace steward::telemetry
