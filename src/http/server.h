// http::Server carries a Handler (message.h) over HTTP or HTTPS with cpp-httplib, hardened the
// way a service that sits on a production box must be:
//   - a listen backlog of ServerOptions::backlog (httplib's own is 5) and TCP_NODELAY;
//   - a worker pool sized for long requests (watches) next to short ones;
//   - read/write timeouts, and a body limit enforced on the bytes actually read (chunked too);
//   - access rules (AccessOptions): a bearer token for writes or for everything, a read-only
//     mode, and browser protections (Host and Origin checks, no "simple" content types for
//     writes) so a web page from another origin cannot drive a control;
//   - a listen failure that says why (e.g. "address already in use").
//
//   http::ServerOptions o;  o.port = 0;
//   http::Server server(o, [](const http::Request& r) { return http::Reply::Json(200, "{}"); });
//   Result<int> port = server.Start();   // serves on a background thread
//   ...
//   server.Stop();
//
// Thread-safety: the handler is called concurrently from the worker threads. Start/Stop from
// one thread.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "http/message.h"
#include "model/status.h"

namespace httplib {
class Server;
}

namespace steward::http {

struct AccessOptions {
  // Bearer token clients present as `Authorization: Bearer TOKEN`; "" = none configured.
  std::string token;
  enum class Require : uint8_t { kNothing, kWrites, kEverything };
  // Which requests need the token (401 without it). kWrites: POST, PUT, PATCH and DELETE.
  Require require = Require::kNothing;
  // Refuse every write with 403 (a dashboard anyone may look at but nobody may drive).
  bool read_only = false;
  // Browser protections for a dashboard: a write whose Origin header names another host than
  // the request's Host is refused (403), as is a browser write (Origin present) with a content
  // type a form may send without a preflight (415); when the server listens on loopback, a Host
  // header that names neither loopback nor the listen address is refused (DNS rebinding).
  bool browser_checks = false;
  // Paths (exact) that never need the token, e.g. "/healthz" for probes.
  std::vector<std::string> public_paths;
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0 = any free port (Start returns it).
  int backlog = 1024;
  // Worker threads: each request holds one while it runs, a streamed reply (a watch) for as
  // long as it streams.
  int threads = 64;
  std::chrono::milliseconds read_timeout{5000};
  std::chrono::milliseconds write_timeout{5000};
  // Request bodies beyond this many bytes are refused with 413, however they are framed.
  size_t max_body_bytes = 1 << 20;
  // HTTPS when both are set (PEM files).
  std::string tls_cert_file, tls_key_file;
  AccessOptions access;
  // The reply for a request the server refuses itself (401, 403, 413, 415, httplib's 400s).
  // Unset: {"error": {"code": N, "message": "..."}}, the dashboard API's error body.
  std::function<Reply(int status, std::string_view message)> refusal;
};

// True for "localhost", 127.0.0.0/8 and ::1.
bool IsLoopbackHost(std::string_view host);
// A random token of 32 hex characters from the OS's random source.
std::string GenerateToken();

class Server {
 public:
  Server(ServerOptions options, Handler handler);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and serves on a background thread; returns the bound port. IoError says why a bind
  // failed (with the address); InvalidArgument for unreadable TLS files.
  Result<int> Start();
  // Stops accepting, lets in-flight requests finish (streams end at their next write) and
  // joins. Idempotent.
  void Stop();

  const ServerOptions& options() const { return options_; }
  bool tls() const { return !options_.tls_cert_file.empty(); }

 private:
  Reply Dispatch(const Request& request) const;
  // The refusal of a request by the access rules (headers only), or nullopt to serve it.
  std::optional<Reply> Screen(const Request& request) const;
  Reply Refuse(int status, std::string_view message) const;

  const ServerOptions options_;
  const Handler handler_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int listen_fd_ = -1;
};

}  // namespace steward::http
