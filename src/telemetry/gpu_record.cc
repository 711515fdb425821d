#include "telemetry/gpu_record.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace steward::telemetry {

namespace {

int ToInt(std::string_view s, int fallback) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() ? v : fallback;
}

void AddXid(std::vector<int>& xids, int code) {
  auto it = std::lower_bound(xids.begin(), xids.end(), code);
  if (it == xids.end() || *it != code) xids.insert(it, code);
}

// The labels of one sample that matter to the model, found in one pass.
struct GpuLabels {
  std::string_view hostname, uuid, gpu, device, model_name, pci_bus_id, driver, pod, ns, container,
      gpu_i_id, gpu_i_profile, err_code, xid;
  bool has_gpu_i = false;
};

GpuLabels Extract(const Scrape& scrape, const Sample& s) {
  GpuLabels g;
  for (const Label& l : scrape.LabelsOf(s)) {
    std::string_view n = l.name;
    if (n == "gpu")
      g.gpu = l.value;
    else if (n == "UUID" || n == "uuid")
      g.uuid = l.value;
    else if (n == "Hostname" || n == "hostname")
      g.hostname = l.value;
    else if (n == "device")
      g.device = l.value;
    else if (n == "modelName")
      g.model_name = l.value;
    else if (n == "pci_bus_id")
      g.pci_bus_id = l.value;
    else if (n == "DCGM_FI_DRIVER_VERSION")
      g.driver = l.value;
    else if (n == "pod")
      g.pod = l.value;
    else if (n == "namespace")
      g.ns = l.value;
    else if (n == "container")
      g.container = l.value;
    else if (n == "GPU_I_ID") {
      g.gpu_i_id = l.value;
      g.has_gpu_i = true;
    } else if (n == "GPU_I_PROFILE")
      g.gpu_i_profile = l.value;
    else if (n == "err_code")
      g.err_code = l.value;
    else if (n == "xid")
      g.xid = l.value;
  }
  return g;
}

void FillIdentity(GpuIdentity& id, const GpuLabels& g) {
  auto set = [](std::string& dst, std::string_view v) {
    if (dst.empty() && !v.empty()) dst.assign(v);
  };
  set(id.hostname, g.hostname);
  set(id.uuid, g.uuid);
  if (id.gpu < 0) id.gpu = ToInt(g.gpu, -1);
  set(id.device, g.device);
  set(id.model_name, g.model_name);
  set(id.pci_bus_id, g.pci_bus_id);
  set(id.driver_version, g.driver);
  set(id.pod, g.pod);
  set(id.namespace_name, g.ns);
  set(id.container, g.container);
}

}  // namespace

std::string GpuKey(std::string_view hostname, std::string_view uuid, std::string_view gpu_index) {
  std::string key;
  key.reserve(hostname.size() + uuid.size() + 3);
  key.append(hostname);
  key.push_back('\x1f');
  if (!uuid.empty()) {
    key.push_back('U');
    key.append(uuid);
  } else {
    key.push_back('I');
    key.append(gpu_index);
  }
  return key;
}

bool IsDcgmBlank(double v) {
  // 0x7ffffffffffffff0 rounds to 2^63 as a double; anything within 1024 of it is a sentinel.
  constexpr double kInt64Blank = 9223372036854774784.0;  // 2^63 - 1024.
  constexpr double kFp64Blank = 140737488355328.0;       // 2^47.
  return v >= kInt64Blank || (v >= kFp64Blank && v < kFp64Blank + 16);
}

const GpuRecord* DcgmSnapshot::Find(std::string_view hostname, std::string_view uuid) const {
  auto it = index.find(GpuKey(hostname, uuid, {}));
  return it == index.end() ? nullptr : &gpus[it->second];
}

const GpuRecord* DcgmSnapshot::FindByIndex(std::string_view hostname, int gpu) const {
  auto it = index.find(GpuKey(hostname, {}, std::to_string(gpu)));
  return it == index.end() ? nullptr : &gpus[it->second];
}

DcgmSnapshot BuildDcgmSnapshot(const Scrape& scrape) {
  DcgmSnapshot snap;
  // Field of each family, resolved once per family rather than per sample.
  std::vector<std::optional<DcgmField>> family_field(scrape.families.size());
  for (size_t i = 0; i < scrape.families.size(); ++i) {
    family_field[i] = DcgmFieldByName(scrape.families[i].name);
  }
  std::string key;
  for (const Sample& s : scrape.samples) {
    GpuLabels g = Extract(scrape, s);
    if (g.uuid.empty() && g.gpu.empty()) {
      ++snap.other_samples;
      continue;
    }
    ++snap.gpu_samples;
    key = GpuKey(g.hostname, g.uuid, g.gpu);
    auto [it, inserted] = snap.index.try_emplace(key, static_cast<uint32_t>(snap.gpus.size()));
    if (inserted) snap.gpus.emplace_back();
    GpuRecord& rec = snap.gpus[it->second];
    FillIdentity(rec.id, g);

    std::string_view name = s.name;
    std::optional<DcgmField> field =
        name == scrape.families[s.family].name ? family_field[s.family] : DcgmFieldByName(name);
    if (name == "DCGM_EXP_XID_ERRORS_COUNT" && s.value > 0) {
      int code = ToInt(g.xid, 0);
      if (code > 0) {
        AddXid(rec.xids, code);
        AddXid(snap.xids, code);
      }
    }
    if (!field) continue;
    if (IsDcgmBlank(s.value)) {
      ++snap.blank_samples;
      continue;
    }
    ++snap.modeled_samples;
    FieldValues* values = &rec.values;
    if (g.has_gpu_i) {
      int gi = ToInt(g.gpu_i_id, -1);
      auto mig = std::find_if(rec.mig.begin(), rec.mig.end(),
                              [&](const MigInstance& m) { return m.gpu_instance_id == gi; });
      if (mig == rec.mig.end()) {
        rec.mig.push_back(MigInstance{gi, std::string(g.gpu_i_profile), {}});
        mig = rec.mig.end() - 1;
      }
      values = &mig->values;
    }
    values->Set(*field, s.value);
    if (*field == DcgmField::kXidErrors) {
      // The gauge holds the last XID code (0 = none); err_code repeats it as a label.
      int code = std::isfinite(s.value) && s.value > 0 && s.value < 1e6 ? static_cast<int>(s.value)
                                                                        : ToInt(g.err_code, 0);
      if (code > 0) {
        AddXid(rec.xids, code);
        AddXid(snap.xids, code);
      }
    }
  }
  return snap;
}

}  // namespace steward::telemetry
