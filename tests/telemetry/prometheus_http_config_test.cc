#include "telemetry/prometheus_http_config.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

namespace steward::telemetry {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test holding the config and the files it names.
class HttpConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           fmt::format("promcfg_{}_{}",
                       ::testing::UnitTest::GetInstance()->current_test_info()->name(),
                       static_cast<long>(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "secrets");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

  fs::path dir_;
};

std::map<std::string, std::vector<std::string>> ByName(
    const std::vector<std::pair<std::string, std::string>>& headers) {
  std::map<std::string, std::vector<std::string>> m;
  for (const auto& [k, v] : headers) m[k].push_back(v);
  return m;
}

TEST_F(HttpConfigTest, FullFileWithPathsFromItsOwnDirectory) {
  Write("secrets/token", "  tok-123\n");
  Write("secrets/tenant", "team-b\n");
  Write("ca.pem", "not parsed when loading\n");
  Write("client.pem", "x");
  Write("client.key", "x");
  const std::string path = Write("client.yml", R"(
authorization:
  credentials_file: secrets/token
tls_config:
  ca_file: ca.pem
  cert_file: client.pem
  key_file: client.key
  server_name: prometheus.internal
  min_version: TLS12
http_headers:
  X-Scope-OrgID:
    values: [team-a]
    files: [secrets/tenant]
  X-Extra:
    secrets: [hidden]
follow_redirects: false
enable_http2: true
)");
  // The working directory is elsewhere: paths must still resolve next to the file.
  Result<PrometheusHttpConfig> c = LoadPrometheusHttpConfig(path);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->file, path);
  ASSERT_TRUE(c->authorization.has_value());
  EXPECT_EQ(c->authorization->type, "Bearer");
  EXPECT_EQ(fs::path(c->authorization->credentials_file), dir_ / "secrets/token");
  EXPECT_EQ(fs::path(c->tls.ca_file), dir_ / "ca.pem");
  EXPECT_EQ(fs::path(c->tls.cert_file), dir_ / "client.pem");
  EXPECT_EQ(c->tls.server_name, "prometheus.internal");
  EXPECT_EQ(c->tls.min_version, "TLS12");
  EXPECT_FALSE(c->tls.insecure_skip_verify);
  EXPECT_FALSE(c->follow_redirects);

  auto h = ResolveHeaders(*c);
  ASSERT_TRUE(h.ok()) << h.status().message();
  auto by = ByName(*h);
  EXPECT_EQ(by["Authorization"], std::vector<std::string>{"Bearer tok-123"});  // Trimmed.
  EXPECT_EQ(by["X-Scope-OrgID"], (std::vector<std::string>{"team-a", "team-b"}));
  EXPECT_EQ(by["X-Extra"], std::vector<std::string>{"hidden"});
}

TEST_F(HttpConfigTest, BasicAuthHeaderIsRfc7617) {
  // RFC 7617 section 2's example: Aladdin / open sesame.
  auto c = ParsePrometheusHttpConfig("basic_auth:\n  username: Aladdin\n  password: open sesame\n",
                                     "inline", "");
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto h = ResolveHeaders(*c);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(ByName(*h)["Authorization"],
            std::vector<std::string>{"Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="});
}

TEST_F(HttpConfigTest, OlderBearerFormsBecomeAuthorization) {
  Write("t", "file-token");
  auto a = ParsePrometheusHttpConfig("bearer_token: abc\n", "a.yml", dir_.string());
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(ByName(*ResolveHeaders(*a))["Authorization"], std::vector<std::string>{"Bearer abc"});
  auto b = ParsePrometheusHttpConfig("bearer_token_file: t\n", "b.yml", dir_.string());
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(ByName(*ResolveHeaders(*b))["Authorization"],
            std::vector<std::string>{"Bearer file-token"});
  auto custom =
      ParsePrometheusHttpConfig("authorization: {type: Token, credentials: xyz}\n", "c.yml", "");
  ASSERT_TRUE(custom.ok()) << custom.status().message();
  EXPECT_EQ(ByName(*ResolveHeaders(*custom))["Authorization"],
            std::vector<std::string>{"Token xyz"});
}

TEST_F(HttpConfigTest, BooleansAsPrometheusYamlReadsThem) {
  for (const char* yes : {"true", "True", "yes", "on"}) {
    auto c = ParsePrometheusHttpConfig(
        std::string("tls_config: {insecure_skip_verify: ") + yes + "}\n", "b.yml", "");
    ASSERT_TRUE(c.ok()) << yes << ": " << c.status().message();
    EXPECT_TRUE(c->tls.insecure_skip_verify) << yes;
  }
  for (const char* no : {"false", "FALSE", "no", "off"}) {
    auto c = ParsePrometheusHttpConfig(std::string("follow_redirects: ") + no + "\n", "b.yml", "");
    ASSERT_TRUE(c.ok()) << no << ": " << c.status().message();
    EXPECT_FALSE(c->follow_redirects) << no;
  }
}

TEST_F(HttpConfigTest, EmptyFileSendsNothing) {
  const std::string path = Write("empty.yml", "");
  auto c = LoadPrometheusHttpConfig(path);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(ResolveHeaders(*c)->empty());
  EXPECT_FALSE(c->tls.insecure_skip_verify);
}

TEST_F(HttpConfigTest, CredentialFilesAreReadAgainOnEachRequest) {
  Write("pw", "first\n");
  auto c = ParsePrometheusHttpConfig("basic_auth: {username: u, password_file: pw}\n", "r.yml",
                                     dir_.string());
  ASSERT_TRUE(c.ok()) << c.status().message();
  const auto before = ByName(*ResolveHeaders(*c))["Authorization"];
  Write("pw", "rotated\n");
  const auto after = ByName(*ResolveHeaders(*c))["Authorization"];
  EXPECT_NE(before, after);
  fs::remove(dir_ / "pw");
  auto gone = ResolveHeaders(*c);
  ASSERT_FALSE(gone.ok());
  EXPECT_NE(gone.status().message().find("basic_auth.password_file"), std::string::npos)
      << gone.status().message();
}

struct BadCase {
  const char* yaml;
  int line;           // 1-based line the error must point at.
  const char* field;  // Field path the error must name.
  const char* what;   // A phrase the explanation must contain.
};

TEST_F(HttpConfigTest, BadFilesNameFileLineAndField) {
  const BadCase cases[] = {
      {"basic_auth:\n  username: u\nbsic_auth: {}\n", 3, "bsic_auth", "unknown field"},
      {"tls_config:\n  ca_fil: x\n", 2, "tls_config.ca_fil", "unknown field"},
      {"proxy_url: http://proxy:3128\n", 1, "proxy_url", "not supported"},
      {"oauth2:\n  client_id: x\n", 1, "oauth2", "not supported"},
      {"tls_config:\n  ca: |\n    PEM\n", 2, "tls_config.ca", "ca_file"},
      {"tls_config:\n  insecure_skip_verify: maybe\n", 2, "tls_config.insecure_skip_verify",
       "true or false"},
      {"tls_config:\n  min_version: SSL3\n", 2, "tls_config.min_version", "TLS12"},
      {"tls_config:\n  cert_file: c.pem\n", 2, "tls_config.cert_file", "key_file"},
      {"basic_auth:\n  username: u\n  password: p\n  password_file: pw\n", 4,
       "basic_auth.password_file", "at most one"},
      {"basic_auth: {username: u}\nauthorization:\n  credentials: t\n", 3, "authorization",
       "at most one of basic_auth and authorization"},
      {"authorization:\n  credentials: t\nbearer_token: b\n", 3, "bearer_token", "not compatible"},
      {"bearer_token: a\nbearer_token_file: pw\n", 2, "bearer_token_file", "at most one"},
      {"authorization:\n  type: basic\n  credentials: x\n", 2, "authorization.type", "basic_auth"},
      {"authorization:\n  credentials: a\n  credentials_file: pw\n", 3,
       "authorization.credentials_file", "at most one"},
      {"http_headers:\n  Authorization:\n    values: [x]\n", 2, "http_headers.Authorization",
       "reserved"},
      {"http_headers:\n  X-Scope-OrgID:\n    values: team-a\n", 3,
       "http_headers.X-Scope-OrgID.values", "must be a list"},
      {"http_headers:\n  X-Scope-OrgID:\n    value: [a]\n", 3, "http_headers.X-Scope-OrgID.value",
       "unknown field"},
      {"http_headers:\n  \"bad name\":\n    values: [a]\n", 2, "http_headers.bad name",
       "not a valid header name"},
      {"basic_auth:\n  username: u\n  password_file: missing.txt\n", 3, "basic_auth.password_file",
       "cannot read"},
      {"follow_redirects: true\nfollow_redirects: false\n", 2, "follow_redirects", "twice"},
      {"basic_auth: [u, p]\n", 1, "basic_auth", "must be a map"},
      {"tls_config:\n  server_name: [a]\n", 2, "tls_config.server_name", "must be a string"},
      {"basic_auth:\n  username: u\n  password: \"p\\nq\"\n", 3, "basic_auth.password",
       "line break"},
      {"basic_auth:\n  username: u\n   password: p\n", 3, "yaml", ""},
  };
  Write("pw", "x");
  Write("c.pem", "x");
  for (const BadCase& bad : cases) {
    const std::string path = Write("bad.yml", bad.yaml);
    Result<PrometheusHttpConfig> c = LoadPrometheusHttpConfig(path);
    ASSERT_FALSE(c.ok()) << bad.yaml;
    const std::string& m = c.status().message();
    EXPECT_EQ(m.rfind(fmt::format("{}:{}:", path, bad.line), 0), 0u) << bad.yaml << "\n" << m;
    EXPECT_NE(m.find(fmt::format(": {}: ", bad.field)), std::string::npos) << bad.yaml << "\n" << m;
    EXPECT_NE(m.find(bad.what), std::string::npos) << bad.yaml << "\n" << m;
  }
}

TEST_F(HttpConfigTest, ErrorsNeverEchoSecrets) {
  const std::string path =
      Write("s.yml", "basic_auth:\n  username: u\n  password: hunter2\n  password_file: nope\n");
  auto c = LoadPrometheusHttpConfig(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message().find("hunter2"), std::string::npos) << c.status().message();
}

TEST_F(HttpConfigTest, MissingConfigFileNamesIt) {
  auto c = LoadPrometheusHttpConfig((dir_ / "absent.yml").string());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("absent.yml"), std::string::npos);
}

}  // namespace
}  // namespace steward::telemetry
