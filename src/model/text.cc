#include "model/text.h"

#include <cmath>

namespace steward::model {

std::string HtmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

double RoundTo(double x, int digits) {
  const double f = std::pow(10.0, digits);
  return std::round(x * f) / f;
}

}  // namespace steward::model
