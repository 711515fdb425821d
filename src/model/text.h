// Small text helpers shared by every report writer (text, JSON, HTML).
#pragma once

#include <string>
#include <string_view>

namespace steward::model {

// `s` safe inside HTML text and double-quoted attributes (& < > ").
std::string HtmlEscape(std::string_view s);

// `x` rounded to `digits` decimals, so reports print stable, short numbers.
double RoundTo(double x, int digits);

}  // namespace steward::model
