// Where the exposition parser's errors go: every error is counted in Scrape::error_count, the
// first `max_kept` are kept in Scrape::errors, so garbage input cannot make the parser allocate
// without bound. Internal to the telemetry module (the public API is telemetry/exposition.h).
//
//   expo::ErrorSink errors(scrape, options.max_kept_errors);
//   errors.At(line, column, "unterminated label set");
//
// Not thread-safe (one per parse); constant time per error plus the message's size.
#pragma once

#include <string>
#include <utility>

#include "telemetry/exposition.h"

namespace steward::telemetry::expo {

class ErrorSink {
 public:
  ErrorSink(Scrape& out, size_t max_kept) : out_(out), max_kept_(max_kept) {}

  // `line` and `column` are 1-based.
  void At(int line, int column, std::string message) {
    ++out_.error_count;
    if (out_.errors.size() < max_kept_) {
      out_.errors.push_back(ParseError{line, column, std::move(message)});
    }
  }

 private:
  Scrape& out_;
  size_t max_kept_;
};

}  // namespace steward::telemetry::expo
