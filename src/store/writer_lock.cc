#include "store/writer_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

namespace steward::store {
namespace {

std::string NowRfc3339() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

// The holder line another writer wrote into the lock file ("" when unreadable or empty).
std::string ReadHolder(int fd) {
  char buf[512];
  const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return "";
  std::string s(buf, static_cast<size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s;
}

}  // namespace

std::string WriterLock::LockPathFor(const std::filesystem::path& path) {
  return path.string() + ".lock";
}

Result<std::unique_ptr<WriterLock>> WriterLock::Acquire(const std::filesystem::path& path) {
  const std::string lock_path = LockPathFor(path);
  const int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::IoError(fmt::format("{}: cannot create the writer lock {}: {}", path.string(),
                                       lock_path, std::strerror(errno)));
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string holder = ReadHolder(fd);
    close(fd);
    if (err == EWOULDBLOCK) {
      return Status::FailedPrecondition(
          fmt::format("{}: another writer holds it: {} (lock file {}); one writer at a time",
                      path.string(), holder.empty() ? "holder unknown" : holder, lock_path));
    }
    return Status::IoError(
        fmt::format("{}: cannot lock {}: {}", path.string(), lock_path, std::strerror(err)));
  }
  std::string holder =
      fmt::format("pid {} on host {} since {}", getpid(), HostName(), NowRfc3339());
  const std::string line = holder + "\n";
  if (ftruncate(fd, 0) != 0 ||
      pwrite(fd, line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
    const int err = errno;
    close(fd);
    return Status::IoError(fmt::format("{}: cannot write the writer lock {}: {}", path.string(),
                                       lock_path, std::strerror(err)));
  }
  return std::unique_ptr<WriterLock>(new WriterLock(fd, std::move(holder)));
}

WriterLock::~WriterLock() {
  // Emptied so a reader of the file does not name a holder that has gone; the lock itself goes
  // with the descriptor.
  (void)ftruncate(fd_, 0);
  close(fd_);
}

}  // namespace steward::store
