#include "kube/api_error.h"

#include <fmt/format.h>

namespace steward::kube {
namespace {

std::string GroupResource(std::string_view resource, std::string_view group) {
  return group.empty() ? std::string(resource) : fmt::format("{}.{}", resource, group);
}

ApiError Make(int code, std::string reason, std::string message) {
  ApiError e;
  e.code = code;
  e.reason = std::move(reason);
  e.message = std::move(message);
  return e;
}

}  // namespace

ApiError ApiError::BadRequest(std::string message) {
  return Make(400, "BadRequest", std::move(message));
}
ApiError ApiError::Unauthorized(std::string message) {
  return Make(401, "Unauthorized", std::move(message));
}
ApiError ApiError::Forbidden(std::string message) {
  return Make(403, "Forbidden", std::move(message));
}
ApiError ApiError::NotFound(std::string_view resource, std::string_view group,
                            std::string_view name) {
  ApiError e = Make(404, "NotFound",
                    fmt::format("{} \"{}\" not found", GroupResource(resource, group), name));
  e.name = name;
  e.group = group;
  e.kind = resource;
  return e;
}
ApiError ApiError::AlreadyExists(std::string_view resource, std::string_view group,
                                 std::string_view name) {
  ApiError e = Make(409, "AlreadyExists",
                    fmt::format("{} \"{}\" already exists", GroupResource(resource, group), name));
  e.name = name;
  e.group = group;
  e.kind = resource;
  return e;
}
ApiError ApiError::Conflict(std::string_view resource, std::string_view group,
                            std::string_view name, std::string_view why) {
  ApiError e = Make(409, "Conflict",
                    fmt::format("Operation cannot be fulfilled on {} \"{}\": {}",
                                GroupResource(resource, group), name, why));
  e.name = name;
  e.group = group;
  e.kind = resource;
  return e;
}
ApiError ApiError::MethodNotAllowed(std::string_view method, std::string_view what) {
  return Make(405, "MethodNotAllowed",
              fmt::format("the server does not allow this method on the requested resource "
                          "({} {})",
                          method, what));
}
ApiError ApiError::Gone(std::string message) { return Make(410, "Expired", std::move(message)); }
ApiError ApiError::UnsupportedMediaType(std::string message) {
  return Make(415, "UnsupportedMediaType", std::move(message));
}
ApiError ApiError::Invalid(std::string_view kind, std::string_view group, std::string_view name,
                           std::vector<StatusCause> causes) {
  // As apimachinery's aggregate error prints a field.ErrorList: one error bare, several in [].
  std::string detail;
  for (const StatusCause& c : causes)
    detail += fmt::format("{}{}: {}", detail.empty() ? "" : ", ", c.field, c.message);
  if (causes.size() > 1) detail = "[" + detail + "]";
  ApiError e =
      Make(422, "Invalid",
           fmt::format("{} \"{}\" is invalid: {}", GroupResource(kind, group), name, detail));
  e.name = name;
  e.group = group;
  e.kind = kind;
  e.causes = std::move(causes);
  return e;
}
ApiError ApiError::TooManyRequests(std::string message, int retry_after_seconds) {
  ApiError e = Make(429, "TooManyRequests", std::move(message));
  e.retry_after_seconds = retry_after_seconds;
  return e;
}
ApiError ApiError::Internal(std::string message) {
  return Make(500, "InternalError", std::move(message));
}
ApiError ApiError::Timeout(std::string message) { return Make(504, "Timeout", std::move(message)); }

ApiError ApiError::FromStatus(const Status& s) {
  switch (s.code()) {
    case Status::Code::kInvalidArgument:
      return BadRequest(s.message());
    case Status::Code::kNotFound:
      return Make(404, "NotFound", s.message());
    case Status::Code::kFailedPrecondition:
      return Make(409, "Conflict", s.message());
    default:
      return Internal(s.message());
  }
}

nlohmann::json ToJson(const ApiError& e) {
  nlohmann::json j = {
      {"kind", "Status"},    {"apiVersion", "v1"},   {"metadata", nlohmann::json::object()},
      {"status", "Failure"}, {"message", e.message}, {"reason", e.reason},
      {"code", e.code}};
  nlohmann::json details = nlohmann::json::object();
  if (!e.name.empty()) details["name"] = e.name;
  if (!e.group.empty()) details["group"] = e.group;
  if (!e.kind.empty()) details["kind"] = e.kind;
  if (!e.causes.empty()) {
    nlohmann::json& causes = details["causes"] = nlohmann::json::array();
    for (const StatusCause& c : e.causes) {
      nlohmann::json cause = {{"message", c.message}};
      if (!c.type.empty()) cause["reason"] = c.type;
      if (!c.field.empty()) cause["field"] = c.field;
      causes.push_back(cause);
    }
  }
  if (e.retry_after_seconds > 0) details["retryAfterSeconds"] = e.retry_after_seconds;
  if (!details.empty()) j["details"] = details;
  return j;
}

namespace {

// The reason client-go gives an answer that carries no Status (NewGenericServerResponse).
std::string ReasonForCode(int code) {
  switch (code) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 406:
      return "NotAcceptable";
    case 409:
      return "Conflict";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return code >= 500 ? "InternalError" : "Unknown";
  }
}

}  // namespace

ApiError DecodeApiError(int http_status, std::string_view body) {
  ApiError e;
  e.code = http_status;
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_object() || j.value("kind", "") != "Status") {
    e.reason = ReasonForCode(http_status);
    e.message = std::string(body.substr(0, 512));
    return e;
  }
  auto str = [&](const nlohmann::json& o, const char* k) {
    auto it = o.find(k);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  e.message = str(j, "message");
  if (auto it = j.find("code");
      it != j.end() && it->is_number_integer() && *it >= 100 && *it <= 599)
    e.code = *it;
  e.reason = str(j, "reason");
  if (e.reason.empty()) e.reason = ReasonForCode(e.code);
  if (auto it = j.find("details"); it != j.end() && it->is_object()) {
    const nlohmann::json& d = *it;
    e.name = str(d, "name");
    e.group = str(d, "group");
    e.kind = str(d, "kind");
    if (auto r = d.find("retryAfterSeconds");
        r != d.end() && r->is_number_integer() && *r >= 0 && *r <= 86400 * 365)
      e.retry_after_seconds = *r;
    if (auto c = d.find("causes"); c != d.end() && c->is_array())
      for (const nlohmann::json& cause : *c)
        if (cause.is_object())
          e.causes.push_back({str(cause, "reason"), str(cause, "message"), str(cause, "field")});
  }
  return e;
}

}  // namespace steward::kube
