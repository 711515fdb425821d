#include "kubefront/kube_front.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "govern/policy.h"
#include "kube/request_info.h"
#include "kube/resources.h"
#include "model/text.h"

namespace steward::kubefront {

KubeFront::KubeFront(server::LiveTwin* live, KubeFrontOptions options)
    : live_(live), options_(std::move(options)) {}

KubeFront::~KubeFront() { Stop(); }

Result<int> KubeFront::Start() {
  if (!http::IsLoopbackHost(options_.listen) && options_.token.empty())
    return Status::InvalidArgument(fmt::format(
        "the Kubernetes API front listens on {} (not loopback): a bearer token is required "
        "(--token-file)",
        options_.listen));
  store_ = std::make_unique<kube::ObjectStore>(options_.store);
  kube::ApiServerOptions api_options = options_.api;
  api_options.now_micros = [this] { return now_micros_.load(); };
  api_ = std::make_unique<kube::ApiServer>(store_.get(), api_options);

  StoreIds ids;
  auto add = [&](kube::ApiResourceSpec spec, bool writable = false) {
    if (writable) spec.verbs = {"get", "list", "watch", "patch", "update"};
    return api_->AddResource(std::move(spec));
  };
  const bool volcano = [&] {
    bool any = false;
    live_
        ->Control([&](twin::Twin& t) {
          if (const govern::Policy* p = t.governance_policy())
            for (const govern::ClusterQueue& cq : p->cluster_queues) any |= cq.origin == "volcano";
          return Status::Ok();
        })
        .ok();
    return any;
  }();
  kube::ApiResourceSpec nodes = kube::NodesResource();
  kube::ApiResourceSpec pods = kube::PodsResource();
  pods.verbs = {"get", "list", "watch", "patch", "update", "delete"};
  pods.subresources = {"eviction"};
  kube::ApiResourceSpec cluster_queues = kube::KueueResource("clusterqueues");
  ids.nodes = add(nodes, true);
  ids.pods = add(pods);
  ids.namespaces = add(kube::NamespacesResource());
  ids.events = [&] {
    kube::ApiResourceSpec e = kube::EventsResource();
    e.verbs = {"get", "list", "watch", "create", "update", "patch", "delete"};
    return add(std::move(e));
  }();
  ids.config_maps = add(kube::ConfigMapsResource());
  ids.pdbs = add(kube::PodDisruptionBudgetsResource());
  add(kube::LeasesResource());
  ids.deployments = add(kube::DeploymentsResource());
  ids.replicasets = add(kube::ReplicaSetsResource());
  ids.statefulsets = add(kube::StatefulSetsResource());
  ids.daemonsets = add(kube::DaemonSetsResource());
  ids.jobs = add(kube::JobsResource());
  ids.resource_flavors = add(kube::KueueResource("resourceflavors"));
  ids.cohorts = add(kube::KueueResource("cohorts"));
  ids.cluster_queues = add(cluster_queues, true);
  ids.local_queues = add(kube::KueueResource("localqueues"));
  ids.priority_classes = add(kube::KueueResource("workloadpriorityclasses"));
  ids.workloads = add(kube::KueueResource("workloads"));
  if (volcano) {
    ids.volcano_queues = add(kube::VolcanoResource("queues"));
    ids.pod_groups = add(kube::VolcanoResource("podgroups"));
  }
  mirror_ = std::make_unique<TwinMirror>(store_.get(), ids, ObjectClock{options_.epoch_micros},
                                         options_.remediation, options_.mirror);
  backend_ = std::make_unique<TwinBackend>(live_, mirror_.get(), store_.get(), ids);
  api_->SetBackend("", "nodes", backend_.get());
  api_->SetBackend("", "pods", backend_.get());
  api_->SetBackend("kueue.x-k8s.io", "clusterqueues", backend_.get());

  const int64_t epoch = options_.epoch_micros;
  TwinMirror* mirror = mirror_.get();
  std::atomic<int64_t>* now = &now_micros_;
  auto observe = [mirror, now, epoch](const twin::Twin& t) {
    now->store(epoch + t.now().micros());
    mirror->Sync(t);
  };
  STEWARD_RETURN_IF_ERROR(live_->Control([&](twin::Twin& t) {
    t.AddLifecycleListener([mirror](const twin::LifecycleRecord& r) { mirror->OnLifecycle(r); });
    observe(t);
    return Status::Ok();
  }));
  live_->AddObserver(observe);

  http::ServerOptions http_options;
  http_options.host = options_.listen;
  http_options.port = options_.port;
  http_options.tls_cert_file = options_.tls_cert_file;
  http_options.tls_key_file = options_.tls_key_file;
  http_options.threads = std::max(16, options_.api.max_watches + 16);
  http_options.max_body_bytes = 3 << 20;  // The API server's limit for a request body.
  // A watch streams for minutes; a client on a loaded machine may not read for seconds. Cutting
  // it mid-chunk after the dashboard's 5 s would look like a broken server.
  http_options.write_timeout = std::chrono::seconds(60);
  http_options.access.token = options_.token;
  http_options.access.require = options_.token.empty() ? http::AccessOptions::Require::kNothing
                                                       : http::AccessOptions::Require::kEverything;
  http_options.access.public_paths = {"/healthz", "/livez", "/readyz"};
  http_options.refusal = [](int status, std::string_view message) {
    kube::ApiError e;
    e.code = status;
    e.reason = status == 401   ? "Unauthorized"
               : status == 403 ? "Forbidden"
               : status == 413 ? "RequestEntityTooLarge"
               : status == 415 ? "UnsupportedMediaType"
                               : "BadRequest";
    e.message = std::string(message);
    return kube::ErrorReply(e);
  };
  if (!options_.request_log.empty()) {
    request_log_ = std::fopen(options_.request_log.c_str(), "a");
    if (!request_log_)
      return Status::IoError(fmt::format("cannot open the request log {}", options_.request_log));
  }
  http_ = std::make_unique<http::Server>(http_options,
                                         [this](const http::Request& r) { return Handle(r); });
  Result<int> port = http_->Start();
  if (!port.ok()) return port.status();
  port_ = *port;
  return port_;
}

http::Reply KubeFront::Handle(const http::Request& r) {
  http::Reply reply = api_->Handle(r);
  if (!options_.request_log.empty()) {
    // A watch is logged when its stream starts (its code is known then), as the audit log's
    // ResponseStarted stage would; the line is written whole and flushed, so readers see it.
    const std::string line =
        kube::AuditEventJson(kube::ParseRequestInfo(r), r, reply.status).dump() + "\n";
    std::lock_guard lock(request_log_mu_);
    if (request_log_) {
      std::fwrite(line.data(), 1, line.size(), request_log_);
      std::fflush(request_log_);
    }
  }
  return reply;
}

void KubeFront::Stop() {
  if (store_) store_->Close();  // Ends watches, so the server's workers can finish.
  if (http_) http_->Stop();
  http_.reset();
  std::lock_guard lock(request_log_mu_);
  if (request_log_) std::fclose(request_log_);
  request_log_ = nullptr;
}

std::string KubeFront::Kubeconfig() const {
  const bool tls = !options_.tls_cert_file.empty();
  std::string host = options_.listen;
  if (host == "0.0.0.0" || host == "::" || host.empty()) host = "127.0.0.1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  std::ostringstream out;
  out << "apiVersion: v1\nkind: Config\n";
  out << "clusters:\n- name: steward-twin\n  cluster:\n";
  out << fmt::format("    server: {}://{}:{}\n", tls ? "https" : "http", host, port_);
  if (tls) {
    std::ifstream cert(options_.tls_cert_file);
    std::stringstream pem;
    pem << cert.rdbuf();
    out << "    certificate-authority-data: " << model::Base64Encode(pem.str()) << "\n";
  }
  out << "users:\n- name: steward\n  user:";
  if (options_.token.empty())
    out << " {}\n";
  else
    out << "\n    token: " << options_.token << "\n";
  out << "contexts:\n- name: steward-twin\n  context:\n    cluster: steward-twin\n"
         "    user: steward\n    namespace: default\n";
  out << "current-context: steward-twin\npreferences: {}\n";
  return out.str();
}

Status KubeFront::WriteKubeconfig(const std::string& path) const {
  std::ofstream f(path, std::ios::trunc);
  if (!f) return Status::IoError(fmt::format("cannot write kubeconfig {}", path));
  f << Kubeconfig();
  f.close();
  if (!f) return Status::IoError(fmt::format("cannot write kubeconfig {}", path));
  chmod(path.c_str(), 0600);  // It may hold the token.
  return Status::Ok();
}

}  // namespace steward::kubefront
