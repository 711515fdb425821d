#include "server/http_server.h"

#include "server/api.h"

namespace steward::server {

HttpServer::HttpServer(LiveTwin* live, http::AccessOptions access)
    : live_(live), access_(std::move(access)) {}
HttpServer::~HttpServer() { Stop(); }

Result<int> HttpServer::Start(const std::string& host, int port) {
  if (server_) return Status::FailedPrecondition("server already started");
  http::ServerOptions o;
  o.host = host;
  o.port = port;
  // Request bodies are small JSON objects (controls); anything larger is refused (413).
  o.max_body_bytes = 64 * 1024;
  // A worker serves one connection at a time for as long as it is kept alive: enough of them
  // that 128 busy clients (a dashboard's browsers, scrapers, scripts) never queue behind each
  // other's idle keep-alive (bench/http_load.cc: a 5 s stall with 64).
  o.threads = 256;
  o.access = access_;
  o.access.browser_checks = true;
  o.access.public_paths = {"/healthz"};
  server_ = std::make_unique<http::Server>(o, [this](const http::Request& r) {
    http::Reply reply = HandleRequest(*live_, r);
    // The API is live data: never cached. The dashboard is small and served from memory.
    reply.WithHeader("Cache-Control", "no-store");
    return reply;
  });
  Result<int> bound = server_->Start();
  if (!bound.ok()) server_.reset();
  return bound;
}

void HttpServer::Stop() {
  if (server_) server_->Stop();
  server_.reset();
}

}  // namespace steward::server
