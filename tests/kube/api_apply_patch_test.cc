// Server-side apply is not served: kubectl and other clients send the apply configuration as
// YAML (application/apply-patch+yaml), and must meet a 415 naming the patch types that are
// served, whatever the body looks like (a YAML body used to meet a 400 about JSON).
#include <gtest/gtest.h>

#include "api_test_util.h"

namespace steward::kube::testing {
namespace {

using ApiApplyPatchTest = ApiServerTest;

TEST_F(ApiApplyPatchTest, YamlApplyPatchIs415NotABadRequest) {
  AddNode("gpu-1");
  const http::Reply r =
      Do("PATCH", "/api/v1/nodes/gpu-1?fieldManager=e2e", "metadata:\n  labels:\n    team: a\n",
         {{"Content-Type", "application/apply-patch+yaml"}});
  EXPECT_EQ(r.status, 415) << r.body;
  const json status = Body(r);
  EXPECT_EQ(status["reason"], "UnsupportedMediaType");
  EXPECT_NE(status["message"].get<std::string>().find("merge"), std::string::npos)
      << "the message names what is served";
  EXPECT_EQ(Get("/api/v1/nodes/gpu-1")["metadata"]["labels"], json::object()) << "not applied";
}

}  // namespace
}  // namespace steward::kube::testing
