#include "http/server.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <httplib.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <openssl/crypto.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>

namespace steward::http {
namespace {

bool IsWrite(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

// The media type without parameters, lower-cased.
std::string MediaType(std::string_view content_type) {
  std::string t(content_type.substr(0, content_type.find(';')));
  while (!t.empty() && t.back() == ' ') t.pop_back();
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return t;
}

// Types a cross-origin <form> or a no-preflight fetch() may send.
bool IsSimpleContentType(std::string_view content_type) {
  const std::string t = MediaType(content_type);
  return t.empty() || t == "application/x-www-form-urlencoded" || t == "multipart/form-data" ||
         t == "text/plain";
}

// "host:port" -> "host" (IPv6 literals keep their brackets off).
std::string HostPart(std::string_view authority) {
  if (!authority.empty() && authority.front() == '[') {
    const size_t end = authority.find(']');
    return std::string(authority.substr(1, end == std::string_view::npos ? end : end - 1));
  }
  return std::string(authority.substr(
      0, authority.rfind(':') == std::string_view::npos ? authority.size() : authority.rfind(':')));
}

bool TokenMatches(std::string_view header, const std::string& token) {
  constexpr std::string_view kBearer = "Bearer ";
  if (header.size() != kBearer.size() + token.size()) return false;
  if (strncasecmp(header.data(), kBearer.data(), kBearer.size()) != 0) return false;
  return CRYPTO_memcmp(header.data() + kBearer.size(), token.data(), token.size()) == 0;
}

// Why binding host:port fails, asked of the OS directly (httplib only says that it failed).
std::string BindError(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* result = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &result); rc != 0)
    return gai_strerror(rc);
  std::string why = "unknown error";
  for (addrinfo* a = result; a; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    const bool bound = bind(fd, a->ai_addr, a->ai_addrlen) == 0;
    why = bound ? "the address could be bound on a retry" : std::strerror(errno);
    close(fd);
    if (!bound) break;
  }
  freeaddrinfo(result);
  return why;
}

bool Readable(const std::string& path) { return std::ifstream(path).good(); }

}  // namespace

bool IsLoopbackHost(std::string_view host) {
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  in_addr a{};
  const std::string h(host);
  return inet_pton(AF_INET, h.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

std::string GenerateToken() {
  std::random_device rd;  // /dev/urandom on Linux.
  std::string t;
  for (int i = 0; i < 4; ++i) t += fmt::format("{:08x}", rd());
  return t;
}

Server::Server(ServerOptions options, Handler handler)
    : options_(std::move(options)), handler_(std::move(handler)) {}

Server::~Server() { Stop(); }

Reply Server::Refuse(int status, std::string_view message) const {
  if (options_.refusal) return options_.refusal(status, message);
  nlohmann::json body = {{"error", {{"code", status}, {"message", message}}}};
  return Reply::Json(status, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

Reply Server::Dispatch(const Request& r) const {
  if (std::optional<Reply> refusal = Screen(r)) return *std::move(refusal);
  return handler_(r);
}

std::optional<Reply> Server::Screen(const Request& r) const {
  const AccessOptions& a = options_.access;
  const bool write = IsWrite(r.method);
  if (a.browser_checks && IsLoopbackHost(options_.host)) {
    const std::string host = HostPart(r.Header("Host"));
    if (!host.empty() && !IsLoopbackHost(host) && host != options_.host)
      return Refuse(403, fmt::format("Host '{}' is not this server's (a page may be rebinding "
                                     "a DNS name to loopback)",
                                     host));
  }
  if (write && a.read_only) return Refuse(403, "this server is read-only (--read-only)");
  const bool is_public =
      std::find(a.public_paths.begin(), a.public_paths.end(), r.path) != a.public_paths.end();
  const bool needs_token = !is_public && (a.require == AccessOptions::Require::kEverything ||
                                          (a.require == AccessOptions::Require::kWrites && write));
  if (needs_token && (a.token.empty() || !TokenMatches(r.Header("Authorization"), a.token)))
    return Refuse(401, "Unauthorized: a bearer token is required (Authorization: Bearer ...)")
        .WithHeader("WWW-Authenticate", "Bearer");
  if (write && a.browser_checks) {
    const std::string_view origin = r.Header("Origin");
    if (!origin.empty()) {
      const size_t scheme = origin.find("://");
      const std::string_view authority =
          scheme == std::string_view::npos ? std::string_view() : origin.substr(scheme + 3);
      if (authority.empty() || authority != r.Header("Host"))
        return Refuse(403,
                      fmt::format("Origin '{}' may not write here (cross-origin request)", origin));
    }
    // Browsers send Origin with every POST; a page's form (no preflight) can only carry a
    // simple content type, so that combination is refused. Tools without Origin (curl) pass.
    if (!origin.empty() && IsSimpleContentType(r.Header("Content-Type")))
      return Refuse(415, "writes from a browser need Content-Type: application/json");
  }
  return std::nullopt;
}

Result<int> Server::Start() {
  if (server_) return Status::FailedPrecondition("server already started");
  if (tls()) {
    if (options_.tls_key_file.empty()) return Status::InvalidArgument("--tls-cert needs --tls-key");
    for (const std::string& f : {options_.tls_cert_file, options_.tls_key_file})
      if (!Readable(f)) return Status::InvalidArgument(fmt::format("cannot read TLS file {}", f));
    auto ssl = std::make_unique<httplib::SSLServer>(options_.tls_cert_file.c_str(),
                                                    options_.tls_key_file.c_str());
    if (!ssl->is_valid())
      return Status::InvalidArgument(fmt::format(
          "TLS certificate {} and key {} do not load (PEM files of one key pair expected)",
          options_.tls_cert_file, options_.tls_key_file));
    server_ = std::move(ssl);
  } else if (!options_.tls_key_file.empty()) {
    return Status::InvalidArgument("--tls-key needs --tls-cert");
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  httplib::Server& s = *server_;
  const int threads = std::max(2, options_.threads);
  s.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  s.set_tcp_nodelay(true);
  s.set_read_timeout(std::chrono::duration_cast<std::chrono::microseconds>(options_.read_timeout));
  s.set_write_timeout(
      std::chrono::duration_cast<std::chrono::microseconds>(options_.write_timeout));
  s.set_keep_alive_timeout(5);
  // httplib closes a kept-alive connection after 5 requests; each reconnect costs a TCP
  // handshake and sends the connection to the back of the worker queue (bench/http_load.cc).
  s.set_keep_alive_max_count(100);
  s.set_payload_max_length(options_.max_body_bytes);
  // httplib's default socket options add SO_REUSEPORT, which would let a second server bind
  // the same port and split the clients between them; SO_REUSEADDR alone allows a quick
  // restart. The listening socket is remembered to raise httplib's backlog of 5.
  s.set_socket_options([this](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    listen_fd_ = sock;
  });

  auto to_request = [](const httplib::Request& req) {
    Request r;
    r.method = req.method;
    r.path = req.path;
    for (const auto& [k, v] : req.params) r.params.emplace(k, v);
    for (const auto& [k, v] : req.headers) r.headers.emplace(k, v);
    r.remote_address = req.remote_addr;
    return r;
  };
  auto send = [](Reply reply, httplib::Response& res) {
    res.status = reply.status;
    for (const auto& [k, v] : reply.headers) res.set_header(k, v);
    if (reply.stream) {
      auto stream = std::move(reply.stream);
      res.set_chunked_content_provider(
          reply.content_type, [stream](size_t, httplib::DataSink& sink) {
            stream([&sink](std::string_view piece) {
              return sink.is_writable() && sink.write(piece.data(), piece.size());
            });
            sink.done();
            return true;
          });
    } else if (reply.shared_body && !reply.shared_body->empty()) {
      // Written straight from the shared page (httplib would copy a body, and compress it
      // again for every client that accepts gzip).
      auto body = std::move(reply.shared_body);
      const size_t size = body->size();
      res.set_content_provider(
          size, reply.content_type, [body](size_t offset, size_t length, httplib::DataSink& sink) {
            return sink.write(body->data() + offset, std::min(length, body->size() - offset));
          });
    } else {
      res.set_content(reply.body, reply.content_type);
    }
  };
  auto without_body = [this, to_request, send](const httplib::Request& req,
                                               httplib::Response& res) {
    send(Dispatch(to_request(req)), res);
  };
  // Bodies are read through a content reader so the limit holds for chunked bodies too
  // (httplib checks it only against Content-Length). The access rules only need the headers:
  // a refused request is refused whatever its body (a form's multipart body, which httplib
  // cannot hand over raw, included); its body is then read and dropped, up to the limit, so
  // the connection stays in step.
  auto with_body = [this, to_request, send](const httplib::Request& req, httplib::Response& res,
                                            const httplib::ContentReader& reader) {
    Request r = to_request(req);
    const size_t limit = options_.max_body_bytes;
    if (std::optional<Reply> refusal = Screen(r)) {
      size_t dropped = 0;
      reader([&](const char*, size_t n) { return (dropped += n) <= limit; });
      return send(*std::move(refusal), res);
    }
    // Past the limit the rest is read and dropped (up to kDrainBytes more), not left unread:
    // closing on unread bytes resets the connection, and the client may lose the 413.
    constexpr size_t kDrainBytes = size_t{1} << 20;
    bool too_large = false;
    size_t dropped = 0;
    const bool read = reader([&](const char* data, size_t n) {
      if (too_large || r.body.size() + n > limit) {
        too_large = true;
        return (dropped += n) <= kDrainBytes;
      }
      r.body.append(data, n);
      return true;
    });
    // httplib refuses a Content-Length past the limit itself (status 413, body skipped).
    if (too_large || (!read && res.status == 413))
      return send(Refuse(413, fmt::format("request body larger than {} bytes", limit)), res);
    if (!read) return send(Refuse(400, "request body could not be read"), res);
    send(Dispatch(r), res);
  };
  s.Get(".*", without_body);
  s.Options(".*", without_body);
  s.Post(".*", with_body);
  s.Put(".*", with_body);
  s.Patch(".*", with_body);
  s.Delete(".*", with_body);
  // httplib's own refusals (bad request line, body too large, ...) get a JSON body too.
  s.set_error_handler([this, send](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty() || res.is_chunked_content_provider_) return;
    const int status = res.status;
    send(Refuse(status,
                fmt::format("{} {}: request refused (HTTP {})", req.method, req.path, status)),
         res);
  });
  s.set_exception_handler(
      [this, send](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "internal error";
        try {
          if (ep) std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        send(Refuse(500, what), res);
      });

  int bound = options_.port;
  if (options_.port == 0) {
    bound = s.bind_to_any_port(options_.host);
  } else if (!s.bind_to_port(options_.host, options_.port)) {
    bound = -1;
  }
  if (bound <= 0) {
    server_.reset();
    return Status::IoError(fmt::format("cannot listen on {}:{}: {}", options_.host, options_.port,
                                       BindError(options_.host, options_.port)));
  }
  if (listen_fd_ >= 0) ::listen(listen_fd_, options_.backlog);
  stopping_ = false;
  thread_ = std::thread([this, bound] { AcceptLoop(bound); });
  // httplib's stop() does nothing until the listen loop has started, so a Stop() right after
  // Start() would hang the join: wait for the loop (it starts within microseconds).
  for (int i = 0; i < 2000 && !server_->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return bound;
}

// httplib leaves its accept loop for good on an accept() error other than EMFILE (closing the
// listening socket), which would leave the process alive but deaf. Listen again on the same
// port instead, and say so.
void Server::AcceptLoop(int port) {
  for (;;) {
    server_->listen_after_bind();
    if (stopping_) return;
    const int error = errno;
    fmt::print(stderr, "steward: the accept loop on {}:{} ended ({}); listening again\n",
               options_.host, port, std::strerror(error));
    bool bound = false;
    for (int attempt = 0; attempt < 50 && !bound && !stopping_; ++attempt) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      listen_fd_ = -1;
      bound = server_->bind_to_port(options_.host, port);
    }
    if (stopping_) return;
    if (!bound) {
      fmt::print(stderr, "steward: cannot listen on {}:{} again: {}\n", options_.host, port,
                 BindError(options_.host, port));
      return;
    }
    if (listen_fd_ >= 0) ::listen(listen_fd_, options_.backlog);
  }
}

void Server::Stop() {
  stopping_ = true;
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
  listen_fd_ = -1;
}

}  // namespace steward::http
