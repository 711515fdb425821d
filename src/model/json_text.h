// Parsing a JSON document from text, with errors that name the file, line and column, for every
// reader of Kubernetes objects (`kubectl get ... -o json`).
//
//   Result<nlohmann::json> doc = ParseJsonText(text, "nodes.json");
//
// Strict as Kubernetes' strict decoding is: a key twice in one object is an error naming the
// object's path (`items[2].metadata.labels: duplicate key "a"`), not silently the last value. A
// number beyond a double (1e400) is an error at its line and column, never an exception. Pure
// function: thread-safe; O(size of the text).
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "model/status.h"

namespace steward::model {

// `text` parsed as one JSON document; a syntax error is an input error at its line and column
// of `source` (field "json"); a duplicate key an error naming its object's path.
Result<nlohmann::json> ParseJsonText(std::string_view text, std::string_view source);

}  // namespace steward::model
