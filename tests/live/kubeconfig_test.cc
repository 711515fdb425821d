#include "live/kubeconfig.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "live_test_util.h"
#include "model/text.h"

namespace steward::live {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;
namespace fs = std::filesystem;

constexpr char kTwoContexts[] = R"(apiVersion: v1
kind: Config
current-context: prod
contexts:
- name: prod
  context: {cluster: prod-cluster, user: admin, namespace: gpu-team}
- name: dev
  context: {cluster: dev-cluster, user: dev-user}
clusters:
- name: prod-cluster
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: CADATA
    tls-server-name: api.prod.example
- name: dev-cluster
  cluster:
    server: https://dev.example:443/k8s/
    insecure-skip-tls-verify: true
users:
- name: admin
  user: {token: secret-token}
- name: dev-user
  user: {username: alice, password: wonderland}
)";

std::string WithCaData(std::string text, const std::string& pem) {
  text.replace(text.find("CADATA"), 6, model::Base64Encode(pem));
  return text;
}

TEST(KubeconfigTest, CurrentContextResolvesClusterUserAndNamespace) {
  Result<RestConfig> c = ParseKubeconfig(WithCaData(kTwoContexts, "PEM TEXT"), "/etc/kc.yaml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->context, "prod");
  EXPECT_EQ(c->server, "https://10.0.0.1:6443");
  EXPECT_EQ(c->ca_pem, "PEM TEXT");
  EXPECT_EQ(c->tls_server_name, "api.prod.example");
  EXPECT_FALSE(c->insecure_skip_tls_verify);
  EXPECT_EQ(c->token, "secret-token");
  EXPECT_EQ(c->namespace_name, "gpu-team");
  EXPECT_EQ(c->source, "/etc/kc.yaml");
}

TEST(KubeconfigTest, NamedContextOverridesCurrentContext) {
  Result<RestConfig> c = ParseKubeconfig(WithCaData(kTwoContexts, "x"), "kc", "dev");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->context, "dev");
  EXPECT_EQ(c->server, "https://dev.example:443/k8s/");
  EXPECT_TRUE(c->insecure_skip_tls_verify);
  EXPECT_EQ(c->username, "alice");
  EXPECT_EQ(c->password, "wonderland");
  EXPECT_TRUE(c->token.empty());
  EXPECT_EQ(c->namespace_name, "default");
}

TEST(KubeconfigTest, UnknownContextNamesFileContextAndTheKnownOnes) {
  Result<RestConfig> c = ParseKubeconfig(WithCaData(kTwoContexts, "x"), "/home/u/kc", "staging");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("/home/u/kc"));
  EXPECT_THAT(c.status().message(), HasSubstr("'staging'"));
  EXPECT_THAT(c.status().message(), HasSubstr("prod, dev"));
}

TEST(KubeconfigTest, FilesResolveRelativeToTheKubeconfigDirectory) {
  TempDir dir;
  dir.Write("certs/ca.pem", "CA PEM");
  dir.Write("certs/client.pem", "CLIENT CERT");
  dir.Write("certs/client.key", "CLIENT KEY");
  const fs::path kc = dir.Write("kubeconfig", R"(current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://h:6443", certificate-authority: certs/ca.pem}}]
users:
- name: u
  user:
    client-certificate: certs/client.pem
    client-key: certs/client.key
    tokenFile: tokens/t
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/plugin
      args: [get-token, --cluster, k]
      env: [{name: REGION, value: eu-west-1}]
      provideClusterInfo: true
)");
  Result<RestConfig> c = LoadKubeconfig(kc);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->ca_pem, "CA PEM");
  EXPECT_EQ(c->client_certificate_pem, "CLIENT CERT");
  EXPECT_EQ(c->client_key_pem, "CLIENT KEY");
  EXPECT_EQ(fs::path(c->token_file), dir.path() / "tokens/t");
  ASSERT_TRUE(c->exec.has_value());
  EXPECT_EQ(c->exec->api_version, "client.authentication.k8s.io/v1");
  EXPECT_EQ(fs::path(c->exec->command), dir.path() / "./bin/plugin");
  EXPECT_EQ(c->exec->args, (std::vector<std::string>{"get-token", "--cluster", "k"}));
  ASSERT_EQ(c->exec->env.size(), 1u);
  EXPECT_EQ(c->exec->env[0].first, "REGION");
  EXPECT_EQ(c->exec->env[0].second, "eu-west-1");
  EXPECT_TRUE(c->exec->provide_cluster_info);
}

TEST(KubeconfigTest, ExecCommandWithoutDirectoryIsLookedUpOnPath) {
  Result<RestConfig> c = ParseKubeconfig(R"(current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://h"}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: aws}}}]
)",
                                         "/cfg/kc");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->exec->command, "aws");
  EXPECT_EQ(c->exec->api_version, "client.authentication.k8s.io/v1beta1");
}

// Bad input: each is an error naming the file and the field, never a crash.
TEST(KubeconfigTest, BadInputNamesFileAndField) {
  const std::string head =
      "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n";
  const std::string good_cluster = "clusters: [{name: k, cluster: {server: \"https://h\"}}]\n";
  const std::string no_user = "users: [{name: u, user: {}}]\n";
  struct Case {
    std::string name, text, expect;
  } cases[] = {
      {"not yaml", "current-context: [unclosed", "not valid YAML"},
      {"not a mapping", "- a\n- b\n", "must be a mapping"},
      {"no current context", "contexts: []\n", "current-context"},
      {"missing cluster", head + no_user, "no cluster named 'k'"},
      {"no server", head + "clusters: [{name: k, cluster: {}}]\n" + no_user, "cluster.server"},
      {"server not a URL", head + "clusters: [{name: k, cluster: {server: h:6443}}]\n" + no_user,
       "not an http(s) URL"},
      {"bad base64",
       head +
           "clusters: [{name: k, cluster: {server: \"https://h\", "
           "certificate-authority-data: \"***\"}}]\n" +
           no_user,
       "certificate-authority-data"},
      {"missing CA file",
       head +
           "clusters: [{name: k, cluster: {server: \"https://h\", "
           "certificate-authority: /nonexistent/ca.pem}}]\n" +
           no_user,
       "/nonexistent/ca.pem"},
      {"insecure not a bool",
       head +
           "clusters: [{name: k, cluster: {server: \"https://h\", "
           "insecure-skip-tls-verify: maybe}}]\n" +
           no_user,
       "insecure-skip-tls-verify"},
      {"clusters not a list", head + "clusters: {k: 1}\n" + no_user, "clusters"},
      {"missing user", head + good_cluster + "users: []\n", "no user named 'u'"},
      {"cert without key",
       head + good_cluster + "users: [{name: u, user: {client-certificate-data: QUJD}}]\n",
       "client key"},
      {"exec bad apiVersion",
       head + good_cluster + "users: [{name: u, user: {exec: {apiVersion: v0, command: x}}}]\n",
       "user.exec.apiVersion"},
      {"exec no command",
       head + good_cluster +
           "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1}}}]\n",
       "user.exec.command"},
      {"exec args not a list",
       head + good_cluster +
           "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, "
           "command: x, args: 3}}}]\n",
       "user.exec.args"},
      {"token not a string", head + good_cluster + "users: [{name: u, user: {token: [a]}}]\n",
       "user.token"},
      {"auth-provider",
       head + good_cluster + "users: [{name: u, user: {auth-provider: {name: gcp}}}]\n",
       "auth-provider"},
  };
  for (const Case& c : cases) {
    Result<RestConfig> r = ParseKubeconfig(c.text, "/tmp/bad-kubeconfig");
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_THAT(r.status().message(), HasSubstr("/tmp/bad-kubeconfig")) << c.name;
    EXPECT_THAT(r.status().message(), HasSubstr(c.expect)) << c.name;
  }
}

TEST(KubeconfigTest, ErrorsAfterTheContextIsKnownNameIt) {
  Result<RestConfig> r = ParseKubeconfig(
      "current-context: blue\ncontexts: [{name: blue, context: {cluster: k}}]\n"
      "clusters: [{name: k, cluster: {}}]\n",
      "kc");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("context 'blue'"));
  EXPECT_THAT(r.status().message(), HasSubstr("kc:3"));  // The line of the cluster.
}

TEST(KubeconfigTest, MissingFileIsAnIoError) {
  Result<RestConfig> r = LoadKubeconfig("/nonexistent/kubeconfig");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kIoError);
  EXPECT_THAT(r.status().message(), HasSubstr("/nonexistent/kubeconfig"));
}

class ResolveTest : public ::testing::Test {
 protected:
  EnvLookup Env() {
    return [this](const char* name) -> std::optional<std::string> {
      auto it = env_.find(name);
      if (it == env_.end()) return std::nullopt;
      return it->second;
    };
  }
  fs::path WriteKubeconfig(const std::string& rel, const std::string& server) {
    return dir_.Write(rel,
                      "current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
                      "clusters: [{name: k, cluster: {server: \"" +
                          server + "\"}}]\n");
  }
  void WriteServiceAccount() {
    dir_.Write("sa/token", "sa-token\n");
    dir_.Write("sa/ca.crt", "SA CA");
    dir_.Write("sa/namespace", "steward-system\n");
  }
  TempDir dir_;
  std::map<std::string, std::string> env_;
};

TEST_F(ResolveTest, ExplicitFileWins) {
  const fs::path explicit_kc = WriteKubeconfig("explicit", "https://explicit");
  env_["KUBECONFIG"] = WriteKubeconfig("env", "https://env").string();
  Result<RestConfig> c = ResolveRestConfig({.kubeconfig = explicit_kc.string(), .getenv = Env()});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "https://explicit");
}

TEST_F(ResolveTest, KubeconfigVariableUsesTheFirstFileOfTheList) {
  env_["KUBECONFIG"] = WriteKubeconfig("first", "https://first").string() + ":" +
                       WriteKubeconfig("second", "https://second").string();
  env_["HOME"] = dir_.path().string();
  WriteKubeconfig(".kube/config", "https://home");
  Result<RestConfig> c = ResolveRestConfig({.getenv = Env()});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "https://first");
}

TEST_F(ResolveTest, HomeConfigBeforeInCluster) {
  env_["HOME"] = dir_.path().string();
  env_["KUBERNETES_SERVICE_HOST"] = "10.96.0.1";
  env_["KUBERNETES_SERVICE_PORT"] = "443";
  WriteServiceAccount();
  WriteKubeconfig(".kube/config", "https://home");
  Result<RestConfig> c =
      ResolveRestConfig({.getenv = Env(), .service_account_dir = dir_.path() / "sa"});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "https://home");
}

TEST_F(ResolveTest, InClusterWhenNoKubeconfig) {
  env_["HOME"] = (dir_.path() / "empty-home").string();
  env_["KUBERNETES_SERVICE_HOST"] = "fd00::1";
  env_["KUBERNETES_SERVICE_PORT"] = "443";
  WriteServiceAccount();
  Result<RestConfig> c =
      ResolveRestConfig({.getenv = Env(), .service_account_dir = dir_.path() / "sa"});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->source, "in-cluster");
  EXPECT_EQ(c->server, "https://[fd00::1]:443");
  EXPECT_EQ(fs::path(c->token_file), dir_.path() / "sa" / "token");
  EXPECT_EQ(c->ca_pem, "SA CA");
  EXPECT_EQ(c->namespace_name, "steward-system");
}

TEST_F(ResolveTest, NothingFoundSaysWhatWasTried) {
  env_["HOME"] = (dir_.path() / "empty-home").string();
  Result<RestConfig> c =
      ResolveRestConfig({.getenv = Env(), .service_account_dir = dir_.path() / "sa"});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("KUBECONFIG"));
  EXPECT_THAT(c.status().message(), HasSubstr("KUBERNETES_SERVICE_HOST"));
}

TEST_F(ResolveTest, InClusterWithoutTokenFails) {
  env_["KUBERNETES_SERVICE_HOST"] = "10.96.0.1";
  env_["KUBERNETES_SERVICE_PORT"] = "443";
  Result<RestConfig> c = InClusterConfig(dir_.path() / "sa", Env());
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("token"));
}

}  // namespace
}  // namespace steward::live
