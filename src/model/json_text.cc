#include "model/json_text.h"

namespace steward::model {
namespace {

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

}  // namespace

Result<nlohmann::json> ParseJsonText(std::string_view text, std::string_view source) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    auto [line, col] = Position(text, e.byte);
    return MakeInputError(source, line, col, "json", e.what());
  }
}

}  // namespace steward::model
