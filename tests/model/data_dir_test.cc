#include "model/data_dir.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace steward::model {
namespace {

// Restores STEWARD_DATA after a test changes it.
class DataDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* v = std::getenv("STEWARD_DATA")) saved_ = v;
  }
  void TearDown() override {
    if (saved_.empty())
      unsetenv("STEWARD_DATA");
    else
      setenv("STEWARD_DATA", saved_.c_str(), 1);
  }
  std::string saved_;
};

TEST_F(DataDirTest, EnvironmentWins) {
  setenv("STEWARD_DATA", "/data/steward", 1);
  EXPECT_EQ(DataDir(), std::filesystem::path("/data/steward"));
  EXPECT_EQ(ExpandDataPath("$STEWARD_DATA/alibaba/nodes.csv"),
            std::filesystem::path("/data/steward/alibaba/nodes.csv"));
}

TEST_F(DataDirTest, DefaultIsSharedDataBesideTheWorkingDirectory) {
  unsetenv("STEWARD_DATA");
  EXPECT_EQ(DataDir(), (std::filesystem::current_path() / "../shared/data").lexically_normal());
  EXPECT_TRUE(DataDir().is_absolute());
}

TEST_F(DataDirTest, OtherPathsAreLeftAlone) {
  setenv("STEWARD_DATA", "/data/steward", 1);
  EXPECT_EQ(ExpandDataPath("traces/jobs.csv"), std::filesystem::path("traces/jobs.csv"));
  EXPECT_EQ(ExpandDataPath("/abs/$STEWARD_DATA/x"), std::filesystem::path("/abs/$STEWARD_DATA/x"));
}

}  // namespace
}  // namespace steward::model
