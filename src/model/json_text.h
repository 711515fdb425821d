// Parsing a JSON document from text, with errors that name the file, line and column, for every
// reader of Kubernetes objects (`kubectl get ... -o json`).
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "model/status.h"

namespace steward::model {

// `text` parsed as one JSON document; a syntax error is an input error at its line and column
// of `source` (field "json").
Result<nlohmann::json> ParseJsonText(std::string_view text, std::string_view source);

}  // namespace steward::model
