// Serves HandleRequest (api.h) over HTTP with http::Server (src/http/server.h): the dashboard,
// the JSON API, /metrics and /metrics/dcgm, while the LiveTwin simulates on its own thread.
// Requests only read published snapshots (or queue a control), so a slow client never holds up
// the simulation. Browser protections are on (a page from another origin cannot drive the
// controls); `access` adds the token and read-only rules (steward serve: a token for writes
// whenever it listens beyond loopback).
#pragma once

#include <memory>
#include <string>

#include "http/server.h"
#include "model/status.h"
#include "server/live_twin.h"

namespace steward::server {

class HttpServer {
 public:
  // `live` must outlive the server.
  explicit HttpServer(LiveTwin* live, http::AccessOptions access = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds `host`:`port` (0 = any free port) and serves in a background thread; returns the
  // bound port.
  Result<int> Start(const std::string& host, int port);
  // Stops accepting, lets in-flight requests finish and joins. Idempotent.
  void Stop();

 private:
  LiveTwin* live_;
  http::AccessOptions access_;
  std::unique_ptr<http::Server> server_;
};

}  // namespace steward::server
