#include "live/kube_client.h"

#include <fmt/format.h>
#include <httplib.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include "live/exec_credential.h"
#include "live/token_bucket.h"
#include "model/text.h"

namespace steward::live {
// Named, not anonymous: KubeClient::Impl (an external class) holds these, and GCC warns about a
// member of internal-linkage type once this file is part of a unity batch.
namespace kube_client_internal {

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;

struct ServerUrl {
  bool tls = true;
  std::string host;
  int port = 443;
  std::string prefix;  // A path prefix (a proxy in front of the API server), no trailing '/'.
};

}  // namespace kube_client_internal

namespace {

using kube_client_internal::KeyFree;
using kube_client_internal::KeyPtr;
using kube_client_internal::ServerUrl;
using kube_client_internal::X509Free;
using kube_client_internal::X509Ptr;
using nlohmann::json;
using std::chrono::milliseconds;

// httplib loads the system trust store whenever neither a CA file nor a CA directory is set.
// When the kubeconfig names a CA, only that CA may be trusted (as kubectl does), so the client
// installs an in-memory store and points httplib at a directory that holds no certificates.
constexpr char kNoExtraCaDir[] = "/nonexistent/steward-trusts-only-the-kubeconfig-ca";
// How long a token read from a tokenFile is used before the file is read again (client-go's
// cachingTokenSource re-reads bound service-account tokens once a minute).
constexpr auto kTokenFileTtl = std::chrono::seconds(60);

Result<std::vector<X509Ptr>> ParseCertificates(std::string_view pem, std::string_view what) {
  std::vector<X509Ptr> out;
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  while (X509* x = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) out.emplace_back(x);
  BIO_free(bio);
  ERR_clear_error();  // The end of the PEM text reads as an error.
  if (out.empty())
    return Status::InvalidArgument(fmt::format("{}: no PEM certificate found", what));
  return out;
}

Result<KeyPtr> ParseKey(std::string_view pem, std::string_view what) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  ERR_clear_error();
  if (key == nullptr)
    return Status::InvalidArgument(fmt::format("{}: no PEM private key found", what));
  return KeyPtr(key);
}

Result<ServerUrl> ParseServer(const std::string& server, std::string_view source) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(fmt::format("{}: server '{}': {}", source, server, why));
  };
  ServerUrl url;
  std::string_view rest = server;
  if (rest.rfind("https://", 0) == 0) {
    rest.remove_prefix(8);
  } else if (rest.rfind("http://", 0) == 0) {
    url.tls = false;
    url.port = 80;
    rest.remove_prefix(7);
  } else {
    return bad("not an http(s) URL");
  }
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    url.prefix = std::string(rest.substr(slash));
    while (!url.prefix.empty() && url.prefix.back() == '/') url.prefix.pop_back();
  }
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad("unterminated IPv6 address");
    url.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return bad("junk after the IPv6 address");
      port_text = authority.substr(close + 2);
    }
  } else {
    const size_t colon = authority.rfind(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (url.host.empty()) return bad("no host");
  if (!port_text.empty()) {
    int port = 0;
    auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || p != port_text.data() + port_text.size() || port <= 0 || port > 65535)
      return bad("bad port");
    url.port = port;
  }
  return url;
}

std::string PercentEncode(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

std::string WithQuery(const std::string& path, const Query& query) {
  std::string out = path;
  char sep = '?';
  for (const auto& [k, v] : query) {
    out += sep;
    out += PercentEncode(k);
    out += '=';
    out += PercentEncode(v);
    sep = '&';
  }
  return out;
}

kube::ApiError TransportError(std::string reason, std::string message) {
  kube::ApiError e;
  e.code = 0;
  e.reason = std::move(reason);
  e.message = std::move(message);
  return e;
}

std::string_view TransportReason(httplib::Error e) {
  switch (e) {
    case httplib::Error::Read:
    case httplib::Error::ConnectionTimeout:
      return "Timeout";
    case httplib::Error::SSLServerVerification:
    case httplib::Error::SSLConnection:
    case httplib::Error::SSLLoadingCerts:
      return "TLSError";
    default:
      return "ConnectionFailed";
  }
}

// Seconds from a Retry-After header (the delta-seconds form; servers never send a date).
int RetryAfterHeader(const httplib::Response& res) {
  const std::string v = res.get_header_value("Retry-After");
  int seconds = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), seconds);
  return ec == std::errc() && seconds > 0 ? seconds : 0;
}

bool IsRetriableStatus(int code, bool idempotent, bool has_retry_after) {
  if (code == 429 || has_retry_after) return true;
  if (code == 503) return true;  // Unavailable: the request was not processed.
  return idempotent && code >= 500;
}

}  // namespace

std::string ResourceRef::Path(std::string_view ns, std::string_view name,
                              std::string_view subresource) const {
  std::string p = group.empty() ? "/api/" + version : fmt::format("/apis/{}/{}", group, version);
  if (namespaced && !ns.empty()) p += fmt::format("/namespaces/{}", ns);
  p += "/" + plural;
  if (!name.empty()) p += fmt::format("/{}", name);
  if (!subresource.empty()) p += fmt::format("/{}", subresource);
  return p;
}

std::string ResourceRef::Name() const { return group.empty() ? plural : plural + "." + group; }

std::string_view PatchContentType(PatchType type) {
  switch (type) {
    case PatchType::kMerge:
      return "application/merge-patch+json";
    case PatchType::kStrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::kJsonPatch:
      return "application/json-patch+json";
  }
  return "application/merge-patch+json";
}

Status ApiResult::ToStatus() const {
  if (ok()) return Status::Ok();
  const kube::ApiError& e = error();
  std::string message = e.code == 0 ? fmt::format("{}: {}", e.reason, e.message)
                                    : fmt::format("{} {}: {}", e.code, e.reason, e.message);
  switch (e.code) {
    case 400:
    case 422:
      return Status::InvalidArgument(std::move(message));
    case 404:
      return Status::NotFound(std::move(message));
    case 409:
      return Status::Aborted(std::move(message));
    case 410:
      return Status::FailedPrecondition(std::move(message));
    case 429:
    case 503:
      return Status::Unavailable(std::move(message));
    case 0:
      return Status::IoError(std::move(message));
    default:
      return Status::Internal(std::move(message));
  }
}

void WatchCancel::Cancel() {
  cancelled_ = true;
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_) stop_();
}

void WatchCancel::Attach(std::function<void()> stop) {
  std::lock_guard<std::mutex> lock(mu_);
  stop_ = std::move(stop);
}

void WatchCancel::Detach() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_ = nullptr;
}

struct KubeClient::Impl {
  Impl(RestConfig c, KubeClientOptions o, ServerUrl u)
      : config(std::move(c)),
        options(std::move(o)),
        clock(options.clock ? options.clock : RealClock()),
        url(std::move(u)),
        limiter(options.qps, options.burst, clock) {}

  RestConfig config;
  KubeClientOptions options;
  Clock* clock;
  ServerUrl url;
  TokenBucket limiter;
  std::vector<X509Ptr> ca;
  std::unique_ptr<ExecCredentialSource> exec;

  std::mutex mu;
  std::vector<std::unique_ptr<httplib::ClientImpl>> idle;  // Guarded by mu.
  // The client identity new connections present: the kubeconfig's, or the exec plugin's
  // certificate of `identity_generation`. Guarded by mu.
  std::shared_ptr<X509> client_cert;
  std::shared_ptr<EVP_PKEY> client_key;
  uint64_t identity_generation = 0;
  std::string file_token;  // Guarded by mu.
  std::chrono::steady_clock::time_point file_token_read{};

  std::atomic<int64_t> requests{0}, retries{0}, throttled_micros{0};

  std::unique_ptr<httplib::ClientImpl> NewConnection(milliseconds read_timeout) {
    std::unique_ptr<httplib::ClientImpl> c;
    std::shared_ptr<X509> cert;
    std::shared_ptr<EVP_PKEY> key;
    {
      std::lock_guard<std::mutex> lock(mu);
      cert = client_cert;
      key = client_key;
    }
    // With tls-server-name, the certificate is checked (and SNI sent) for that name while the
    // socket goes to the server URL's host.
    const std::string& name = config.tls_server_name.empty() ? url.host : config.tls_server_name;
    if (url.tls) {
      auto ssl = cert ? std::make_unique<httplib::SSLClient>(name, url.port, cert.get(), key.get())
                      : std::make_unique<httplib::SSLClient>(name, url.port);
      ssl->enable_server_certificate_verification(!config.insecure_skip_tls_verify);
      if (!ca.empty()) {
        X509_STORE* store = X509_STORE_new();
        for (const X509Ptr& x : ca) X509_STORE_add_cert(store, x.get());
        ssl->set_ca_cert_store(store);  // The SSL context owns it from here.
        ssl->set_ca_cert_path("", kNoExtraCaDir);
      }
      c = std::move(ssl);
    } else {
      c = std::make_unique<httplib::ClientImpl>(name, url.port);
    }
    if (name != url.host) c->set_hostname_addr_map({{name, url.host}});
    c->set_connection_timeout(options.connect_timeout);
    c->set_read_timeout(read_timeout);
    c->set_write_timeout(options.read_timeout);
    c->set_keep_alive(true);
    c->set_tcp_nodelay(true);
    return c;
  }

  std::unique_ptr<httplib::ClientImpl> Take() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!idle.empty()) {
        auto c = std::move(idle.back());
        idle.pop_back();
        return c;
      }
    }
    return NewConnection(options.read_timeout);
  }
  void Give(std::unique_ptr<httplib::ClientImpl> c, uint64_t generation) {
    std::lock_guard<std::mutex> lock(mu);
    if (generation == identity_generation && idle.size() < 16) idle.push_back(std::move(c));
  }

  // The Authorization header for the next attempt ("" = none); installs an exec plugin's new
  // client certificate (dropping connections built with the old one).
  Result<std::string> Authorize() {
    if (!config.token.empty()) return "Bearer " + config.token;
    if (!config.token_file.empty()) {
      std::lock_guard<std::mutex> lock(mu);
      const auto now = clock->Now();
      if (file_token.empty() || now - file_token_read >= kTokenFileTtl) {
        std::ifstream in(config.token_file);
        std::stringstream s;
        s << in.rdbuf();
        std::string token = s.str();
        while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back())))
          token.pop_back();
        if (token.empty() && file_token.empty())
          return Status::IoError(
              fmt::format("cannot read a token from tokenFile {}", config.token_file));
        if (!token.empty()) file_token = std::move(token);
        file_token_read = now;
      }
      return "Bearer " + file_token;
    }
    if (!config.username.empty() || !config.password.empty())
      return "Basic " + model::Base64Encode(config.username + ":" + config.password);
    if (exec) {
      STEWARD_ASSIGN_OR_RETURN(ExecCredential cred, exec->Get());
      if (!cred.client_certificate_pem.empty()) {
        std::lock_guard<std::mutex> lock(mu);
        if (cred.generation != identity_generation) {
          STEWARD_ASSIGN_OR_RETURN(
              std::vector<X509Ptr> certs,
              ParseCertificates(cred.client_certificate_pem, "exec plugin clientCertificateData"));
          STEWARD_ASSIGN_OR_RETURN(KeyPtr key,
                                   ParseKey(cred.client_key_pem, "exec plugin clientKeyData"));
          client_cert = std::shared_ptr<X509>(certs.front().release(), X509Free());
          client_key = std::shared_ptr<EVP_PKEY>(key.release(), KeyFree());
          identity_generation = cred.generation;
          idle.clear();
        }
      }
      if (!cred.token.empty()) return "Bearer " + cred.token;
    }
    return std::string();
  }

  milliseconds Backoff(int attempt, int retry_after_seconds) const {
    milliseconds wait = options.initial_backoff * (int64_t{1} << std::min(attempt, 20));
    wait = std::max(wait, milliseconds(int64_t{retry_after_seconds} * 1000));
    return std::min(wait, options.max_backoff);
  }

  void Pace() {
    const std::chrono::nanoseconds wait = limiter.Reserve();
    if (wait.count() > 0) {
      throttled_micros += std::chrono::duration_cast<std::chrono::microseconds>(wait).count();
      clock->SleepFor(wait);
    }
  }

  httplib::Request BuildRequest(std::string_view method, const std::string& path,
                                const Query& query, const std::string& body,
                                std::string_view content_type, const std::string& auth) {
    httplib::Request req;
    req.method = std::string(method);
    req.path = url.prefix + WithQuery(path, query);
    req.headers.emplace("Accept", "application/json");
    req.headers.emplace("User-Agent", options.user_agent);
    if (!auth.empty()) req.headers.emplace("Authorization", auth);
    if (!body.empty() || !content_type.empty()) {
      req.headers.emplace("Content-Type",
                          content_type.empty() ? "application/json" : std::string(content_type));
      req.body = body;
    }
    return req;
  }

  Query QueryOf(const CallOptions& o) const {
    Query q = o.query;
    if (o.dry_run) q.emplace_back("dryRun", "All");
    if (!o.field_manager.empty()) q.emplace_back("fieldManager", o.field_manager);
    return q;
  }

  ApiResult Call(std::string_view method, const std::string& path, const CallOptions& o,
                 const std::string& body, std::string_view content_type) {
    const bool idempotent = method == "GET";
    const int max_retries = o.max_retries >= 0 ? o.max_retries : options.max_retries;
    const Query query = QueryOf(o);
    bool renewed_credential = false;
    for (int attempt = 0;; ++attempt) {
      Pace();
      Result<std::string> auth = Authorize();
      if (!auth.ok()) return TransportError("CredentialError", auth.status().message());
      uint64_t generation;
      {
        std::lock_guard<std::mutex> lock(mu);
        generation = identity_generation;
      }
      // Writes go on a fresh connection, so a failure can only mean "not sent" (connect) or
      // "unknown" (read), never a stale keep-alive socket mistaken for the server's silence.
      std::unique_ptr<httplib::ClientImpl> conn =
          idempotent ? Take() : NewConnection(options.read_timeout);
      ++requests;
      httplib::Result res =
          conn->send(BuildRequest(method, path, query, body, content_type, *auth));
      const bool retries_left = attempt < max_retries;
      if (!res) {
        const httplib::Error err = res.error();
        const bool not_sent =
            err == httplib::Error::Connection || err == httplib::Error::ConnectionTimeout;
        if (retries_left && (idempotent || not_sent) &&
            TransportReason(err) != std::string_view("TLSError")) {
          ++retries;
          clock->SleepFor(Backoff(attempt, 0));
          continue;
        }
        return TransportError(
            std::string(TransportReason(err)),
            fmt::format("{} {}{}: {}", method, config.server, path, httplib::to_string(err)));
      }
      if (idempotent) Give(std::move(conn), generation);
      const int code = res->status;
      if (code >= 200 && code < 300) {
        if (res->body.empty()) return json::object();
        json j = json::parse(res->body, nullptr, /*allow_exceptions=*/false);
        if (j.is_discarded())
          return TransportError("InvalidResponse",
                                fmt::format("{} {}: the answer is not JSON", method, path));
        return j;
      }
      if (code == 401 && exec && !renewed_credential) {
        renewed_credential = true;  // The plugin's credential may have been revoked early.
        exec->Invalidate();
        continue;
      }
      kube::ApiError error = kube::DecodeApiError(code, res->body);
      const int retry_after = std::max(RetryAfterHeader(*res), error.retry_after_seconds);
      if (error.retry_after_seconds == 0) error.retry_after_seconds = retry_after;
      if (retries_left && IsRetriableStatus(code, idempotent, retry_after > 0)) {
        ++retries;
        clock->SleepFor(Backoff(attempt, retry_after));
        continue;
      }
      return error;
    }
  }
};

Result<std::unique_ptr<KubeClient>> KubeClient::Create(RestConfig config,
                                                       KubeClientOptions options) {
  STEWARD_ASSIGN_OR_RETURN(ServerUrl url, ParseServer(config.server, config.source));
  auto impl = std::make_unique<Impl>(std::move(config), std::move(options), std::move(url));
  const RestConfig& c = impl->config;
  if (!c.ca_pem.empty()) {
    STEWARD_ASSIGN_OR_RETURN(impl->ca,
                             ParseCertificates(c.ca_pem, c.source + ": certificate-authority"));
  }
  if (!c.client_certificate_pem.empty()) {
    STEWARD_ASSIGN_OR_RETURN(
        std::vector<X509Ptr> certs,
        ParseCertificates(c.client_certificate_pem, c.source + ": client-certificate"));
    STEWARD_ASSIGN_OR_RETURN(KeyPtr key, ParseKey(c.client_key_pem, c.source + ": client-key"));
    impl->client_cert = std::shared_ptr<X509>(certs.front().release(), X509Free());
    impl->client_key = std::shared_ptr<EVP_PKEY>(key.release(), KeyFree());
  }
  if (c.exec)
    impl->exec = std::make_unique<ExecCredentialSource>(*c.exec, c.server, c.ca_pem, impl->clock);
  return std::unique_ptr<KubeClient>(new KubeClient(std::move(impl)));
}

KubeClient::KubeClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
KubeClient::~KubeClient() = default;

const RestConfig& KubeClient::config() const { return impl_->config; }

KubeClient::Stats KubeClient::stats() const {
  return {impl_->requests.load(), impl_->retries.load(), impl_->throttled_micros.load(),
          impl_->exec ? impl_->exec->runs() : 0};
}

ApiResult KubeClient::Call(std::string_view method, const std::string& path,
                           const CallOptions& options, const std::string& body,
                           std::string_view content_type) {
  return impl_->Call(method, path, options, body, content_type);
}

ApiResult KubeClient::Get(const std::string& path, const CallOptions& options) {
  return Call("GET", path, options);
}

ApiResult KubeClient::List(const std::string& path, const CallOptions& options, int64_t page_size) {
  json merged;
  std::string token;
  bool paged = page_size > 0;
  while (true) {
    CallOptions page = options;
    if (paged) page.query.emplace_back("limit", std::to_string(page_size));
    if (!token.empty()) page.query.emplace_back("continue", token);
    ApiResult r = Get(path, page);
    if (!r.ok()) {
      if (r.error().code == 410 && !token.empty()) {
        // The snapshot behind the continue token was compacted: start over, unpaged.
        paged = false;
        token.clear();
        merged = json();
        continue;
      }
      return r;
    }
    json body = std::move(r).value();
    if (!body.is_object() || (body.contains("items") && !body["items"].is_array()))
      return TransportError("InvalidResponse", fmt::format("GET {}: not a list", path));
    if (merged.is_null()) {
      merged = body;
      if (!merged.contains("items") || merged["items"].is_null()) merged["items"] = json::array();
    } else if (body.contains("items")) {
      for (json& item : body["items"]) merged["items"].push_back(std::move(item));
    }
    const json& meta = body.contains("metadata") ? body["metadata"] : json::object();
    token = meta.contains("continue") && meta["continue"].is_string()
                ? meta["continue"].get<std::string>()
                : "";
    if (token.empty()) break;
  }
  if (merged.contains("metadata") && merged["metadata"].is_object()) {
    merged["metadata"].erase("continue");
    merged["metadata"].erase("remainingItemCount");
  }
  return merged;
}

ApiResult KubeClient::Create(const std::string& path, const json& body,
                             const CallOptions& options) {
  return Call("POST", path, options, body.dump(), "application/json");
}

ApiResult KubeClient::Replace(const std::string& path, const json& body,
                              const CallOptions& options) {
  return Call("PUT", path, options, body.dump(), "application/json");
}

ApiResult KubeClient::Patch(const std::string& path, PatchType type, const json& patch,
                            const CallOptions& options) {
  return Call("PATCH", path, options, patch.dump(), PatchContentType(type));
}

ApiResult KubeClient::Delete(const std::string& path, const CallOptions& options,
                             const json& body) {
  return Call("DELETE", path, options, body.is_null() ? std::string() : body.dump(),
              body.is_null() ? std::string_view() : "application/json");
}

ApiResult KubeClient::Watch(const std::string& path, const CallOptions& options,
                            const std::function<bool(WatchEvent)>& on_event, WatchCancel* cancel) {
  Impl& impl = *impl_;
  CallOptions o = options;
  o.query.emplace_back("watch", "1");
  int64_t timeout_seconds = 0;
  for (const auto& [k, v] : o.query)
    if (k == "timeoutSeconds") std::from_chars(v.data(), v.data() + v.size(), timeout_seconds);
  // Without timeoutSeconds the server may hold the stream up to its own limit (30 min).
  const milliseconds idle_limit =
      (timeout_seconds > 0 ? milliseconds(timeout_seconds * 1000) : std::chrono::minutes(30)) +
      impl.options.watch_idle_slack;
  const int max_retries = o.max_retries >= 0 ? o.max_retries : impl.options.max_retries;
  const Query query = impl.QueryOf(o);
  for (int attempt = 0;; ++attempt) {
    if (cancel && cancel->cancelled()) return json::object();
    impl.Pace();
    Result<std::string> auth = impl.Authorize();
    if (!auth.ok()) return TransportError("CredentialError", auth.status().message());
    std::unique_ptr<httplib::ClientImpl> conn = impl.NewConnection(idle_limit);
    httplib::ClientImpl* raw = conn.get();
    if (cancel) cancel->Attach([raw] { raw->stop(); });
    struct DetachOnExit {
      WatchCancel* c;
      ~DetachOnExit() {
        if (c) c->Detach();
      }
    } detach{cancel};
    if (cancel && cancel->cancelled()) return json::object();

    int status = 0;
    std::string error_body, pending;
    std::optional<kube::ApiError> stream_error;
    bool handler_stopped = false;
    httplib::Request req = impl.BuildRequest("GET", path, query, "", "", *auth);
    req.response_handler = [&](const httplib::Response& r) {
      status = r.status;
      return !(cancel && cancel->cancelled());
    };
    req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
      if (cancel && cancel->cancelled()) return false;
      if (status != 200) {
        if (error_body.size() < (1u << 20)) error_body.append(data, n);
        return true;
      }
      pending.append(data, n);
      size_t start = 0;
      for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
        std::string_view line(pending.data() + start, nl - start);
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (j.is_discarded() || !j.is_object() || !j.contains("type") || !j["type"].is_string()) {
          stream_error = TransportError("InvalidResponse",
                                        fmt::format("watch {}: an event that is not JSON", path));
          return false;
        }
        WatchEvent e{j["type"].get<std::string>(), std::move(j["object"])};
        if (e.type == "ERROR") {
          const int code = e.object.is_object() && e.object.contains("code") &&
                                   e.object["code"].is_number_integer()
                               ? e.object["code"].get<int>()
                               : 500;
          stream_error = kube::DecodeApiError(code, e.object.dump());
          return false;
        }
        if (!on_event(std::move(e))) {
          handler_stopped = true;
          return false;
        }
      }
      pending.erase(0, start);
      return true;
    };
    ++impl.requests;
    httplib::Result res = conn->send(req);
    if (stream_error) return *stream_error;
    if (handler_stopped || (cancel && cancel->cancelled())) return json::object();
    if (!res) {
      const httplib::Error err = res.error();
      // A stream that was open and then broke is the caller's to resume (from its last
      // resourceVersion); only a failure to open is retried here.
      if (status == 0 && attempt < max_retries &&
          TransportReason(err) != std::string_view("TLSError")) {
        ++impl.retries;
        impl.clock->SleepFor(impl.Backoff(attempt, 0));
        continue;
      }
      return TransportError(
          std::string(TransportReason(err)),
          fmt::format("watch {}{}: {}", impl.config.server, path, httplib::to_string(err)));
    }
    if (res->status == 200) return json::object();  // The server ended the stream.
    if (res->status == 401 && impl.exec && attempt == 0) {
      impl.exec->Invalidate();
      continue;
    }
    kube::ApiError error = kube::DecodeApiError(res->status, error_body);
    const int retry_after = std::max(RetryAfterHeader(*res), error.retry_after_seconds);
    if (attempt < max_retries && IsRetriableStatus(res->status, true, retry_after > 0)) {
      ++impl.retries;
      impl.clock->SleepFor(impl.Backoff(attempt, retry_after));
      continue;
    }
    return error;
  }
}

}  // namespace steward::live
