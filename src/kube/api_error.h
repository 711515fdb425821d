// Errors as the Kubernetes API answers them: an HTTP code plus a meta/v1 Status object whose
// `reason` clients branch on (NotFound, AlreadyExists, Conflict, Invalid, TooManyRequests,
// Expired, ...), with details (the object, causes, retryAfterSeconds).
//
//   return ApiError::NotFound("pods", "team-a", "train-0");   // 404, reason NotFound
//   nlohmann::json status = ToJson(error);                    // the body
//   ApiError e = DecodeApiError(http_status, body);           // client side
//
// Plain values: thread-compatible.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"

namespace steward::kube {

struct StatusCause {
  std::string type;  // e.g. FieldValueInvalid, DisruptionBudget.
  std::string message;
  std::string field;
};

struct ApiError {
  int code = 500;
  std::string reason;  // StatusReason: NotFound, Conflict, Invalid, ...
  std::string message;
  // details
  std::string name, group, kind;
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;  // Also sent as the Retry-After header when > 0.

  static ApiError BadRequest(std::string message);
  static ApiError Unauthorized(std::string message);
  static ApiError Forbidden(std::string message);
  // `resource` is the plural (pods); `group` "" for core.
  static ApiError NotFound(std::string_view resource, std::string_view group,
                           std::string_view name);
  static ApiError AlreadyExists(std::string_view resource, std::string_view group,
                                std::string_view name);
  static ApiError Conflict(std::string_view resource, std::string_view group, std::string_view name,
                           std::string_view why);
  static ApiError MethodNotAllowed(std::string_view method, std::string_view what);
  static ApiError Gone(std::string message);  // 410, reason Expired.
  static ApiError UnsupportedMediaType(std::string message);
  static ApiError Invalid(std::string_view kind, std::string_view group, std::string_view name,
                          std::vector<StatusCause> causes);
  static ApiError TooManyRequests(std::string message, int retry_after_seconds);
  static ApiError Internal(std::string message);
  static ApiError Timeout(std::string message);  // 504.
  // From a Status: InvalidArgument 400, NotFound 404, FailedPrecondition 409, the rest 500.
  static ApiError FromStatus(const Status& status);
};

nlohmann::json ToJson(const ApiError& error);
// The error a client got: `body` a Status object (or anything else: its text is the message).
// A missing reason is the one client-go derives from the HTTP code (404 NotFound, 409 Conflict,
// 5xx InternalError, ...), so callers can branch on `reason` whatever answered.
ApiError DecodeApiError(int http_status, std::string_view body);

}  // namespace steward::kube
