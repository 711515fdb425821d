// The HTTP API of `steward serve`, without sockets: a request (method, path, query parameters,
// body) in, a reply (status, content type, body) out. GETs read the latest published
// Snapshot; POSTs become LiveTwin controls. Every error is a 4xx/5xx with a JSON body
// {"error": {"code": N, "message": "..."}}. docs/api.md documents each endpoint.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "http/message.h"
#include "server/live_twin.h"

namespace steward::server {

using HttpRequest = http::Request;
using HttpReply = http::Reply;

// Answers /api/*, /metrics, /healthz and the dashboard's files (/, /app.js, ...).
HttpReply HandleRequest(LiveTwin& live, const HttpRequest& request);

// The bodies of GET /api/overview and GET /api/incidents (also printed by
// `steward health overview --json`).
nlohmann::json OverviewJson(const Snapshot& snapshot);
nlohmann::json IncidentsJson(const Snapshot& snapshot);

// The JSON error body every failed request gets.
HttpReply ErrorReply(int status, const std::string& message);

}  // namespace steward::server
