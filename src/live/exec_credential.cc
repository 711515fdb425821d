#include "live/exec_credential.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "kube/json_decoder.h"
#include "model/text.h"

extern char** environ;

namespace steward::live {
namespace {

using nlohmann::json;

// A credential this close to its expiry is renewed before use, so a request does not carry a
// token that lapses on its way.
constexpr int64_t kExpiryMarginMicros = 10'000'000;

struct PluginOutput {
  int exit_code = 0;
  std::string out, err;
};

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Runs argv with envp, stdin from /dev/null; collects stdout and stderr until both close or
// `timeout` passes (then kills the child).
Result<PluginOutput> RunPlugin(const std::vector<std::string>& argv,
                               const std::vector<std::string>& envp,
                               std::chrono::milliseconds timeout) {
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    CloseFd(out_pipe[0]), CloseFd(out_pipe[1]);
    return Status::IoError(fmt::format("pipe: {}", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  std::vector<char*> args, env;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : envp) env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  CloseFd(out_pipe[1]);
  CloseFd(err_pipe[1]);
  if (rc != 0) {
    CloseFd(out_pipe[0]);
    CloseFd(err_pipe[0]);
    return Status::IoError(std::strerror(rc));
  }
  PluginOutput result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  bool timed_out = false;
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    const int n = poll(fds, 2, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0 && sinks[i]->size() < (4u << 20)) {
        sinks[i]->append(buf, static_cast<size_t>(got));
      } else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
        close(fds[i].fd);
        fds[i].fd = -1;
      }
    }
  }
  for (pollfd& p : fds) CloseFd(p.fd);
  if (timed_out) kill(pid, SIGKILL);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    return Status::IoError(fmt::format("did not finish within {} ms", timeout.count()));
  result.exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  return result;
}

std::string FirstLines(std::string_view text, size_t max_chars = 400) {
  std::string s(text.substr(0, max_chars));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

Result<ExecCredential> ParseExecCredential(std::string_view json_text, std::string_view api_version,
                                           std::string_view command) {
  const std::string what = fmt::format("exec plugin {}", command);
  json j = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return Status::InvalidArgument(
        fmt::format("{}: its output is not an ExecCredential JSON object: '{}'", what,
                    FirstLines(json_text, 120)));
  kube::JsonDecoder d(what);
  const std::string kind = d.String(j, "", "kind");
  const std::string version = d.String(j, "", "apiVersion");
  if (kind != "ExecCredential")
    return Status::InvalidArgument(
        fmt::format("{}: kind is '{}', expected ExecCredential", what, kind));
  if (version != api_version)
    return Status::InvalidArgument(fmt::format(
        "{}: apiVersion is '{}', but the kubeconfig asked for '{}'", what, version, api_version));
  const json& status = d.Object(j, "", "status");
  ExecCredential c;
  c.token = d.String(status, "status", "token");
  c.client_certificate_pem = d.String(status, "status", "clientCertificateData");
  c.client_key_pem = d.String(status, "status", "clientKeyData");
  c.expiration_micros = d.Time(status, "status", "expirationTimestamp");
  if (!d.status().ok()) return d.status();
  if (status.contains("expirationTimestamp") && !status["expirationTimestamp"].is_null() &&
      !c.expiration_micros)
    return Status::InvalidArgument(
        fmt::format("{}: status.expirationTimestamp is not an RFC 3339 time", what));
  if (c.client_certificate_pem.empty() != c.client_key_pem.empty())
    return Status::InvalidArgument(fmt::format(
        "{}: status.clientCertificateData and status.clientKeyData must come together", what));
  if (c.token.empty() && c.client_certificate_pem.empty())
    return Status::InvalidArgument(
        fmt::format("{}: status has neither a token nor a client certificate", what));
  return c;
}

ExecCredentialSource::ExecCredentialSource(ExecConfig config, std::string server,
                                           std::string ca_pem, Clock* clock,
                                           std::chrono::milliseconds timeout)
    : config_(std::move(config)),
      server_(std::move(server)),
      ca_pem_(std::move(ca_pem)),
      clock_(clock),
      timeout_(timeout) {}

Result<ExecCredential> ExecCredentialSource::Get() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cached_ && (!cached_->expiration_micros ||
                  clock_->WallMicros() + kExpiryMarginMicros < *cached_->expiration_micros))
    return *cached_;
  cached_.reset();
  Result<ExecCredential> fresh = Run();
  ++runs_;
  if (!fresh.ok()) return fresh;
  fresh->generation = ++generation_;
  cached_ = *fresh;
  return fresh;
}

void ExecCredentialSource::Invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  cached_.reset();
}

int ExecCredentialSource::runs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return runs_;
}

Result<ExecCredential> ExecCredentialSource::Run() {
  json info = {{"apiVersion", config_.api_version},
               {"kind", "ExecCredential"},
               {"spec", {{"interactive", false}}}};
  if (config_.provide_cluster_info) {
    json cluster = {{"server", server_}};
    // As in the kubeconfig: []byte fields are base64 in JSON.
    if (!ca_pem_.empty()) cluster["certificate-authority-data"] = model::Base64Encode(ca_pem_);
    info["spec"]["cluster"] = cluster;
  }
  std::vector<std::string> argv = {config_.command};
  argv.insert(argv.end(), config_.args.begin(), config_.args.end());
  std::vector<std::string> envp;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool overridden = name == "KUBERNETES_EXEC_INFO";
    for (const auto& [k, v] : config_.env) overridden = overridden || name == k;
    if (!overridden) envp.emplace_back(entry);
  }
  for (const auto& [k, v] : config_.env) envp.push_back(k + "=" + v);
  envp.push_back("KUBERNETES_EXEC_INFO=" + info.dump());

  const std::string what = fmt::format("exec plugin {}", config_.command);
  Result<PluginOutput> out = RunPlugin(argv, envp, timeout_);
  if (!out.ok()) {
    std::string hint = config_.install_hint.empty() ? "" : "\n" + config_.install_hint;
    return Status::IoError(fmt::format("{}: cannot run: {}{}", what, out.status().message(), hint));
  }
  if (out->exit_code != 0)
    return Status::IoError(
        fmt::format("{}: exited with code {}: {}", what, out->exit_code, FirstLines(out->err)));
  return ParseExecCredential(out->out, config_.api_version, config_.command);
}

}  // namespace steward::live
