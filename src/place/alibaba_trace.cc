#include "place/alibaba_trace.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace steward::place {
namespace {

struct Field {
  std::string_view text;
  int column = 0;  // 1-based character column.
};

// Splits one CSV line on commas. The trace has no quoting; a quote is rejected, not guessed.
Result<std::vector<Field>> SplitLine(std::string_view line, std::string_view file, int line_no) {
  std::vector<Field> out;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    std::string_view f =
        line.substr(start, comma == std::string_view::npos ? comma : comma - start);
    if (f.find('"') != std::string_view::npos)
      return MakeInputError(file, line_no, static_cast<int>(start) + 1, "",
                            "quoted CSV fields are not supported");
    out.push_back({f, static_cast<int>(start) + 1});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

class CsvTable {
 public:
  static Result<CsvTable> Parse(std::string_view text, std::string_view file,
                                const std::vector<std::string_view>& required,
                                const std::vector<std::string_view>& optional) {
    CsvTable t;
    t.file_ = file;
    size_t pos = 0;
    int line_no = 0;
    bool header = true;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
      pos = nl == std::string_view::npos ? text.size() : nl + 1;
      ++line_no;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.empty()) continue;
      STEWARD_ASSIGN_OR_RETURN(std::vector<Field> fields, SplitLine(line, file, line_no));
      if (header) {
        header = false;
        t.header_line_ = line_no;
        for (std::string_view name : required) {
          int c = Find(fields, name);
          if (c < 0)
            return MakeInputError(file, line_no, 0, name, "required column missing from header");
          t.columns_.push_back(c);
        }
        for (std::string_view name : optional) t.columns_.push_back(Find(fields, name));
        t.names_ = required;
        t.names_.insert(t.names_.end(), optional.begin(), optional.end());
        t.width_ = fields.size();
        continue;
      }
      if (fields.size() != t.width_)
        return MakeInputError(file, line_no, 0, "",
                              fmt::format("{} fields, the header has {}", fields.size(), t.width_));
      t.rows_.push_back({line_no, std::move(fields)});
    }
    if (header) return MakeInputError(file, 0, 0, "", "empty file (no header)");
    return t;
  }

  size_t rows() const { return rows_.size(); }
  int line(size_t r) const { return rows_[r].line; }
  // Column c of the required+optional list; empty text if an optional column is absent.
  Field Get(size_t r, size_t c) const {
    int idx = columns_[c];
    if (idx < 0) return {};
    return rows_[r].fields[idx];
  }
  Result<int64_t> Int(size_t r, size_t c, int64_t lo, int64_t hi) const {
    Field f = Get(r, c);
    int64_t v = 0;
    auto [p, ec] = std::from_chars(f.text.data(), f.text.data() + f.text.size(), v);
    if (f.text.empty() || ec != std::errc() || p != f.text.data() + f.text.size())
      return MakeInputError(file_, line(r), f.column, names_[c],
                            fmt::format("'{}' is not an integer", f.text));
    if (v < lo || v > hi)
      return MakeInputError(file_, line(r), f.column, names_[c],
                            fmt::format("{} is out of range [{}, {}]", v, lo, hi));
    return v;
  }
  std::string_view file() const { return file_; }

 private:
  static int Find(const std::vector<Field>& header, std::string_view name) {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i].text == name) return static_cast<int>(i);
    return -1;
  }
  struct Row {
    int line;
    std::vector<Field> fields;
  };
  std::string_view file_;
  int header_line_ = 0;
  std::vector<int> columns_;
  std::vector<std::string_view> names_;
  size_t width_ = 0;
  std::vector<Row> rows_;
};

Result<std::string> ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(fmt::format("{}: cannot open", path.string()));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

constexpr int64_t kMaxAmount = int64_t{1} << 40;

}  // namespace

Result<std::vector<NodeSpec>> ParseAlibabaNodes(std::string_view text, std::string_view file) {
  STEWARD_ASSIGN_OR_RETURN(
      CsvTable t,
      CsvTable::Parse(text, file, {"sn", "cpu_milli", "memory_mib", "gpu", "model"}, {}));
  std::vector<NodeSpec> out;
  std::set<std::string, std::less<>> names;
  for (size_t r = 0; r < t.rows(); ++r) {
    NodeSpec n;
    n.name = std::string(t.Get(r, 0).text);
    if (n.name.empty())
      return MakeInputError(file, t.line(r), t.Get(r, 0).column, "sn", "empty node name");
    STEWARD_ASSIGN_OR_RETURN(n.cpu_milli, t.Int(r, 1, 0, kMaxAmount));
    STEWARD_ASSIGN_OR_RETURN(n.memory_mib, t.Int(r, 2, 0, kMaxAmount));
    STEWARD_ASSIGN_OR_RETURN(int64_t gpus, t.Int(r, 3, 0, kMaxGpusPerNode));
    n.gpus = static_cast<int>(gpus);
    n.model = std::string(t.Get(r, 4).text);
    if (n.gpus > 0 && n.model.empty())
      return MakeInputError(file, t.line(r), t.Get(r, 4).column, "model",
                            "a node with GPUs needs a GPU model");
    if (!names.insert(n.name).second)
      return MakeInputError(file, t.line(r), t.Get(r, 0).column, "sn",
                            fmt::format("duplicate node name '{}'", n.name));
    out.push_back(std::move(n));
  }
  return out;
}

Result<std::vector<TracePod>> ParseAlibabaPods(std::string_view text, std::string_view file) {
  STEWARD_ASSIGN_OR_RETURN(
      CsvTable t,
      CsvTable::Parse(text, file, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"},
                      {"gpu_spec"}));
  std::vector<TracePod> out;
  out.reserve(t.rows());
  for (size_t r = 0; r < t.rows(); ++r) {
    TracePod p;
    p.name = std::string(t.Get(r, 0).text);
    if (p.name.empty())
      return MakeInputError(file, t.line(r), t.Get(r, 0).column, "name", "empty pod name");
    STEWARD_ASSIGN_OR_RETURN(p.cpu_milli, t.Int(r, 1, 0, kMaxAmount));
    STEWARD_ASSIGN_OR_RETURN(p.memory_mib, t.Int(r, 2, 0, kMaxAmount));
    STEWARD_ASSIGN_OR_RETURN(int64_t num_gpu, t.Int(r, 3, 0, kMaxGpusPerNode));
    STEWARD_ASSIGN_OR_RETURN(int64_t milli, t.Int(r, 4, 0, kMilliPerGpu));
    p.num_gpu = static_cast<int>(num_gpu);
    p.gpu_milli = static_cast<int>(milli);
    if (p.num_gpu > 0 && p.gpu_milli == 0)
      return MakeInputError(file, t.line(r), t.Get(r, 4).column, "gpu_milli",
                            "a GPU pod must ask for 1..1000 milli per GPU");
    if (p.num_gpu > 1 && p.gpu_milli < kMilliPerGpu)
      return MakeInputError(file, t.line(r), t.Get(r, 4).column, "gpu_milli",
                            "a multi-GPU pod must take whole GPUs (1000)");
    if (p.num_gpu == 0) p.gpu_milli = 0;
    p.gpu_spec = std::string(t.Get(r, 5).text);
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::vector<NodeSpec>> LoadAlibabaNodes(const std::filesystem::path& path) {
  STEWARD_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseAlibabaNodes(text, path.string());
}

Result<std::vector<TracePod>> LoadAlibabaPods(const std::filesystem::path& path) {
  STEWARD_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseAlibabaPods(text, path.string());
}

PodRequest ToRequest(const TracePod& pod, const ClusterState& cluster) {
  PodRequest r;
  r.cpu_milli = pod.cpu_milli;
  r.memory_mib = pod.memory_mib;
  r.num_gpu = pod.num_gpu;
  r.gpu_milli = pod.gpu_milli;
  r.allowed_models = pod.num_gpu > 0 ? cluster.ParseModelList(pod.gpu_spec) : kAnyModel;
  return r;
}

}  // namespace steward::place
