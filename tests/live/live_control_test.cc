// LiveClusterControl's elastic resize against kube::ApiServer over real sockets: the request is
// a merge patch of the Job's spec.parallelism (what Kueue's ElasticJobsViaWorkloadSlices lets
// change on an admitted Job), server-dry-run stores nothing; and a Job's pod carrying
// steward.io/min-workers is described as a resizable worker.
#include "live/live_control.h"

#include <gtest/gtest.h>

#include "live_test_util.h"

namespace steward::live {
namespace {

using nlohmann::json;
using testing::KubeTestServer;

// The resize needs no cache: LiveClusterControl reads none for it (nullptr).
class LiveControlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.PutNamespace("training");
    server_.PutJob("training", "llm", 4);
    KubeClientOptions o;
    o.qps = 0;
    auto c = KubeClient::Create(server_.Config(), o);
    ASSERT_TRUE(c.ok());
    client_ = std::move(c).value();
  }
  int Parallelism() {
    ApiResult job = client_->Get("/apis/batch/v1/namespaces/training/jobs/llm");
    EXPECT_TRUE(job.ok());
    return job.ok() ? job.value()["spec"].value("parallelism", -1) : -1;
  }

  KubeTestServer server_{{.serve_jobs = true}};
  std::unique_ptr<KubeClient> client_;
};

TEST_F(LiveControlTest, ResizePatchesTheJobsParallelism) {
  LiveClusterControl control(client_.get(), nullptr, {});
  ASSERT_TRUE(control.ResizeWorkload("training/llm", 2, "tidal").ok());
  EXPECT_EQ(Parallelism(), 2);
  // Gone, or not namespace/name: NotFound, InvalidArgument (nothing sent for the latter).
  EXPECT_EQ(control.ResizeWorkload("training/nope", 2, "tidal").code(), Status::Code::kNotFound);
  EXPECT_EQ(control.ResizeWorkload("llm", 2, "tidal").code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(control.ResizeWorkload("training/llm", 0, "tidal").code(),
            Status::Code::kInvalidArgument);
}

TEST_F(LiveControlTest, ServerDryRunResizesNothing) {
  LiveClusterControl control(client_.get(), nullptr, {.server_dry_run = true});
  ASSERT_TRUE(control.ResizeWorkload("training/llm", 1, "tidal").ok());
  EXPECT_EQ(Parallelism(), 4);
}

TEST(LiveDescribePodTest, AJobPodWithMinWorkersIsAResizableWorker) {
  json pod = KubeTestServer::PodJson("training", "llm-0", "gpu-1", 2, "Job", "llm");
  pod["metadata"]["labels"] = {{"steward.io/min-workers", "1"}};
  kube::JsonDecoder d("Pod");
  control::PodInfo p = DescribePod(kube::DecodePod(d, pod));
  ASSERT_TRUE(d.status().ok());
  EXPECT_EQ(p.workload, "training/llm");
  EXPECT_EQ(p.min_workers, 1);
  // An annotation says the same; a fixed-size Job's pod, a bad count or a pod no Job owns
  // is no resizable worker.
  pod["metadata"].erase("labels");
  pod["metadata"]["annotations"] = {{"steward.io/min-workers", "3"}};
  EXPECT_EQ(DescribePod(kube::DecodePod(d, pod)).min_workers, 3);
  pod["metadata"]["annotations"] = {{"steward.io/min-workers", "two"}};
  EXPECT_EQ(DescribePod(kube::DecodePod(d, pod)).min_workers, 0);
  EXPECT_EQ(DescribePod(kube::DecodePod(d, KubeTestServer::PodJson("training", "f-0", "gpu-1", 2,
                                                                   "Job", "fixed")))
                .min_workers,
            0);
  json bare = KubeTestServer::PodJson("training", "solo", "gpu-1", 2);
  bare["metadata"]["labels"] = {{"steward.io/min-workers", "1"}};
  EXPECT_EQ(DescribePod(kube::DecodePod(d, bare)).min_workers, 0);
}

}  // namespace
}  // namespace steward::live
