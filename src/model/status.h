// Status and Result<T>: how Steward reports failures without exceptions.
//
// A Status is either OK or carries a code and a message. Input errors name the file, line and
// field in the message (see MakeInputError). Result<T> holds a value or the Status saying why
// there is none. Both are [[nodiscard]] so a dropped error warns at compile time.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace steward {

class [[nodiscard]] Status {
 public:
  enum class Code {
    kOk,
    kInvalidArgument,
    kNotFound,
    kFailedPrecondition,
    kIoError,
    kCorrupt,
    kInternal,
    kUnavailable,  // Not now; retry later (HTTP 429 / 503: a disruption budget, a rate cap).
    kAborted,      // A concurrent change won (HTTP 409): re-read, recompute, retry.
  };

  Status() = default;  // OK.
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return {Code::kInvalidArgument, std::move(msg)};
  }
  static Status NotFound(std::string msg) { return {Code::kNotFound, std::move(msg)}; }
  static Status FailedPrecondition(std::string msg) {
    return {Code::kFailedPrecondition, std::move(msg)};
  }
  static Status IoError(std::string msg) { return {Code::kIoError, std::move(msg)}; }
  static Status Corrupt(std::string msg) { return {Code::kCorrupt, std::move(msg)}; }
  static Status Internal(std::string msg) { return {Code::kInternal, std::move(msg)}; }
  static Status Unavailable(std::string msg) { return {Code::kUnavailable, std::move(msg)}; }
  static Status Aborted(std::string msg) { return {Code::kAborted, std::move(msg)}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

  // Returns a copy whose message is prefixed with `context: `.
  Status WithContext(std::string_view context) const;

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// An error about user input at a position: "FILE:LINE:COL: FIELD: WHAT" (line/col omitted
// when unknown, i.e. 0).
Status MakeInputError(std::string_view file, int line, int column, std::string_view field,
                      std::string_view what);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design.
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(v_).ok() && "Result built from an OK status");
  }
  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & {
    assert(ok());
    return std::get<T>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<T>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace steward

#define STEWARD_CONCAT_INNER_(a, b) a##b
#define STEWARD_CONCAT_(a, b) STEWARD_CONCAT_INNER_(a, b)

#define STEWARD_RETURN_IF_ERROR(expr)                  \
  do {                                                 \
    ::steward::Status steward_status_ = (expr);        \
    if (!steward_status_.ok()) return steward_status_; \
  } while (0)

#define STEWARD_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()

#define STEWARD_ASSIGN_OR_RETURN(lhs, expr) \
  STEWARD_ASSIGN_OR_RETURN_IMPL_(STEWARD_CONCAT_(steward_result_, __LINE__), lhs, expr)

// Broken invariants abort: they are bugs, not input errors.
#define STEWARD_CHECK(cond)                                                   \
  do {                                                                        \
    if (!(cond)) ::steward::internal::CheckFailed(#cond, __FILE__, __LINE__); \
  } while (0)

namespace steward::internal {
[[noreturn]] void CheckFailed(const char* cond, const char* file, int line);
}
