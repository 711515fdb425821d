// Small text helpers shared by every report writer (text, JSON, HTML).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace steward::model {

// `s` safe inside HTML text and double-quoted attributes (& < > ").
std::string HtmlEscape(std::string_view s);

// `x` rounded to `digits` decimals, so reports print stable, short numbers.
double RoundTo(double x, int digits);

// Standard base64 (RFC 4648 §4, with padding), as kubeconfig's *-data fields and Kubernetes
// Secrets carry binary data.
std::string Base64Encode(std::string_view bytes);
// Decodes standard or URL-safe base64, padded or not, ignoring whitespace; nullopt when
// `text` is not base64.
std::optional<std::string> Base64Decode(std::string_view text);

// `text` with CR LF and lone CR line endings turned into LF (classic Mac files, mixed endings),
// so line numbers and line-based readers agree with what an editor shows.
std::string NormalizeLineEndings(std::string_view text);

}  // namespace steward::model
