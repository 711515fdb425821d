#include "twin/csv.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "model/text.h"

namespace steward::twin {

Result<CsvReader> CsvReader::Open(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(fmt::format("{}: cannot open file", path.string()));
  CsvReader r;
  r.file_ = path.string();
  std::stringstream ss;
  ss << in.rdbuf();
  // CR-only (classic Mac) and CR LF files read like LF ones, with the same line numbers.
  r.text_ = model::NormalizeLineEndings(ss.str());
  if (!r.SplitRecord(&r.header_)) {
    if (!r.status_.ok()) return r.status_;
    return MakeInputError(r.file_, 1, 0, "", "empty file: expected a header line");
  }
  for (auto& h : r.header_) {
    while (!h.empty() && (h.back() == ' ' || h.back() == '\r')) h.pop_back();
  }
  // A column twice would be read from whichever copy Column() finds first.
  for (size_t i = 0; i < r.header_.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (r.header_[i] == r.header_[j]) {
        return MakeInputError(r.file_, r.line_, static_cast<int>(i) + 1, r.header_[i],
                              fmt::format("duplicate column (also column {})", j + 1));
      }
    }
  }
  return r;
}

bool CsvReader::SplitRecord(std::vector<std::string>* out) {
  out->clear();
  while (pos_ < text_.size()) {
    ++line_;
    // Skip blank lines.
    size_t eol = text_.find('\n', pos_);
    if (eol == std::string::npos) eol = text_.size();
    std::string_view raw(text_.data() + pos_, eol - pos_);
    if (raw.empty() || raw == "\r") {
      pos_ = eol + 1;
      continue;
    }
    std::string cur;
    bool quoted = false;
    size_t i = pos_;
    const int start_line = line_;
    for (; i < text_.size(); ++i) {
      const char c = text_[i];
      if (quoted) {
        if (c == '"') {
          if (i + 1 < text_.size() && text_[i + 1] == '"') {
            cur += '"';
            ++i;
          } else {
            quoted = false;
          }
        } else {
          if (c == '\n') ++line_;
          cur += c;
        }
      } else if (c == '"' && cur.empty()) {
        quoted = true;
      } else if (c == ',') {
        out->push_back(std::move(cur));
        cur.clear();
      } else if (c == '\n') {
        break;
      } else if (c != '\r') {
        cur += c;
      }
    }
    if (quoted) {
      status_ = MakeInputError(file_, start_line, 0, "", "unterminated quoted field");
      return false;
    }
    out->push_back(std::move(cur));
    pos_ = i + 1;
    return true;
  }
  return false;
}

bool CsvReader::Next() {
  if (!status_.ok()) return false;
  if (!SplitRecord(&fields_)) return false;
  if (fields_.size() != header_.size()) {
    status_ = MakeInputError(file_, line_, 0, "",
                             fmt::format("expected {} fields as in the header, found {}",
                                         header_.size(), fields_.size()));
    return false;
  }
  return true;
}

int CsvReader::Column(std::string_view name) const {
  for (size_t i = 0; i < header_.size(); ++i)
    if (header_[i] == name) return static_cast<int>(i);
  return -1;
}

Status CsvReader::Error(int column, std::string_view what) const {
  return MakeInputError(file_, line_, column + 1, header_[column], what);
}

double CsvReader::Number(int column) {
  const std::string& f = fields_[column];
  double v = 0;
  auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (ec != std::errc() || p != f.data() + f.size()) {
    if (status_.ok()) status_ = Error(column, fmt::format("'{}' is not a number", f));
    return 0;
  }
  // from_chars reads "nan" and "inf": a duration or a time must be finite.
  if (!std::isfinite(v)) {
    if (status_.ok()) status_ = Error(column, fmt::format("'{}' is not a finite number", f));
    return 0;
  }
  return v;
}

int64_t CsvReader::Integer(int column) {
  const std::string& f = fields_[column];
  int64_t v = 0;
  auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (ec != std::errc() || p != f.data() + f.size()) {
    if (status_.ok()) status_ = Error(column, fmt::format("'{}' is not an integer", f));
    return 0;
  }
  return v;
}

}  // namespace steward::twin
