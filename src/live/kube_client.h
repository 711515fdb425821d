// KubeClient: a REST client for a real Kubernetes API server, built from a RestConfig
// (live/kubeconfig.h), on cpp-httplib:
//   - every verb (get, paged list, watch, create, replace, patch in its three content types,
//     delete), each optionally a server-side dry run (?dryRun=All);
//   - answers as parsed JSON, or a kube::ApiError (the server's Status: code, reason, causes,
//     retryAfterSeconds), so callers branch on reason as client-go users do;
//   - TLS verified by default (the kubeconfig's CA, else the system store), client
//     certificates, bearer tokens (also from a rotating file), basic auth, exec plugins
//     (live/exec_credential.h; a 401 renews the credential once);
//   - client-side rate limiting (live/token_bucket.h; client-go's 5 QPS, burst 10 by default);
//   - bounded retries with exponential backoff on 429, 5xx and connection failures, waiting at
//     least what Retry-After (or the Status's retryAfterSeconds) asks;
//   - connect and read timeouts; watches stream decoded events line by line.
//
//   Result<std::unique_ptr<KubeClient>> c = KubeClient::Create(config);
//   ApiResult nodes = (*c)->List(ResourceRef::Core("nodes", false).Path());
//   if (!nodes.ok()) return nodes.error().message;      // e.g. reason Forbidden
//   ApiResult patched = (*c)->Patch("/api/v1/nodes/n1", PatchType::kStrategicMerge,
//                                   {{"spec", {{"unschedulable", true}}}}, {.dry_run = true});
//   (*c)->Watch(path, {.query = {{"resourceVersion", rv}}}, [](WatchEvent e) { ...; return true;
//   });
//
// Retry policy (the server did not act, or the verb is safe to repeat): 429, and any answer
// carrying Retry-After, for every verb; other 5xx and broken connections only for GET; a failed
// connect (nothing was sent) for every verb. Writes are never silently repeated after the
// server may have applied them. A PDB's 429 on an eviction is retried like any 429 unless the
// call sets CallOptions::max_retries = 0 (drains that pace themselves should).
//
// Cost: GETs reuse pooled keep-alive connections (one per concurrent request); writes open a
// fresh connection each, so a failure is never a stale socket mistaken for the server's answer;
// a watch holds a connection of its own for as long as it streams. Thread-safety: every method may
// be called from any thread at once; the client must outlive its calls.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "kube/api_error.h"
#include "live/clock.h"
#include "live/kubeconfig.h"
#include "model/status.h"

namespace steward::live {

// A collection's REST path: /api/v1/... for the core group, /apis/GROUP/VERSION/... otherwise.
struct ResourceRef {
  std::string group;  // "" = core.
  std::string version = "v1";
  std::string plural;  // "pods"
  bool namespaced = true;

  static ResourceRef Core(std::string plural, bool namespaced) {
    return {"", "v1", std::move(plural), namespaced};
  }
  // The collection (ns "" = all namespaces, or cluster-scoped), one object, or a subresource.
  std::string Path(std::string_view ns = {}, std::string_view name = {},
                   std::string_view subresource = {}) const;
  // "pods" or "clusterqueues.kueue.x-k8s.io" (for messages).
  std::string Name() const;
};

using Query = std::vector<std::pair<std::string, std::string>>;

enum class PatchType : uint8_t {
  kMerge,           // application/merge-patch+json (RFC 7386); the only one custom resources take
  kStrategicMerge,  // application/strategic-merge-patch+json (built-in kinds)
  kJsonPatch,       // application/json-patch+json (RFC 6902: ops with test)
};
std::string_view PatchContentType(PatchType type);

struct CallOptions {
  Query query{};         // labelSelector, fieldSelector, resourceVersion, ...
  bool dry_run = false;  // ?dryRun=All: admission runs, nothing is stored.
  std::string field_manager{};
  int max_retries = -1;  // -1: KubeClientOptions::max_retries.
};

// The answer to a call: the JSON body, or the error. ApiError::code 0 means no HTTP answer
// (connection refused, TLS failure, timeout, a body that is not JSON); `reason` then says which
// (ConnectionFailed, Timeout, InvalidResponse, CredentialError).
class [[nodiscard]] ApiResult {
 public:
  ApiResult(nlohmann::json value) : v_(std::move(value)) {}  // NOLINT: implicit by design.
  ApiResult(kube::ApiError error) : v_(std::move(error)) {}  // NOLINT
  bool ok() const { return std::holds_alternative<nlohmann::json>(v_); }
  const nlohmann::json& value() const& { return std::get<nlohmann::json>(v_); }
  nlohmann::json&& value() && { return std::get<nlohmann::json>(std::move(v_)); }
  const kube::ApiError& error() const { return std::get<kube::ApiError>(v_); }
  // The error as a Status (for callers that report and stop).
  Status ToStatus() const;

 private:
  std::variant<nlohmann::json, kube::ApiError> v_;
};

// One decoded watch event: ADDED, MODIFIED, DELETED or BOOKMARK.
struct WatchEvent {
  std::string type;
  nlohmann::json object;
};

// Ends a watch from another thread: at once while it streams, at its first bytes while it
// connects. Thread-safe. One token may serve several watches in turn; Reset() re-arms it.
class WatchCancel {
 public:
  void Cancel();
  bool cancelled() const { return cancelled_.load(); }
  void Reset() { cancelled_ = false; }

 private:
  friend class KubeClient;
  void Attach(std::function<void()> stop);
  void Detach();
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  std::function<void()> stop_;  // Guarded by mu_.
};

struct KubeClientOptions {
  // Client-side rate limit (client-go's defaults). Watches take a token when they open.
  double qps = 5;
  int burst = 10;
  // Retries after the first attempt, waiting initial_backoff x 2^n (capped at max_backoff), or
  // longer when the server says Retry-After (also capped).
  int max_retries = 5;
  std::chrono::milliseconds initial_backoff{500};
  std::chrono::milliseconds max_backoff{std::chrono::seconds(30)};
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};
  // Longest wait for a non-watch answer to make progress.
  std::chrono::milliseconds read_timeout{std::chrono::seconds(60)};
  // A watch's connection is dropped after this long without a byte beyond its timeoutSeconds.
  std::chrono::milliseconds watch_idle_slack{std::chrono::seconds(30)};
  std::string user_agent = "steward-live/1";
  // Time source for pacing, backoff and credential expiry; null = RealClock().
  Clock* clock = nullptr;
};

class KubeClient {
 public:
  // Validates the config (server URL, PEM material); InvalidArgument names what is wrong.
  static Result<std::unique_ptr<KubeClient>> Create(RestConfig config,
                                                    KubeClientOptions options = {});
  ~KubeClient();
  KubeClient(const KubeClient&) = delete;
  KubeClient& operator=(const KubeClient&) = delete;

  // `path` is a REST path without a query (ResourceRef::Path, or "/apis", "/version").
  ApiResult Get(const std::string& path, const CallOptions& options = {});
  // All pages of a list (limit `page_size`, following continue tokens), as one list object
  // whose metadata.resourceVersion is the snapshot's. A continue token that expired (410)
  // restarts as one unpaged list, as client-go's pager does.
  ApiResult List(const std::string& path, const CallOptions& options = {}, int64_t page_size = 500);
  ApiResult Create(const std::string& path, const nlohmann::json& body,
                   const CallOptions& options = {});
  ApiResult Replace(const std::string& path, const nlohmann::json& body,
                    const CallOptions& options = {});
  ApiResult Patch(const std::string& path, PatchType type, const nlohmann::json& patch,
                  const CallOptions& options = {});
  // `body`: DeleteOptions (null = none).
  ApiResult Delete(const std::string& path, const CallOptions& options = {},
                   const nlohmann::json& body = nullptr);
  // Any verb; the building block of the above. `content_type` is the body's.
  ApiResult Call(std::string_view method, const std::string& path, const CallOptions& options,
                 const std::string& body = {}, std::string_view content_type = {});

  // Watches `path` (watch=1 is added; pass resourceVersion, allowWatchBookmarks,
  // timeoutSeconds in options.query), calling `on_event` for each event in order until the
  // server ends the stream, `on_event` returns false or `cancel` fires: then returns an OK
  // result ({}). An error answer (e.g. 410), a broken stream or an ERROR event (its Status:
  // 410 Expired means re-list) is returned as the error. Opening is retried like a GET.
  ApiResult Watch(const std::string& path, const CallOptions& options,
                  const std::function<bool(WatchEvent)>& on_event, WatchCancel* cancel = nullptr);

  const RestConfig& config() const;
  struct Stats {
    int64_t requests = 0;          // Attempts sent (retries included).
    int64_t retries = 0;           // Attempts after a retriable failure.
    int64_t throttled_micros = 0;  // Time spent waiting for the rate limiter.
    int64_t credential_runs = 0;   // Exec plugin runs.
  };
  Stats stats() const;

 private:
  struct Impl;
  explicit KubeClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace steward::live
