#include "live/exec_credential.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kube/json_decoder.h"
#include "live_test_util.h"

namespace steward::live {
namespace {

using testing::FakeClock;
using ::testing::HasSubstr;
using testing::TempDir;
namespace fs = std::filesystem;

constexpr char kV1[] = "client.authentication.k8s.io/v1";

// A plugin that records its environment and prints a token expiring `expiry`.
ExecConfig TokenPlugin(const TempDir& dir, const std::string& api_version,
                       const std::string& expiry) {
  const fs::path script =
      dir.Write("plugin.sh",
                "#!/bin/sh\n"
                "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$OUT_DIR/info.json\"\n"
                "echo run >> \"$OUT_DIR/runs\"\n"
                "n=$(wc -l < \"$OUT_DIR/runs\" | tr -d ' ')\n"
                "cat <<EOF\n"
                "{\"apiVersion\":\"" +
                    api_version +
                    "\",\"kind\":\"ExecCredential\",\"status\":"
                    "{\"token\":\"tok-$n-$1\",\"expirationTimestamp\":\"" +
                    expiry +
                    "\"}}\n"
                    "EOF\n",
                /*executable=*/true);
  ExecConfig e;
  e.api_version = api_version;
  e.command = script.string();
  e.args = {"arg1"};
  e.env = {{"OUT_DIR", dir.path().string()}};
  e.provide_cluster_info = true;
  return e;
}

TEST(ExecCredentialTest, RunsPluginWithExecInfoAndCachesUntilExpiry) {
  TempDir dir;
  FakeClock clock;
  const std::string expiry = kube::FormatTime(FakeClock::kWallStart + 3600'000'000LL);
  ExecCredentialSource source(TokenPlugin(dir, kV1, expiry), "https://10.0.0.1:6443", "CA PEM",
                              &clock);
  Result<ExecCredential> first = source.Get();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->token, "tok-1-arg1");
  ASSERT_TRUE(first->expiration_micros.has_value());
  EXPECT_EQ(*first->expiration_micros, FakeClock::kWallStart + 3600'000'000LL);

  const nlohmann::json info = nlohmann::json::parse(testing::ReadText(dir.path() / "info.json"));
  EXPECT_EQ(info["apiVersion"], kV1);
  EXPECT_EQ(info["kind"], "ExecCredential");
  EXPECT_EQ(info["spec"]["interactive"], false);
  EXPECT_EQ(info["spec"]["cluster"]["server"], "https://10.0.0.1:6443");

  clock.Advance(std::chrono::minutes(30));  // Still fresh: no second run.
  Result<ExecCredential> cached = source.Get();
  ASSERT_TRUE(cached.ok());
  EXPECT_EQ(cached->token, "tok-1-arg1");
  EXPECT_EQ(source.runs(), 1);

  clock.Advance(std::chrono::minutes(31));  // Past the expiry: the plugin runs again.
  Result<ExecCredential> renewed = source.Get();
  ASSERT_TRUE(renewed.ok());
  EXPECT_EQ(renewed->token, "tok-2-arg1");
  EXPECT_EQ(source.runs(), 2);
  EXPECT_GT(renewed->generation, first->generation);
}

TEST(ExecCredentialTest, InvalidateForcesARun) {
  TempDir dir;
  FakeClock clock;
  ExecCredentialSource source(TokenPlugin(dir, "client.authentication.k8s.io/v1beta1",
                                          kube::FormatTime(FakeClock::kWallStart + 3600'000'000LL)),
                              "https://h", "", &clock);
  ASSERT_TRUE(source.Get().ok());
  source.Invalidate();
  Result<ExecCredential> again = source.Get();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->token, "tok-2-arg1");
}

TEST(ExecCredentialTest, FailingPluginReportsExitCodeAndStderr) {
  TempDir dir;
  FakeClock clock;
  ExecConfig e;
  e.api_version = kV1;
  e.command = dir.Write("fail.sh", "#!/bin/sh\necho 'token expired, run login' >&2\nexit 3\n", true)
                  .string();
  ExecCredentialSource source(e, "https://h", "", &clock);
  Result<ExecCredential> c = source.Get();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("exited with code 3"));
  EXPECT_THAT(c.status().message(), HasSubstr("token expired, run login"));
  EXPECT_THAT(c.status().message(), HasSubstr("fail.sh"));
}

TEST(ExecCredentialTest, MissingCommandShowsInstallHint) {
  FakeClock clock;
  ExecConfig e;
  e.api_version = kV1;
  e.command = "steward-no-such-plugin-xyz";
  e.install_hint = "install it with: apt install xyz";
  ExecCredentialSource source(e, "https://h", "", &clock);
  Result<ExecCredential> c = source.Get();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("steward-no-such-plugin-xyz"));
  EXPECT_THAT(c.status().message(), HasSubstr("apt install xyz"));
}

TEST(ExecCredentialTest, HungPluginIsKilledAtTheTimeout) {
  TempDir dir;
  ExecConfig e;
  e.api_version = kV1;
  e.command = dir.Write("hang.sh", "#!/bin/sh\nexec sleep 30\n", true).string();
  ExecCredentialSource source(e, "https://h", "", RealClock(), std::chrono::milliseconds(200));
  Result<ExecCredential> c = source.Get();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("did not finish"));
}

TEST(ExecCredentialTest, ParsesCertificatesAndRejectsBadOutput) {
  Result<ExecCredential> cert = ParseExecCredential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
          "status":{"clientCertificateData":"CERT","clientKeyData":"KEY"}})",
      kV1, "p");
  ASSERT_TRUE(cert.ok()) << cert.status().ToString();
  EXPECT_EQ(cert->client_certificate_pem, "CERT");
  EXPECT_EQ(cert->client_key_pem, "KEY");
  EXPECT_FALSE(cert->expiration_micros.has_value());

  struct Case {
    const char* name;
    const char* text;
    const char* expect;
  } cases[] = {
      {"not json", "hello", "not an ExecCredential"},
      {"wrong kind", R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"Pod"})",
       "kind is 'Pod'"},
      {"wrong version",
       R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential",
           "status":{"token":"t"}})",
       "asked for"},
      {"empty status", R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                           "status":{}})",
       "neither a token"},
      {"cert without key",
       R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
           "status":{"clientCertificateData":"C"}})",
       "must come together"},
      {"bad expiry",
       R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
           "status":{"token":"t","expirationTimestamp":"tomorrow"}})",
       "expirationTimestamp"},
      {"token not a string",
       R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
           "status":{"token":7}})",
       "token"},
  };
  for (const Case& c : cases) {
    Result<ExecCredential> r = ParseExecCredential(c.text, kV1, "my-plugin");
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_THAT(r.status().message(), HasSubstr(c.expect)) << c.name;
    EXPECT_THAT(r.status().message(), HasSubstr("my-plugin")) << c.name;
  }
}

}  // namespace
}  // namespace steward::live
