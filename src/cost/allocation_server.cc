#include "cost/allocation_server.h"

#include <fmt/format.h>
#include <httplib.h>

#include "cost/allocation_format.h"
#include "cost/allocation_query.h"

namespace steward::cost {

HttpReply HandleAllocationRequest(const Ledger& ledger,
                                  const std::map<std::string, std::string>& params,
                                  int64_t fallback_now) {
  HttpReply reply;
  auto fail = [&](int code, const Status& s) {
    reply.status = code;
    reply.content_type = "application/json";
    reply.body = OpenCostError(code, s.message()).dump();
    return reply;
  };
  auto query = AllocationQueryFromParams(params);
  if (!query.ok()) return fail(400, query.status());
  auto now = LedgerNow(ledger, fallback_now);
  if (!now.ok()) return fail(500, now.status());
  auto result = QueryAllocations(ledger, *query, *now);
  if (!result.ok()) {
    const bool input = result.status().code() == Status::Code::kInvalidArgument;
    return fail(input ? 400 : 500, result.status());
  }
  auto format = params.find("format");
  if (format != params.end() && format->second == "csv") {
    reply.content_type = "text/csv";
    reply.body = AllocationResultToCsv(*result);
  } else if (format != params.end() && !format->second.empty() && format->second != "json") {
    return fail(400, Status::InvalidArgument(
                         fmt::format("format={}: expected json or csv", format->second)));
  } else {
    reply.body = AllocationResultToOpenCostJson(*result).dump();
  }
  return reply;
}

AllocationServer::AllocationServer(const Ledger* ledger, std::function<int64_t()> clock)
    : ledger_(ledger), clock_(std::move(clock)) {}

AllocationServer::~AllocationServer() { Stop(); }

Result<int> AllocationServer::Start(const std::string& host, int port) {
  if (server_) return Status::FailedPrecondition("server already started");
  server_ = std::make_unique<httplib::Server>();
  auto handler = [this](const httplib::Request& req, httplib::Response& res) {
    std::map<std::string, std::string> params;
    for (const auto& [k, v] : req.params) params.emplace(k, v);  // First wins, as Go's Get.
    const HttpReply reply = HandleAllocationRequest(*ledger_, params, clock_());
    res.status = reply.status;
    res.set_content(reply.body, reply.content_type.c_str());
  };
  server_->Get("/allocation", handler);
  server_->Get("/allocation/compute", handler);
  server_->Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  int bound = port;
  if (port == 0) {
    bound = server_->bind_to_any_port(host.c_str());
    if (bound < 0) bound = 0;
  } else if (!server_->bind_to_port(host.c_str(), port)) {
    bound = 0;
  }
  if (bound <= 0) {
    server_.reset();
    return Status::IoError(fmt::format("cannot listen on {}:{}", host, port));
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return bound;
}

void AllocationServer::Stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

void AllocationServer::Wait() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace steward::cost
