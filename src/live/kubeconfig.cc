#include "live/kubeconfig.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "model/text.h"

namespace steward::live {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> ProcessEnv(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

Result<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(fmt::format("cannot read {}", path.string()));
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return Status::IoError(fmt::format("error reading {}", path.string()));
  return s.str();
}

// Reads one kubeconfig: every message names the file, and where it helps, the line, the
// field and the context.
class KubeconfigReader {
 public:
  KubeconfigReader(const fs::path& source, std::string context)
      : source_(source), dir_(source.parent_path()), context_(std::move(context)) {}

  Result<RestConfig> Read(std::string_view text) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      return Status::InvalidArgument(fmt::format("{}:{}:{}: not valid YAML: {}", source_.string(),
                                                 e.mark.line + 1, e.mark.column + 1, e.msg));
    }
    if (!root.IsMap()) return Error(root, "", "the kubeconfig must be a mapping");
    RestConfig config;
    config.source = source_.string();
    std::string context_name = context_;
    if (context_name.empty()) {
      STEWARD_ASSIGN_OR_RETURN(context_name, Scalar(root, "current-context", ""));
      if (context_name.empty())
        return Error(root, "current-context",
                     "no current-context is set and no context was named (use --context)");
    }
    config.context = context_name;
    context_ = context_name;  // Named in every later message.
    STEWARD_ASSIGN_OR_RETURN(YAML::Node context, Named(root, "contexts", "context", context_name));
    STEWARD_ASSIGN_OR_RETURN(std::string cluster_name, Scalar(context, "cluster", "context."));
    STEWARD_ASSIGN_OR_RETURN(std::string user_name, Scalar(context, "user", "context."));
    STEWARD_ASSIGN_OR_RETURN(std::string ns, Scalar(context, "namespace", "context."));
    if (!ns.empty()) config.namespace_name = ns;
    if (cluster_name.empty()) return Error(context, "context.cluster", "no cluster is named");
    STEWARD_ASSIGN_OR_RETURN(YAML::Node cluster, Named(root, "clusters", "cluster", cluster_name));
    STEWARD_RETURN_IF_ERROR(ReadCluster(cluster, &config));
    if (!user_name.empty()) {
      STEWARD_ASSIGN_OR_RETURN(YAML::Node user, Named(root, "users", "user", user_name));
      STEWARD_RETURN_IF_ERROR(ReadUser(user, &config));
    }
    return config;
  }

 private:
  Status ReadCluster(const YAML::Node& c, RestConfig* config) {
    STEWARD_ASSIGN_OR_RETURN(config->server, Scalar(c, "server", "cluster."));
    if (config->server.empty()) return Error(c, "cluster.server", "the cluster has no server");
    if (config->server.rfind("https://", 0) != 0 && config->server.rfind("http://", 0) != 0)
      return Error(c["server"], "cluster.server",
                   fmt::format("'{}' is not an http(s) URL", config->server));
    STEWARD_ASSIGN_OR_RETURN(config->insecure_skip_tls_verify,
                             Bool(c, "insecure-skip-tls-verify", "cluster."));
    STEWARD_ASSIGN_OR_RETURN(config->tls_server_name, Scalar(c, "tls-server-name", "cluster."));
    STEWARD_ASSIGN_OR_RETURN(config->ca_pem, DataOrFile(c, "certificate-authority-data",
                                                        "certificate-authority", "cluster."));
    STEWARD_ASSIGN_OR_RETURN(std::string proxy, Scalar(c, "proxy-url", "cluster."));
    if (!proxy.empty())
      return Error(c["proxy-url"], "cluster.proxy-url", "proxies are not supported");
    return Status::Ok();
  }

  Status ReadUser(const YAML::Node& u, RestConfig* config) {
    STEWARD_ASSIGN_OR_RETURN(config->token, Scalar(u, "token", "user."));
    STEWARD_ASSIGN_OR_RETURN(std::string token_file, Scalar(u, "tokenFile", "user."));
    if (!token_file.empty()) config->token_file = Resolve(token_file).string();
    STEWARD_ASSIGN_OR_RETURN(config->username, Scalar(u, "username", "user."));
    STEWARD_ASSIGN_OR_RETURN(config->password, Scalar(u, "password", "user."));
    STEWARD_ASSIGN_OR_RETURN(
        config->client_certificate_pem,
        DataOrFile(u, "client-certificate-data", "client-certificate", "user."));
    STEWARD_ASSIGN_OR_RETURN(config->client_key_pem,
                             DataOrFile(u, "client-key-data", "client-key", "user."));
    if (config->client_certificate_pem.empty() != config->client_key_pem.empty())
      return Error(u, "user.client-certificate",
                   "a client certificate needs a client key, and a key its certificate");
    if (u["auth-provider"])
      return Error(u["auth-provider"], "user.auth-provider",
                   "auth-provider plugins are not supported (gcp and azure providers were "
                   "removed from kubectl; use an exec plugin)");
    if (const YAML::Node exec = u["exec"]; exec && !exec.IsNull()) {
      STEWARD_ASSIGN_OR_RETURN(ExecConfig e, ReadExec(exec));
      config->exec = std::move(e);
    }
    return Status::Ok();
  }

  Result<ExecConfig> ReadExec(const YAML::Node& e) {
    if (!e.IsMap()) return Error(e, "user.exec", "must be a mapping");
    ExecConfig exec;
    STEWARD_ASSIGN_OR_RETURN(exec.api_version, Scalar(e, "apiVersion", "user.exec."));
    if (exec.api_version != "client.authentication.k8s.io/v1" &&
        exec.api_version != "client.authentication.k8s.io/v1beta1")
      return Error(e["apiVersion"] ? e["apiVersion"] : e, "user.exec.apiVersion",
                   fmt::format("'{}' is not supported (client.authentication.k8s.io/v1 or "
                               "v1beta1)",
                               exec.api_version));
    STEWARD_ASSIGN_OR_RETURN(exec.command, Scalar(e, "command", "user.exec."));
    if (exec.command.empty()) return Error(e, "user.exec.command", "no command is given");
    if (exec.command.find('/') != std::string::npos) exec.command = Resolve(exec.command).string();
    if (const YAML::Node args = e["args"]; args && !args.IsNull()) {
      if (!args.IsSequence()) return Error(args, "user.exec.args", "must be a list of strings");
      for (const YAML::Node& a : args) {
        if (!a.IsScalar()) return Error(a, "user.exec.args", "must be a list of strings");
        exec.args.push_back(a.Scalar());
      }
    }
    if (const YAML::Node env = e["env"]; env && !env.IsNull()) {
      if (!env.IsSequence()) return Error(env, "user.exec.env", "must be a list of name/value");
      for (const YAML::Node& kv : env) {
        if (!kv.IsMap()) return Error(kv, "user.exec.env", "each entry needs name and value");
        STEWARD_ASSIGN_OR_RETURN(std::string name, Scalar(kv, "name", "user.exec.env[]."));
        STEWARD_ASSIGN_OR_RETURN(std::string value, Scalar(kv, "value", "user.exec.env[]."));
        if (name.empty()) return Error(kv, "user.exec.env[].name", "is empty");
        exec.env.emplace_back(std::move(name), std::move(value));
      }
    }
    STEWARD_ASSIGN_OR_RETURN(exec.provide_cluster_info,
                             Bool(e, "provideClusterInfo", "user.exec."));
    STEWARD_ASSIGN_OR_RETURN(exec.install_hint, Scalar(e, "installHint", "user.exec."));
    return exec;
  }

  // The entry of list `list` whose name is `name`, returned as its `inner` mapping.
  Result<YAML::Node> Named(const YAML::Node& root, const char* list, const char* inner,
                           const std::string& name) {
    const YAML::Node items = root[list];
    if (items && !items.IsNull() && !items.IsSequence())
      return Error(items, list, "must be a list");
    std::vector<std::string> names;
    if (items && items.IsSequence()) {
      for (const YAML::Node& item : items) {
        if (!item.IsMap()) return Error(item, list, "each entry must be a mapping");
        const YAML::Node n = item["name"];
        const std::string item_name = n && n.IsScalar() ? n.Scalar() : "";
        if (item_name == name) {
          const YAML::Node body = item[inner];
          if (!body || body.IsNull()) return YAML::Node(YAML::NodeType::Map);
          if (!body.IsMap())
            return Error(body, fmt::format("{}[{}].{}", list, name, inner), "must be a mapping");
          return body;
        }
        names.push_back(item_name);
      }
    }
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
    return Error(root, list,
                 fmt::format("no {} named '{}' (the file has: {})", inner, name,
                             known.empty() ? "none" : known));
  }

  Result<std::string> Scalar(const YAML::Node& parent, const char* key, std::string_view path) {
    const YAML::Node n = parent[key];
    if (!n || n.IsNull()) return std::string();
    if (!n.IsScalar()) return Error(n, fmt::format("{}{}", path, key), "must be a string");
    return n.Scalar();
  }

  Result<bool> Bool(const YAML::Node& parent, const char* key, std::string_view path) {
    STEWARD_ASSIGN_OR_RETURN(std::string v, Scalar(parent, key, path));
    if (v.empty() || v == "false" || v == "False") return false;
    if (v == "true" || v == "True") return true;
    return Error(parent[key], fmt::format("{}{}", path, key),
                 fmt::format("'{}' is not true or false", v));
  }

  // PEM text from `data_key` (base64) or from the file `file_key` names ("" when neither).
  Result<std::string> DataOrFile(const YAML::Node& parent, const char* data_key,
                                 const char* file_key, std::string_view path) {
    STEWARD_ASSIGN_OR_RETURN(std::string data, Scalar(parent, data_key, path));
    if (!data.empty()) {
      std::optional<std::string> decoded = model::Base64Decode(data);
      if (!decoded || decoded->empty())
        return Error(parent[data_key], fmt::format("{}{}", path, data_key), "is not base64");
      return *decoded;
    }
    STEWARD_ASSIGN_OR_RETURN(std::string file, Scalar(parent, file_key, path));
    if (file.empty()) return std::string();
    Result<std::string> text = ReadFile(Resolve(file));
    if (!text.ok())
      return Error(parent[file_key], fmt::format("{}{}", path, file_key), text.status().message());
    return text;
  }

  fs::path Resolve(const std::string& p) const {
    fs::path path(p);
    if (!p.empty() && p[0] == '~') {
      if (std::optional<std::string> home = ProcessEnv("HOME"))
        path = fs::path(*home) / p.substr(p.size() > 1 && p[1] == '/' ? 2 : 1);
    }
    return path.is_absolute() ? path : dir_ / path;
  }

  Status Error(const YAML::Node& at, std::string_view field, std::string_view what) const {
    const int line = at.IsDefined() && at.Mark().line >= 0 ? at.Mark().line + 1 : 0;
    std::string message = MakeInputError(source_.string(), line, 0, field, what).message();
    if (!context_.empty()) message += fmt::format(" (context '{}')", context_);
    return Status::InvalidArgument(std::move(message));
  }

  const fs::path source_;
  const fs::path dir_;
  std::string context_;
};

std::string TrimSpace(std::string s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  const size_t e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

}  // namespace

Result<RestConfig> ParseKubeconfig(std::string_view text, const fs::path& source,
                                   std::string_view context) {
  return KubeconfigReader(source, std::string(context)).Read(text);
}

Result<RestConfig> LoadKubeconfig(const fs::path& path, std::string_view context) {
  STEWARD_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseKubeconfig(text, path, context);
}

Result<RestConfig> InClusterConfig(const fs::path& root, const EnvLookup& getenv_in) {
  const EnvLookup getenv = getenv_in ? getenv_in : EnvLookup(ProcessEnv);
  const std::optional<std::string> host = getenv("KUBERNETES_SERVICE_HOST");
  const std::optional<std::string> port = getenv("KUBERNETES_SERVICE_PORT");
  if (!host || host->empty() || !port || port->empty())
    return Status::FailedPrecondition(
        "not running inside a pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are unset");
  RestConfig config;
  config.source = "in-cluster";
  const bool ipv6 = host->find(':') != std::string::npos;
  config.server = fmt::format("https://{}:{}", ipv6 ? "[" + *host + "]" : *host, *port);
  const fs::path token = root / "token";
  if (std::error_code ec; !fs::exists(token, ec))
    return Status::FailedPrecondition(
        fmt::format("in-cluster configuration: no service-account token at {}", token.string()));
  config.token_file = token.string();
  Result<std::string> ca = ReadFile(root / "ca.crt");
  if (!ca.ok())
    return Status::FailedPrecondition(
        fmt::format("in-cluster configuration: {}", ca.status().message()));
  config.ca_pem = std::move(ca).value();
  if (Result<std::string> ns = ReadFile(root / "namespace"); ns.ok()) {
    std::string name = TrimSpace(*ns);
    if (!name.empty()) config.namespace_name = std::move(name);
  }
  return config;
}

Result<RestConfig> ResolveRestConfig(const ConfigSources& sources) {
  const EnvLookup getenv = sources.getenv ? sources.getenv : EnvLookup(ProcessEnv);
  if (!sources.kubeconfig.empty()) return LoadKubeconfig(sources.kubeconfig, sources.context);
  if (std::optional<std::string> env = getenv("KUBECONFIG"); env && !env->empty()) {
    // Only the first file of the list: Steward does not merge kubeconfigs.
    const std::string first = env->substr(0, env->find(':'));
    if (!first.empty()) return LoadKubeconfig(first, sources.context);
  }
  if (std::optional<std::string> home = getenv("HOME"); home && !home->empty()) {
    const fs::path path = fs::path(*home) / ".kube" / "config";
    if (std::error_code ec; fs::exists(path, ec)) return LoadKubeconfig(path, sources.context);
  }
  Result<RestConfig> in_cluster = InClusterConfig(sources.service_account_dir, getenv);
  if (in_cluster.ok()) return in_cluster;
  return Status::NotFound(fmt::format(
      "no Kubernetes configuration: no --kubeconfig, $KUBECONFIG is unset, no ~/.kube/config, "
      "and {}",
      in_cluster.status().message()));
}

}  // namespace steward::live
