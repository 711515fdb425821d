// Exec credential plugins (client.authentication.k8s.io/v1 and v1beta1), as EKS, GKE and AKS
// kubeconfigs use: the client runs a command that prints an ExecCredential whose status holds a
// bearer token or a client certificate, with an optional expiry; the credential is cached until
// then (or until the server answers 401).
//
//   ExecCredentialSource source(*config.exec, config.server, config.ca_pem, RealClock());
//   Result<ExecCredential> c = source.Get();     // runs the plugin the first time
//   ... on a 401: source.Invalidate();  source.Get();
//
// The plugin runs with the process's environment plus the config's `env`, and
// KUBERNETES_EXEC_INFO holding an ExecCredential (spec.interactive false; spec.cluster when
// provideClusterInfo). Its stdin is /dev/null: Steward never runs plugins interactively. A
// plugin that runs past `timeout` is killed.
//
// Cost: Get is a mutex and a time comparison while the credential is fresh; a plugin run
// otherwise (tens of ms to seconds). Thread-safety: Get and Invalidate may be called
// concurrently; one caller runs the plugin while the others wait for its result.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "live/clock.h"
#include "live/kubeconfig.h"
#include "model/status.h"

namespace steward::live {

struct ExecCredential {
  std::string token;
  std::string client_certificate_pem, client_key_pem;
  std::optional<int64_t> expiration_micros;  // Unset: valid until the server refuses it.
  // Bumped on every fresh plugin run, so a client holding TLS state built from an older
  // certificate knows to rebuild it.
  uint64_t generation = 0;
};

// Parses the ExecCredential JSON a plugin printed; `api_version` is the one the kubeconfig
// asked for and must match. Errors name `command`.
Result<ExecCredential> ParseExecCredential(std::string_view json_text, std::string_view api_version,
                                           std::string_view command);

class ExecCredentialSource {
 public:
  ExecCredentialSource(ExecConfig config, std::string server, std::string ca_pem, Clock* clock,
                       std::chrono::milliseconds timeout = std::chrono::seconds(60));
  ExecCredentialSource(const ExecCredentialSource&) = delete;
  ExecCredentialSource& operator=(const ExecCredentialSource&) = delete;

  // The cached credential while it has not expired (with a small margin), else a new one.
  Result<ExecCredential> Get();
  // Forgets the cached credential (the server refused it).
  void Invalidate();
  // Plugin runs so far (for tests and metrics).
  int runs() const;

 private:
  Result<ExecCredential> Run();

  const ExecConfig config_;
  const std::string server_, ca_pem_;
  Clock* const clock_;
  const std::chrono::milliseconds timeout_;
  mutable std::mutex mu_;                 // Held across a plugin run: one run at a time.
  std::optional<ExecCredential> cached_;  // Guarded by mu_.
  uint64_t generation_ = 0;               // Guarded by mu_.
  int runs_ = 0;                          // Guarded by mu_.
};

}  // namespace steward::live
