#include "telemetry/prometheus_http_config.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

namespace steward::telemetry {
namespace {

// Headers prometheus/common refuses to let a config set (config/headers.go): they change the
// connection, carry credentials configured elsewhere, or are set by the client itself.
constexpr std::string_view kReservedHeaders[] = {"authorization",
                                                 "host",
                                                 "content-encoding",
                                                 "content-length",
                                                 "content-type",
                                                 "user-agent",
                                                 "connection",
                                                 "keep-alive",
                                                 "proxy-authenticate",
                                                 "proxy-authorization",
                                                 "www-authenticate",
                                                 "accept-encoding",
                                                 "x-prometheus-remote-write-version",
                                                 "x-prometheus-remote-read-version",
                                                 "x-prometheus-scrape-timeout-seconds",
                                                 "x-amz-date",
                                                 "x-amz-security-token",
                                                 "x-amz-content-sha256"};

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string Trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r\n\v\f");
  if (b == std::string_view::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r\n\v\f");
  return std::string(s.substr(b, e - b + 1));
}

// RFC 9110 token characters: what a header name may hold.
bool IsHeaderName(std::string_view name) {
  if (name.empty()) return false;
  for (unsigned char c : name) {
    if (std::isalnum(c)) continue;
    if (std::strchr("!#$%&'*+-.^_`|~", c) == nullptr || c == 0) return false;
  }
  return true;
}

bool HasLineBreak(std::string_view s) { return s.find_first_of("\r\n") != std::string_view::npos; }

std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = (static_cast<unsigned char>(in[i]) << 16) |
                       (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += kAlphabet[(v >> shift) & 63];
  }
  if (i + 1 == in.size()) {
    const uint32_t v = static_cast<unsigned char>(in[i]) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    const uint32_t v =
        (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

// Reads a whole file; the error names the config field that pointed at it.
Result<std::string> ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::IoError(fmt::format("cannot read {}", path));
  return ss.str();
}

class Parser {
 public:
  Parser(std::string_view file, std::string_view base_dir) : file_(file), base_dir_(base_dir) {}

  Status Error(const YAML::Node& at, std::string_view field, std::string_view what) const {
    return ErrorAt(at.Mark(), field, what);
  }
  Status ErrorAt(const YAML::Mark& mark, std::string_view field, std::string_view what) const {
    // yaml-cpp marks are 0-based and -1 when unknown.
    return MakeInputError(file_, mark.line >= 0 ? mark.line + 1 : 0,
                          mark.column >= 0 ? mark.column + 1 : 0, field, what);
  }

  // Walks a map: each key once, known keys to `on_key`, the unsupported ones refused with their
  // reason, anything else an unknown field listing the valid ones.
  Status Fields(const YAML::Node& map, const std::string& prefix,
                std::initializer_list<std::string_view> known,
                const std::map<std::string_view, std::string_view>& unsupported,
                const std::function<Status(const std::string& key, const YAML::Node& value,
                                           const std::string& field)>& on_key) const {
    if (!map.IsMap()) return Error(map, prefix.empty() ? "(root)" : prefix, "must be a map");
    std::set<std::string> seen;
    for (const auto& kv : map) {
      const std::string key = kv.first.Scalar();
      const std::string field = prefix.empty() ? key : prefix + "." + key;
      if (!seen.insert(key).second) return Error(kv.first, field, "given twice");
      if (auto it = unsupported.find(key); it != unsupported.end())
        return Error(kv.first, field, fmt::format("not supported by Steward: {}", it->second));
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        std::string valid;
        for (std::string_view k : known) valid += std::string(valid.empty() ? "" : ", ") += k;
        return Error(kv.first, field, fmt::format("unknown field (valid: {})", valid));
      }
      STEWARD_RETURN_IF_ERROR(on_key(key, kv.second, field));
    }
    return Status::Ok();
  }

  Status String(const YAML::Node& v, const std::string& field, std::string* out) const {
    if (v.IsNull()) {
      out->clear();
      return Status::Ok();
    }
    if (!v.IsScalar()) return Error(v, field, "must be a string");
    *out = v.Scalar();
    return Status::Ok();
  }

  // A secret: as String, but a line break (which would split the header) is refused without
  // echoing the value.
  Status Secret(const YAML::Node& v, const std::string& field, std::string* out) const {
    STEWARD_RETURN_IF_ERROR(String(v, field, out));
    if (HasLineBreak(*out)) return Error(v, field, "must not contain a line break");
    return Status::Ok();
  }

  Status Bool(const YAML::Node& v, const std::string& field, bool* out) const {
    // YAML 1.1 booleans, as Prometheus' gopkg.in/yaml.v2 reads them.
    const std::string s = v.IsScalar() ? Lower(v.Scalar()) : "";
    const bool yes = s == "true" || s == "yes" || s == "y" || s == "on";
    const bool no = s == "false" || s == "no" || s == "n" || s == "off";
    if (!yes && !no) return Error(v, field, "must be true or false");
    *out = yes;
    return Status::Ok();
  }

  // A file path: joined to the config's directory, and readable now.
  Status Path(const YAML::Node& v, const std::string& field, std::string* out) const {
    STEWARD_RETURN_IF_ERROR(String(v, field, out));
    if (out->empty()) return Status::Ok();
    const std::filesystem::path p(*out);
    if (p.is_relative() && !base_dir_.empty())
      *out = (std::filesystem::path(base_dir_) / p).string();
    std::ifstream in(*out, std::ios::binary);
    if (!in) return Error(v, field, fmt::format("cannot read {}: {}", *out, std::strerror(errno)));
    if (std::filesystem::is_directory(*out))
      return Error(v, field, fmt::format("{} is a directory", *out));
    return Status::Ok();
  }

  Status List(const YAML::Node& v, const std::string& field,
              const std::function<Status(const YAML::Node&, const std::string&)>& each) const {
    if (v.IsNull()) return Status::Ok();
    if (!v.IsSequence()) return Error(v, field, "must be a list");
    for (size_t i = 0; i < v.size(); ++i)
      STEWARD_RETURN_IF_ERROR(each(v[i], fmt::format("{}[{}]", field, i)));
    return Status::Ok();
  }

  Status Root(const YAML::Node& root, PrometheusHttpConfig* c) const {
    static const std::map<std::string_view, std::string_view> kUnsupported = {
        {"proxy_url",
         "Steward connects to Prometheus directly; run it where Prometheus is "
         "reachable, or through a tunnel"},
        {"no_proxy", "proxies are not supported"},
        {"proxy_from_environment", "proxies are not supported"},
        {"proxy_connect_header", "proxies are not supported"},
        {"oauth2", "use authorization with a token (credentials_file) instead"},
        {"sigv4", "AWS SigV4 signing is not supported"},
    };
    std::string bearer_token, bearer_token_file;
    STEWARD_RETURN_IF_ERROR(Fields(
        root, "",
        {"basic_auth", "authorization", "bearer_token", "bearer_token_file", "tls_config",
         "http_headers", "follow_redirects", "enable_http2"},
        kUnsupported, [&](const std::string& key, const YAML::Node& v, const std::string& field) {
          if (key == "basic_auth") {
            if (v.IsNull()) return Status::Ok();
            c->basic_auth.emplace();
            return BasicAuth(v, field, &*c->basic_auth);
          }
          if (key == "authorization") {
            if (v.IsNull()) return Status::Ok();
            // Assigned, not emplace(): clang 14 (the fuzz build) cannot default-construct a
            // nested struct with member initializers inside std::optional.
            c->authorization = PrometheusHttpConfig::Authorization{"Bearer", "", ""};
            return Authorization(v, field, &*c->authorization);
          }
          if (key == "bearer_token") return Secret(v, field, &bearer_token);
          if (key == "bearer_token_file") return Path(v, field, &bearer_token_file);
          if (key == "tls_config") return v.IsNull() ? Status::Ok() : Tls(v, field, &c->tls);
          if (key == "http_headers") return v.IsNull() ? Status::Ok() : Headers(v, field, c);
          if (key == "follow_redirects") return Bool(v, field, &c->follow_redirects);
          bool http2 = true;  // enable_http2: accepted and ignored; Steward speaks HTTP/1.1.
          return Bool(v, field, &http2);
        }));
    // The combinations prometheus/common's HTTPClientConfig.Validate refuses.
    if (!bearer_token.empty() && !bearer_token_file.empty())
      return Error(root["bearer_token_file"], "bearer_token_file",
                   "at most one of bearer_token and bearer_token_file");
    const bool bearer = !bearer_token.empty() || !bearer_token_file.empty();
    const char* bearer_key = bearer_token.empty() ? "bearer_token_file" : "bearer_token";
    if (bearer && c->basic_auth)
      return Error(root[bearer_key], bearer_key,
                   "at most one of basic_auth, bearer_token and bearer_token_file");
    if (bearer && c->authorization)
      return Error(root[bearer_key], bearer_key,
                   "authorization is not compatible with bearer_token and bearer_token_file");
    if (c->basic_auth && c->authorization)
      return Error(root["authorization"], "authorization",
                   "at most one of basic_auth and authorization");
    if (bearer) {
      c->authorization =
          PrometheusHttpConfig::Authorization{"Bearer", bearer_token, bearer_token_file};
    }
    return Status::Ok();
  }

  Status BasicAuth(const YAML::Node& v, const std::string& prefix,
                   PrometheusHttpConfig::BasicAuth* b) const {
    STEWARD_RETURN_IF_ERROR(Fields(
        v, prefix, {"username", "username_file", "password", "password_file"}, {},
        [&](const std::string& key, const YAML::Node& x, const std::string& field) {
          if (key == "username") {
            STEWARD_RETURN_IF_ERROR(Secret(x, field, &b->username));
            if (b->username.find(':') != std::string::npos)
              return Error(x, field, "must not contain ':' (basic auth joins user:password)");
            return Status::Ok();
          }
          if (key == "username_file") return Path(x, field, &b->username_file);
          if (key == "password") return Secret(x, field, &b->password);
          return Path(x, field, &b->password_file);
        }));
    if (!b->username.empty() && !b->username_file.empty())
      return Error(v["username_file"], prefix + ".username_file",
                   "at most one of username and username_file");
    if (!b->password.empty() && !b->password_file.empty())
      return Error(v["password_file"], prefix + ".password_file",
                   "at most one of password and password_file");
    return Status::Ok();
  }

  Status Authorization(const YAML::Node& v, const std::string& prefix,
                       PrometheusHttpConfig::Authorization* a) const {
    STEWARD_RETURN_IF_ERROR(
        Fields(v, prefix, {"type", "credentials", "credentials_file"}, {},
               [&](const std::string& key, const YAML::Node& x, const std::string& field) {
                 if (key == "type") {
                   STEWARD_RETURN_IF_ERROR(String(x, field, &a->type));
                   a->type = Trim(a->type);
                   if (a->type.empty()) a->type = "Bearer";
                   if (Lower(a->type) == "basic")
                     return Error(x, field, "cannot be Basic: use basic_auth instead");
                   if (!IsHeaderName(a->type))
                     return Error(x, field, "must be one word, e.g. Bearer");
                   return Status::Ok();
                 }
                 if (key == "credentials") return Secret(x, field, &a->credentials);
                 return Path(x, field, &a->credentials_file);
               }));
    if (!a->credentials.empty() && !a->credentials_file.empty())
      return Error(v["credentials_file"], prefix + ".credentials_file",
                   "at most one of credentials and credentials_file");
    return Status::Ok();
  }

  Status Tls(const YAML::Node& v, const std::string& prefix, PrometheusHttpConfig::Tls* t) const {
    static const std::map<std::string_view, std::string_view> kUnsupported = {
        {"ca", "inline certificates are not supported: use ca_file"},
        {"cert", "inline certificates are not supported: use cert_file"},
        {"key", "inline keys are not supported: use key_file"},
        {"key_file_password", "encrypted keys are not supported"},
        {"ca_ref", "secret references are not supported: use ca_file"},
        {"cert_ref", "secret references are not supported: use cert_file"},
        {"key_ref", "secret references are not supported: use key_file"},
    };
    auto version = [&](const YAML::Node& x, const std::string& field, std::string* out) {
      STEWARD_RETURN_IF_ERROR(String(x, field, out));
      if (out->empty() || *out == "TLS10" || *out == "TLS11" || *out == "TLS12" || *out == "TLS13")
        return Status::Ok();
      return Error(x, field, fmt::format("'{}': must be TLS10, TLS11, TLS12 or TLS13", *out));
    };
    STEWARD_RETURN_IF_ERROR(Fields(
        v, prefix,
        {"ca_file", "cert_file", "key_file", "server_name", "insecure_skip_verify", "min_version",
         "max_version"},
        kUnsupported, [&](const std::string& key, const YAML::Node& x, const std::string& field) {
          if (key == "ca_file") return Path(x, field, &t->ca_file);
          if (key == "cert_file") return Path(x, field, &t->cert_file);
          if (key == "key_file") return Path(x, field, &t->key_file);
          if (key == "server_name") return String(x, field, &t->server_name);
          if (key == "insecure_skip_verify") return Bool(x, field, &t->insecure_skip_verify);
          if (key == "min_version") return version(x, field, &t->min_version);
          return version(x, field, &t->max_version);
        }));
    if (t->cert_file.empty() != t->key_file.empty()) {
      const bool cert = !t->cert_file.empty();
      return Error(v[cert ? "cert_file" : "key_file"], prefix + (cert ? ".cert_file" : ".key_file"),
                   "a client certificate needs both cert_file and key_file");
    }
    if (!t->min_version.empty() && !t->max_version.empty() && t->min_version > t->max_version)
      return Error(v["max_version"], prefix + ".max_version", "is below min_version");
    return Status::Ok();
  }

  Status Headers(const YAML::Node& v, const std::string& prefix, PrometheusHttpConfig* c) const {
    if (!v.IsMap())
      return Error(v, prefix, "must be a map of header name to {values, secrets, files}");
    std::set<std::string> seen;
    for (const auto& kv : v) {
      const std::string name = kv.first.Scalar();
      const std::string field = prefix + "." + name;
      if (!IsHeaderName(name)) return Error(kv.first, field, "is not a valid header name");
      const std::string lower = Lower(name);
      if (!seen.insert(lower).second) return Error(kv.first, field, "given twice");
      if (std::find(std::begin(kReservedHeaders), std::end(kReservedHeaders), lower) !=
          std::end(kReservedHeaders))
        return Error(kv.first, field,
                     "may not be set here (reserved, as in Prometheus; credentials go in "
                     "basic_auth or authorization)");
      PrometheusHttpConfig::Header& h = c->headers[name];
      if (kv.second.IsNull()) continue;
      STEWARD_RETURN_IF_ERROR(
          Fields(kv.second, field, {"values", "secrets", "files"}, {},
                 [&](const std::string& key, const YAML::Node& x, const std::string& list_field) {
                   std::vector<std::string>* out = key == "values"    ? &h.values
                                                   : key == "secrets" ? &h.secrets
                                                                      : &h.files;
                   return List(x, list_field, [&](const YAML::Node& e, const std::string& f) {
                     std::string s;
                     STEWARD_RETURN_IF_ERROR(key == "files" ? Path(e, f, &s) : Secret(e, f, &s));
                     out->push_back(std::move(s));
                     return Status::Ok();
                   });
                 }));
    }
    return Status::Ok();
  }

 private:
  std::string file_;
  std::string base_dir_;
};

}  // namespace

Result<PrometheusHttpConfig> ParsePrometheusHttpConfig(std::string_view yaml_text,
                                                       std::string_view name,
                                                       std::string_view base_dir) {
  Parser parser(name, base_dir);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::ParserException& e) {
    return parser.ErrorAt(e.mark, "yaml", e.msg);
  }
  PrometheusHttpConfig c;
  c.file = std::string(name);
  if (root.IsNull()) return c;  // An empty file: plain requests, as Prometheus reads it.
  try {
    STEWARD_RETURN_IF_ERROR(parser.Root(root, &c));
  } catch (const YAML::Exception& e) {
    return parser.ErrorAt(e.mark, "yaml", e.msg);
  }
  return c;
}

Result<PrometheusHttpConfig> LoadPrometheusHttpConfig(const std::string& path) {
  Result<std::string> text = ReadWhole(path);
  if (!text.ok())
    return Status::IoError(fmt::format("--prometheus-config: {}", text.status().message()));
  return ParsePrometheusHttpConfig(*text, path, std::filesystem::path(path).parent_path().string());
}

Result<std::vector<std::pair<std::string, std::string>>> ResolveHeaders(
    const PrometheusHttpConfig& c) {
  // Files are read per request, so a rotated secret is picked up; the error names the field.
  auto read = [&](const std::string& path, std::string_view field) -> Result<std::string> {
    Result<std::string> text = ReadWhole(path);
    if (!text.ok()) {
      return Status::IoError(fmt::format("prometheus client config {}: {}: {}", c.file, field,
                                         text.status().message()));
    }
    std::string v = Trim(*text);
    if (HasLineBreak(v)) {
      return Status::InvalidArgument(fmt::format(
          "prometheus client config {}: {}: {} holds more than one line", c.file, field, path));
    }
    return v;
  };
  std::vector<std::pair<std::string, std::string>> out;
  if (c.basic_auth) {
    std::string user = c.basic_auth->username, password = c.basic_auth->password;
    if (!c.basic_auth->username_file.empty()) {
      STEWARD_ASSIGN_OR_RETURN(user, read(c.basic_auth->username_file, "basic_auth.username_file"));
    }
    if (!c.basic_auth->password_file.empty()) {
      STEWARD_ASSIGN_OR_RETURN(password,
                               read(c.basic_auth->password_file, "basic_auth.password_file"));
    }
    out.emplace_back("Authorization", "Basic " + Base64(user + ":" + password));
  } else if (c.authorization) {
    std::string credentials = c.authorization->credentials;
    if (!c.authorization->credentials_file.empty()) {
      STEWARD_ASSIGN_OR_RETURN(
          credentials, read(c.authorization->credentials_file, "authorization.credentials_file"));
    }
    if (!credentials.empty())
      out.emplace_back("Authorization", c.authorization->type + " " + credentials);
  }
  for (const auto& [name, h] : c.headers) {
    for (const std::string& v : h.values) out.emplace_back(name, v);
    for (const std::string& v : h.secrets) out.emplace_back(name, v);
    for (const std::string& f : h.files) {
      STEWARD_ASSIGN_OR_RETURN(std::string v, read(f, "http_headers." + name + ".files"));
      out.emplace_back(name, std::move(v));
    }
  }
  return out;
}

}  // namespace steward::telemetry
