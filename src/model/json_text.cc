#include "model/json_text.h"

#include <fmt/format.h>

#include <set>
#include <string>
#include <vector>

namespace steward::model {
namespace {

using nlohmann::json;

// Line and column (1-based) of byte offset `byte` (1-based, as nlohmann reports it).
std::pair<int, int> Position(std::string_view text, size_t byte) {
  int line = 1, col = 1;
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// nlohmann's DOM builder plus what it lacks: refusing a duplicate key, and reporting every parse
// error (a number overflow too, which the DOM parser throws as out_of_range without a position)
// instead of throwing.
class StrictDomBuilder {
 public:
  explicit StrictDomBuilder(json& root) : dom_(root, /*allow_exceptions=*/false) {}

  bool null() { return Value() && dom_.null(); }
  bool boolean(bool v) { return Value() && dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return Value() && dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return Value() && dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const std::string& s) {
    return Value() && dom_.number_float(v, s);
  }
  bool string(std::string& v) { return Value() && dom_.string(v); }
  bool binary(json::binary_t& v) { return Value() && dom_.binary(v); }
  bool start_object(std::size_t n) {
    if (!Value()) return false;
    frames_.push_back({false, 0, {}, {}});
    return dom_.start_object(n);
  }
  bool key(std::string& k) {
    Frame& f = frames_.back();
    if (!f.keys.insert(k).second) {
      duplicate_ = fmt::format("duplicate key \"{}\"", k);
      return false;
    }
    f.key = k;
    return dom_.key(k);
  }
  bool end_object() {
    frames_.pop_back();
    return dom_.end_object();
  }
  bool start_array(std::size_t n) {
    if (!Value()) return false;
    frames_.push_back({true, 0, {}, {}});
    return dom_.start_array(n);
  }
  bool end_array() {
    frames_.pop_back();
    return dom_.end_array();
  }
  bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception& e) {
    error_byte_ = byte;
    // "[json.exception.out_of_range.406] number overflow ..." without the library's tag.
    std::string_view what = e.what();
    if (what.starts_with("[json.exception.")) {
      if (size_t end = what.find("] "); end != std::string_view::npos) what.remove_prefix(end + 2);
    }
    error_ = what;
    return false;
  }

  // Where the parse stopped: a syntax error (byte > 0) or a duplicate key (path of its object).
  size_t error_byte() const { return error_byte_; }
  const std::string& error() const { return error_; }
  const std::string& duplicate() const { return duplicate_; }
  std::string Path() const {
    std::string path;
    for (size_t i = 0; i < frames_.size(); ++i) {
      // A frame's own position is recorded in its parent; the innermost is the object itself.
      if (i + 1 == frames_.size()) break;
      const Frame& f = frames_[i];
      if (f.is_array) {
        path += fmt::format("[{}]", f.index - 1);
      } else {
        path += (path.empty() ? "" : ".") + f.key;
      }
    }
    return path.empty() ? "(top level)" : path;
  }

 private:
  struct Frame {
    bool is_array;
    size_t index;  // Array: elements seen so far.
    std::string key;
    std::set<std::string> keys;
  };
  // Counts an element of the enclosing array (for the path).
  bool Value() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
    return true;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::vector<Frame> frames_;
  size_t error_byte_ = 0;
  std::string error_, duplicate_;
};

}  // namespace

Result<nlohmann::json> ParseJsonText(std::string_view text, std::string_view source) {
  json root;
  StrictDomBuilder builder(root);
  bool ok = false;
  try {
    ok = json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const json::exception& e) {  // Defensive: the builder reports instead of throwing.
    return MakeInputError(source, 0, 0, "json", e.what());
  }
  if (ok) return root;
  if (!builder.duplicate().empty()) {
    return MakeInputError(source, 0, 0, builder.Path(), builder.duplicate());
  }
  auto [line, col] = Position(text, builder.error_byte());
  return MakeInputError(source, line, col, "json", builder.error());
}

}  // namespace steward::model
