// http::Server over real sockets: where it listens, who may call it (bearer tokens, public
// paths, read-only), the browser protections (Origin, DNS-rebinding Host, form content types),
// the body limit however the body is framed, and HTTPS with a certificate made at test time by
// the openssl CLI, including the errors for missing or mismatched files.
#include "http/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace steward::http {
namespace {

using nlohmann::json;

// A server whose handler echoes what it got and counts its calls.
class ServerTest : public ::testing::Test {
 protected:
  void Start(ServerOptions o = {}) {
    o.threads = 4;
    server_ = std::make_unique<Server>(std::move(o), [this](const Request& r) {
      ++calls_;
      return Reply::Json(
          200, json{{"method", r.method}, {"path", r.path}, {"bytes", r.body.size()}}.dump());
    });
    Result<int> port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.status().message();
    port_ = *port;
  }
  httplib::Client Client() {
    httplib::Client c("127.0.0.1", port_);
    c.set_connection_timeout(2);
    c.set_read_timeout(2);
    return c;
  }
  std::string Authority() const { return "127.0.0.1:" + std::to_string(port_); }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  std::unique_ptr<Server> server_;
  int port_ = 0;
  std::atomic<int> calls_{0};
};

TEST(LoopbackTest, RecognisesLoopbackNames) {
  for (const char* h : {"localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"})
    EXPECT_TRUE(IsLoopbackHost(h)) << h;
  for (const char* h : {"", "0.0.0.0", "10.0.0.1", "128.0.0.1", "localhost.evil.example",
                        "evil.example", "::", "126.255.255.255"})
    EXPECT_FALSE(IsLoopbackHost(h)) << h;
}

TEST(TokenTest, TokensAreRandomHex) {
  const std::string a = GenerateToken(), b = GenerateToken();
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(a, b);
}

// A non-loopback IPv4 address of this machine, or "" when it has none.
std::string ExternalAddress() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string found;
  for (ifaddrs* a = list; a && found.empty(); a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof(text));
    if (!IsLoopbackHost(text)) found = text;
  }
  freeifaddrs(list);
  return found;
}

TEST_F(ServerTest, ListensOnLoopbackByDefault) {
  EXPECT_EQ(ServerOptions{}.host, "127.0.0.1");
  Start();
  EXPECT_FALSE(server_->tls());
  auto r = Client().Get("/x");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body)["path"], "/x");
  const std::string external = ExternalAddress();
  if (external.empty()) GTEST_SKIP() << "no non-loopback address to try";
  httplib::Client outside(external, port_);
  outside.set_connection_timeout(1);
  EXPECT_FALSE(outside.Get("/x")) << "reachable on " << external;
}

TEST_F(ServerTest, ABusyPortIsAnErrorThatSaysWhy) {
  Start();
  ServerOptions o;
  o.port = port_;
  Server second(o, [](const Request&) { return Reply::Json(200, "{}"); });
  Result<int> r = second.Start();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(Authority()), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("in use"), std::string::npos) << r.status().message();
  // The first server still answers.
  EXPECT_EQ(Client().Get("/")->status, 200);
}

TEST_F(ServerTest, EverythingNeedsTheTokenWhenAsked) {
  ServerOptions o;
  o.access.token = "s3cret";
  o.access.require = AccessOptions::Require::kEverything;
  Start(o);
  httplib::Client c = Client();
  auto none = c.Get("/api");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(none->get_header_value("WWW-Authenticate"), "Bearer");
  EXPECT_EQ(json::parse(none->body)["error"]["code"], 401);
  for (const char* wrong : {"Bearer s3cre", "Bearer s3cret2", "Bearer S3CRET", "Basic s3cret",
                            "s3cret", "Bearer  s3cret"}) {
    auto r = c.Get("/api", {{"Authorization", wrong}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 401) << wrong;
    EXPECT_EQ(r->get_header_value("WWW-Authenticate"), "Bearer") << wrong;
  }
  EXPECT_EQ(calls_, 0);
  for (const char* right : {"Bearer s3cret", "bearer s3cret"}) {
    auto r = c.Get("/api", {{"Authorization", right}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << right;
  }
  EXPECT_EQ(calls_, 2);
}

TEST_F(ServerTest, WritesOnlyNeedTheTokenWhenAsked) {
  ServerOptions o;
  o.access.token = "s3cret";
  o.access.require = AccessOptions::Require::kWrites;
  Start(o);
  httplib::Client c = Client();
  EXPECT_EQ(c.Get("/api")->status, 200);
  EXPECT_EQ(c.Post("/api", "{}", "application/json")->status, 401);
  EXPECT_EQ(c.Put("/api", "{}", "application/json")->status, 401);
  EXPECT_EQ(c.Patch("/api", "{}", "application/json")->status, 401);
  EXPECT_EQ(c.Delete("/api")->status, 401);
  c.set_bearer_token_auth("s3cret");
  EXPECT_EQ(c.Post("/api", "{}", "application/json")->status, 200);
  EXPECT_EQ(c.Delete("/api")->status, 200);
}

TEST_F(ServerTest, ARequiredTokenThatIsNotConfiguredLetsNobodyIn) {
  ServerOptions o;
  o.access.require = AccessOptions::Require::kEverything;  // token left empty
  Start(o);
  httplib::Client c = Client();
  EXPECT_EQ(c.Get("/api")->status, 401);
  EXPECT_EQ(c.Get("/api", {{"Authorization", "Bearer "}})->status, 401);
  EXPECT_EQ(calls_, 0);
}

TEST_F(ServerTest, PublicPathsNeedNoToken) {
  ServerOptions o;
  o.access.token = "s3cret";
  o.access.require = AccessOptions::Require::kEverything;
  o.access.public_paths = {"/healthz"};
  Start(o);
  httplib::Client c = Client();
  EXPECT_EQ(c.Get("/healthz")->status, 200);
  EXPECT_EQ(c.Get("/healthz?verbose=1")->status, 200);  // The query is not the path.
  EXPECT_EQ(c.Get("/healthz/x")->status, 401);          // Exact paths only.
  EXPECT_EQ(c.Get("/healthzz")->status, 401);
}

TEST_F(ServerTest, ReadOnlyRefusesEveryWrite) {
  ServerOptions o;
  o.access.read_only = true;
  Start(o);
  httplib::Client c = Client();
  EXPECT_EQ(c.Get("/api")->status, 200);
  auto post = c.Post("/api", "{}", "application/json");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 403);
  EXPECT_NE(json::parse(post->body)["error"]["message"].get<std::string>().find("read-only"),
            std::string::npos);
  EXPECT_EQ(c.Put("/api", "{}", "application/json")->status, 403);
  EXPECT_EQ(c.Patch("/api", "{}", "application/json")->status, 403);
  EXPECT_EQ(c.Delete("/api")->status, 403);
  EXPECT_EQ(calls_, 1);
}

// A refused request's body is consumed, so the next request on a kept-alive connection is read
// from its own first byte.
TEST_F(ServerTest, ARefusedBodyDoesNotLeakIntoTheNextRequest) {
  ServerOptions o;
  o.access.read_only = true;
  Start(o);
  httplib::Client c = Client();
  c.set_keep_alive(true);
  for (int i = 0; i < 3; ++i) {
    auto refused = c.Post("/api", "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n", "text/plain");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 403);
    auto next = c.Get("/next");
    ASSERT_TRUE(next);
    EXPECT_EQ(next->status, 200);
    EXPECT_EQ(json::parse(next->body)["path"], "/next");
  }
  EXPECT_EQ(calls_, 3);
}

TEST_F(ServerTest, RefusalsUseTheCallersBodyWhenGiven) {
  ServerOptions o;
  o.access.read_only = true;
  o.refusal = [](int status, std::string_view message) {
    return Reply::Json(status, json{{"kind", "Status"}, {"message", message}}.dump());
  };
  Start(o);
  auto r = Client().Post("/api", "{}", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_EQ(json::parse(r->body)["kind"], "Status");
}

class BrowserChecksTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerOptions o;
    o.access.browser_checks = true;
    Start(o);
  }
  std::string Origin() const { return "http://" + Authority(); }
};

TEST_F(BrowserChecksTest, AWriteFromAnotherOriginIsRefused) {
  httplib::Client c = Client();
  for (const char* origin : {"http://evil.example", "http://127.0.0.1:1", "null", "file://"}) {
    auto r = c.Post("/api", {{"Origin", origin}}, "{}", "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 403) << origin;
  }
  auto same = c.Post("/api", {{"Origin", Origin()}}, "{}", "application/json");
  ASSERT_TRUE(same);
  EXPECT_EQ(same->status, 200);
  // Reads are not writes: a page may GET (the answer is the browser's to hide).
  EXPECT_EQ(c.Get("/api", {{"Origin", "http://evil.example"}})->status, 200);
}

TEST_F(BrowserChecksTest, ABrowserWriteWithAFormContentTypeIs415) {
  httplib::Client c = Client();
  for (const char* type : {"application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                           "text/plain;charset=UTF-8", "TEXT/PLAIN"}) {
    auto r = c.Post("/api", {{"Origin", Origin()}}, "a=1", type);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 415) << type;
  }
  EXPECT_EQ(calls_, 0);
}

TEST_F(BrowserChecksTest, ACurlLikeWriteWithoutOriginPasses) {
  httplib::Client c = Client();
  auto form = c.Post("/api", "a=1", "application/x-www-form-urlencoded");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 200);
  auto json_write = c.Patch("/api", "{}", "application/merge-patch+json");
  ASSERT_TRUE(json_write);
  EXPECT_EQ(json_write->status, 200);
}

TEST_F(BrowserChecksTest, AHostThatIsNotLoopbackIsRefused) {
  httplib::Client c = Client();
  // A page on evil.example whose DNS name now points at 127.0.0.1 sends its own Host.
  auto rebound = c.Get("/api", {{"Host", "evil.example:" + std::to_string(port_)}});
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 403);
  EXPECT_EQ(c.Get("/api", {{"Host", "evil.example"}})->status, 403);
  for (const std::string& host : {Authority(), "localhost:" + std::to_string(port_),
                                  std::string("127.0.0.1"), "[::1]:" + std::to_string(port_)}) {
    auto r = c.Get("/api", {{"Host", host}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << host;
  }
}

TEST_F(ServerTest, WithoutBrowserChecksHostAndOriginAreNotLookedAt) {
  Start();
  httplib::Client c = Client();
  EXPECT_EQ(c.Get("/api", {{"Host", "evil.example"}})->status, 200);
  EXPECT_EQ(c.Post("/api", {{"Origin", "http://evil.example"}}, "a=1", "text/plain")->status, 200);
}

// Slow clients: a request that stops half-way is dropped after the read timeout, so a handful of
// them cannot hold every worker (issue 16: 8 slow clients blocked the server entirely).
TEST_F(ServerTest, StalledPartialRequestsAreDroppedAndOthersServed) {
  ServerOptions o;
  o.read_timeout = std::chrono::milliseconds(200);
  Start(o);  // 4 worker threads, 8 stalled clients.
  std::vector<int> stalled;
  for (int i = 0; i < 8; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port_));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    const std::string partial = "GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n";  // No blank line.
    ASSERT_EQ(send(fd, partial.data(), partial.size(), 0), static_cast<ssize_t>(partial.size()));
    stalled.push_back(fd);
  }
  httplib::Client c = Client();
  c.set_read_timeout(60);
  auto r = c.Get("/after");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  for (int fd : stalled) {
    timeval tv{60, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char buf[512];
    ssize_t n = 0;
    while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
    }  // An error reply or nothing, then the server closes it.
    EXPECT_EQ(n, 0) << "a stalled connection was not closed";
    close(fd);
  }
  EXPECT_EQ(calls_, 1);  // Only the complete request reached the handler.
}

// A shared body (a page rendered once for many clients) goes out whole, with its length, to
// every client at once, and HEAD gets the length without the bytes.
TEST(SharedBodyTest, ASharedPageIsSentWholeToConcurrentClients) {
  std::string text;
  for (int i = 0; text.size() < (3u << 20); ++i) text += "line " + std::to_string(i) + "\n";
  auto page = std::make_shared<const std::string>(text);
  ServerOptions o;
  Server server(o, [page](const Request&) {
    Reply r;
    r.content_type = "text/plain";
    r.shared_body = page;
    return r;
  });
  Result<int> port = server.Start();
  ASSERT_TRUE(port.ok()) << port.status().message();
  std::vector<std::thread> clients;
  std::atomic<int> whole{0};
  for (int i = 0; i < 8; ++i)
    clients.emplace_back([&] {
      httplib::Client c("127.0.0.1", *port);
      auto r = c.Get("/page");
      if (r && r->status == 200 && r->body == *page &&
          r->get_header_value("Content-Length") == std::to_string(page->size()))
        ++whole;
    });
  for (auto& t : clients) t.join();
  EXPECT_EQ(whole, 8);
  httplib::Client c("127.0.0.1", *port);
  auto head = c.Head("/page");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->get_header_value("Content-Length"), std::to_string(page->size()));
  EXPECT_TRUE(head->body.empty());
  server.Stop();
}

class BodyLimitTest : public ServerTest {
 protected:
  static constexpr size_t kLimit = 1024;
  void SetUp() override {
    ServerOptions o;
    o.max_body_bytes = kLimit;
    Start(o);
  }
};

TEST_F(BodyLimitTest, ABodyUpToTheLimitIsServed) {
  auto r = Client().Post("/api", std::string(kLimit, 'x'), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body)["bytes"], kLimit);
}

TEST_F(BodyLimitTest, ALargerBodyWithContentLengthIs413) {
  auto r = Client().Post("/api", std::string(kLimit + 1, 'x'), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413) << r->body;
  EXPECT_EQ(calls_, 0);
}

TEST_F(BodyLimitTest, ALargerChunkedBodyIs413) {
  const std::string piece(256, 'x');
  size_t sent = 0;
  auto r = Client().Post(
      "/api",
      [&](size_t, httplib::DataSink& sink) {
        if (sent >= 8 * piece.size()) {
          sink.done();
          return true;
        }
        sent += piece.size();
        return sink.write(piece.data(), piece.size());
      },
      "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413) << r->body;
  EXPECT_EQ(calls_, 0);
  // A small chunked body is still read whole.
  sent = 0;
  auto small = Client().Post(
      "/api",
      [&](size_t, httplib::DataSink& sink) {
        if (sent >= 2 * piece.size()) {
          sink.done();
          return true;
        }
        sent += piece.size();
        return sink.write(piece.data(), piece.size());
      },
      "application/json");
  ASSERT_TRUE(small);
  EXPECT_EQ(small->status, 200);
  EXPECT_EQ(json::parse(small->body)["bytes"], 2 * piece.size());
}

// Certificates made with the openssl CLI in a fresh directory.
class TlsTest : public ServerTest {
 protected:
  static void SetUpTestSuite() {
    char pattern[] = "/tmp/steward-tls-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    for (const char* name : {"a", "b"}) {
      const std::string cmd =
          "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
          "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout " +
          dir_ + "/" + name + ".key -out " + dir_ + "/" + name + ".crt 2>/dev/null";
      ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
    std::ofstream(dir_ + "/garbage.crt") << "not a certificate\n";
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
  static std::string File(const std::string& name) { return dir_ + "/" + name; }
  static ServerOptions Tls(const std::string& cert, const std::string& key) {
    ServerOptions o;
    o.tls_cert_file = cert.empty() ? "" : File(cert);
    o.tls_key_file = key.empty() ? "" : File(key);
    return o;
  }
  static Status StartError(ServerOptions o) {
    Server s(std::move(o), [](const Request&) { return Reply::Json(200, "{}"); });
    Result<int> r = s.Start();
    return r.ok() ? Status::Ok() : r.status();
  }

  static std::string dir_;
};
std::string TlsTest::dir_;

TEST_F(TlsTest, ServesHttpsThatVerifiesAgainstTheCertificate) {
  Start(Tls("a.crt", "a.key"));
  EXPECT_TRUE(server_->tls());
  httplib::SSLClient trusted("127.0.0.1", port_);
  trusted.set_ca_cert_path(File("a.crt").c_str());
  trusted.enable_server_certificate_verification(true);
  trusted.set_connection_timeout(2);
  auto ok = trusted.Get("/secure");
  ASSERT_TRUE(ok) << httplib::to_string(ok.error());
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(json::parse(ok->body)["path"], "/secure");

  // Verified against another certificate: the handshake fails, nothing is served.
  httplib::SSLClient other("127.0.0.1", port_);
  other.set_ca_cert_path(File("b.crt").c_str());
  other.enable_server_certificate_verification(true);
  other.set_connection_timeout(2);
  auto refused = other.Get("/secure");
  EXPECT_FALSE(refused);
  EXPECT_EQ(refused.error(), httplib::Error::SSLServerVerification);
  // Plain HTTP to the TLS port gets no HTTP answer.
  httplib::Client plain("127.0.0.1", port_);
  plain.set_connection_timeout(2);
  plain.set_read_timeout(2);
  auto p = plain.Get("/secure");
  EXPECT_TRUE(!p || p->status == 400) << (p ? p->body : "");
  EXPECT_EQ(calls_, 1);
}

TEST_F(TlsTest, MissingOrMismatchedFilesAreClearErrors) {
  Status missing = StartError(Tls("nope.crt", "a.key"));
  EXPECT_EQ(missing.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(missing.message().find("cannot read TLS file " + File("nope.crt")), std::string::npos)
      << missing.message();
  Status missing_key = StartError(Tls("a.crt", "nope.key"));
  EXPECT_NE(missing_key.message().find(File("nope.key")), std::string::npos);
  EXPECT_NE(StartError(Tls("a.crt", "")).message().find("--tls-cert needs --tls-key"),
            std::string::npos);
  EXPECT_NE(StartError(Tls("", "a.key")).message().find("--tls-key needs --tls-cert"),
            std::string::npos);
  Status mismatched = StartError(Tls("a.crt", "b.key"));
  EXPECT_EQ(mismatched.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(mismatched.message().find("do not load"), std::string::npos) << mismatched.message();
  EXPECT_NE(mismatched.message().find(File("a.crt")), std::string::npos);
  EXPECT_NE(StartError(Tls("garbage.crt", "a.key")).message().find("do not load"),
            std::string::npos);
}

}  // namespace
}  // namespace steward::http
