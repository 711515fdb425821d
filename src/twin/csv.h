// A small CSV reader for traces: header-addressed columns, RFC 4180 quotes, and errors that
// name the file, line and column.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"

namespace steward::twin {

class CsvReader {
 public:
  // Opens the file and reads the header line.
  static Result<CsvReader> Open(const std::filesystem::path& path);

  // Reads the next record; false at end of file. A malformed record sets status().
  bool Next();
  const Status& status() const { return status_; }
  int line() const { return line_; }
  const std::string& file() const { return file_; }

  // Column index of `name`, or -1.
  int Column(std::string_view name) const;
  bool Has(std::string_view name) const { return Column(name) >= 0; }
  std::string_view Field(int column) const { return fields_[column]; }
  // Typed accessors; on a bad value they set status() (naming line and column) and return 0.
  double Number(int column);
  int64_t Integer(int column);
  Status Error(int column, std::string_view what) const;

 private:
  std::string file_;
  std::string text_;
  size_t pos_ = 0;
  int line_ = 0;
  std::vector<std::string> header_;
  std::vector<std::string> fields_;
  Status status_;
  bool SplitRecord(std::vector<std::string>* out);
};

}  // namespace steward::twin
