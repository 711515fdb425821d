// Where and how to reach a Kubernetes API server: kubeconfig files (the contexts, clusters and
// users kubectl reads) and the in-cluster configuration a pod gets from its service account,
// resolved in kubectl's order into one RestConfig the client (live/kube_client.h) connects with.
//
//   Result<RestConfig> c = ResolveRestConfig({.kubeconfig = flag_path, .context = flag_ctx});
//   if (!c.ok()) return c.status();          // names the file, the field and the context
//   Result<std::unique_ptr<KubeClient>> client = KubeClient::Create(*c);
//
// Resolution (ResolveRestConfig), as kubectl: an explicit --kubeconfig file; else $KUBECONFIG
// (only the first file of a colon-separated list is read: Steward does not merge several
// files); else ~/.kube/config when it exists; else, inside a pod, the in-cluster configuration
// (KUBERNETES_SERVICE_HOST/PORT and the service-account files).
//
// Paths in a kubeconfig (certificate-authority, client-certificate, client-key, tokenFile, an
// exec command with a directory part) are relative to the kubeconfig's directory. Certificate
// and key files are read at load time; token files at each use (they rotate; see
// live/kube_client.h). Exec plugins are described here and run by live/exec_credential.h.
//
// Parsing never throws and never crashes on bad input: errors name the file, the field (with
// its line when known) and the context. Pure functions over their inputs: thread-safe.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/status.h"

namespace steward::live {

// users[].user.exec: a credential plugin (client.authentication.k8s.io/v1 or v1beta1).
struct ExecConfig {
  std::string api_version;  // client.authentication.k8s.io/v1 | v1beta1
  std::string command;      // Resolved against the kubeconfig's directory if it has a '/'.
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // Added to the inherited environment.
  bool provide_cluster_info = false;  // Put spec.cluster in KUBERNETES_EXEC_INFO.
  std::string install_hint;           // Shown when the command cannot be run.
  bool operator==(const ExecConfig&) const = default;
};

// Everything needed to connect and authenticate: one context of a kubeconfig, resolved.
struct RestConfig {
  std::string source;   // The kubeconfig path, or "in-cluster" (for messages).
  std::string context;  // The context used ("" in-cluster).
  std::string server;   // https://host:port[/path]
  // TLS. The server is verified against ca_pem, or the system store when it is empty, unless
  // insecure_skip_tls_verify.
  std::string ca_pem;
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;  // The name to verify the server certificate against.
  std::string client_certificate_pem, client_key_pem;
  // Authentication; at most one of token / token_file / basic / exec is used, in that order.
  std::string token;
  std::string token_file;  // Re-read as it rotates (bound service-account tokens do).
  std::string username, password;
  std::optional<ExecConfig> exec;
  // The context's namespace ("default" when unset).
  std::string namespace_name = "default";
};

// Parses kubeconfig YAML `text` read from `source` (a path: relative paths inside resolve
// against its directory) and resolves `context` ("" = current-context).
Result<RestConfig> ParseKubeconfig(std::string_view text, const std::filesystem::path& source,
                                   std::string_view context = {});
// Reads and parses a kubeconfig file.
Result<RestConfig> LoadKubeconfig(const std::filesystem::path& path, std::string_view context = {});

// The in-cluster configuration: KUBERNETES_SERVICE_HOST/PORT (via `getenv`) and
// `root`/{token,ca.crt,namespace}. FailedPrecondition when not inside a pod.
inline constexpr char kServiceAccountDir[] = "/var/run/secrets/kubernetes.io/serviceaccount";
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;
Result<RestConfig> InClusterConfig(const std::filesystem::path& root = kServiceAccountDir,
                                   const EnvLookup& getenv = {});

struct ConfigSources {
  std::string kubeconfig{};  // An explicit file (--kubeconfig); "" = look further.
  std::string context{};     // --context; "" = the file's current-context.
  // Environment lookups (KUBECONFIG, HOME, KUBERNETES_SERVICE_*); unset = the process's.
  EnvLookup getenv{};
  std::filesystem::path service_account_dir = kServiceAccountDir;
};
// kubectl's resolution order (see the top of this file).
Result<RestConfig> ResolveRestConfig(const ConfigSources& sources);

}  // namespace steward::live
