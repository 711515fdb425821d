#include "model/status.h"

#include <gtest/gtest.h>

namespace steward {
namespace {

Result<int> Half(int x) {
  if (x % 2) return Status::InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  STEWARD_ASSIGN_OR_RETURN(int h, Half(x));
  return Half(h);
}

TEST(StatusTest, ResultCarriesValueOrError) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
}

TEST(StatusTest, InputErrorNamesFileLineField) {
  Status s = MakeInputError("a.yaml", 3, 7, "cluster.nodes", "must be a positive integer");
  EXPECT_EQ(s.message(), "a.yaml:3:7: cluster.nodes: must be a positive integer");
  EXPECT_EQ(MakeInputError("a.csv", 0, 0, "", "empty").message(), "a.csv: empty");
}

}  // namespace
}  // namespace steward
