// libFuzzer target: trace CSV (twin/csv.h), every record read as numbers and integers the way
// the trace loader reads them. CsvReader reads files, so each input goes through one temp file.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "twin/csv.h"

namespace {

const std::string& TempPath() {
  static const std::string path = [] {
    char name[] = "/tmp/steward_fuzz_csv_XXXXXX";
    const int fd = mkstemp(name);
    if (fd >= 0) close(fd);
    return std::string(name);
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FILE* f = std::fopen(TempPath().c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  auto reader = steward::twin::CsvReader::Open(TempPath());
  if (!reader.ok()) return 0;
  const int submit = reader->Column("submit_seconds");
  const int gpus = reader->Column("gpus_per_pod");
  while (reader->Next()) {
    if (submit >= 0) (void)reader->Number(submit);
    if (gpus >= 0) (void)reader->Integer(gpus);
  }
  return 0;
}
