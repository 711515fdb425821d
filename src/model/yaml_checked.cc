#include "model/yaml_checked.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>
#include <vector>

#include "model/text.h"

namespace steward::model {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<double> ParseFiniteNumber(std::string_view text) {
  std::string_view t = Trim(text);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || p != t.data() + t.size() || ec == std::errc::invalid_argument) {
    const std::string lower = [&] {
      std::string s(t);
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return s;
    }();
    if (lower.find("nan") != std::string::npos || lower.find("inf") != std::string::npos) {
      return Status::InvalidArgument(
          fmt::format("'{}' is not a finite number (NaN and infinity are refused)", text));
    }
    return Status::InvalidArgument(fmt::format("cannot read '{}' as a number", text));
  }
  if (ec == std::errc::result_out_of_range) {
    // Overflow (1e400) or underflow (1e-400, which is 0 to any reader): strtod tells them apart.
    const double d = std::strtod(std::string(t).c_str(), nullptr);
    if (std::isfinite(d)) return d;
    return Status::InvalidArgument(
        fmt::format("'{}' is beyond the range of a double (not a finite number)", text));
  }
  // from_chars reads "nan" and "inf" as numbers: refuse them here.
  if (!std::isfinite(v)) {
    return Status::InvalidArgument(
        fmt::format("'{}' is not a finite number (NaN and infinity are refused)", text));
  }
  return v;
}

namespace {

// `text` as a finite number with an integral value ("1.28e3"), for the integer parsers.
Result<double> IntegralNumber(std::string_view text) {
  Result<double> number = ParseFiniteNumber(text);
  if (!number.ok()) {
    // A word is "not an integer"; NaN, infinity and overflow keep their own reason.
    if (number.status().message().find("cannot read") == std::string::npos) return number;
    return Status::InvalidArgument(fmt::format("cannot read '{}' as an integer", text));
  }
  if (*number != std::floor(*number)) {
    return Status::InvalidArgument(fmt::format("must be an integer (got '{}')", text));
  }
  return number;
}

}  // namespace

Result<int64_t> ParseBoundedInteger(std::string_view text, int64_t min, int64_t max) {
  std::string_view t = Trim(text);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  const std::string range = fmt::format("is out of range [{}, {}]", min, max);
  if (!t.empty() && p == t.data() + t.size()) {
    if (ec == std::errc::result_out_of_range) {
      return Status::InvalidArgument(fmt::format("'{}' {}", text, range));
    }
    if (ec == std::errc() && (v < min || v > max)) {
      return Status::InvalidArgument(fmt::format("'{}' {}", text, range));
    }
    if (ec == std::errc()) return v;
  }
  // "1.28e3": a number whose value is integral.
  STEWARD_ASSIGN_OR_RETURN(double d, IntegralNumber(text));
  // Doubles at 2^63 and beyond do not fit; below, the cast is exact for integral values.
  if (d < static_cast<double>(min) || d > static_cast<double>(max) || d >= 9.2233720368547758e18 ||
      d < -9.2233720368547758e18) {
    return Status::InvalidArgument(fmt::format("'{}' {}", text, range));
  }
  const int64_t i = static_cast<int64_t>(d);
  if (i < min || i > max) return Status::InvalidArgument(fmt::format("'{}' {}", text, range));
  return i;
}

Result<uint64_t> ParseBoundedUnsigned(std::string_view text, uint64_t max) {
  std::string_view t = Trim(text);
  if (!t.empty() && t.front() == '-') {
    // "-0" is 0; anything else negative is out of range.
    STEWARD_ASSIGN_OR_RETURN(int64_t v, ParseBoundedInteger(text, INT64_MIN, INT64_MAX));
    if (v != 0) return Status::InvalidArgument(fmt::format("'{}' must be >= 0", text));
    return uint64_t{0};
  }
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  const std::string range = fmt::format("is out of range [0, {}]", max);
  if (!t.empty() && p == t.data() + t.size()) {
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && v > max)) {
      return Status::InvalidArgument(fmt::format("'{}' {}", text, range));
    }
    if (ec == std::errc()) return v;
  }
  STEWARD_ASSIGN_OR_RETURN(double d, IntegralNumber(text));
  if (d < 0 || d >= 1.8446744073709552e19 || static_cast<uint64_t>(d) > max) {
    return Status::InvalidArgument(fmt::format("'{}' {}", text, range));
  }
  return static_cast<uint64_t>(d);
}

namespace {

// Events of a parse pass, kept only as far as the loop guard needs them.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
  YAML::Mark start;
};

}  // namespace

Result<std::vector<YAML::Node>> LoadYamlDocuments(std::string_view text, std::string_view source) {
  const std::string normalized = NormalizeLineEndings(text);
  try {
    std::istringstream in(normalized);
    YAML::Parser parser(in);
    DocumentStarts events;
    int last_pos = -1;
    // Each document consumes at least one character, so there are at most size + 1 of them.
    for (size_t docs = 0; parser.HandleNextDocument(events); ++docs) {
      if (events.start.pos <= last_pos || docs > normalized.size() + 1) {
        return MakeInputError(source, events.start.line + 1, events.start.column + 1, "yaml",
                              "unexpected character where a document should start (a stray ',' "
                              "or flow indicator?)");
      }
      last_pos = events.start.pos;
    }
    return YAML::LoadAll(normalized);
  } catch (const YAML::Exception& e) {
    return MakeInputError(source, e.mark.is_null() ? 0 : e.mark.line + 1,
                          e.mark.is_null() ? 0 : e.mark.column + 1, "yaml", e.msg);
  }
}

Result<YAML::Node> LoadYamlDocument(std::string_view text, std::string_view source,
                                    std::string_view field) {
  try {
    return YAML::Load(NormalizeLineEndings(text));
  } catch (const YAML::ParserException& e) {
    return MakeInputError(source, e.mark.line + 1, e.mark.column + 1, field, e.msg);
  } catch (const YAML::Exception& e) {
    return MakeInputError(source, 0, 0, field, e.what());
  }
}

Status CheckYamlDuplicateKeys(const YAML::Node& root, std::string_view source) {
  // Iterative, so a deeply nested document cannot overflow the stack.
  std::vector<YAML::Node> todo = {root};
  while (!todo.empty()) {
    const YAML::Node n = todo.back();
    todo.pop_back();
    if (n.IsSequence()) {
      for (const YAML::Node& child : n) todo.push_back(child);
    } else if (n.IsMap()) {
      std::set<std::string> keys;
      for (const auto& kv : n) {
        if (kv.first.IsScalar() && !keys.insert(kv.first.Scalar()).second) {
          const YAML::Mark m = kv.first.Mark();
          return MakeInputError(source, m.line >= 0 ? m.line + 1 : 0,
                                m.line >= 0 ? m.column + 1 : 0, kv.first.Scalar(),
                                "duplicate key (the mapping already has it)");
        }
        todo.push_back(kv.second);
      }
    }
  }
  return Status::Ok();
}

}  // namespace steward::model
