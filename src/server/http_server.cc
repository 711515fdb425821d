#include "server/http_server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <chrono>

#include "server/api.h"

namespace steward::server {
namespace {

// Request bodies are small JSON objects; anything larger is refused (413).
constexpr size_t kMaxBodyBytes = 64 * 1024;

void Send(const HttpReply& reply, httplib::Response& res) {
  res.status = reply.status;
  res.set_content(reply.body, reply.content_type.c_str());
  // The API is live data: never cached. The dashboard is small and served from memory.
  res.set_header("Cache-Control", "no-store");
}

}  // namespace

HttpServer::HttpServer(LiveTwin* live) : live_(live) {}
HttpServer::~HttpServer() { Stop(); }

Result<int> HttpServer::Start(const std::string& host, int port) {
  if (server_) return Status::FailedPrecondition("server already started");
  server_ = std::make_unique<httplib::Server>();
  httplib::Server& s = *server_;
  s.set_read_timeout(5, 0);
  s.set_write_timeout(5, 0);
  s.set_payload_max_length(kMaxBodyBytes);
  // httplib's default also sets SO_REUSEPORT, which would let a second `steward serve` bind
  // the same port and split the clients between two twins. SO_REUSEADDR alone still allows a
  // quick restart.
  s.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  auto handler = [this](const httplib::Request& req, httplib::Response& res) {
    HttpRequest r;
    r.method = req.method;
    r.path = req.path;
    for (const auto& [k, v] : req.params) r.params.emplace(k, v);
    r.body = req.body;
    Send(HandleRequest(*live_, r), res);
  };
  s.Get(".*", handler);
  s.Post(".*", handler);
  s.Put(".*", handler);
  s.Delete(".*", handler);
  s.Patch(".*", handler);
  s.Options(".*", handler);
  // httplib's own refusals (bad request line, body too large, ...) get a JSON body too.
  s.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    Send(ErrorReply(res.status, fmt::format("{} {}: request refused (HTTP {})", req.method,
                                            req.path, res.status)),
         res);
  });
  s.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "internal error";
        try {
          if (ep) std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        Send(ErrorReply(500, what), res);
      });
  int bound = port;
  if (port == 0) {
    bound = s.bind_to_any_port(host.c_str());
  } else if (!s.bind_to_port(host.c_str(), port)) {
    bound = -1;
  }
  if (bound <= 0) {
    server_.reset();
    return Status::IoError(fmt::format("cannot listen on {}:{}", host, port));
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // httplib's stop() does nothing until the listen loop has started, so a Stop() right after
  // Start() would hang the join: wait for the loop (it starts within microseconds).
  for (int i = 0; i < 2000 && !server_->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return bound;
}

void HttpServer::Stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

}  // namespace steward::server
