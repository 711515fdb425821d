#include "telemetry/prometheus_client.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <cmath>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

namespace steward::telemetry {
namespace {

std::string DataDir() {
  if (const char* d = std::getenv("STEWARD_DATA")) return d;
  return std::string(STEWARD_SOURCE_DIR) + "/../shared/data";
}

std::string ReadFile(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(PromResponseTest, RealVictoriaMetricsVectorAnswer) {
  const std::string body =
      ReadFile(DataDir() + "/dcgm-exporter/prom-api-query-vector-response.json");
  ASSERT_FALSE(body.empty());
  Result<PromQueryResult> r = ParsePromResponse(body);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->type, PromResultType::kVector);
  ASSERT_EQ(r->vector.size(), 1u);
  const PromSample& s = r->vector[0];
  EXPECT_EQ(s.metric.at("__name__"), "DCGM_FI_DEV_PCIE_REPLAY_COUNTER");
  EXPECT_EQ(s.metric.at("Hostname"), "cp-bm14r7");
  EXPECT_EQ(s.metric.at("UUID"), "GPU-6d5c0ac5-74d7-3130-46f1-e93ed57f469a");
  EXPECT_EQ(s.metric.at("modelName"), "Tesla T4");
  EXPECT_EQ(s.metric.at("instance"), "192.168.139.179:9400");
  EXPECT_EQ(s.metric.size(), 14u);
  EXPECT_EQ(s.point.time, 1772536457);
  EXPECT_EQ(s.point.value, 0);
  EXPECT_TRUE(r->warnings.empty());
}

TEST(PromResponseTest, MatrixWithSpecialValuesAndWarnings) {
  const char* body =
      R"({"status":"success","warnings":["PromQL info: metric might not be a counter"],
    "data":{"resultType":"matrix","result":[
      {"metric":{"gpu":"0"},"values":[[1700000000,"1"],[1700000015.5,"NaN"],[1700000031,"+Inf"]]},
      {"metric":{"gpu":"1"},"values":[[1700000000,"-Inf"],[1700000015.5,"2.5e-3"]]}]}})";
  Result<PromQueryResult> r = ParsePromResponse(body);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->type, PromResultType::kMatrix);
  ASSERT_EQ(r->matrix.size(), 2u);
  ASSERT_EQ(r->matrix[0].points.size(), 3u);
  EXPECT_EQ(r->matrix[0].points[1].time, 1700000015.5);
  EXPECT_TRUE(std::isnan(r->matrix[0].points[1].value));
  EXPECT_EQ(r->matrix[0].points[2].value, INFINITY);
  EXPECT_EQ(r->matrix[1].points[0].value, -INFINITY);
  EXPECT_EQ(r->matrix[1].points[1].value, 0.0025);
  EXPECT_EQ(r->matrix[1].metric.at("gpu"), "1");
  ASSERT_EQ(r->warnings.size(), 1u);
}

TEST(PromResponseTest, ScalarStringAndEmptyVector) {
  Result<PromQueryResult> s = ParsePromResponse(
      R"({"status":"success","data":{"resultType":"scalar","result":[12.5,"42"]}})");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->type, PromResultType::kScalar);
  EXPECT_EQ(s->scalar.time, 12.5);
  EXPECT_EQ(s->scalar.value, 42);

  Result<PromQueryResult> str =
      ParsePromResponse(R"({"status":"success","data":{"resultType":"string","result":[1,"hi"]}})");
  ASSERT_TRUE(str.ok());
  EXPECT_EQ(str->type, PromResultType::kString);
  EXPECT_EQ(str->string_value, "hi");

  Result<PromQueryResult> empty =
      ParsePromResponse(R"({"status":"success","data":{"resultType":"vector","result":[]}})");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->vector.empty());
}

TEST(PromResponseTest, ErrorEnvelopeKeepsTypeMessageAndStatus) {
  Result<PromQueryResult> r = ParsePromResponse(
      R"({"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:5: parse error: unexpected <by>"})",
      400);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kFailedPrecondition);
  EXPECT_EQ(r.status().message(),
            "prometheus: bad_data: invalid parameter \"query\": 1:5: parse error: unexpected "
            "<by> (HTTP 400)");
  Result<PromQueryResult> timeout = ParsePromResponse(
      R"({"status":"error","errorType":"timeout","error":"query timed out in expression evaluation"})",
      503);
  ASSERT_FALSE(timeout.ok());
  EXPECT_NE(timeout.status().message().find("timeout: query timed out"), std::string::npos);
}

TEST(PromResponseTest, NonJsonHttpErrorNamesTheStatus) {
  Result<PromQueryResult> r = ParsePromResponse("404 page not found\n", 404);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "prometheus: HTTP 404: 404 page not found ");
  Result<PromQueryResult> ok_but_garbage = ParsePromResponse("<html>", 200);
  ASSERT_FALSE(ok_but_garbage.ok());
  EXPECT_EQ(ok_but_garbage.status().code(), Status::Code::kCorrupt);
}

TEST(PromResponseTest, MalformedAnswersNameTheJsonPath) {
  struct Case {
    const char* body;
    const char* want;
  };
  const Case cases[] = {
      {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"x"]}]}})",
       "data.result[0].value[1]: \"x\" is not a number"},
      {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,2]}]}})",
       "data.result[0].value[1]: value is not a string"},
      {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":1},"value":[1,"2"]}]}})",
       "data.result[0].metric.a: label value is not a string"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1"],[2]]}]}})",
       "data.result[0].values[1]: expected [time, \"value\"]"},
      {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"histogram":[1,{}]}]}})",
       "data.result[0]: native histograms are not supported"},
      {R"({"status":"success","data":{"resultType":"tensor","result":[]}})",
       "data.resultType: unknown result type \"tensor\""},
      {R"({"status":"success"})", "data: missing"},
      {R"({"status":"maybe","data":{}})", "status: unknown status \"maybe\""},
      {R"([1,2])", "(root): expected an object"},
      {R"({"status":"success","data":{"resultType":"vector","result":{}}})",
       "data.result: expected a list"},
  };
  for (const Case& c : cases) {
    Result<PromQueryResult> r = ParsePromResponse(c.body);
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_NE(r.status().message().find(c.want), std::string::npos)
        << r.status().message() << " does not contain " << c.want;
  }
}

TEST(PromResponseTest, TruncatedJsonIsAnErrorNotACrash) {
  const std::string body =
      ReadFile(DataDir() + "/dcgm-exporter/prom-api-query-vector-response.json");
  for (size_t n : {size_t{0}, size_t{1}, body.size() / 3, body.size() / 2, body.size() - 2}) {
    Result<PromQueryResult> r = ParsePromResponse(std::string_view(body).substr(0, n));
    EXPECT_FALSE(r.ok()) << n;
  }
}

TEST(PromValueTest, GoFloatSpellings) {
  EXPECT_EQ(ParsePromValue("1"), 1.0);
  EXPECT_EQ(ParsePromValue("-0.25"), -0.25);
  EXPECT_EQ(ParsePromValue("1e-05"), 1e-05);
  EXPECT_EQ(ParsePromValue("+Inf"), INFINITY);
  EXPECT_EQ(ParsePromValue("-Inf"), -INFINITY);
  EXPECT_TRUE(std::isnan(*ParsePromValue("NaN")));
  EXPECT_FALSE(ParsePromValue(""));
  EXPECT_FALSE(ParsePromValue("1.5x"));
  EXPECT_FALSE(ParsePromValue(" 1"));
}

TEST(PrometheusClientTest, UrlParsing) {
  auto c = PrometheusClient::Create("http://127.0.0.1:19090");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->host(), "127.0.0.1");
  EXPECT_EQ(c->port(), 19090);
  auto d = PrometheusClient::Create("prom.example:9090/prefix/");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->host(), "prom.example");
  EXPECT_EQ(PrometheusClient::Create("http://h")->port(), 80);
  auto tls = PrometheusClient::Create("https://prom.example/prefix");
  ASSERT_TRUE(tls.ok());
  EXPECT_TRUE(tls->https());
  EXPECT_EQ(tls->port(), 443);
  EXPECT_EQ(tls->url(), "https://prom.example:443/prefix");
  EXPECT_FALSE(PrometheusClient::Create("ftp://h:9090").ok());
  // Credentials in the URL are refused without echoing them.
  auto creds = PrometheusClient::Create("https://user:hunter2@h:9090");
  ASSERT_FALSE(creds.ok());
  EXPECT_EQ(creds.status().message().find("hunter2"), std::string::npos);
  EXPECT_FALSE(PrometheusClient::Create("http://h:99999").ok());
  EXPECT_FALSE(PrometheusClient::Create("http://:9090").ok());
}

TEST(PrometheusClientTest, UnreachableServerIsAnIoError) {
  // Port 1 on loopback: nothing listens there, the connection is refused at once.
  PrometheusClientOptions o;
  o.timeout_seconds = 2;
  auto c = PrometheusClient::Create("http://127.0.0.1:1", o);
  ASSERT_TRUE(c.ok());
  Result<PromQueryResult> r = c->Query("up");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kIoError);
  EXPECT_FALSE(c->Ready());
  EXPECT_FALSE(c->QueryRange("up", 10, 5, 1).ok());
}

// A loopback server that records the headers of each request and answers like Prometheus,
// or with 401 when the request lacks the expected Authorization.
class HeaderServer {
 public:
  explicit HeaderServer(std::string want_authorization) : want_(std::move(want_authorization)) {
    auto handle = [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        seen_ = req.headers;
      }
      if (req.get_header_value("Authorization") != want_) {
        res.status = 401;
        res.set_content("Unauthorized\n", "text/plain");
        return;
      }
      res.set_content(R"({"status":"success","data":{"resultType":"vector","result":[]}})",
                      "application/json");
    };
    server_.Post("/api/v1/query", handle);
    server_.Get("/-/ready", handle);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  ~HeaderServer() {
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }
  httplib::Headers seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

 private:
  std::string want_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  httplib::Headers seen_;
};

TEST(PrometheusClientTest, SendsTheConfiguredCredentialsAndHeaders) {
  HeaderServer server("Bearer tok");
  PrometheusClientOptions o;
  o.timeout_seconds = 5;
  auto cfg = ParsePrometheusHttpConfig(
      "authorization: {credentials: tok}\n"
      "http_headers:\n  X-Scope-OrgID: {values: [tenant-1, tenant-2]}\n",
      "client.yml", "");
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  o.http = *cfg;
  auto c = PrometheusClient::Create(fmt::format("http://127.0.0.1:{}", server.port()), o);
  ASSERT_TRUE(c.ok());
  Result<PromQueryResult> r = c->Query("up");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->vector.empty());
  const httplib::Headers seen = server.seen();
  std::vector<std::string> tenants;
  for (auto [it, end] = seen.equal_range("X-Scope-OrgID"); it != end; ++it)
    tenants.push_back(it->second);
  EXPECT_EQ(tenants, (std::vector<std::string>{"tenant-1", "tenant-2"}));
  EXPECT_TRUE(c->Ready());
}

TEST(PrometheusClientTest, UnauthorizedSaysWhatToConfigure) {
  HeaderServer server("Bearer tok");
  PrometheusClientOptions o;
  o.timeout_seconds = 5;
  auto plain = PrometheusClient::Create(fmt::format("http://127.0.0.1:{}", server.port()), o);
  ASSERT_TRUE(plain.ok());
  Result<PromQueryResult> r = plain->Query("up");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("401"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("--prometheus-config"), std::string::npos);
  EXPECT_FALSE(plain->Ready());

  o.http = *ParsePrometheusHttpConfig("authorization: {credentials: wrong}\n", "mine.yml", "");
  auto wrong = PrometheusClient::Create(fmt::format("http://127.0.0.1:{}", server.port()), o);
  Result<PromQueryResult> w = wrong->Query("up");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("mine.yml"), std::string::npos) << w.status().message();
  EXPECT_EQ(w.status().message().find("wrong"), std::string::npos) << w.status().message();
}

TEST(PrometheusClientTest, HttpsToAPlainServerIsAHandshakeError) {
  HeaderServer server("");
  PrometheusClientOptions o;
  o.timeout_seconds = 5;
  auto c = PrometheusClient::Create(fmt::format("https://127.0.0.1:{}", server.port()), o);
  ASSERT_TRUE(c.ok());
  Result<PromQueryResult> r = c->Query("up");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("TLS"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace steward::telemetry
