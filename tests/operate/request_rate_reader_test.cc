// The live demand signal: each service's request rate from a Prometheus that answers like the
// real one (an in-process HTTP server with canned API answers; e2e.operate_tidal runs Debian's
// Prometheus). A usable reading is one finite number >= 0; everything else is an error naming
// the service and its query, so the operator holds instead of lending on it.
#include "operate/request_rate_reader.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace steward::operate {
namespace {

std::string Vector(const std::string& samples) {
  return R"({"status":"success","data":{"resultType":"vector","result":[)" + samples + "]}}";
}
std::string Sample(const std::string& labels, const std::string& value) {
  return R"({"metric":{)" + labels + R"(},"value":[1733600000.5,")" + value + R"("]})";
}

// Answers /api/v1/query and /api/v1/query_range from a map of query -> body.
class FakePrometheus {
 public:
  FakePrometheus() {
    auto handle = [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      const std::string q = req.get_param_value("query");
      ++queries_[q];
      auto it = answers_.find(q);
      if (it == answers_.end()) {
        res.status = 400;
        res.set_content(
            R"({"status":"error","errorType":"bad_data","error":"unknown query in the fake"})",
            "application/json");
        return;
      }
      res.set_content(it->second, "application/json");
    };
    server_.Post("/api/v1/query", handle);
    server_.Post("/api/v1/query_range", handle);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  ~FakePrometheus() {
    server_.stop();
    thread_.join();
  }
  void Answer(const std::string& query, const std::string& body) {
    std::lock_guard<std::mutex> lock(mu_);
    answers_[query] = body;
  }
  int Queries(const std::string& query) {
    std::lock_guard<std::mutex> lock(mu_);
    return queries_[query];
  }
  telemetry::PrometheusClient Client() const {
    return *telemetry::PrometheusClient::Create("http://127.0.0.1:" + std::to_string(port_));
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::map<std::string, std::string> answers_;
  std::map<std::string, int> queries_;
};

const char* kChatQuery = R"(sum(rate(http_requests_total{service="chat"}[1m])))";

LiveService Chat() {
  LiveService s;
  s.name = "serving/chat";
  s.query = kChatQuery;
  s.capacity_per_replica = 20;
  s.gpus_per_replica = 2;
  s.min_replicas = 2;
  s.max_replicas = 24;
  s.autoscaler.target_utilization = 0.5;
  s.autoscaler.scale_up_pods = 3;
  return s;
}

TEST(RequestRateReaderTest, OneSeriesBecomesTheServiceLoadWithItsConfiguredShape) {
  FakePrometheus p;
  p.Answer(kChatQuery, Vector(Sample("", "123.5")));
  telemetry::PrometheusClient client = p.Client();
  RequestRateReader reader(client, {Chat()});
  Result<std::vector<control::ServiceLoad>> r = reader.Read();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 1u);
  const control::ServiceLoad& l = (*r)[0];
  EXPECT_EQ(l.name, "serving/chat");
  EXPECT_DOUBLE_EQ(l.rps, 123.5);
  EXPECT_DOUBLE_EQ(l.capacity_per_replica, 20);
  EXPECT_DOUBLE_EQ(l.target_utilization, 0.5);
  EXPECT_EQ(l.gpus_per_replica, 2);
  EXPECT_EQ(l.min_replicas, 2);
  EXPECT_EQ(l.max_replicas, 24);
  EXPECT_EQ(l.scale_up_pods, 3);
  EXPECT_EQ(l.desired_replicas, 0);  // No replicas_query: the controller derives it.
}

TEST(RequestRateReaderTest, AScalarAndTheHpaReplicasQueryAreRead) {
  FakePrometheus p;
  p.Answer(kChatQuery, R"({"status":"success","data":{"resultType":"scalar",)"
                       R"("result":[1733600000,"40"]}})");
  LiveService s = Chat();
  s.replicas_query = "kube_hpa_desired{hpa=\"chat\"}";
  p.Answer(s.replicas_query, Vector(Sample(R"("hpa":"chat")", "7")));
  telemetry::PrometheusClient client = p.Client();
  Result<std::vector<control::ServiceLoad>> r = RequestRateReader(client, {s}).Read();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_DOUBLE_EQ((*r)[0].rps, 40);
  EXPECT_EQ((*r)[0].desired_replicas, 7);
}

// Each answer that is not one usable number, and the words the error must carry.
TEST(RequestRateReaderTest, AnythingButOneFiniteNumberIsAnErrorNamingServiceAndQuery) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {Vector(""), "no series"},
      {Vector(Sample("", "NaN")), "NaN"},
      {Vector(Sample("", "+Inf")), "inf"},
      {Vector(Sample("", "-3")), "negative"},
      {Vector(Sample(R"("pod":"a")", "1") + "," + Sample(R"("pod":"b")", "2")),
       "2 series, expected one (aggregate them with sum(...))"},
      {R"({"status":"success","data":{"resultType":"string","result":[1,"busy"]}})",
       "a string result"},
      {R"({"status":"error","errorType":"bad_data","error":"parse error"})", "parse error"},
      {"<html>not prometheus</html>", "prometheus"},
  };
  for (const auto& [body, words] : cases) {
    FakePrometheus p;
    p.Answer(kChatQuery, body);
    telemetry::PrometheusClient client = p.Client();
    Result<std::vector<control::ServiceLoad>> r = RequestRateReader(client, {Chat()}).Read();
    ASSERT_FALSE(r.ok()) << body;
    const std::string& m = r.status().message();
    EXPECT_NE(m.find("service serving/chat"), std::string::npos) << m;
    EXPECT_NE(m.find(kChatQuery), std::string::npos) << m;
    EXPECT_NE(m.find(words), std::string::npos) << body << " -> " << m;
  }
}

TEST(RequestRateReaderTest, OneServiceWithoutAReadingFailsTheWholeRead) {
  FakePrometheus p;
  p.Answer(kChatQuery, Vector(Sample("", "10")));
  LiveService embed = Chat();
  embed.name = "serving/embed";
  embed.query = "sum(rate(embed_requests_total[1m]))";
  p.Answer(embed.query, Vector(""));
  telemetry::PrometheusClient client = p.Client();
  Result<std::vector<control::ServiceLoad>> r = RequestRateReader(client, {Chat(), embed}).Read();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("serving/embed"), std::string::npos);
  LiveService bad_replicas = Chat();
  bad_replicas.replicas_query = "kube_hpa_desired";
  p.Answer("kube_hpa_desired", Vector(Sample("", "NaN")));
  r = RequestRateReader(client, {bad_replicas}).Read();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("replicas_query kube_hpa_desired: NaN"), std::string::npos)
      << r.status().message();
}

TEST(RequestRateReaderTest, AnUnreachablePrometheusIsAnIoErrorNamingTheService) {
  int port = 0;
  {
    FakePrometheus gone;  // Bound, then closed: nobody listens on the port now.
    port = gone.Client().port();
  }
  telemetry::PrometheusClientOptions o;
  o.timeout_seconds = 2;
  Result<telemetry::PrometheusClient> c =
      telemetry::PrometheusClient::Create("http://127.0.0.1:" + std::to_string(port), o);
  ASSERT_TRUE(c.ok());
  Result<std::vector<control::ServiceLoad>> r = RequestRateReader(*c, {Chat()}).Read();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kIoError);
  EXPECT_NE(r.status().message().find("service serving/chat: query"), std::string::npos)
      << r.status().message();
}

TEST(RequestRateReaderTest, HistorySkipsGapsAndMergesServicesInTimeOrder) {
  FakePrometheus p;
  p.Answer(kChatQuery, R"({"status":"success","data":{"resultType":"matrix","result":[)"
                       R"({"metric":{},"values":[[60,"10"],[120,"NaN"],[180,"30"]]}]}})");
  LiveService embed = Chat();
  embed.name = "serving/embed";
  embed.query = "embed_rps";
  p.Answer("embed_rps", R"({"status":"success","data":{"resultType":"matrix","result":[)"
                        R"({"metric":{},"values":[[90,"5"]]}]}})");
  telemetry::PrometheusClient client = p.Client();
  RequestRateReader reader(client, {Chat(), embed});
  Result<std::vector<RequestRateReader::Past>> h =
      reader.History(SimTime::FromMicros(0), SimTime::FromMicros(200'000'000), Minutes(1));
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_EQ(h->size(), 3u);
  EXPECT_EQ((*h)[0].at, SimTime::FromMicros(60'000'000));
  EXPECT_DOUBLE_EQ((*h)[0].load.rps, 10);
  EXPECT_EQ((*h)[1].load.name, "serving/embed");
  EXPECT_EQ((*h)[2].at, SimTime::FromMicros(180'000'000));
  EXPECT_DOUBLE_EQ((*h)[2].load.rps, 30);
  // An empty history is no history (the forecast waits a day), not an error.
  p.Answer("embed_rps", R"({"status":"success","data":{"resultType":"matrix","result":[]}})");
  EXPECT_TRUE(
      reader.History(SimTime::FromMicros(0), SimTime::FromMicros(1'000'000), Minutes(1)).ok());
}

}  // namespace
}  // namespace steward::operate
