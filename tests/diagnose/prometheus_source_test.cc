// The Prometheus source against a fake server: an empty answer is an error or a listed gap,
// never a silent zero.
#include "diagnose/prometheus_source.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <map>
#include <thread>

#include "diagnose/classifier.h"

namespace steward::diagnose {
namespace {

// Answers /api/v1/query_range like Prometheus: a query of a series in `present` gets one GPU's
// series with that value at every step, every other query an empty matrix.
class FakePrometheus {
 public:
  explicit FakePrometheus(std::map<std::string, std::string> present)
      : present_(std::move(present)) {
    server_.Post(
        "/api/v1/query_range", [this](const httplib::Request& req, httplib::Response& res) {
          const std::string q = req.get_param_value("query");
          const double start = std::stod(req.get_param_value("start"));
          const double end = std::stod(req.get_param_value("end"));
          const double step = std::stod(req.get_param_value("step"));
          std::string result = "[]";
          for (const auto& [name, value] : present_) {
            if (q.find(name + "[") == std::string::npos) continue;  // last_over_time(NAME[...]).
            std::string values;
            for (double t = start; t <= end + 1e-9; t += step)
              values += fmt::format("{}[{},\"{}\"]", values.empty() ? "" : ",", t, value);
            result = fmt::format(
                R"([{{"metric":{{"__name__":"{}","gpu":"0","UUID":"GPU-0","Hostname":"node-a",)"
                R"("pod":"p","namespace":"ns"}},"values":[{}]}}])",
                name, values);
          }
          res.set_content(
              fmt::format(R"({{"status":"success","data":{{"resultType":"matrix","result":{}}}}})",
                          result),
              "application/json");
        });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  ~FakePrometheus() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return fmt::format("http://127.0.0.1:{}", port_); }

 private:
  std::map<std::string, std::string> present_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

PrometheusSourceOptions Window(const std::string& url) {
  PrometheusSourceOptions o;
  o.url = url;
  o.start_ms = 1'700'000'000'000;
  o.end_ms = o.start_ms + 3'600'000;
  o.step_ms = 300'000;
  o.lookback_ms = 60'000;
  o.client.timeout_seconds = 5;
  return o;
}

bool Lists(const std::vector<Diagnosis::NotComputed>& gaps, const std::string& series) {
  return std::any_of(gaps.begin(), gaps.end(),
                     [&](const Diagnosis::NotComputed& g) { return g.series == series; });
}

TEST(PrometheusSourceTest, NoGpuActivityIsAnErrorNamingSeriesUrlAndWindow) {
  FakePrometheus prom({});
  const PrometheusSourceOptions o = Window(prom.url());
  FrameBuilder builder(Attribution{}, o.step_ms);
  std::vector<Diagnosis::NotComputed> gaps;
  const Status s = RunPrometheusSource(o, builder, &gaps);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  for (const char* want :
       {"DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_DEV_GPU_UTIL",
        "kube_pod_container_resource_requests{resource=\"nvidia_com_gpu\"}", "kube_node_labels",
        "2023-11-14T22:13:20Z", "2023-11-14T23:13:20Z"}) {
    EXPECT_NE(s.message().find(want), std::string::npos) << want << "\n" << s.message();
  }
  EXPECT_NE(s.message().find(prom.url()), std::string::npos) << s.message();
}

TEST(PrometheusSourceTest, MissingOptionalSeriesAreListedNotZeroed) {
  // GPU_UTIL only: no profiling counters, no memory, no kube-state-metrics.
  FakePrometheus prom(std::map<std::string, std::string>{{"DCGM_FI_DEV_GPU_UTIL", "50"}});
  const PrometheusSourceOptions o = Window(prom.url());
  FrameBuilder builder(Attribution{}, o.step_ms);
  Classifier classifier(Thresholds{}, cost::CostModel::Default());
  builder.AddSink(&classifier);
  std::vector<Diagnosis::NotComputed> gaps;
  const Status s = RunPrometheusSource(o, builder, &gaps);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(builder.frames(), 13);
  EXPECT_EQ(builder.catalog().gpus().size(), 1u);
  EXPECT_TRUE(Lists(gaps, "DCGM_FI_PROF_SM_ACTIVE"));
  EXPECT_TRUE(Lists(gaps, "DCGM_FI_DEV_FB_USED"));
  EXPECT_TRUE(Lists(gaps, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"));
  EXPECT_TRUE(Lists(gaps, "kube_pod_container_resource_requests{resource=\"nvidia_com_gpu\"}"));
  EXPECT_TRUE(Lists(gaps, "kube_node_status_allocatable{resource=\"nvidia_com_gpu\"}"));
  EXPECT_FALSE(Lists(gaps, "DCGM_FI_DEV_GPU_UTIL"));
  // Per-pod families are implied by the missing requests, not listed one by one.
  EXPECT_FALSE(Lists(gaps, "kube_pod_labels"));
  for (const auto& g : gaps) {
    EXPECT_FALSE(g.part.empty());
    EXPECT_FALSE(g.instead.empty());
  }
  // The activity read from GPU_UTIL (50 %) is what SM-active falls back to.
  Diagnosis::Source src;
  const Diagnosis d = classifier.Result(src);
  EXPECT_NEAR(d.sm_active_utilization, 0.5, 1e-9);
}

}  // namespace
}  // namespace steward::diagnose
