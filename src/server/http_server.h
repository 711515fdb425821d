// Serves HandleRequest (api.h) over HTTP with cpp-httplib: a small thread pool answers
// clients while the LiveTwin simulates on its own thread. Requests only read published
// snapshots (or queue a control), and sockets have read/write timeouts, so a slow or stuck
// client costs one pool thread for a few seconds and never the simulation.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "model/status.h"
#include "server/live_twin.h"

namespace httplib {
class Server;
}

namespace steward::server {

class HttpServer {
 public:
  // `live` must outlive the server.
  explicit HttpServer(LiveTwin* live);
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
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
};

}  // namespace steward::server
