// `steward serve` under load (issue 16, docs/api.md "HTTP load"): the built-in 10,240-GPU twin
// running live at serve's defaults (speed 60, a step every 100 ms, dcgm-exporter series every
// 30 simulated s) behind the same server::HttpServer, on loopback. Keep-alive clients, all
// driven by one epoll thread (one request in flight per connection, a new connection when the
// server closes one), send a bounded number of requests to /api/overview at concurrency 32 and
// 128; then the same at 32 connections while SCRAPERS clients scrape /metrics/dcgm in a loop
// (for at least REQUESTS requests and until every scraper has finished a scrape).
// Prints, per row: requests/s, p50, p99 and the longest request (connect time included when a
// request needed a new connection). Asserts nothing about time.
//   build/http_load [REQUESTS] [SCRAPERS] [PORT]    (defaults 50000, 4)
// With PORT, drives a `steward serve` already listening on 127.0.0.1:PORT instead (e.g. another
// build's, for a before/after).
// Targets (issue 16, 2 cores): >= 5,000 requests/s at 128 connections, p99 < 50 ms, none > 1 s.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/twin_setup.h"
#include "server/http_server.h"
#include "server/live_twin.h"
#include "twin/scenario.h"

using namespace steward;

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "http_load: %s\n", message.c_str());
  std::exit(1);
}

struct Stats {
  int64_t requests = 0, errors = 0, reconnects = 0;
  int64_t body_bytes = 0;  // Of every completed response.
  double seconds = 0;
  std::vector<double> latency_ms;
};

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) Die(std::string("socket: ") + std::strerror(errno));
  int yes = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 && errno != EINPROGRESS)
    Die(std::string("connect: ") + std::strerror(errno));
  return fd;
}

// The response being read on a connection: its body is counted and dropped as it arrives
// (Content-Length or chunked), so a 600 MB dcgm page is never held.
struct Response {
  bool headers = false;
  bool chunked = false, close = false;
  int status = 0;
  enum class Chunk : uint8_t { kSize, kData, kDataEnd, kTrailer } chunk = Chunk::kSize;
  int64_t left = 0;  // Body bytes still due (Content-Length), or of the current chunk.
  int64_t body_bytes = 0;
};

// One keep-alive connection with at most one request in flight.
struct Conn {
  int fd = -1;
  std::string out;  // Unsent part of the request.
  std::string in;   // Unparsed response bytes.
  Response response;
  Clock::time_point start;
  bool busy = false;
};

// Parses what has arrived of the response in `c.in` (consuming it): true once it is complete.
bool ResponseDone(Conn& c) {
  Response& r = c.response;
  size_t pos = 0;
  auto finish = [&](bool done) {
    c.in.erase(0, pos);
    return done;
  };
  if (!r.headers) {
    const size_t end = c.in.find("\r\n\r\n");
    if (end == std::string::npos) return false;
    r.status = c.in.size() > 12 ? std::atoi(c.in.c_str() + 9) : 0;
    size_t line = c.in.find("\r\n") + 2;
    while (line < end) {
      const size_t next = c.in.find("\r\n", line);
      const std::string h = c.in.substr(line, next - line);
      if (strncasecmp(h.c_str(), "Content-Length:", 15) == 0) r.left = std::stoll(h.substr(15));
      if (strncasecmp(h.c_str(), "Transfer-Encoding:", 18) == 0 &&
          h.find("chunked") != std::string::npos)
        r.chunked = true;
      if (strncasecmp(h.c_str(), "Connection:", 11) == 0 && h.find("close") != std::string::npos)
        r.close = true;
      line = next + 2;
    }
    r.headers = true;
    pos = end + 4;
  }
  auto take = [&] {
    const int64_t n = std::min<int64_t>(r.left, static_cast<int64_t>(c.in.size() - pos));
    pos += n;
    r.left -= n;
    r.body_bytes += n;
  };
  if (!r.chunked) {
    take();
    return finish(r.left == 0);
  }
  for (;;) {
    switch (r.chunk) {
      case Response::Chunk::kSize: {
        const size_t eol = c.in.find("\r\n", pos);
        if (eol == std::string::npos) return finish(false);
        r.left = std::strtoll(c.in.c_str() + pos, nullptr, 16);
        pos = eol + 2;
        r.chunk = r.left == 0 ? Response::Chunk::kTrailer : Response::Chunk::kData;
        break;
      }
      case Response::Chunk::kData:
        take();
        if (r.left > 0) return finish(false);
        r.chunk = Response::Chunk::kDataEnd;
        break;
      case Response::Chunk::kDataEnd:
      case Response::Chunk::kTrailer:  // No trailers: the CRLF that ends the body.
        if (c.in.size() - pos < 2) return finish(false);
        pos += 2;
        if (r.chunk == Response::Chunk::kTrailer) return finish(true);
        r.chunk = Response::Chunk::kSize;
        break;
    }
  }
}

// `total` GETs of `path` over `connections` keep-alive connections; stops early when `stop`.
// Counts each completed response in `completed` too, when given.
Stats Drive(int port, const std::string& path, int connections, int64_t total,
            const std::atomic<bool>* stop = nullptr, std::atomic<int64_t>* completed = nullptr) {
  const std::string request =
      "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n\r\n";
  const int ep = epoll_create1(0);
  std::vector<Conn> conns(connections);
  Stats st;
  st.latency_ms.reserve(static_cast<size_t>(std::min<int64_t>(total, 1 << 20)));
  int64_t issued = 0;
  auto open = [&](int i) {
    Conn& c = conns[i];
    c.fd = Connect(port);
    epoll_event e{};
    e.events = EPOLLIN | EPOLLOUT;
    e.data.u32 = static_cast<uint32_t>(i);
    epoll_ctl(ep, EPOLL_CTL_ADD, c.fd, &e);
  };
  auto close_conn = [&](int i) {
    epoll_ctl(ep, EPOLL_CTL_DEL, conns[i].fd, nullptr);
    close(conns[i].fd);
    conns[i].fd = -1;
  };
  auto issue = [&](int i) {
    Conn& c = conns[i];
    if (issued >= total || (stop && *stop)) {
      c.busy = false;
      return;
    }
    ++issued;
    c.busy = true;
    c.start = Clock::now();
    c.out = request;
    c.in.clear();
    c.response = {};
  };
  const auto begin = Clock::now();
  for (int i = 0; i < connections; ++i) {
    open(i);
    issue(i);
  }
  std::vector<epoll_event> events(connections);
  char buf[1 << 16];
  int64_t done = 0;
  while (done < issued || (issued < total && !(stop && *stop))) {
    const int n = epoll_wait(ep, events.data(), connections, 1000);
    for (int k = 0; k < n; ++k) {
      const int i = static_cast<int>(events[k].data.u32);
      Conn& c = conns[i];
      if (c.fd < 0) continue;
      if ((events[k].events & EPOLLOUT) && !c.out.empty()) {
        const ssize_t w = send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
        if (w > 0) c.out.erase(0, w);
      }
      if (!(events[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) continue;
      bool eof = false;
      for (;;) {
        const ssize_t r = recv(c.fd, buf, sizeof(buf), 0);
        if (r > 0) {
          c.in.append(buf, r);
          continue;
        }
        if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) eof = true;
        break;
      }
      bool server_closes = false;
      if (c.busy && ResponseDone(c)) {
        st.latency_ms.push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - c.start).count());
        if (c.response.status != 200) ++st.errors;
        st.body_bytes += c.response.body_bytes;
        server_closes = c.response.close;
        ++done;
        if (completed) ++*completed;
        c.busy = false;
      }
      if (eof || server_closes) {
        // The server ended the connection (keep-alive limit or timeout): reconnect; a request
        // still in flight is sent again and keeps its start time.
        const bool resend = c.busy;
        const Clock::time_point start = c.start;
        close_conn(i);
        ++st.reconnects;
        open(i);
        if (resend) {
          c.out = request;
          c.in.clear();
          c.response = {};
          c.start = start;
          continue;
        }
      }
      if (!c.busy) issue(i);
    }
  }
  st.seconds = std::chrono::duration<double>(Clock::now() - begin).count();
  st.requests = done;
  for (int i = 0; i < connections; ++i)
    if (conns[i].fd >= 0) close(conns[i].fd);
  close(ep);
  return st;
}

void PrintRow(const std::string& what, const Stats& s) {
  std::printf(
      "%-44s %8lld %9.0f %8.2f %8.2f %9.2f %6lld %6lld\n", what.c_str(),
      static_cast<long long>(s.requests), s.requests / s.seconds, Percentile(s.latency_ms, 0.50),
      Percentile(s.latency_ms, 0.99),
      s.latency_ms.empty() ? 0 : *std::max_element(s.latency_ms.begin(), s.latency_ms.end()),
      static_cast<long long>(s.errors), static_cast<long long>(s.reconnects));
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t requests = argc > 1 ? std::atoll(argv[1]) : 50000;
  const int scrapers = argc > 2 ? std::atoi(argv[2]) : 4;
  const int external = argc > 3 ? std::atoi(argv[3]) : 0;
  if (requests <= 0 || scrapers < 0 || external < 0)
    Die("usage: http_load [REQUESTS] [SCRAPERS] [PORT]");

  std::unique_ptr<server::LiveTwin> live;
  std::unique_ptr<server::HttpServer> http;
  Result<int> port = external;
  if (external == 0) {
    auto setup = cli::CreateTwin(twin::DefaultScenario(), {}, ":memory:");
    if (!setup.ok()) Die(setup.status().message());
    server::LiveTwinOptions live_options;  // serve's defaults.
    live_options.remediation = setup->remediation;
    live = std::make_unique<server::LiveTwin>(std::move(setup->twin), live_options);
    http = std::make_unique<server::HttpServer>(live.get());
    port = http->Start("127.0.0.1", 0);
    if (!port.ok()) Die(port.status().message());
    live->Start();
  }
  // Let the first dcgm refresh happen and warm up the server.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  Drive(*port, "/api/overview", 8, 2000);

  std::printf("%s; %lld requests per row\n",
              external ? "steward serve on 127.0.0.1 (external)"
                       : "built-in scenario (10,240 GPUs) live at speed 60",
              static_cast<long long>(requests));
  std::printf("%-44s %8s %9s %8s %8s %9s %6s %6s\n", "row", "requests", "req/s", "p50 ms", "p99 ms",
              "max ms", "errors", "reconn");
  for (int c : {32, 128})
    PrintRow("/api/overview, " + std::to_string(c) + " connections",
             Drive(*port, "/api/overview", c, requests));

  if (scrapers > 0) {
    // The overview is driven for at least `requests` requests and until every scraper has
    // finished a scrape, so its latencies cover whole scrapes even where one takes seconds.
    std::atomic<bool> stop_scrapers{false}, stop_overview{false};
    std::atomic<int64_t> scrapes{0}, overview_done{0};
    std::vector<Stats> scraped(scrapers);
    std::vector<std::thread> threads;
    for (int i = 0; i < scrapers; ++i)
      threads.emplace_back([&, i] {
        scraped[i] = Drive(*port, "/metrics/dcgm", 1, int64_t{1} << 40, &stop_scrapers, &scrapes);
      });
    std::thread watcher([&] {
      while (scrapes < scrapers || overview_done < requests)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      stop_overview = true;
    });
    Stats overview =
        Drive(*port, "/api/overview", 32, int64_t{1} << 40, &stop_overview, &overview_done);
    watcher.join();
    stop_scrapers = true;
    for (auto& t : threads) t.join();
    Stats all;
    for (const Stats& s : scraped) {
      all.requests += s.requests;
      all.errors += s.errors;
      all.reconnects += s.reconnects;
      all.body_bytes += s.body_bytes;
      all.seconds = std::max(all.seconds, s.seconds);
      all.latency_ms.insert(all.latency_ms.end(), s.latency_ms.begin(), s.latency_ms.end());
    }
    const int64_t bytes = all.requests > 0 ? all.body_bytes / all.requests : 0;
    PrintRow("/api/overview, 32 conns, with dcgm scrapers", overview);
    PrintRow("/metrics/dcgm, " + std::to_string(scrapers) + " scrapers (" +
                 std::to_string(bytes / 1000000) + " MB each)",
             all);
  }
  if (http) http->Stop();
  if (live) live->Stop();
  return 0;
}
