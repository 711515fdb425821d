// Serves the ledger over HTTP as OpenCost's Allocation API: GET /allocation and
// /allocation/compute with OpenCost's query parameters (allocation_query.h), answering
// OpenCost's JSON envelope, so tools that read OpenCost read Steward. `format=csv` answers the
// CSV export instead. Errors answer 400 with {"code":400,"status":"error","message":...}
// (and, unlike OpenCost's handler, stop there: util-cost-facts.md §1.1 quirks).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "cost/ledger.h"
#include "model/status.h"

namespace httplib {
class Server;
}

namespace steward::cost {

struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

// The /allocation handler without sockets. Relative windows resolve against the ledger's
// latest window end, or `fallback_now` for an empty ledger.
HttpReply HandleAllocationRequest(const Ledger& ledger,
                                  const std::map<std::string, std::string>& params,
                                  int64_t fallback_now);

// Owns an HTTP server thread. Not copyable; Stop() (or the destructor) joins the thread.
class AllocationServer {
 public:
  // `ledger` must outlive the server. `clock` gives Unix seconds (for empty ledgers only).
  AllocationServer(const Ledger* ledger, std::function<int64_t()> clock);
  ~AllocationServer();
  AllocationServer(const AllocationServer&) = delete;
  AllocationServer& operator=(const AllocationServer&) = delete;

  // Binds `host`:`port` (port 0 picks a free port) and starts serving in a background thread.
  // Returns the bound port.
  Result<int> Start(const std::string& host, int port);
  // Stops accepting, finishes in-flight requests and joins the thread. Idempotent.
  void Stop();
  // Blocks until the server thread ends (after Stop from another thread or a signal).
  void Wait();

 private:
  const Ledger* ledger_;
  std::function<int64_t()> clock_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
};

}  // namespace steward::cost
