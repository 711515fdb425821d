#include "kube/table.h"

#include <fmt/format.h>

#include "kube/json_decoder.h"

namespace steward::kube {

const TablePrinter& DefaultTablePrinter() {
  static const TablePrinter* printer = new TablePrinter{
      {{"Name", "string", "name", "Name must be unique within a namespace."},
       {"Created At", "date", "",
        "CreationTimestamp is a timestamp representing the server "
        "time when this object was created."}},
      [](const nlohmann::json& o) {
        const nlohmann::json& meta = o.at("metadata");
        nlohmann::json created = nullptr;
        if (auto it = meta.find("creationTimestamp"); it != meta.end() && it->is_string())
          if (auto t = ParseTime(it->get<std::string>())) created = *t;
        return nlohmann::json::array({meta.value("name", ""), created});
      }};
  return *printer;
}

std::string HumanDuration(int64_t micros) {
  const int64_t seconds = micros / 1000000;
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return fmt::format("{}s", seconds);
  const int64_t minutes = seconds / 60;
  if (minutes < 10) {
    const int64_t s = seconds % 60;
    return s == 0 ? fmt::format("{}m", minutes) : fmt::format("{}m{}s", minutes, s);
  }
  if (minutes < 60 * 3) return fmt::format("{}m", minutes);
  const int64_t hours = minutes / 60;
  if (hours < 8) {
    const int64_t m = minutes % 60;
    return m == 0 ? fmt::format("{}h", hours) : fmt::format("{}h{}m", hours, m);
  }
  if (hours < 48) return fmt::format("{}h", hours);
  if (hours < 24 * 8) {
    const int64_t h = hours % 24;
    return h == 0 ? fmt::format("{}d", hours / 24) : fmt::format("{}d{}h", hours / 24, h);
  }
  if (hours < 24 * 365 * 2) return fmt::format("{}d", hours / 24);
  if (hours < 24 * 365 * 8) {
    const int64_t dy = (hours / 24) % 365;
    return dy == 0 ? fmt::format("{}y", hours / 24 / 365)
                   : fmt::format("{}y{}d", hours / 24 / 365, dy);
  }
  return fmt::format("{}y", hours / 24 / 365);
}

nlohmann::json ColumnDefinitions(const TablePrinter& printer) {
  nlohmann::json defs = nlohmann::json::array();
  for (const TableColumn& c : printer.columns)
    defs.push_back({{"name", c.name},
                    {"type", c.type},
                    {"format", c.format},
                    {"description", c.description},
                    {"priority", c.priority}});
  return defs;
}

nlohmann::json RenderCells(const TablePrinter& printer, const nlohmann::json& cells,
                           int64_t now_micros) {
  nlohmann::json out = cells;
  for (size_t i = 0; i < printer.columns.size() && i < out.size(); ++i) {
    if (printer.columns[i].type != "date") continue;
    out[i] = out[i].is_number() ? nlohmann::json(HumanDuration(now_micros - out[i].get<int64_t>()))
                                : nlohmann::json("<unknown>");
  }
  return out;
}

}  // namespace steward::kube
