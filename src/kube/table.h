// Server-side printing (meta.k8s.io/v1 Table): what `kubectl get` shows when it asks for
// `Accept: application/json;as=Table;g=meta.k8s.io;v=v1`. A TablePrinter names a resource's
// columns and computes an object's cells once per stored version (kube/object_store.h);
// columns of type "date" hold a time (microseconds since the epoch) that becomes an age
// ("5m", "3d4h") only when a table is rendered, relative to the server's clock.
//
//   TablePrinter nodes{{{"Name", "string"}, {"Status", "string"}, {"Age", "date"}}, cells_fn};
//   std::string row = RenderRow(nodes, stored, now_micros, IncludeObject::kMetadata);
//
// Pure functions over immutable inputs: thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace steward::kube {

struct TableColumn {
  std::string name;
  std::string type = "string";  // string | integer | number | boolean | date
  std::string format;           // e.g. "name" for the Name column.
  std::string description;
  int priority = 0;  // > 0: only shown by `-o wide`.
};

struct TablePrinter {
  std::vector<TableColumn> columns;
  // One cell per column, from the object ("date" cells: a time in microseconds, or null).
  std::function<nlohmann::json(const nlohmann::json& object)> cells;
};

// The default printer for kinds without one: Name, Created At (as the API server's default).
const TablePrinter& DefaultTablePrinter();

enum class IncludeObject : uint8_t { kNone, kMetadata, kObject };

// Kubernetes' duration.HumanDuration: "45s", "5m12s", "3h", "6d4h", "2y30d".
std::string HumanDuration(int64_t micros);

// The columnDefinitions array of a printer.
nlohmann::json ColumnDefinitions(const TablePrinter& printer);

// The age (HumanDuration of now - t) of every "date" cell, the others as they are.
nlohmann::json RenderCells(const TablePrinter& printer, const nlohmann::json& cells,
                           int64_t now_micros);

}  // namespace steward::kube
