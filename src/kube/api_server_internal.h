// Internals shared by the files of ApiServer (api_server.cc: routing; api_server_discovery.cc;
// api_server_read.cc: get, list, Table; api_server_watch.cc; api_server_write.cc: create,
// update, patch, delete, subresources). Not part of the kube module's public surface.
//
// Pure helpers over requests and stored objects: thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "http/message.h"
#include "kube/api_error.h"
#include "kube/api_server.h"
#include "kube/object_store.h"
#include "kube/selector.h"
#include "kube/table.h"

namespace steward::kube {

struct ApiServer::Route {
  const ApiResourceSpec* resource = nullptr;
  int store_id = 0;
  std::string version;
  std::string ns;
  std::string name;
  std::string subresource;
};

namespace internal {

extern const char kTableContentType[];

// "v1" for the core group, "GROUP/VERSION" otherwise.
std::string GroupVersion(std::string_view group, std::string_view version);
// Path segments, empty ones dropped.
std::vector<std::string_view> Split(std::string_view path);
// Whether the client asked for a Table (kubectl's human output does).
bool WantsTable(const http::Request& r);
IncludeObject IncludeObjectParam(const http::Request& r);
std::optional<int64_t> ParseInt(std::string_view s);
bool IsTrue(const std::string& v);
// A boolean query parameter as Kubernetes converts one: absent = nullopt, "0" or "false" (any
// case) = false, any other value = true.
std::optional<bool> BoolParam(const http::Request& r, const std::string& name);
// apimachinery's ValidateListOptions for a list or a watch: the 422 Invalid (ListOptions) for a
// forbidden combination of resourceVersionMatch, resourceVersion, continue and
// sendInitialEvents, one cause per rule broken; nullopt when the options are consistent.
std::optional<ApiError> ValidateListOptions(const http::Request& r, bool watch);
// "" and *dry_run set from ?dryRun=All, or the error for another value.
std::string DryRunError(const http::Request& r, bool* dry_run);

// Selectors and the value a field selector reads from a stored object.
struct Filter {
  std::string ns;  // "" = every namespace.
  LabelSelector labels;
  FieldSelector fields;
  const ApiResourceSpec* resource = nullptr;

  std::optional<std::string> Field(const StoredObject& o, std::string_view f) const;
  bool Matches(const StoredObject& o) const;
};
std::variant<Filter, ApiError> MakeFilter(const ApiResourceSpec& resource, std::string ns,
                                          const http::Request& r);

const TablePrinter& PrinterOf(const ApiResourceSpec& r);
// Appends one Table row of a stored object to `out`.
void AppendRow(std::string& out, const ApiResourceSpec& resource, const StoredObject& o,
               int64_t now, IncludeObject include, const std::string& api_version);
// A list's metadata: resourceVersion, continue, remainingItemCount.
std::string ListMeta(int64_t rv, const std::string& cont, std::optional<int64_t> remaining);

}  // namespace internal
}  // namespace steward::kube
