#include "kube/json_decoder.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <ctime>

namespace steward::kube {
namespace {

std::string_view TypeName(const nlohmann::json& j) { return j.type_name(); }

std::string Join(std::string_view path, const char* key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

}  // namespace

const nlohmann::json* JsonDecoder::Member(const nlohmann::json& parent, const char* key) const {
  if (!parent.is_object()) return nullptr;
  auto it = parent.find(key);
  if (it == parent.end() || it->is_null()) return nullptr;
  return &*it;
}

void JsonDecoder::TypeError(std::string_view path, const char* key, std::string_view expected,
                            const nlohmann::json& got) {
  Fail(Join(path, key), fmt::format("expected {}, got {}", expected, TypeName(got)));
}

void JsonDecoder::Fail(std::string_view path, std::string_view what) {
  if (!status_.ok()) return;
  status_ = Status::InvalidArgument(path.empty() ? fmt::format("{}: {}", context_, what)
                                                 : fmt::format("{}: {}: {}", context_, path, what));
}

void JsonDecoder::ExpectObject(const nlohmann::json& object, std::string_view path) {
  if (!object.is_object()) Fail(path, fmt::format("expected an object, got {}", TypeName(object)));
}

std::string JsonDecoder::String(const nlohmann::json& parent, std::string_view path,
                                const char* key) {
  const nlohmann::json* m = Member(parent, key);
  if (!m) return {};
  if (!m->is_string()) {
    TypeError(path, key, "a string", *m);
    return {};
  }
  return m->get<std::string>();
}

std::optional<int64_t> JsonDecoder::OptionalInt(const nlohmann::json& parent, std::string_view path,
                                                const char* key) {
  const nlohmann::json* m = Member(parent, key);
  if (!m) return std::nullopt;
  if (m->is_number_unsigned() && m->get<uint64_t>() > uint64_t{INT64_MAX}) {
    Fail(Join(path, key), fmt::format("{} is out of range for an int64", m->dump()));
    return std::nullopt;
  }
  if (m->is_number_integer()) return m->get<int64_t>();
  if (m->is_number_float()) {
    const double d = m->get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15)
      return static_cast<int64_t>(d);
  }
  TypeError(path, key, "an integer", *m);
  return std::nullopt;
}

int64_t JsonDecoder::Int(const nlohmann::json& parent, std::string_view path, const char* key,
                         int64_t fallback) {
  return OptionalInt(parent, path, key).value_or(fallback);
}

bool JsonDecoder::Bool(const nlohmann::json& parent, std::string_view path, const char* key) {
  const nlohmann::json* m = Member(parent, key);
  if (!m) return false;
  if (!m->is_boolean()) {
    TypeError(path, key, "a boolean", *m);
    return false;
  }
  return m->get<bool>();
}

std::map<std::string, std::string> JsonDecoder::StringMap(const nlohmann::json& parent,
                                                          std::string_view path, const char* key) {
  std::map<std::string, std::string> out;
  const nlohmann::json* m = Member(parent, key);
  if (!m) return out;
  if (!m->is_object()) {
    TypeError(path, key, "an object", *m);
    return out;
  }
  for (const auto& [k, v] : m->items()) {
    if (v.is_null()) continue;
    if (!v.is_string()) {
      TypeError(Join(path, key), k.c_str(), "a string", v);
      continue;
    }
    out.emplace(k, v.get<std::string>());
  }
  return out;
}

const nlohmann::json& JsonDecoder::Object(const nlohmann::json& parent, std::string_view path,
                                          const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  const nlohmann::json* m = Member(parent, key);
  if (!m) return kEmpty;
  if (!m->is_object()) {
    TypeError(path, key, "an object", *m);
    return kEmpty;
  }
  return *m;
}

const nlohmann::json& JsonDecoder::Array(const nlohmann::json& parent, std::string_view path,
                                         const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  const nlohmann::json* m = Member(parent, key);
  if (!m) return kEmpty;
  if (!m->is_array()) {
    TypeError(path, key, "an array", *m);
    return kEmpty;
  }
  return *m;
}

const nlohmann::json& JsonDecoder::Objects(const nlohmann::json& parent, std::string_view path,
                                           const char* key) {
  const nlohmann::json& array = Array(parent, path, key);
  for (size_t i = 0; i < array.size(); ++i)
    if (!array[i].is_object())
      Fail(fmt::format("{}[{}]", Join(path, key), i),
           fmt::format("expected an object, got {}", TypeName(array[i])));
  return array;
}

std::optional<nlohmann::json> JsonDecoder::IntOrString(const nlohmann::json& parent,
                                                       std::string_view path, const char* key) {
  const nlohmann::json* m = Member(parent, key);
  if (!m) return std::nullopt;
  if (m->is_number_integer() || m->is_string()) return *m;
  TypeError(path, key, "an integer or a string", *m);
  return std::nullopt;
}

std::optional<int64_t> JsonDecoder::Time(const nlohmann::json& parent, std::string_view path,
                                         const char* key) {
  const std::string s = String(parent, path, key);
  if (s.empty()) return std::nullopt;
  std::optional<int64_t> t = ParseTime(s);
  if (!t) Fail(Join(path, key), fmt::format("'{}' is not an RFC 3339 time", s));
  return t;
}

std::string FormatTime(int64_t unix_micros, bool micro) {
  int64_t secs = unix_micros / 1000000;
  int64_t frac = unix_micros % 1000000;
  if (frac < 0) {
    frac += 1000000;
    --secs;
  }
  const time_t t = static_cast<time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  if (micro)
    return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:06d}Z", tm.tm_year + 1900,
                       tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::optional<int64_t> ParseTime(std::string_view s) {
  // Fixed-width digits only (from_chars alone would take a sign).
  auto num = [&](size_t pos, size_t len, int* out) {
    if (pos + len > s.size()) return false;
    int v = 0;
    for (size_t i = pos; i < pos + len; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
  };
  int y, mo, d, h, mi, sec;
  if (s.size() < 20 || !num(0, 4, &y) || s[4] != '-' || !num(5, 2, &mo) || s[7] != '-' ||
      !num(8, 2, &d) || s[10] != 'T' || !num(11, 2, &h) || s[13] != ':' || !num(14, 2, &mi) ||
      s[16] != ':' || !num(17, 2, &sec))
    return std::nullopt;
  static constexpr int kDaysIn[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (mo < 1 || mo > 12 || d < 1 || d > kDaysIn[mo - 1] + (mo == 2 && leap) || h > 23 || mi > 59 ||
      sec > 59)
    return std::nullopt;
  size_t i = 19;
  int64_t micros = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    int64_t scale = 100000;
    const size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      micros += (s[i] - '0') * scale;
      scale /= 10;
      ++i;
    }
    if (i == start) return std::nullopt;
  }
  int64_t offset = 0;
  if (i < s.size() && s[i] == 'Z') {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int oh, om;
    if (!num(i + 1, 2, &oh) || i + 3 >= s.size() || s[i + 3] != ':' || !num(i + 4, 2, &om) ||
        oh > 23 || om > 59)
      return std::nullopt;
    offset = (s[i] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  // Days from civil (Howard Hinnant's algorithm).
  const int64_t yy = y - (mo <= 2);
  const int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
  const int64_t yoe = yy - era * 400;
  const int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const int64_t days = era * 146097 + doe - 719468;
  const int64_t secs = days * 86400 + h * 3600 + mi * 60 + sec - offset;
  return secs * 1000000 + micros;
}

}  // namespace steward::kube
