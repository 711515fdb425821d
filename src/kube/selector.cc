#include "kube/selector.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <utility>

namespace steward::kube {
namespace {

using nlohmann::json;

constexpr size_t kLabelNameMaxLength = 63;
constexpr size_t kLabelValueMaxLength = 63;
constexpr size_t kDnsSubdomainMaxLength = 253;

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// `(alnum [-_.alnum]*)? alnum`, the shape of a label name and of a non-empty label value.
bool IsLabelToken(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

// A lowercase RFC 1123 subdomain: dot-separated labels of [a-z0-9-], each starting and ending
// with [a-z0-9].
bool IsDnsSubdomainShape(std::string_view s) {
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (label.empty() || !lower_alnum(label.front()) || !lower_alnum(label.back())) return false;
    if (!std::all_of(label.begin(), label.end(),
                     [&](char c) { return lower_alnum(c) || c == '-'; })) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

constexpr std::string_view kLabelNameShape =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName', 'my.name' or '123-abc')";

void AppendReason(std::string& reasons, std::string_view reason) {
  if (!reasons.empty()) reasons += "; ";
  reasons += reason;
}

std::string InQuotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Label matching needs one look-up, over either a std::map or a metadata.labels JSON object.
template <typename Lookup>
bool RequirementMatches(const LabelRequirement& r, const Lookup& lookup) {
  std::optional<std::string_view> value = lookup(r.key);
  auto has_value = [&](std::string_view v) {
    return std::binary_search(r.values.begin(), r.values.end(), v);
  };
  switch (r.op) {
    case LabelOp::kEquals:
      return value.has_value() && *value == r.values.front();
    case LabelOp::kNotEquals:
      return !value.has_value() || *value != r.values.front();
    case LabelOp::kIn:
      return value.has_value() && has_value(*value);
    case LabelOp::kNotIn:
      return !value.has_value() || !has_value(*value);
    case LabelOp::kExists:
      return value.has_value();
    case LabelOp::kDoesNotExist:
      return !value.has_value();
    case LabelOp::kGreaterThan:
    case LabelOp::kLessThan: {
      if (!value.has_value()) return false;
      int64_t have = 0;
      int64_t want = 0;
      auto parse = [](std::string_view s, int64_t& out) {
        if (!s.empty() && s.front() == '+') s.remove_prefix(1);
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        return ec == std::errc() && end == s.data() + s.size() && !s.empty();
      };
      if (!parse(*value, have) || !parse(r.values.front(), want)) return false;
      return r.op == LabelOp::kGreaterThan ? have > want : have < want;
    }
  }
  return false;
}

// One requirement, checked as labels.NewRequirement checks it. `values` are sorted and made
// distinct for set operators.
Result<LabelRequirement> MakeRequirement(std::string key, LabelOp op,
                                         std::vector<std::string> values) {
  if (Status s = CheckLabelKey(key); !s.ok()) {
    return Status::InvalidArgument("invalid label key " + InQuotes(key) + ": " + s.message());
  }
  switch (op) {
    case LabelOp::kIn:
    case LabelOp::kNotIn:
      if (values.empty()) {
        return Status::InvalidArgument("key " + InQuotes(key) +
                                       ": for 'in', 'notin' operators, values set can't be empty");
      }
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      break;
    case LabelOp::kEquals:
    case LabelOp::kNotEquals:
      if (values.size() != 1) {
        return Status::InvalidArgument("key " + InQuotes(key) +
                                       ": exact-match compatibility requires one single value");
      }
      break;
    case LabelOp::kExists:
    case LabelOp::kDoesNotExist:
      if (!values.empty()) {
        return Status::InvalidArgument("key " + InQuotes(key) +
                                       ": values set must be empty for exists and does not exist");
      }
      break;
    case LabelOp::kGreaterThan:
    case LabelOp::kLessThan: {
      if (values.size() != 1) {
        return Status::InvalidArgument("key " + InQuotes(key) +
                                       ": for 'Gt', 'Lt' operators, exactly one value is required");
      }
      const std::string& v = values.front();
      int64_t n = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (v.empty() || ec != std::errc() || end != v.data() + v.size()) {
        return Status::InvalidArgument("key " + InQuotes(key) + ": value " + InQuotes(v) +
                                       ": for 'Gt', 'Lt' operators, the value must be an integer");
      }
      break;
    }
  }
  for (const std::string& v : values) {
    if (Status s = CheckLabelValue(v); !s.ok()) {
      return Status::InvalidArgument("invalid label value " + InQuotes(v) + " for key " +
                                     InQuotes(key) + ": " + s.message());
    }
  }
  return LabelRequirement{std::move(key), op, std::move(values)};
}

// --- The labelSelector query syntax, tokenized and parsed as labels.Parse does. ---

enum class Token : uint8_t {
  kEnd,
  kClosedPar,
  kComma,
  kNot,  // `!`
  kDoubleEquals,
  kEquals,
  kGreaterThan,
  kIdentifier,
  kIn,
  kLessThan,
  kNotEquals,
  kNotIn,
  kOpenPar,
};

struct Item {
  Token token;
  std::string text;
};

bool IsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool IsSpecial(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

std::optional<Token> OperatorToken(std::string_view s) {
  if (s == ")") return Token::kClosedPar;
  if (s == ",") return Token::kComma;
  if (s == "!") return Token::kNot;
  if (s == "==") return Token::kDoubleEquals;
  if (s == "=") return Token::kEquals;
  if (s == ">") return Token::kGreaterThan;
  if (s == "<") return Token::kLessThan;
  if (s == "!=") return Token::kNotEquals;
  if (s == "(") return Token::kOpenPar;
  return std::nullopt;
}

// Splits `text` into tokens. Identifiers run until whitespace or a special character; a run of
// special characters yields the longest operator it starts with (`!=` before `!`), so `a!==b`
// is `a`, `!=`, `=`, `b` as in Kubernetes.
Result<std::vector<Item>> Tokenize(std::string_view text) {
  std::vector<Item> items;
  size_t i = 0;
  while (true) {
    while (i < text.size() && IsWhitespace(text[i])) ++i;
    if (i == text.size()) break;
    if (IsSpecial(text[i])) {
      std::optional<Token> best;
      size_t best_len = 0;
      size_t j = i;
      while (j < text.size() && IsSpecial(text[j])) {
        ++j;
        if (std::optional<Token> t = OperatorToken(text.substr(i, j - i))) {
          best = t;
          best_len = j - i;
        } else if (best) {
          break;
        }
      }
      if (!best) {
        return Status::InvalidArgument("error expected: keyword found '" +
                                       std::string(text.substr(i, j - i)) + "'");
      }
      items.push_back({*best, std::string(text.substr(i, best_len))});
      i += best_len;
      continue;
    }
    size_t j = i;
    while (j < text.size() && !IsSpecial(text[j]) && !IsWhitespace(text[j])) ++j;
    std::string word(text.substr(i, j - i));
    Token t = word == "in" ? Token::kIn : word == "notin" ? Token::kNotIn : Token::kIdentifier;
    items.push_back({t, std::move(word)});
    i = j;
  }
  items.push_back({Token::kEnd, ""});
  return items;
}

class Parser {
 public:
  explicit Parser(std::vector<Item> items) : items_(std::move(items)) {}

  Result<std::vector<LabelRequirement>> Parse() {
    std::vector<LabelRequirement> out;
    while (true) {
      const Item& next = Peek();
      if (next.token == Token::kEnd) return out;
      if (Kind(next, kValues) != Token::kIdentifier && next.token != Token::kNot) {
        return Status::InvalidArgument("found " + Shown(next) +
                                       ", expected: !, identifier, or 'end of string'");
      }
      Result<LabelRequirement> r = ParseRequirement();
      if (!r.ok()) return r.status().WithContext("unable to parse requirement");
      out.push_back(std::move(r).value());
      const Item& after = Take();
      if (after.token == Token::kEnd) return out;
      if (after.token != Token::kComma) {
        return Status::InvalidArgument("found " + Shown(after) +
                                       ", expected: ',' or 'end of string'");
      }
      const Item& following = Peek();
      if (Kind(following, kValues) != Token::kIdentifier && following.token != Token::kNot) {
        return Status::InvalidArgument("found " + Shown(following) +
                                       ", expected: identifier after ','");
      }
    }
  }

 private:
  // In value position, `in` and `notin` are plain words (`x in (in)`).
  static constexpr bool kValues = true;
  static constexpr bool kKeyAndOperator = false;

  static Token Kind(const Item& item, bool values) {
    if (values && (item.token == Token::kIn || item.token == Token::kNotIn)) {
      return Token::kIdentifier;
    }
    return item.token;
  }
  static std::string Shown(const Item& item) {
    return item.token == Token::kEnd ? "'end of string'" : "'" + item.text + "'";
  }
  const Item& Peek() const { return items_[pos_]; }
  const Item& Take() { return items_[pos_ < items_.size() - 1 ? pos_++ : pos_]; }

  Result<LabelRequirement> ParseRequirement() {
    bool negated = false;
    const Item* key = &Take();
    if (key->token == Token::kNot) {
      negated = true;
      key = &Take();
    }
    if (Kind(*key, kValues) != Token::kIdentifier) {
      return Status::InvalidArgument("found " + Shown(*key) + ", expected: identifier");
    }
    std::string key_text = key->text;
    if (Status s = CheckLabelKey(key_text); !s.ok()) {
      return Status::InvalidArgument("invalid label key " + InQuotes(key_text) + ": " +
                                     s.message());
    }
    Token next = Peek().token;
    if (negated) return MakeRequirement(std::move(key_text), LabelOp::kDoesNotExist, {});
    if (next == Token::kEnd || next == Token::kComma) {
      return MakeRequirement(std::move(key_text), LabelOp::kExists, {});
    }
    const Item& op_item = Take();
    LabelOp op;
    switch (Kind(op_item, kKeyAndOperator)) {
      case Token::kIn:
        op = LabelOp::kIn;
        break;
      case Token::kNotIn:
        op = LabelOp::kNotIn;
        break;
      case Token::kEquals:
      case Token::kDoubleEquals:
        op = LabelOp::kEquals;
        break;
      case Token::kNotEquals:
        op = LabelOp::kNotEquals;
        break;
      case Token::kGreaterThan:
        op = LabelOp::kGreaterThan;
        break;
      case Token::kLessThan:
        op = LabelOp::kLessThan;
        break;
      default:
        return Status::InvalidArgument("found " + Shown(op_item) +
                                       ", expected: in, notin, =, ==, !=, gt, lt");
    }
    Result<std::vector<std::string>> values =
        (op == LabelOp::kIn || op == LabelOp::kNotIn) ? ParseValueSet() : ParseExactValue();
    if (!values.ok()) return values.status();
    return MakeRequirement(std::move(key_text), op, std::move(values).value());
  }

  // `(a,b,c)`; empty members are the empty value: `()` and `(a,)` both hold "".
  Result<std::vector<std::string>> ParseValueSet() {
    const Item& open = Take();
    if (open.token != Token::kOpenPar) {
      return Status::InvalidArgument("found " + Shown(open) + ", expected: '('");
    }
    std::vector<std::string> values;
    const Item& first = Peek();
    if (first.token == Token::kClosedPar) {
      Take();
      return std::vector<std::string>{""};
    }
    if (Kind(first, kValues) != Token::kIdentifier && first.token != Token::kComma) {
      return Status::InvalidArgument("found " + Shown(first) +
                                     ", expected: ',', ')' or identifier");
    }
    while (true) {
      const Item& item = Take();
      if (Kind(item, kValues) == Token::kIdentifier) {
        values.push_back(item.text);
        const Item& after = Peek();
        if (after.token == Token::kComma) continue;
        if (after.token == Token::kClosedPar) break;
        return Status::InvalidArgument("found " + Shown(after) + ", expected: ',' or ')'");
      }
      if (item.token == Token::kComma) {
        if (values.empty()) values.push_back("");  // `(,`
        Token after = Peek().token;
        if (after == Token::kClosedPar) {  // `,)`
          values.push_back("");
          break;
        }
        if (after == Token::kComma) values.push_back("");  // `,,`
        continue;
      }
      return Status::InvalidArgument("found " + Shown(item) + ", expected: ',', or identifier");
    }
    Take();  // The ')' seen above.
    return values;
  }

  // The one value after `=`, `==`, `!=`, `>` or `<`; nothing before `,` or the end is "".
  Result<std::vector<std::string>> ParseExactValue() {
    const Item& next = Peek();
    if (next.token == Token::kEnd || next.token == Token::kComma) {
      return std::vector<std::string>{""};
    }
    const Item& value = Take();
    if (Kind(value, kValues) != Token::kIdentifier) {
      return Status::InvalidArgument("found " + Shown(value) + ", expected: identifier");
    }
    return std::vector<std::string>{value.text};
  }

  std::vector<Item> items_;
  size_t pos_ = 0;
};

void SortByKey(std::vector<LabelRequirement>& requirements) {
  std::stable_sort(
      requirements.begin(), requirements.end(),
      [](const LabelRequirement& a, const LabelRequirement& b) { return a.key < b.key; });
}

// --- Field selectors ---

// `\\`, `\,` and `\=` are the escapes; any other escape, or an unescaped `,` or `=`, is an error.
Result<std::string> UnescapeFieldValue(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool escaped = false;
  for (char c : s) {
    if (escaped) {
      if (c != '\\' && c != ',' && c != '=') {
        return Status::InvalidArgument("invalid field selector: invalid escape sequence: \\" +
                                       std::string(1, c));
      }
      out += c;
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == ',' || c == '=') {
      return Status::InvalidArgument("invalid field selector: unescaped character in value: " +
                                     std::string(1, c));
    } else {
      out += c;
    }
  }
  if (escaped)
    return Status::InvalidArgument("invalid field selector: invalid escape sequence: \\");
  return out;
}

std::string EscapeFieldValue(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\' || c == ',' || c == '=') out += '\\';
    out += c;
  }
  return out;
}

// Splits at commas that are not escaped.
std::vector<std::string_view> SplitFieldTerms(std::string_view text) {
  std::vector<std::string_view> terms;
  if (text.empty()) return terms;
  size_t start = 0;
  bool escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (escaped) {
      escaped = false;
    } else if (text[i] == '\\') {
      escaped = true;
    } else if (text[i] == ',') {
      terms.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.push_back(text.substr(start));
  return terms;
}

std::string FieldTermText(const FieldRequirement& r) {
  return r.field + (r.equals ? "=" : "!=") + EscapeFieldValue(r.value);
}

}  // namespace

Status CheckLabelKey(std::string_view key) {
  std::string reasons;
  std::string_view name = key;
  size_t slash = key.find('/');
  if (slash != std::string_view::npos) {
    if (key.find('/', slash + 1) != std::string_view::npos) {
      return Status::InvalidArgument(
          "a valid label key " + std::string(kLabelNameShape) +
          " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    }
    std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) {
      AppendReason(reasons, "prefix part must be non-empty");
    } else {
      if (prefix.size() > kDnsSubdomainMaxLength) {
        AppendReason(reasons, "prefix part must be no more than 253 bytes");
      }
      if (!IsDnsSubdomainShape(prefix)) {
        AppendReason(reasons,
                     "prefix part a lowercase RFC 1123 subdomain must consist of lower case "
                     "alphanumeric characters, '-' or '.', and must start and end with an "
                     "alphanumeric character (e.g. 'example.com')");
      }
    }
  }
  if (name.empty()) {
    AppendReason(reasons, "name part must be non-empty");
  } else if (name.size() > kLabelNameMaxLength) {
    AppendReason(reasons, "name part must be no more than 63 bytes");
  }
  if (!IsLabelToken(name)) AppendReason(reasons, "name part " + std::string(kLabelNameShape));
  if (!reasons.empty()) return Status::InvalidArgument(reasons);
  return Status::Ok();
}

Status CheckLabelValue(std::string_view value) {
  std::string reasons;
  if (value.size() > kLabelValueMaxLength) {
    AppendReason(reasons, "must be no more than 63 bytes");
  }
  if (!value.empty() && !IsLabelToken(value)) {
    AppendReason(reasons,
                 "a valid label must be an empty string or consist of alphanumeric characters, "
                 "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
                 "'MyValue', 'my_value' or '12345')");
  }
  if (!reasons.empty()) return Status::InvalidArgument(reasons);
  return Status::Ok();
}

Result<LabelSelector> LabelSelector::Parse(std::string_view text) {
  STEWARD_ASSIGN_OR_RETURN(std::vector<Item> items, Tokenize(text));
  STEWARD_ASSIGN_OR_RETURN(std::vector<LabelRequirement> requirements,
                           Parser(std::move(items)).Parse());
  SortByKey(requirements);
  LabelSelector selector;
  selector.requirements_ = std::move(requirements);
  return selector;
}

Result<LabelSelector> LabelSelector::FromJson(const json& selector) {
  LabelSelector out;
  if (selector.is_null()) {
    out.nothing_ = true;
    return out;
  }
  if (!selector.is_object()) {
    return Status::InvalidArgument("label selector must be an object (got " +
                                   std::string(selector.type_name()) + ")");
  }
  std::vector<LabelRequirement> requirements;
  if (auto it = selector.find("matchLabels"); it != selector.end() && !it->is_null()) {
    if (!it->is_object()) {
      return Status::InvalidArgument("matchLabels must be an object (got " +
                                     std::string(it->type_name()) + ")");
    }
    for (const auto& [key, value] : it->items()) {
      std::string field = "matchLabels[" + InQuotes(key) + "]";
      if (!value.is_string()) {
        return Status::InvalidArgument(field + " must be a string (got " +
                                       std::string(value.type_name()) + ")");
      }
      Result<LabelRequirement> r =
          MakeRequirement(key, LabelOp::kEquals, {value.get<std::string>()});
      if (!r.ok()) return r.status().WithContext(field);
      requirements.push_back(std::move(r).value());
    }
  }
  if (auto it = selector.find("matchExpressions"); it != selector.end() && !it->is_null()) {
    if (!it->is_array()) {
      return Status::InvalidArgument("matchExpressions must be a list (got " +
                                     std::string(it->type_name()) + ")");
    }
    for (size_t i = 0; i < it->size(); ++i) {
      const json& expr = (*it)[i];
      std::string field = "matchExpressions[" + std::to_string(i) + "]";
      if (!expr.is_object()) {
        return Status::InvalidArgument(field + " must be an object (got " +
                                       std::string(expr.type_name()) + ")");
      }
      auto key = expr.find("key");
      if (key == expr.end() || !key->is_string()) {
        return Status::InvalidArgument(field + ".key must be a string");
      }
      auto op_it = expr.find("operator");
      if (op_it == expr.end() || !op_it->is_string()) {
        return Status::InvalidArgument(field + ".operator must be a string");
      }
      const std::string& op_text = op_it->get_ref<const std::string&>();
      LabelOp op;
      if (op_text == "In") {
        op = LabelOp::kIn;
      } else if (op_text == "NotIn") {
        op = LabelOp::kNotIn;
      } else if (op_text == "Exists") {
        op = LabelOp::kExists;
      } else if (op_text == "DoesNotExist") {
        op = LabelOp::kDoesNotExist;
      } else {
        return Status::InvalidArgument(field + ".operator: " + InQuotes(op_text) +
                                       " is not a valid label selector operator (In, NotIn, "
                                       "Exists, DoesNotExist)");
      }
      std::vector<std::string> values;
      if (auto v = expr.find("values"); v != expr.end() && !v->is_null()) {
        if (!v->is_array()) return Status::InvalidArgument(field + ".values must be a list");
        for (const json& value : *v) {
          if (!value.is_string()) {
            return Status::InvalidArgument(field + ".values must be strings (got " +
                                           std::string(value.type_name()) + ")");
          }
          values.push_back(value.get<std::string>());
        }
      }
      Result<LabelRequirement> r = MakeRequirement(key->get<std::string>(), op, std::move(values));
      if (!r.ok()) return r.status().WithContext(field);
      requirements.push_back(std::move(r).value());
    }
  }
  SortByKey(requirements);
  out.requirements_ = std::move(requirements);
  return out;
}

bool LabelSelector::Matches(const std::map<std::string, std::string>& labels) const {
  if (nothing_) return false;
  auto lookup = [&](const std::string& key) -> std::optional<std::string_view> {
    auto it = labels.find(key);
    if (it == labels.end()) return std::nullopt;
    return std::string_view(it->second);
  };
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const LabelRequirement& r) { return RequirementMatches(r, lookup); });
}

bool LabelSelector::Matches(const json& labels) const {
  if (nothing_) return false;
  // Values that are not strings cannot come from the API server; they count as absent.
  auto lookup = [&](const std::string& key) -> std::optional<std::string_view> {
    if (!labels.is_object()) return std::nullopt;
    auto it = labels.find(key);
    if (it == labels.end() || !it->is_string()) return std::nullopt;
    return std::string_view(it->get_ref<const std::string&>());
  };
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const LabelRequirement& r) { return RequirementMatches(r, lookup); });
}

std::string LabelSelector::ToString() const {
  std::string out;
  for (const LabelRequirement& r : requirements_) {
    if (!out.empty()) out += ',';
    auto joined = [&] {
      std::string s;
      for (size_t i = 0; i < r.values.size(); ++i) {
        if (i > 0) s += ',';
        s += r.values[i];
      }
      return s;
    };
    switch (r.op) {
      case LabelOp::kEquals:
        out += r.key + "=" + r.values.front();
        break;
      case LabelOp::kNotEquals:
        out += r.key + "!=" + r.values.front();
        break;
      case LabelOp::kIn:
        out += r.key + " in (" + joined() + ")";
        break;
      case LabelOp::kNotIn:
        out += r.key + " notin (" + joined() + ")";
        break;
      case LabelOp::kExists:
        out += r.key;
        break;
      case LabelOp::kDoesNotExist:
        out += "!" + r.key;
        break;
      case LabelOp::kGreaterThan:
        out += r.key + ">" + r.values.front();
        break;
      case LabelOp::kLessThan:
        out += r.key + "<" + r.values.front();
        break;
    }
  }
  return out;
}

Result<FieldSelector> FieldSelector::Parse(std::string_view text) {
  std::vector<std::string_view> terms = SplitFieldTerms(text);
  // Sorted as the API server sorts them, so equal selectors print the same.
  std::sort(terms.begin(), terms.end());
  FieldSelector selector;
  for (std::string_view term : terms) {
    if (term.empty()) continue;
    // The first operator from the left wins, `!=` and `==` before `=` at one position.
    size_t pos = 0;
    std::string_view op;
    for (; pos < term.size(); ++pos) {
      std::string_view rest = term.substr(pos);
      if (rest.starts_with("!=")) {
        op = "!=";
      } else if (rest.starts_with("==")) {
        op = "==";
      } else if (rest.starts_with("=")) {
        op = "=";
      }
      if (!op.empty()) break;
    }
    if (op.empty()) {
      return Status::InvalidArgument("invalid selector: '" + std::string(text) +
                                     "'; can't understand '" + std::string(term) + "'");
    }
    Result<std::string> value = UnescapeFieldValue(term.substr(pos + op.size()));
    if (!value.ok()) return value.status();
    std::string field(term.substr(0, pos));
    // `=` alone (no field, no value) selects everything, as in Kubernetes.
    if (field.empty() && value->empty()) continue;
    selector.requirements_.push_back({std::move(field), op != "!=", std::move(value).value()});
  }
  return selector;
}

Status FieldSelector::CheckFields(const std::vector<std::string_view>& supported) const {
  for (const FieldRequirement& r : requirements_) {
    if (std::find(supported.begin(), supported.end(), r.field) == supported.end()) {
      return Status::InvalidArgument("field label not supported: " + r.field);
    }
  }
  return Status::Ok();
}

bool FieldSelector::Matches(
    const std::function<std::optional<std::string>(std::string_view)>& get) const {
  for (const FieldRequirement& r : requirements_) {
    std::string have = get(r.field).value_or("");
    if ((have == r.value) != r.equals) return false;
  }
  return true;
}

std::optional<std::string_view> FieldSelector::EqualityValue(std::string_view field) const {
  for (const FieldRequirement& r : requirements_) {
    if (r.equals && r.field == field) return std::string_view(r.value);
  }
  return std::nullopt;
}

std::string FieldSelector::ToString() const {
  std::string out;
  for (const FieldRequirement& r : requirements_) {
    if (!out.empty()) out += ',';
    out += FieldTermText(r);
  }
  return out;
}

}  // namespace steward::kube
