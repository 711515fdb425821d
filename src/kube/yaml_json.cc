#include "kube/yaml_json.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>

#include "model/text.h"

namespace steward::kube {
namespace {

using nlohmann::json;

constexpr std::string_view kLongTagPrefix = "tag:yaml.org,2002:";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool OneOf(std::string_view s, std::initializer_list<std::string_view> values) {
  for (std::string_view v : values)
    if (s == v) return true;
  return false;
}

// What a scalar resolved to (goyaml.v2's resolve()).
struct Resolved {
  enum class Kind : uint8_t {
    kNull,
    kBool,
    kInt,
    kFloat,
    kTimestamp,
    kString
  } kind = Kind::kString;
  json value;                   // kFloat: a double; kTimestamp: its RFC 3339 text.
  const char* error = nullptr;  // Set for .inf and .nan, which JSON cannot carry.
};

const char* KindName(Resolved::Kind k) {
  switch (k) {
    case Resolved::Kind::kNull:
      return "!!null";
    case Resolved::Kind::kBool:
      return "!!bool";
    case Resolved::Kind::kInt:
      return "!!int";
    case Resolved::Kind::kFloat:
      return "!!float";
    case Resolved::Kind::kTimestamp:
      return "!!timestamp";
    case Resolved::Kind::kString:
      return "!!str";
  }
  return "!!str";
}

// Go's strconv.ParseInt(s, 0, 64), then ParseUint(s, 0, 64) past int64: an optional sign, then
// 0x/0o/0b or a C-style leading 0 (octal), else decimal.
std::optional<json> ParseGoInt(std::string_view s) {
  bool negative = false, signed_text = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    signed_text = true;
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() >= 2 && s[0] == '0') {
    const char p = static_cast<char>(s[1] | 0x20);
    base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 8;
    s.remove_prefix(p == 'x' || p == 'o' || p == 'b' ? 2 : 1);
  }
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  constexpr uint64_t kMaxInt = std::numeric_limits<int64_t>::max();
  if (negative) {
    if (v > kMaxInt + 1) return std::nullopt;
    return json(v == kMaxInt + 1 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(v));
  }
  if (v <= kMaxInt) return json(static_cast<int64_t>(v));
  if (signed_text) return std::nullopt;  // ParseUint takes no sign.
  return json(v);
}

// goyaml.v2's yamlStyleFloat: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool IsYamlStyleFloat(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    const size_t start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

std::optional<double> ParseFloat(std::string_view s) {
  if (!IsYamlStyleFloat(s)) return std::nullopt;
  if (s[0] == '+') s.remove_prefix(1);
  double d = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

int DaysIn(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

// goyaml.v2's timestamps (Go layouts "2006-1-2T15:4:5.999999999Z07:00", the same with 't',
// "2006-1-2 15:4:5.999999999" in UTC, "2006-1-2"), as time.Time marshals to JSON: RFC 3339
// with the fraction's trailing zeros dropped and Z for a zero offset.
std::optional<std::string> ParseTimestamp(std::string_view s) {
  size_t i = 0;
  auto number = [&](size_t min_digits, size_t max_digits, int* out) {
    const size_t start = i;
    int v = 0;
    while (i < s.size() && i - start < max_digits && IsDigit(s[i])) v = v * 10 + (s[i++] - '0');
    *out = v;
    return i - start >= min_digits;
  };
  auto expect = [&](char c) { return i < s.size() && s[i++] == c; };
  int year, month, day, hour = 0, minute = 0, second = 0, offset_minutes = 0;
  int64_t nanos = 0;
  if (!number(4, 4, &year) || !expect('-') || !number(1, 2, &month) || !expect('-') ||
      !number(1, 2, &day))
    return std::nullopt;
  if (i < s.size()) {
    const char separator = s[i++];
    if (separator != 'T' && separator != 't' && separator != ' ') return std::nullopt;
    if (!number(1, 2, &hour) || !expect(':') || !number(1, 2, &minute) || !expect(':') ||
        !number(1, 2, &second))
      return std::nullopt;
    if (i < s.size() && s[i] == '.') {
      const size_t start = ++i;
      int64_t scale = 100000000;
      for (; i < s.size() && IsDigit(s[i]); ++i, scale /= 10) nanos += (s[i] - '0') * scale;
      if (i == start) return std::nullopt;
    }
    if (separator != ' ') {  // The T layouts require a zone.
      if (i < s.size() && s[i] == 'Z') {
        ++i;
      } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
        const int sign = s[i++] == '-' ? -1 : 1;
        int oh, om;
        if (!number(2, 2, &oh) || !expect(':') || !number(2, 2, &om) || oh > 24 || om > 59)
          return std::nullopt;
        offset_minutes = sign * (oh * 60 + om);
      } else {
        return std::nullopt;
      }
    }
  }
  if (i != s.size() || month < 1 || month > 12 || day < 1 || day > DaysIn(year, month) ||
      hour > 23 || minute > 59 || second > 59)
    return std::nullopt;
  std::string out = fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}", year, month, day, hour,
                                minute, second);
  if (nanos) {
    std::string frac = fmt::format("{:09d}", nanos);
    while (frac.back() == '0') frac.pop_back();
    out += "." + frac;
  }
  if (offset_minutes == 0) {
    out += 'Z';
  } else {
    const int a = std::abs(offset_minutes);
    out += fmt::format("{}{:02d}:{:02d}", offset_minutes < 0 ? '-' : '+', a / 60, a % 60);
  }
  return out;
}

// goyaml.v2's resolve() of an untagged plain scalar (or one tagged with a resolvable type).
Resolved Resolve(const std::string& in, bool timestamps) {
  using Kind = Resolved::Kind;
  if (OneOf(in, {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"}))
    return {Kind::kBool, true};
  if (OneOf(in, {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"}))
    return {Kind::kBool, false};
  if (OneOf(in, {"", "~", "null", "Null", "NULL"})) return {Kind::kNull, nullptr};
  if (OneOf(in, {".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
                 "-.Inf", "-.INF"}))
    return {Kind::kFloat, nullptr, "infinity and NaN have no JSON form"};
  const char c = in[0];
  if (c == '.') {
    if (std::optional<double> d = ParseFloat(in)) return {Kind::kFloat, *d};
  } else if (IsDigit(c) || c == '+' || c == '-') {
    if (timestamps)
      if (std::optional<std::string> t = ParseTimestamp(in)) return {Kind::kTimestamp, *t};
    std::string plain;
    for (char ch : in)
      if (ch != '_') plain += ch;
    if (std::optional<json> i = ParseGoInt(plain)) return {Kind::kInt, *i};
    if (std::optional<double> d = ParseFloat(plain)) return {Kind::kFloat, *d};
  }
  return {Kind::kString, in};
}

// A float as Go's json.Marshal prints it and a JSON reader reads it back: integral values
// within double's exact range are integers (1000.0 goes over the wire as 1000).
json FloatJson(double d) {
  if (d == std::floor(d) && std::fabs(d) < 9007199254740992.0) return static_cast<int64_t>(d);
  return d;
}

// strconv.FormatFloat(f, 'g', -1, 32), what sigs.k8s.io/yaml names a float mapping key with.
std::string GoFloatKey(double value) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), static_cast<float>(value),
                                 std::chars_format::scientific);
  if (ec != std::errc()) return fmt::format("{}", value);
  const std::string sci(buf, end);  // e.g. "-1.234567e+06": shortest digits for a float32.
  const size_t e = sci.find('e');
  const bool negative = sci[0] == '-';
  std::string digits;
  for (size_t i = 0; i < e; ++i)
    if (IsDigit(sci[i])) digits += sci[i];
  const int exp = std::stoi(sci.substr(e + 1));
  std::string out = negative ? "-" : "";
  if (exp < -4 || exp >= 6) {  // Go's %e for the shortest form: d.ddde+XX.
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += fmt::format("e{}{:02d}", exp < 0 ? '-' : '+', std::abs(exp));
  } else if (exp < 0) {
    out += "0." + std::string(-exp - 1, '0') + digits;
  } else {
    const size_t point = static_cast<size_t>(exp) + 1;
    if (digits.size() <= point) {
      out += digits + std::string(point - digits.size(), '0');
    } else {
      out += digits.substr(0, point) + "." + digits.substr(point);
    }
  }
  return out;
}

std::string Where(const YAML::Node& node, std::string_view source) {
  return fmt::format("{}:{}:{}", source, node.Mark().line + 1, node.Mark().column + 1);
}

// A scalar as sigs.k8s.io/yaml converts it; `key` resolves it as a mapping key instead.
Status ScalarToJson(const YAML::Node& node, std::string_view source, json* out) {
  const std::string& tag = node.Tag();
  const std::string& text = node.Scalar();
  if (tag == "!") {  // Quoted or block scalar: a string.
    *out = text;
    return Status::Ok();
  }
  std::string short_tag = tag;
  if (tag.rfind(kLongTagPrefix, 0) == 0) short_tag = "!!" + tag.substr(kLongTagPrefix.size());
  const bool plain = tag.empty() || tag == "?";
  if (short_tag == "!!str") {
    *out = text;
    return Status::Ok();
  }
  if (short_tag == "!!binary") {
    std::string compact;
    for (char c : text)
      if (c != '\n' && c != ' ' && c != '\r' && c != '\t') compact += c;
    std::optional<std::string> bytes = model::Base64Decode(compact);
    if (!bytes)
      return Status::InvalidArgument(
          fmt::format("{}: !!binary value is not base64", Where(node, source)));
    *out = *bytes;
    return Status::Ok();
  }
  if (!plain && !OneOf(short_tag, {"!!int", "!!float", "!!bool", "!!null", "!!timestamp"})) {
    *out = text;  // A tag of the application's own: the text as it is.
    return Status::Ok();
  }
  const Resolved r = Resolve(text, plain || short_tag == "!!timestamp");
  if (r.error)
    return Status::InvalidArgument(fmt::format("{}: {}: {}", Where(node, source), text, r.error));
  using Kind = Resolved::Kind;
  if (!plain && short_tag != KindName(r.kind) && !(short_tag == "!!float" && r.kind == Kind::kInt))
    return Status::InvalidArgument(fmt::format("{}: cannot decode {} `{}` as a {}",
                                               Where(node, source), KindName(r.kind), text,
                                               short_tag));
  if (r.kind == Kind::kFloat || short_tag == "!!float") {
    *out = FloatJson(r.value.get<double>());
  } else {
    *out = r.value;
  }
  return Status::Ok();
}

// A mapping key as sigs.k8s.io/yaml names it in JSON: resolved like a value, then printed.
Status KeyToString(const YAML::Node& key, std::string_view source, std::string* out) {
  if (key.IsNull())
    return Status::InvalidArgument(
        fmt::format("{}: a mapping key must not be null (quote it: \"~\")", Where(key, source)));
  if (!key.IsScalar())
    return Status::InvalidArgument(
        fmt::format("{}: a mapping key must be a scalar", Where(key, source)));
  const std::string& tag = key.Tag();
  if (tag == "!" || (!tag.empty() && tag != "?")) {
    json v;
    STEWARD_RETURN_IF_ERROR(ScalarToJson(key, source, &v));
    if (v.is_string()) {
      *out = v.get<std::string>();
      return Status::Ok();
    }
  }
  const Resolved r = Resolve(key.Scalar(), true);
  using Kind = Resolved::Kind;
  switch (r.kind) {
    case Kind::kString:
      *out = r.value.get<std::string>();
      return Status::Ok();
    case Kind::kBool:
      *out = r.value.get<bool>() ? "true" : "false";
      return Status::Ok();
    case Kind::kInt:
      *out = r.value.dump();
      return Status::Ok();
    case Kind::kFloat:
      if (r.error) break;
      *out = GoFloatKey(r.value.get<double>());
      return Status::Ok();
    case Kind::kNull:
    case Kind::kTimestamp:
      break;
  }
  return Status::InvalidArgument(fmt::format("{}: {}: a {} cannot be a mapping key (quote it)",
                                             Where(key, source), key.Scalar(), KindName(r.kind)));
}

Status Convert(const YAML::Node& node, std::string_view source, int depth, json* out) {
  if (depth > 200)
    return Status::InvalidArgument(fmt::format("{}: nesting too deep", Where(node, source)));
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      *out = nullptr;
      return Status::Ok();
    case YAML::NodeType::Scalar:
      return ScalarToJson(node, source, out);
    case YAML::NodeType::Sequence: {
      *out = json::array();
      for (const YAML::Node& item : node) {
        json v;
        STEWARD_RETURN_IF_ERROR(Convert(item, source, depth + 1, &v));
        out->push_back(std::move(v));
      }
      return Status::Ok();
    }
    case YAML::NodeType::Map: {
      *out = json::object();
      for (const auto& kv : node) {
        std::string key;
        STEWARD_RETURN_IF_ERROR(KeyToString(kv.first, source, &key));
        if (out->contains(key))
          return Status::InvalidArgument(
              fmt::format("{}: {}: duplicate key", Where(kv.first, source), key));
        json v;
        STEWARD_RETURN_IF_ERROR(Convert(kv.second, source, depth + 1, &v));
        (*out)[key] = std::move(v);
      }
      return Status::Ok();
    }
  }
  return Status::Ok();
}

}  // namespace

Result<nlohmann::json> YamlToJson(const YAML::Node& node, std::string_view source) {
  json out;
  STEWARD_RETURN_IF_ERROR(Convert(node, source, 0, &out));
  return out;
}

}  // namespace steward::kube
