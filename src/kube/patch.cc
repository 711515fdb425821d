#include "kube/patch.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace steward::kube {
namespace {

using nlohmann::json;

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string Got(const json& j) { return " (got " + std::string(j.type_name()) + ")"; }

// `j` as compact JSON, cut short so an error about a large element stays readable.
std::string Brief(const json& j) {
  constexpr size_t kMax = 160;
  std::string text = j.dump();
  if (text.size() > kMax) text = text.substr(0, kMax) + "...";
  return text;
}

// ---------------------------------------------------------------------------------------------
// JSON merge patch (RFC 7386)

json MergeValue(json target, const json& patch) {
  if (!patch.is_object()) return patch;
  if (!target.is_object()) target = json::object();
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null()) {
      target.erase(key);
      continue;
    }
    auto it = target.find(key);
    if (it == target.end()) {
      target[key] = MergeValue(json(), value);
    } else {
      *it = MergeValue(std::move(*it), value);
    }
  }
  return target;
}

// ---------------------------------------------------------------------------------------------
// JSON patch (RFC 6902) with JSON pointers (RFC 6901)

struct Pointer {
  std::string text;
  std::vector<std::string> tokens;  // Unescaped; empty for the whole document.
};

Result<Pointer> ParsePointer(const json& text) {
  const std::string& s = text.get_ref<const std::string&>();
  Pointer p{s, {}};
  if (s.empty()) return p;
  if (s.front() != '/') {
    return Status::InvalidArgument("JSON pointer " + Quoted(s) +
                                   " must be empty or start with '/'");
  }
  std::string token;
  for (size_t i = 1; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '/') {
      p.tokens.push_back(std::move(token));
      token.clear();
    } else if (s[i] == '~') {
      char next = i + 1 < s.size() ? s[i + 1] : '\0';
      if (next != '0' && next != '1') {
        return Status::InvalidArgument("JSON pointer " + Quoted(s) +
                                       ": '~' must be followed by '0' or '1'");
      }
      token += next == '0' ? '~' : '/';
      ++i;
    } else {
      token += s[i];
    }
  }
  return p;
}

std::string PointerPrefix(const Pointer& p, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += '/';
    for (char c : p.tokens[i]) {
      if (c == '~') {
        out += "~0";
      } else if (c == '/') {
        out += "~1";
      } else {
        out += c;
      }
    }
  }
  return out;
}

// An array index as RFC 6901 spells it: "0", or digits without a leading zero.
std::optional<size_t> ArrayIndex(std::string_view token) {
  if (token.empty() || (token.size() > 1 && token.front() == '0')) return std::nullopt;
  size_t n = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    if (n > (static_cast<size_t>(-1) - 9) / 10) return std::nullopt;  // Far beyond any list.
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  return n;
}

// The value at the first `n` tokens of `p`.
Result<json*> Locate(json& doc, const Pointer& p, size_t n) {
  json* cur = &doc;
  for (size_t i = 0; i < n; ++i) {
    const std::string& token = p.tokens[i];
    if (cur->is_object()) {
      auto it = cur->find(token);
      if (it == cur->end()) {
        return Status::FailedPrecondition(Quoted(PointerPrefix(p, i + 1)) + " does not exist");
      }
      cur = &*it;
    } else if (cur->is_array()) {
      std::optional<size_t> index = ArrayIndex(token);
      if (!index) {
        return Status::FailedPrecondition(Quoted(PointerPrefix(p, i)) + " is a list and " +
                                          Quoted(token) + " is not an index in it");
      }
      if (*index >= cur->size()) {
        return Status::FailedPrecondition(Quoted(PointerPrefix(p, i + 1)) +
                                          " does not exist: index out of range (the list has " +
                                          std::to_string(cur->size()) + " elements)");
      }
      cur = &(*cur)[*index];
    } else {
      return Status::FailedPrecondition(Quoted(PointerPrefix(p, i + 1)) + " does not exist: " +
                                        Quoted(PointerPrefix(p, i)) + " is a " + cur->type_name());
    }
  }
  return cur;
}

Status AddValue(json& doc, const Pointer& p, json value) {
  if (p.tokens.empty()) {
    doc = std::move(value);
    return Status::Ok();
  }
  STEWARD_ASSIGN_OR_RETURN(json * parent, Locate(doc, p, p.tokens.size() - 1));
  const std::string& last = p.tokens.back();
  if (parent->is_object()) {
    (*parent)[last] = std::move(value);
    return Status::Ok();
  }
  if (parent->is_array()) {
    if (last == "-") {
      parent->push_back(std::move(value));
      return Status::Ok();
    }
    std::optional<size_t> index = ArrayIndex(last);
    if (!index) {
      return Status::FailedPrecondition(Quoted(PointerPrefix(p, p.tokens.size() - 1)) +
                                        " is a list and " + Quoted(last) +
                                        " is not an index in it");
    }
    if (*index > parent->size()) {
      return Status::FailedPrecondition("index " + std::to_string(*index) +
                                        " is out of range (the list has " +
                                        std::to_string(parent->size()) + " elements)");
    }
    auto& list = parent->get_ref<json::array_t&>();
    list.insert(list.begin() + static_cast<std::ptrdiff_t>(*index), std::move(value));
    return Status::Ok();
  }
  return Status::FailedPrecondition(Quoted(PointerPrefix(p, p.tokens.size() - 1)) + " is a " +
                                    parent->type_name() + ", not an object or a list");
}

Result<json> RemoveValue(json& doc, const Pointer& p) {
  if (p.tokens.empty()) {
    return Status::InvalidArgument("the whole document cannot be removed");
  }
  STEWARD_ASSIGN_OR_RETURN(json * target, Locate(doc, p, p.tokens.size()));
  json value = std::move(*target);
  // The parent exists: locating the child went through it.
  json* parent = Locate(doc, p, p.tokens.size() - 1).value();
  if (parent->is_object()) {
    parent->erase(p.tokens.back());
  } else {
    auto& list = parent->get_ref<json::array_t&>();
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(*ArrayIndex(p.tokens.back())));
  }
  return value;
}

enum class JsonPatchOp : uint8_t { kAdd, kRemove, kReplace, kMove, kCopy, kTest };

struct JsonPatchOperation {
  JsonPatchOp op;
  std::string name;  // "add", ...
  Pointer path;
  Pointer from;                 // move and copy.
  const json* value = nullptr;  // add, replace and test.
};

// Checks the shape of every operation before any is applied, so a malformed patch is a 400
// whatever the object holds.
Result<std::vector<JsonPatchOperation>> DecodeJsonPatch(const json& patch) {
  if (!patch.is_array()) {
    return Status::InvalidArgument("a JSON patch must be a list of operations" + Got(patch));
  }
  std::vector<JsonPatchOperation> ops;
  ops.reserve(patch.size());
  for (size_t i = 0; i < patch.size(); ++i) {
    const json& item = patch[i];
    std::string where = "operation " + std::to_string(i);
    if (!item.is_object()) {
      return Status::InvalidArgument(where + " must be an object" + Got(item));
    }
    auto op_it = item.find("op");
    if (op_it == item.end() || !op_it->is_string()) {
      return Status::InvalidArgument(where + ": \"op\" must be a string");
    }
    JsonPatchOperation op;
    op.name = op_it->get<std::string>();
    static const std::pair<std::string_view, JsonPatchOp> kOps[] = {
        {"add", JsonPatchOp::kAdd},         {"remove", JsonPatchOp::kRemove},
        {"replace", JsonPatchOp::kReplace}, {"move", JsonPatchOp::kMove},
        {"copy", JsonPatchOp::kCopy},       {"test", JsonPatchOp::kTest}};
    auto known = std::find_if(std::begin(kOps), std::end(kOps),
                              [&](const auto& k) { return k.first == op.name; });
    if (known == std::end(kOps)) {
      return Status::InvalidArgument(where + ": unknown op " + Quoted(op.name) +
                                     " (add, remove, replace, move, copy, test)");
    }
    op.op = known->second;
    where += " (" + op.name + ")";
    auto path = item.find("path");
    if (path == item.end() || !path->is_string()) {
      return Status::InvalidArgument(where + ": \"path\" must be a string");
    }
    Result<Pointer> parsed = ParsePointer(*path);
    if (!parsed.ok()) return parsed.status().WithContext(where);
    op.path = std::move(parsed).value();
    if (op.op == JsonPatchOp::kMove || op.op == JsonPatchOp::kCopy) {
      auto from = item.find("from");
      if (from == item.end() || !from->is_string()) {
        return Status::InvalidArgument(where + ": \"from\" must be a string");
      }
      Result<Pointer> parsed_from = ParsePointer(*from);
      if (!parsed_from.ok()) return parsed_from.status().WithContext(where);
      op.from = std::move(parsed_from).value();
      const auto& f = op.from.tokens;
      const auto& t = op.path.tokens;
      if (op.op == JsonPatchOp::kMove && f.size() < t.size() &&
          std::equal(f.begin(), f.end(), t.begin())) {
        return Status::InvalidArgument(where + ": " + Quoted(op.from.text) +
                                       " cannot be moved into one of its children");
      }
    }
    if (op.op == JsonPatchOp::kAdd || op.op == JsonPatchOp::kReplace ||
        op.op == JsonPatchOp::kTest) {
      auto value = item.find("value");
      if (value == item.end()) return Status::InvalidArgument(where + ": \"value\" is missing");
      op.value = &*value;
    }
    ops.push_back(std::move(op));
  }
  return ops;
}

Status ApplyOperation(json& doc, const JsonPatchOperation& op) {
  switch (op.op) {
    case JsonPatchOp::kAdd:
      return AddValue(doc, op.path, *op.value);
    case JsonPatchOp::kRemove:
      return RemoveValue(doc, op.path).status();
    case JsonPatchOp::kReplace: {
      STEWARD_ASSIGN_OR_RETURN(json * target, Locate(doc, op.path, op.path.tokens.size()));
      *target = *op.value;
      return Status::Ok();
    }
    case JsonPatchOp::kMove: {
      if (op.from.tokens == op.path.tokens) {
        return Locate(doc, op.from, op.from.tokens.size()).status();
      }
      Result<json> value = RemoveValue(doc, op.from);
      if (!value.ok()) return value.status().WithContext("from");
      return AddValue(doc, op.path, std::move(value).value());
    }
    case JsonPatchOp::kCopy: {
      Result<json*> source = Locate(doc, op.from, op.from.tokens.size());
      if (!source.ok()) return source.status().WithContext("from");
      return AddValue(doc, op.path, **source);
    }
    case JsonPatchOp::kTest: {
      STEWARD_ASSIGN_OR_RETURN(json * target, Locate(doc, op.path, op.path.tokens.size()));
      // nlohmann compares objects member-wise regardless of order and numbers by value.
      if (*target != *op.value) {
        return Status::FailedPrecondition("test failed: the value is " + Brief(*target) + ", not " +
                                          Brief(*op.value));
      }
      return Status::Ok();
    }
  }
  return Status::Internal("unhandled JSON patch op");
}

// ---------------------------------------------------------------------------------------------
// Strategic merge patch

constexpr std::string_view kPatchDirective = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kSetElementOrder = "$setElementOrder";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList";

std::string ChildPath(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string Shown(const std::string& path) { return path.empty() ? "the object" : path; }

// The list a `$setElementOrder/<list>` or `$deleteFromPrimitiveList/<list>` directive names.
Result<std::string> DirectiveTarget(std::string_view key, std::string_view prefix) {
  if (key.size() <= prefix.size() + 1 || key[prefix.size()] != '/') {
    return Status::InvalidArgument(Quoted(key) + " must have the form " + std::string(prefix) +
                                   "/<list>");
  }
  return std::string(key.substr(prefix.size() + 1));
}

bool IsDirectiveKey(std::string_view key) {
  return key == kRetainKeys || key.starts_with(std::string(kSetElementOrder) + "/") ||
         key.starts_with(std::string(kDeleteFromPrimitiveList) + "/");
}

// A patch value that lands where the object has nothing to merge with: maps carrying `$patch`
// are dropped (false when `v` itself is one), nulls and ordering directives are removed, as the
// API server's typed decoding would.
bool CleanNewValue(json& v) {
  if (v.is_object()) {
    if (v.contains(kPatchDirective)) return false;
    for (auto it = v.begin(); it != v.end();) {
      if (it->is_null() || IsDirectiveKey(it.key()) || !CleanNewValue(*it)) {
        it = v.erase(it);
      } else {
        ++it;
      }
    }
  } else if (v.is_array()) {
    json kept = json::array();
    for (json& e : v) {
      if (CleanNewValue(e)) kept.push_back(std::move(e));
    }
    v = std::move(kept);
  }
  return true;
}

// Element kinds that must agree across a list: lists of lists cannot be merged.
enum class Kind : uint8_t { kObject, kArray, kScalar };

Kind KindOf(const json& j) {
  if (j.is_object()) return Kind::kObject;
  if (j.is_array()) return Kind::kArray;
  return Kind::kScalar;
}

// The common kind of the elements of both lists (at least one non-empty).
Result<Kind> ElementKind(const json& original, const json& patch, const std::string& path) {
  std::optional<Kind> patch_kind;
  for (const json& e : patch) {
    Kind k = KindOf(e);
    if (k == Kind::kArray) return Status::InvalidArgument(path + ": lists of lists cannot merge");
    if (patch_kind && *patch_kind != k) {
      return Status::InvalidArgument(path + ": the patch mixes objects and plain values");
    }
    patch_kind = k;
  }
  std::optional<Kind> kind = patch_kind;
  for (const json& e : original) {
    Kind k = KindOf(e);
    if (k == Kind::kArray) {
      return Status::FailedPrecondition(path + ": lists of lists cannot merge");
    }
    if (kind && *kind != k) {
      return Status::FailedPrecondition(path +
                                        ": the patch and the object disagree on whether the "
                                        "list holds objects or plain values");
    }
    kind = k;
  }
  return *kind;
}

// What identifies a list element: its merge key's value, or the element itself for lists of
// plain values. Null when an object lacks the key (callers check first where that matters).
const json& Identity(const json& element, std::string_view merge_key) {
  static const json kNull;
  if (merge_key.empty() || !element.is_object()) return element;
  auto it = element.find(merge_key);
  return it == element.end() ? kNull : *it;
}

Status RequireMergeKey(const json& element, std::string_view merge_key, const std::string& path) {
  if (!element.is_object() || !element.contains(merge_key)) {
    return Status::FailedPrecondition(path + ": element " + Brief(element) +
                                      " does not contain the merge key " + Quoted(merge_key));
  }
  return Status::Ok();
}

std::ptrdiff_t IndexOf(const std::vector<json>& ids, const json& id) {
  auto it = std::find(ids.begin(), ids.end(), id);
  return it == ids.end() ? -1 : it - ids.begin();
}

// Orders a merged list as the API server does: the elements named by `patch_order` in that
// order, the others ("server-only") in their `server_order`, interleaved so that a server-only
// element precedes a patch element when both appear in `server_order` and it comes first
// there. Elements unknown to the old list therefore come as early as the patch order allows.
json OrderMergedList(json merged, const std::vector<json>& patch_order,
                     const std::vector<json>& server_order, std::string_view merge_key) {
  struct Entry {
    json element;
    std::ptrdiff_t patch_index;
    std::ptrdiff_t server_index;  // -1: not in the old list.
  };
  std::vector<Entry> from_patch;
  std::vector<Entry> server_only;
  for (json& e : merged) {
    const json& id = Identity(e, merge_key);
    Entry entry{json(), IndexOf(patch_order, id), IndexOf(server_order, id)};
    entry.element = std::move(e);
    (entry.patch_index >= 0 ? from_patch : server_only).push_back(std::move(entry));
  }
  std::stable_sort(from_patch.begin(), from_patch.end(),
                   [](const Entry& a, const Entry& b) { return a.patch_index < b.patch_index; });
  auto server_rank = [](const Entry& e) {
    return e.server_index < 0 ? PTRDIFF_MAX : e.server_index;
  };
  std::stable_sort(server_only.begin(), server_only.end(),
                   [&](const Entry& a, const Entry& b) { return server_rank(a) < server_rank(b); });
  json out = json::array();
  size_t i = 0;
  size_t j = 0;
  while (i < server_only.size() || j < from_patch.size()) {
    bool take_server = j == from_patch.size();
    if (i < server_only.size() && j < from_patch.size()) {
      const Entry& s = server_only[i];
      const Entry& p = from_patch[j];
      take_server = s.server_index >= 0 && p.server_index >= 0 && s.server_index < p.server_index;
    }
    out.push_back(std::move(take_server ? server_only[i++].element : from_patch[j++].element));
  }
  return out;
}

class StrategicMerger {
 public:
  explicit StrategicMerger(const StrategicSchema& schema) : schema_(schema) {}

  // Merges `patch` (an object) into `original`, which becomes an object.
  Status MergeMap(json& original, json patch, const std::string& path) {
    if (auto d = patch.find(kPatchDirective); d != patch.end()) {
      std::string directive = d->is_string() ? d->get<std::string>() : Brief(*d);
      if (directive == "replace") {
        patch.erase(d);
        CleanNewValue(patch);
        original = std::move(patch);
        return Status::Ok();
      }
      if (directive == "delete") {
        original = json::object();
        return Status::Ok();
      }
      if (directive != "merge") {
        return Status::InvalidArgument(Shown(path) + ": unknown $patch directive " +
                                       Quoted(directive) + " (replace, merge, delete)");
      }
      patch.erase(d);
    }
    if (!original.is_object()) original = json::object();
    STEWARD_RETURN_IF_ERROR(RetainKeys(original, patch, path));
    STEWARD_RETURN_IF_ERROR(SetElementOrders(original, patch, path));
    // Deletions from primitive lists come after the lists' own merges.
    std::vector<std::string> delete_lists;
    for (auto& [key, value] : patch.items()) {
      if (key.starts_with(kDeleteFromPrimitiveList)) {
        delete_lists.push_back(key);
        continue;
      }
      STEWARD_RETURN_IF_ERROR(MergeField(original, key, std::move(value), path, false));
    }
    for (const std::string& key : delete_lists) {
      STEWARD_ASSIGN_OR_RETURN(std::string list, DirectiveTarget(key, kDeleteFromPrimitiveList));
      STEWARD_RETURN_IF_ERROR(MergeField(original, list, std::move(patch[key]), path, true));
    }
    return Status::Ok();
  }

 private:
  std::string_view MergeKey(const std::string& list_path) const {
    auto it = schema_.merge_keys.find(list_path);
    return it == schema_.merge_keys.end() ? std::string_view() : std::string_view(it->second);
  }
  bool IsMergedList(const std::string& list_path) const {
    return schema_.merge_keys.contains(list_path) || schema_.primitive_sets.contains(list_path);
  }

  Status MergeField(json& original, const std::string& key, json value, const std::string& path,
                    bool delete_list) {
    std::string child = ChildPath(path, key);
    if (value.is_null()) {
      original.erase(key);
      return Status::Ok();
    }
    if (delete_list && !value.is_array()) {
      return Status::InvalidArgument(std::string(kDeleteFromPrimitiveList) + "/" + child +
                                     " must be a list" + Got(value));
    }
    auto it = original.find(key);
    if (it == original.end() || it->is_null() || KindOf(*it) != KindOf(value)) {
      if (delete_list) return Status::Ok();  // Nothing to delete from.
      if (CleanNewValue(value)) {
        original[key] = std::move(value);
      } else {
        original.erase(key);
      }
      return Status::Ok();
    }
    if (it->is_object()) {
      if (schema_.replaced_maps.contains(child)) {
        if (CleanNewValue(value)) {
          *it = std::move(value);
        } else {
          original.erase(it);
        }
        return Status::Ok();
      }
      return MergeMap(*it, std::move(value), child);
    }
    if (it->is_array()) {
      if (!IsMergedList(child) && !delete_list) {
        CleanNewValue(value);
        *it = std::move(value);
        return Status::Ok();
      }
      return MergeList(*it, std::move(value), child, delete_list);
    }
    *it = std::move(value);
    return Status::Ok();
  }

  // Merges a list with a merge strategy (or deletes from it): `original` becomes the result.
  Status MergeList(json& original, json patch, const std::string& path, bool delete_list) {
    if (original.empty() && patch.empty()) return Status::Ok();
    STEWARD_ASSIGN_OR_RETURN(Kind kind, ElementKind(original, patch, path));
    std::string_view merge_key = MergeKey(path);
    if (kind != Kind::kObject) {
      auto& list = original.get_ref<json::array_t&>();
      if (delete_list) {
        std::erase_if(list, [&](const json& e) {
          return std::find(patch.begin(), patch.end(), e) != patch.end();
        });
        return Status::Ok();
      }
      std::vector<json> server_order(list.begin(), list.end());
      json merged = json::array();
      for (const json* source : {&original, &patch}) {
        for (const json& e : *source) {
          if (std::find(merged.begin(), merged.end(), e) == merged.end()) merged.push_back(e);
        }
      }
      std::vector<json> patch_order(patch.begin(), patch.end());
      original = OrderMergedList(std::move(merged), patch_order, server_order, {});
      return Status::Ok();
    }
    if (delete_list) {
      return Status::FailedPrecondition(std::string(kDeleteFromPrimitiveList) + "/" + path +
                                        ": the list holds objects, not plain values");
    }
    if (merge_key.empty()) {
      return Status::FailedPrecondition(path + ": a list of objects cannot merge without a key");
    }
    auto& list = original.get_ref<json::array_t&>();
    // Directive elements first: `$patch: delete` removes by key, `$patch: replace` makes the
    // remaining patch elements the whole list.
    json plain = json::array();
    bool replace = false;
    for (json& e : patch) {
      auto d = e.find(kPatchDirective);
      if (d == e.end()) {
        plain.push_back(std::move(e));
        continue;
      }
      std::string directive = d->is_string() ? d->get<std::string>() : Brief(*d);
      if (directive == "delete") {
        STEWARD_RETURN_IF_ERROR(RequireMergeKey(e, merge_key, path));
        const json& id = e[std::string(merge_key)];
        std::erase_if(list, [&](const json& o) {
          return o.is_object() && o.contains(merge_key) && Identity(o, merge_key) == id;
        });
      } else if (directive == "replace") {
        replace = true;
      } else if (directive == "merge") {
        return Status::InvalidArgument(path + ": $patch: merge cannot be given inside a list");
      } else {
        return Status::InvalidArgument(path + ": unknown $patch directive " + Quoted(directive) +
                                       " (replace, delete)");
      }
    }
    if (replace) {
      for (const json& e : plain) STEWARD_RETURN_IF_ERROR(RequireMergeKey(e, merge_key, path));
      CleanNewValue(plain);
      original = std::move(plain);
      return Status::Ok();
    }
    std::vector<json> server_order;
    for (const json& e : list) {
      STEWARD_RETURN_IF_ERROR(RequireMergeKey(e, merge_key, path));
      server_order.push_back(Identity(e, merge_key));
    }
    std::vector<json> patch_order;
    for (json& e : plain) {
      STEWARD_RETURN_IF_ERROR(RequireMergeKey(e, merge_key, path));
      json id = Identity(e, merge_key);
      auto match = std::find_if(list.begin(), list.end(),
                                [&](const json& o) { return Identity(o, merge_key) == id; });
      if (match != list.end()) {
        STEWARD_RETURN_IF_ERROR(MergeMap(*match, std::move(e), path));
      } else {
        CleanNewValue(e);
        list.push_back(std::move(e));
      }
      patch_order.push_back(std::move(id));
    }
    original = OrderMergedList(std::move(original), patch_order, server_order, merge_key);
    return Status::Ok();
  }

  // `$retainKeys: [...]`: the object keeps only these keys, and the patch may set no others.
  Status RetainKeys(json& original, json& patch, const std::string& path) {
    auto it = patch.find(kRetainKeys);
    if (it == patch.end()) return Status::Ok();
    json keys = std::move(*it);
    patch.erase(it);
    if (!keys.is_array()) {
      return Status::InvalidArgument(Shown(path) + ": $retainKeys must be a list" + Got(keys));
    }
    std::set<std::string, std::less<>> retained;
    for (const json& k : keys) {
      if (!k.is_string()) {
        return Status::InvalidArgument(Shown(path) + ": $retainKeys must list field names");
      }
      retained.insert(k.get<std::string>());
    }
    for (const auto& [key, value] : patch.items()) {
      if (value.is_null() || key.starts_with(kDeleteFromPrimitiveList) ||
          key.starts_with(kSetElementOrder)) {
        continue;
      }
      if (!retained.contains(key)) {
        return Status::InvalidArgument(Shown(path) + ": the patch sets " + Quoted(key) +
                                       ", which $retainKeys does not list");
      }
    }
    for (auto o = original.begin(); o != original.end();) {
      o = retained.contains(o.key()) ? std::next(o) : original.erase(o);
    }
    return Status::Ok();
  }

  // `$setElementOrder/<list>: [...]`: merges <list> (if the patch has it) and orders the result
  // as listed; elements the order does not name keep their place relative to the old list.
  Status SetElementOrders(json& original, json& patch, const std::string& path) {
    std::vector<std::string> directives;
    for (const auto& item : patch.items()) {
      if (item.key().starts_with(kSetElementOrder)) directives.push_back(item.key());
    }
    for (const std::string& directive : directives) {
      json order = std::move(patch[directive]);
      patch.erase(directive);
      STEWARD_ASSIGN_OR_RETURN(std::string key, DirectiveTarget(directive, kSetElementOrder));
      std::string list_path = ChildPath(path, key);
      if (!order.is_array()) {
        return Status::InvalidArgument(directive + " must be a list" + Got(order));
      }
      auto orig = original.find(key);
      bool has_original = orig != original.end() && !orig->is_null();
      if (has_original && !orig->is_array()) {
        return Status::FailedPrecondition(list_path + " is not a list" + Got(*orig));
      }
      auto in_patch = patch.find(key);
      bool has_patch = in_patch != patch.end();
      if (has_patch && !in_patch->is_array()) {
        return Status::InvalidArgument(list_path + " must be a list next to " + directive +
                                       Got(*in_patch));
      }
      if (!has_original && !has_patch) continue;
      std::string_view merge_key = MergeKey(list_path);
      if (has_patch) {
        STEWARD_RETURN_IF_ERROR(
            CheckPatchFollowsOrder(*in_patch, order, merge_key, list_path, directive));
      }
      std::vector<json> server_order;
      if (has_original) {
        for (const json& e : *orig) server_order.push_back(Identity(e, merge_key));
      }
      json merged;
      if (has_original && !has_patch) {
        merged = std::move(*orig);
      } else if (!has_original) {
        merged = std::move(*in_patch);
        CleanNewValue(merged);
      } else {
        merged = std::move(*orig);
        STEWARD_RETURN_IF_ERROR(MergeListField(merged, std::move(*in_patch), list_path));
      }
      if (has_patch) patch.erase(key);
      std::vector<json> order_ids;
      for (const json& e : order) {
        if (!merge_key.empty()) STEWARD_RETURN_IF_ERROR(RequireMergeKey(e, merge_key, directive));
        order_ids.push_back(Identity(e, merge_key));
      }
      if (!merge_key.empty()) {
        for (const json& e : merged)
          STEWARD_RETURN_IF_ERROR(RequireMergeKey(e, merge_key, list_path));
      }
      original[key] = OrderMergedList(std::move(merged), order_ids, server_order, merge_key);
    }
    return Status::Ok();
  }

  Status MergeListField(json& original, json patch, const std::string& list_path) {
    if (!IsMergedList(list_path)) {
      CleanNewValue(patch);
      original = std::move(patch);
      return Status::Ok();
    }
    return MergeList(original, std::move(patch), list_path, false);
  }

  // The patch's own elements (deletions and directives aside) must appear in the order the
  // `$setElementOrder` list gives them.
  static Status CheckPatchFollowsOrder(const json& patch_list, const json& order,
                                       std::string_view merge_key, const std::string& path,
                                       const std::string& directive) {
    std::vector<const json*> elements;
    for (const json& e : patch_list) {
      if (e.is_object() && e.contains(kPatchDirective)) continue;
      elements.push_back(&e);
    }
    size_t p = 0;
    size_t o = 0;
    while (p < elements.size() && o < order.size()) {
      if (!merge_key.empty()) {
        STEWARD_RETURN_IF_ERROR(RequireMergeKey(*elements[p], merge_key, path));
        STEWARD_RETURN_IF_ERROR(RequireMergeKey(order[o], merge_key, path));
      }
      if (Identity(*elements[p], merge_key) == Identity(order[o], merge_key)) ++p;
      ++o;
    }
    if (p < elements.size()) {
      return Status::InvalidArgument(path + ": the order of the patch list does not match " +
                                     directive);
    }
    return Status::Ok();
  }

  const StrategicSchema& schema_;
};

StrategicSchema ObjectMetaSchema() {
  StrategicSchema s;
  s.merge_keys["metadata.ownerReferences"] = "uid";
  s.primitive_sets["metadata.finalizers"] = true;
  return s;
}

// A container's own merged lists (Container and EphemeralContainer share them).
void AddContainerList(StrategicSchema& s, const std::string& list) {
  s.merge_keys[list] = "name";
  s.merge_keys[list + ".ports"] = "containerPort";
  s.merge_keys[list + ".env"] = "name";
  s.merge_keys[list + ".volumeMounts"] = "mountPath";
  s.merge_keys[list + ".volumeDevices"] = "devicePath";
}

StrategicSchema PodSchema() {
  StrategicSchema s = ObjectMetaSchema();
  AddContainerList(s, "spec.containers");
  AddContainerList(s, "spec.initContainers");
  AddContainerList(s, "spec.ephemeralContainers");
  s.merge_keys["spec.volumes"] = "name";
  s.merge_keys["spec.imagePullSecrets"] = "name";
  s.merge_keys["spec.hostAliases"] = "ip";
  s.merge_keys["spec.topologySpreadConstraints"] = "topologyKey";
  s.merge_keys["spec.schedulingGates"] = "name";
  s.merge_keys["spec.resourceClaims"] = "name";
  s.merge_keys["status.conditions"] = "type";
  s.merge_keys["status.podIPs"] = "ip";
  s.merge_keys["status.hostIPs"] = "ip";
  s.merge_keys["status.resourceClaimStatuses"] = "name";
  // spec.tolerations and status.containerStatuses have no patch strategy: replaced.
  return s;
}

StrategicSchema NodeSchema() {
  StrategicSchema s = ObjectMetaSchema();
  s.primitive_sets["spec.podCIDRs"] = true;
  s.merge_keys["status.conditions"] = "type";
  s.merge_keys["status.addresses"] = "type";
  // spec.taints and status.images have no patch strategy: replaced.
  return s;
}

StrategicSchema WithConditions(StrategicSchema s) {
  s.merge_keys["status.conditions"] = "type";
  return s;
}

}  // namespace

Result<json> ApplyMergePatch(const json& target, const json& patch) {
  if (!patch.is_object()) {
    return Status::InvalidArgument("a merge patch of an object must be a JSON object" + Got(patch));
  }
  return MergeValue(target, patch);
}

Result<json> ApplyJsonPatch(const json& target, const json& patch) {
  STEWARD_ASSIGN_OR_RETURN(std::vector<JsonPatchOperation> ops, DecodeJsonPatch(patch));
  json doc = target;
  for (size_t i = 0; i < ops.size(); ++i) {
    Status s = ApplyOperation(doc, ops[i]);
    if (!s.ok()) {
      return s.WithContext("operation " + std::to_string(i) + " (" + ops[i].name + " " +
                           Quoted(ops[i].path.text) + ")");
    }
  }
  return doc;
}

const StrategicSchema& StrategicSchemaFor(std::string_view kind) {
  static const StrategicSchema kObjectMeta = ObjectMetaSchema();
  static const StrategicSchema kNode = NodeSchema();
  static const StrategicSchema kPod = PodSchema();
  static const StrategicSchema kNamespace = WithConditions(ObjectMetaSchema());
  static const StrategicSchema kPodDisruptionBudget = [] {
    StrategicSchema s = WithConditions(ObjectMetaSchema());
    s.replaced_maps["spec.selector"] = true;
    return s;
  }();
  if (kind == "Node") return kNode;
  if (kind == "Pod") return kPod;
  if (kind == "Namespace") return kNamespace;
  if (kind == "PodDisruptionBudget") return kPodDisruptionBudget;
  // Event, Lease, ConfigMap and the rest: only ObjectMeta's lists have a strategy.
  return kObjectMeta;
}

Result<json> ApplyStrategicMergePatch(const json& target, const json& patch,
                                      const StrategicSchema& schema) {
  if (!patch.is_object()) {
    return Status::InvalidArgument("a strategic merge patch must be a JSON object" + Got(patch));
  }
  json result = target.is_null() ? json::object() : target;
  if (!result.is_object()) {
    return Status::FailedPrecondition("the object to patch is not a JSON object" + Got(result));
  }
  STEWARD_RETURN_IF_ERROR(StrategicMerger(schema).MergeMap(result, patch, ""));
  return result;
}

}  // namespace steward::kube
