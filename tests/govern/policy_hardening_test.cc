// Crafted Kueue/Volcano YAML: duplicate keys, files without objects, `kind: List` wrappers (what
// `kubectl get -o yaml` prints), int32 wrap-around, CR-only line endings.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "govern/policy_io.h"

namespace steward::govern {
namespace {

using ::testing::HasSubstr;

constexpr char kFlavor[] =
    "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata:\n  name: h100\n";
constexpr char kQueue[] =
    "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata:\n  name: team-a\nspec:\n"
    "  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: h100\n"
    "      resources: [{name: nvidia.com/gpu, nominalQuota: 8}]\n";

// `text` indented by `spaces` on every line (to nest a document under `items:`).
std::string Indent(const std::string& text, int spaces) {
  std::string out, pad(spaces, ' ');
  bool start = true;
  for (char c : text) {
    if (start) out += pad;
    out += c;
    start = c == '\n';
  }
  return out;
}

TEST(PolicyHardeningTest, DuplicateKeysAreRefused) {
  Policy p;
  std::string yaml = std::string(kQueue);
  yaml.replace(yaml.find("  name: team-a\n"), 15, "  name: team-a\n  name: team-b\n");
  Status s = ImportYaml(yaml, "dup.yaml", &p);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("dup.yaml:5:3: name: duplicate key"));
}

TEST(PolicyHardeningTest, AFileWithoutObjectsIsAnError) {
  for (const char* empty :
       {"", "\n", "# only a comment\n", "---\n---\n", "apiVersion: v1\nkind: List\nitems: []\n"}) {
    Policy p;
    Status s = ImportYaml(empty, "empty.yaml", &p);
    ASSERT_FALSE(s.ok()) << empty;
    EXPECT_THAT(s.message(), HasSubstr("empty.yaml: no objects")) << empty;
  }
}

TEST(PolicyHardeningTest, KindListWrappersAreRead) {
  const std::string list = "apiVersion: v1\nkind: List\nitems:\n- " + Indent(kFlavor, 2).substr(2) +
                           "- " + Indent(kQueue, 2).substr(2) +
                           "metadata:\n  resourceVersion: \"\"\n";
  Policy p;
  Status s = ImportYaml(list, "list.yaml", &p);
  ASSERT_TRUE(s.ok()) << s.message() << "\n" << list;
  ASSERT_EQ(p.cluster_queues.size(), 1u);
  EXPECT_EQ(p.cluster_queues[0].name, "team-a");
  ASSERT_EQ(p.flavors.size(), 1u);
  EXPECT_TRUE(p.passthrough_documents.empty());
  // The same objects as two documents give the same policy.
  Policy docs;
  ASSERT_TRUE(ImportYaml(std::string(kFlavor) + "---\n" + kQueue, "docs.yaml", &docs).ok());
  EXPECT_EQ(docs.cluster_queues.size(), p.cluster_queues.size());
  // An API list (ClusterQueueList) too; its items must be a list.
  Policy api;
  EXPECT_TRUE(ImportYaml("apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueueList\nitems:\n- " +
                             Indent(kQueue, 2).substr(2),
                         "api.yaml", &api)
                  .ok());
  EXPECT_EQ(api.cluster_queues.size(), 1u);
  Policy bad;
  Status not_list = ImportYaml("apiVersion: v1\nkind: List\nitems: {a: 1}\n", "bad.yaml", &bad);
  ASSERT_FALSE(not_list.ok());
  EXPECT_THAT(not_list.message(), HasSubstr("bad.yaml:3:8: items: must be a list"));
}

TEST(PolicyHardeningTest, Int32FieldsRefuseWrapAround) {
  const std::string pc =
      "apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata: {name: x}\n"
      "value: ";
  for (const char* v : {"4294967304", "2147483648", ".nan", "1e400", "1.5"}) {
    Policy p;
    Status s = ImportYaml(pc + v + "\n", "pc.yaml", &p);
    ASSERT_FALSE(s.ok()) << v;
    EXPECT_THAT(s.message(), HasSubstr("pc.yaml:4:8")) << v;
  }
  Policy ok;
  ASSERT_TRUE(ImportYaml(pc + "1000\n", "pc.yaml", &ok).ok());
  ASSERT_EQ(ok.priority_classes.size(), 1u);
  EXPECT_EQ(ok.priority_classes[0].value, 1000);
}

TEST(PolicyHardeningTest, CrOnlyLineEndingsReadLikeLf) {
  std::string cr = std::string(kFlavor) + "---\n" + kQueue;
  std::replace(cr.begin(), cr.end(), '\n', '\r');
  Policy p;
  Status s = ImportYaml(cr, "cr.yaml", &p);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(p.cluster_queues.size(), 1u);
  // Four lines of flavor, the separator, then the queue: the line an editor shows.
  EXPECT_EQ(p.cluster_queues[0].source.line, 6);
}

}  // namespace
}  // namespace steward::govern
