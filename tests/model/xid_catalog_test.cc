#include "model/xid_catalog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace steward::model {
namespace {

TEST(XidCatalogTest, BuiltinCoversTheRequiredCodes) {
  const XidCatalog& cat = XidCatalog::Builtin();
  for (int code : {13, 31,  43,  45,  48,  61,  62,  63,  64,  68,  74,  79,  92, 94,
                   95, 119, 120, 121, 136, 140, 143, 144, 150, 154, 155, 156, 158}) {
    EXPECT_NE(cat.Find(code), nullptr) << code;
  }
  EXPECT_EQ(cat.Find(1), nullptr);
  EXPECT_THAT(cat.provenance(), ::testing::HasSubstr("docs.nvidia.com/deploy/xid-errors"));
}

TEST(XidCatalogTest, ActionsFollowTheNvidiaBuckets) {
  const XidCatalog& cat = XidCatalog::Builtin();
  EXPECT_EQ(cat.Find(79)->action, XidAction::kReboot);  // RESTART_BM.
  EXPECT_EQ(cat.Find(79)->mnemonic, "GPU_HAS_FALLEN_OFF_THE_BUS");
  EXPECT_EQ(cat.Find(13)->action, XidAction::kRestartWorkload);
  EXPECT_EQ(cat.Find(43)->action, XidAction::kNone);
  EXPECT_EQ(cat.Find(95)->action, XidAction::kResetGpu);
  EXPECT_EQ(cat.Find(64)->action, XidAction::kDrainAndRma);
  EXPECT_EQ(cat.Find(95)->severity, XidSeverity::kFatal);
  EXPECT_EQ(cat.Find(94)->severity, XidSeverity::kNonFatal);
  EXPECT_TRUE(cat.Find(119)->node_condition);
  EXPECT_FALSE(cat.Find(31)->node_condition);
}

TEST(XidCatalogTest, ParseErrorsNameLineAndField) {
  Result<XidCatalog> bad = XidCatalog::Parse("# c\n79,X,fatal,explode,RESTART_BM,yes,m\n", "x.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), ::testing::HasSubstr("x.csv:2"));
  EXPECT_THAT(bad.status().message(), ::testing::HasSubstr("action"));
  Result<XidCatalog> dup =
      XidCatalog::Parse("1,A,fatal,none,IGNORE,no,a\n1,B,fatal,none,IGNORE,no,b\n", "d.csv");
  ASSERT_FALSE(dup.ok());
  Result<XidCatalog> ok = XidCatalog::Parse("7,A,nonfatal,none,IGNORE,no,has, commas\n", "o.csv");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->Find(7)->meaning, "has, commas");
}

TEST(XidCatalogTest, ActionNamesRoundTripAndFamilies) {
  for (XidAction a : {XidAction::kNone, XidAction::kRestartWorkload, XidAction::kResetGpu,
                      XidAction::kReboot, XidAction::kDrainAndRma}) {
    XidAction back = XidAction::kNone;
    ASSERT_TRUE(ParseXidAction(XidActionName(a), &back));
    EXPECT_EQ(back, a);
  }
  EXPECT_FALSE(DisablesGpu(XidAction::kRestartWorkload));
  EXPECT_TRUE(DisablesGpu(XidAction::kResetGpu));
  EXPECT_EQ(XidFamily(74), "nvlink");
  EXPECT_EQ(XidFamily(147), "nvlink");
  EXPECT_EQ(XidFamily(48), "ecc");
  EXPECT_EQ(XidFamily(79), "");
}

}  // namespace
}  // namespace steward::model
