// KubeFront: the running twin as a Kubernetes API server (`steward serve --kube-port`), so
// kubectl, client-go and the Python client drive the simulated cluster as they would a real
// one (docs/kube-api.md). It owns the object store, the API server with the resources it
// serves, the mirror that keeps the store equal to the twin, the backend that applies writes
// to the twin, and the HTTP(S) listener.
//
//   KubeFront front(&live, options);
//   Result<int> port = front.Start();            // before live.Start(): registers the mirror
//   front.WriteKubeconfig("kubeconfig.yaml");    // KUBECONFIG=... kubectl get nodes
//   ...
//   front.Stop();
//
// Thread-safety: Start/Stop from one thread; requests are served concurrently.
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "http/server.h"
#include "kube/api_server.h"
#include "kube/object_store.h"
#include "kubefront/mirror.h"
#include "kubefront/twin_backend.h"
#include "server/live_twin.h"

namespace steward::kubefront {

struct KubeFrontOptions {
  std::string listen = "127.0.0.1";
  int port = 0;  // 0: any free port.
  // Bearer token clients must present; "" = none (allowed on loopback only).
  std::string token;
  std::string tls_cert_file, tls_key_file;
  // Simulated time 0 as a Kubernetes timestamp (microseconds since the epoch).
  int64_t epoch_micros = 0;
  const health::TwinRemediation* remediation = nullptr;
  kube::ObjectStoreOptions store;
  kube::ApiServerOptions api;  // now_micros is set by the front (the twin's clock).
  MirrorOptions mirror;
  // Appends one audit.k8s.io/v1 Event JSON line per request (kube/request_info.h: the verb,
  // group, resource, subresource and namespace RBAC judges) to this file; "" = no log.
  std::string request_log;
};

class KubeFront {
 public:
  KubeFront(server::LiveTwin* live, KubeFrontOptions options);
  ~KubeFront();
  KubeFront(const KubeFront&) = delete;
  KubeFront& operator=(const KubeFront&) = delete;

  // Mirrors the twin once, registers the mirror with the LiveTwin and starts listening;
  // returns the port. REQUIRES: the LiveTwin is not started yet. InvalidArgument when the
  // listen address is not loopback and no token is set.
  Result<int> Start();
  void Stop();

  // A kubeconfig for this server (context "steward-twin"); with TLS, the certificate is its
  // certificate-authority-data (a self-signed certificate is its own CA).
  std::string Kubeconfig() const;
  Status WriteKubeconfig(const std::string& path) const;

  kube::ApiServer& api() { return *api_; }
  kube::ObjectStore& store() { return *store_; }
  // Serves one request (and logs it with KubeFrontOptions::request_log).
  http::Reply Handle(const http::Request& r);
  int port() const { return port_; }

 private:
  server::LiveTwin* live_;
  KubeFrontOptions options_;
  std::unique_ptr<kube::ObjectStore> store_;
  std::unique_ptr<kube::ApiServer> api_;
  std::unique_ptr<TwinMirror> mirror_;
  std::unique_ptr<TwinBackend> backend_;
  std::unique_ptr<http::Server> http_;
  std::mutex request_log_mu_;
  std::FILE* request_log_ = nullptr;  // Guarded by request_log_mu_; open while serving.
  std::atomic<int64_t> now_micros_{0};
  int port_ = 0;
};

}  // namespace steward::kubefront
