#include "model/status.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

namespace steward {

std::string Status::ToString() const {
  if (ok()) return "OK";
  const char* name = "error";
  switch (code_) {
    case Code::kOk:
      name = "OK";
      break;
    case Code::kInvalidArgument:
      name = "invalid argument";
      break;
    case Code::kNotFound:
      name = "not found";
      break;
    case Code::kFailedPrecondition:
      name = "failed precondition";
      break;
    case Code::kIoError:
      name = "I/O error";
      break;
    case Code::kCorrupt:
      name = "corrupt data";
      break;
    case Code::kInternal:
      name = "internal error";
      break;
    case Code::kUnavailable:
      name = "unavailable";
      break;
    case Code::kAborted:
      name = "conflict";
      break;
  }
  return fmt::format("{}: {}", name, message_);
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  return Status(code_, fmt::format("{}: {}", context, message_));
}

Status MakeInputError(std::string_view file, int line, int column, std::string_view field,
                      std::string_view what) {
  std::string where(file);
  if (line > 0) where += fmt::format(":{}", line);
  if (line > 0 && column > 0) where += fmt::format(":{}", column);
  if (field.empty()) return Status::InvalidArgument(fmt::format("{}: {}", where, what));
  return Status::InvalidArgument(fmt::format("{}: {}: {}", where, field, what));
}

namespace internal {
void CheckFailed(const char* cond, const char* file, int line) {
  std::fprintf(stderr, "steward: check failed: %s at %s:%d\n", cond, file, line);
  std::abort();
}
}  // namespace internal

}  // namespace steward
