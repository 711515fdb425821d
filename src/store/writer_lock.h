// One writer at a time for a file: an exclusive flock(2) on a sidecar file `PATH.lock`, which
// the holder fills with who it is (pid, host, start time) so a refused writer can say who holds
// it. The kernel drops the lock when the holder exits, however it exits (kill -9 too), so a
// stale lock file never blocks anyone; the file itself is left in place (removing it would let
// two writers lock two different files).
//
//   Result<std::unique_ptr<WriterLock>> lock = WriterLock::Acquire("ledger.db");
//   if (!lock.ok()) ...   // "ledger.db: another writer holds it: pid 4242 on host a since ..."
//
// Locks conflict between processes and between two WriterLocks of one process. Thread-safe
// (no shared state); Acquire never blocks.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "model/status.h"

namespace steward::store {

class WriterLock {
 public:
  // Takes the lock for `path` (on `path` + ".lock", created if missing). Fails with
  // kFailedPrecondition naming `path` and the holder when another writer has it, kIoError when
  // the lock file cannot be created or written.
  static Result<std::unique_ptr<WriterLock>> Acquire(const std::filesystem::path& path);
  ~WriterLock();
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

  // "pid 4242 on host a since 2026-12-04T17:30:00Z", what Acquire wrote for this holder.
  const std::string& holder() const { return holder_; }
  static std::string LockPathFor(const std::filesystem::path& path);

 private:
  WriterLock(int fd, std::string holder) : fd_(fd), holder_(std::move(holder)) {}
  int fd_;
  std::string holder_;
};

}  // namespace steward::store
