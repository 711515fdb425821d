// An HTTP request and reply without sockets, so handlers (the dashboard API, the Kubernetes
// API front, the cost API) are plain functions that tests call directly; http::Server
// (server.h) carries them over the network.
//
//   http::Reply Handle(const http::Request& r) {
//     if (r.method != "GET") return http::Reply::Text(405, "GET only").WithHeader("Allow", "GET");
//     return http::Reply::Json(200, R"({"ok":true})");
//   }
//
// A reply either has a body, a `shared_body` (a page rendered once and sent to many clients
// without a copy) or a `stream`: a function the server calls once on its worker thread to
// write the body in pieces (chunked transfer encoding), e.g. a Kubernetes watch.
// Plain values: thread-compatible.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace steward::http {

// Case-insensitive ordering for header names.
struct HeaderNameLess {
  bool operator()(std::string_view a, std::string_view b) const;
  using is_transparent = void;
};

struct Request {
  std::string method = "GET";
  std::string path;  // Decoded, without the query string.
  std::multimap<std::string, std::string> params;
  std::map<std::string, std::string, HeaderNameLess> headers;
  std::string body;
  std::string remote_address;  // "" when not from a socket (tests).

  // The header's value, or "" when absent.
  std::string_view Header(std::string_view name) const;
  // The first value of query parameter `name`, or `fallback`.
  std::string Param(const std::string& name, std::string fallback = {}) const;
  bool HasParam(const std::string& name) const { return params.count(name) > 0; }
};

// Writes one piece of a streamed body; false once the client has gone (stop writing).
using StreamWriter = std::function<bool(std::string_view)>;

struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // When set, the body: shared with other replies (a cached page), sent as is; `body` is unused.
  std::shared_ptr<const std::string> shared_body;
  std::vector<std::pair<std::string, std::string>> headers;
  // When set, the body is streamed: called once, it writes pieces until it returns.
  std::function<void(const StreamWriter&)> stream;

  static Reply Json(int status, std::string body);
  static Reply Text(int status, std::string body);
  Reply& WithHeader(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
    return *this;
  }
  // The value of header `name` set on this reply, or "".
  std::string_view Header(std::string_view name) const;
  // The body, wherever it is held (not a stream's).
  std::string_view Body() const { return shared_body ? *shared_body : body; }
};

using Handler = std::function<Reply(const Request&)>;

}  // namespace steward::http
