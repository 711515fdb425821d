#include "kube/patch.h"

#include <gtest/gtest.h>

#include <string>

namespace steward::kube {
namespace {

using nlohmann::json;

struct Case {
  std::string name;
  std::string target;    // JSON text.
  std::string patch;     // JSON text.
  std::string expected;  // JSON text.
};

struct ErrorCase {
  std::string name;
  std::string target;
  std::string patch;
  Status::Code code;     // InvalidArgument = HTTP 400, FailedPrecondition = HTTP 422.
  std::string fragment;  // Part of the message.
};

using PatchFn = Result<json> (*)(const json&, const json&);

void ExpectResults(PatchFn apply, const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const json target = json::parse(c.target);
    const json before = target;
    Result<json> got = apply(target, json::parse(c.patch));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, json::parse(c.expected)) << got->dump();
    EXPECT_EQ(target, before);  // The input is never modified.
  }
}

void ExpectErrors(PatchFn apply, const std::vector<ErrorCase>& cases) {
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.name);
    Result<json> got = apply(json::parse(c.target), json::parse(c.patch));
    ASSERT_FALSE(got.ok()) << got->dump();
    EXPECT_EQ(got.status().code(), c.code) << got.status().ToString();
    EXPECT_NE(got.status().message().find(c.fragment), std::string::npos) << got.status().message();
  }
}

// --- JSON merge patch (RFC 7386) ---

TEST(MergePatchTest, Rfc7386AppendixA) {
  // Appendix A, one row each. Rows whose patch is not an object are re-expressed one level
  // down (under "x"), since a Kubernetes merge patch is always an object.
  ExpectResults(
      ApplyMergePatch,
      {
          {"A1", R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
          {"A2", R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
          {"A3", R"({"a":"b"})", R"({"a":null})", R"({})"},
          {"A4", R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
          {"A5", R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
          {"A6", R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
          {"A7", R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
          {"A8", R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
          {"A9", R"({"x":["a","b"]})", R"({"x":["c","d"]})", R"({"x":["c","d"]})"},
          {"A10", R"({"x":{"a":"b"}})", R"({"x":["c"]})", R"({"x":["c"]})"},
          {"A11", R"({"x":{"a":"foo"}})", R"({"x":null})", R"({})"},
          {"A12", R"({"x":{"a":"foo"}})", R"({"x":"bar"})", R"({"x":"bar"})"},
          {"A13", R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
          {"A14", R"({"x":[1,2]})", R"({"x":{"a":"b","c":null}})", R"({"x":{"a":"b"}})"},
          {"A15", R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
          {"target not an object", R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
      });
}

TEST(MergePatchTest, Rfc7386Section3Example) {
  ExpectResults(ApplyMergePatch,
                {{"section 3",
                  R"({"title":"Goodbye!","author":{"givenName":"John","familyName":"Doe"},
                      "tags":["example","sample"],"content":"This will be unchanged"})",
                  R"({"title":"Hello!","phoneNumber":"+01-123-456-7890",
                      "author":{"familyName":null},"tags":["example"]})",
                  R"({"title":"Hello!","author":{"givenName":"John"},"tags":["example"],
                      "content":"This will be unchanged","phoneNumber":"+01-123-456-7890"})"}});
}

TEST(MergePatchTest, KubernetesBodies) {
  ExpectResults(
      ApplyMergePatch,
      {
          // kubectl patch clusterqueue team-a --type merge: the whole resourceGroups list.
          {"ClusterQueue quota",
           R"({"metadata":{"name":"team-a","resourceVersion":"7"},
               "spec":{"cohort":"all","resourceGroups":[{"coveredResources":["nvidia.com/gpu"],
                 "flavors":[{"name":"h100","resources":[{"name":"nvidia.com/gpu",
                 "nominalQuota":"64"}]}]}]}})",
           R"({"metadata":{"resourceVersion":"7"},
               "spec":{"resourceGroups":[{"coveredResources":["nvidia.com/gpu"],
                 "flavors":[{"name":"h100","resources":[{"name":"nvidia.com/gpu",
                 "nominalQuota":"48"}]}]}]}})",
           R"({"metadata":{"name":"team-a","resourceVersion":"7"},
               "spec":{"cohort":"all","resourceGroups":[{"coveredResources":["nvidia.com/gpu"],
                 "flavors":[{"name":"h100","resources":[{"name":"nvidia.com/gpu",
                 "nominalQuota":"48"}]}]}]}})"},
          {"cordon", R"({"spec":{"taints":[{"key":"a","effect":"NoSchedule"}]}})",
           R"({"spec":{"unschedulable":true}})",
           R"({"spec":{"unschedulable":true,"taints":[{"key":"a","effect":"NoSchedule"}]}})"},
          {"label removal", R"({"metadata":{"labels":{"a":"1","b":"2"}}})",
           R"({"metadata":{"labels":{"a":null}}})", R"({"metadata":{"labels":{"b":"2"}}})"},
      });
}

TEST(MergePatchTest, ANonObjectPatchIsABadRequest) {
  ExpectErrors(
      ApplyMergePatch,
      {
          {"list", R"({"a":1})", R"(["c"])", Status::Code::kInvalidArgument,
           "must be a JSON object (got array)"},
          {"null", R"({"a":1})", R"(null)", Status::Code::kInvalidArgument, "(got null)"},
          {"string", R"({"a":1})", R"("bar")", Status::Code::kInvalidArgument, "(got string)"},
      });
}

// --- JSON patch (RFC 6902) ---

TEST(JsonPatchTest, Rfc6902AppendixA) {
  ExpectResults(
      ApplyJsonPatch,
      {
          {"A.1 add an object member", R"({"foo":"bar"})",
           R"([{"op":"add","path":"/baz","value":"qux"}])", R"({"baz":"qux","foo":"bar"})"},
          {"A.2 add an array element", R"({"foo":["bar","baz"]})",
           R"([{"op":"add","path":"/foo/1","value":"qux"}])", R"({"foo":["bar","qux","baz"]})"},
          {"A.3 remove an object member", R"({"baz":"qux","foo":"bar"})",
           R"([{"op":"remove","path":"/baz"}])", R"({"foo":"bar"})"},
          {"A.4 remove an array element", R"({"foo":["bar","qux","baz"]})",
           R"([{"op":"remove","path":"/foo/1"}])", R"({"foo":["bar","baz"]})"},
          {"A.5 replace a value", R"({"baz":"qux","foo":"bar"})",
           R"([{"op":"replace","path":"/baz","value":"boo"}])", R"({"baz":"boo","foo":"bar"})"},
          {"A.6 move a value", R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
           R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
           R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"},
          {"A.7 move an array element", R"({"foo":["all","grass","cows","eat"]})",
           R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
           R"({"foo":["all","cows","eat","grass"]})"},
          {"A.8 test a value: success", R"({"baz":"qux","foo":["a",2,"c"]})",
           R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])",
           R"({"baz":"qux","foo":["a",2,"c"]})"},
          {"A.10 add a nested member object", R"({"foo":"bar"})",
           R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])",
           R"({"foo":"bar","child":{"grandchild":{}}})"},
          {"A.11 ignore unrecognized elements", R"({"foo":"bar"})",
           R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])",
           R"({"foo":"bar","baz":"qux"})"},
          {"A.14 ~ escape ordering", R"({"/":9,"~1":10})",
           R"([{"op":"test","path":"/~01","value":10}])", R"({"/":9,"~1":10})"},
          {"A.16 add an array value", R"({"foo":["bar"]})",
           R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
           R"({"foo":["bar",["abc","def"]]})"},
      });
  ExpectErrors(ApplyJsonPatch, {
                                   {"A.9 test a value: error", R"({"baz":"qux"})",
                                    R"([{"op":"test","path":"/baz","value":"bar"}])",
                                    Status::Code::kFailedPrecondition, "test failed"},
                                   {"A.12 add to a nonexistent target", R"({"foo":"bar"})",
                                    R"([{"op":"add","path":"/baz/bat","value":"qux"}])",
                                    Status::Code::kFailedPrecondition, "\"/baz\" does not exist"},
                                   {"A.15 compare strings and numbers", R"({"/":9,"~1":10})",
                                    R"([{"op":"test","path":"/~01","value":"10"}])",
                                    Status::Code::kFailedPrecondition, "test failed"},
                               });
}

TEST(JsonPatchTest, PointersIndexesAndWholeDocument) {
  ExpectResults(
      ApplyJsonPatch,
      {
          {"empty patch", R"({"a":1})", R"([])", R"({"a":1})"},
          {"~1 is a slash", R"({"metadata":{"labels":{}}})",
           R"([{"op":"add","path":"/metadata/labels/nvidia.com~1gpu.product","value":"H100"}])",
           R"({"metadata":{"labels":{"nvidia.com/gpu.product":"H100"}}})"},
          {"~0 is a tilde", R"({"a~b":1})", R"([{"op":"remove","path":"/a~0b"}])", R"({})"},
          {"empty key", R"({"":1})", R"([{"op":"replace","path":"/","value":2}])", R"({"":2})"},
          {"add replaces an existing member", R"({"a":1})",
           R"([{"op":"add","path":"/a","value":2}])", R"({"a":2})"},
          {"add at the end index", R"({"l":[1,2]})", R"([{"op":"add","path":"/l/2","value":3}])",
           R"({"l":[1,2,3]})"},
          {"add at the front", R"({"l":[1,2]})", R"([{"op":"add","path":"/l/0","value":0}])",
           R"({"l":[0,1,2]})"},
          {"add - appends", R"({"l":[]})", R"([{"op":"add","path":"/l/-","value":{"a":1}}])",
           R"({"l":[{"a":1}]})"},
          {"replace the whole document", R"({"a":1})",
           R"([{"op":"replace","path":"","value":{"b":2}}])", R"({"b":2})"},
          {"add the whole document", R"({"a":1})", R"([{"op":"add","path":"","value":{"c":3}}])",
           R"({"c":3})"},
          {"test the whole document", R"({"a":[1,{"b":null}]})",
           R"([{"op":"test","path":"","value":{"a":[1,{"b":null}]}}])", R"({"a":[1,{"b":null}]})"},
          {"test: members in any order, numbers by value", R"({"o":{"x":1,"y":2.0}})",
           R"([{"op":"test","path":"/o","value":{"y":2,"x":1.0}}])", R"({"o":{"x":1,"y":2.0}})"},
          {"move to itself", R"({"a":1})", R"([{"op":"move","from":"/a","path":"/a"}])",
           R"({"a":1})"},
          {"copy", R"({"a":{"b":[1]}})", R"([{"op":"copy","from":"/a","path":"/c"}])",
           R"({"a":{"b":[1]},"c":{"b":[1]}})"},
          {"copy into a list", R"({"a":5,"l":[1]})", R"([{"op":"copy","from":"/a","path":"/l/0"}])",
           R"({"a":5,"l":[5,1]})"},
          {"ops apply in order", R"({"a":1})",
           R"([{"op":"add","path":"/b","value":2},{"op":"test","path":"/b","value":2},
               {"op":"move","from":"/b","path":"/c"},{"op":"remove","path":"/a"}])",
           R"({"c":2})"},
          // What a careful quota change sends: test the value read, then replace it.
          {"ClusterQueue quota with test",
           R"({"spec":{"resourceGroups":[{"flavors":[{"name":"h100",
               "resources":[{"name":"nvidia.com/gpu","nominalQuota":"64"}]}]}]}})",
           R"([{"op":"test","path":"/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota",
                "value":"64"},
               {"op":"replace","path":"/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota",
                "value":"48"}])",
           R"({"spec":{"resourceGroups":[{"flavors":[{"name":"h100",
               "resources":[{"name":"nvidia.com/gpu","nominalQuota":"48"}]}]}]}})"},
      });
}

TEST(JsonPatchTest, MalformedPatchesAreBadRequests) {
  constexpr auto k400 = Status::Code::kInvalidArgument;
  ExpectErrors(
      ApplyJsonPatch,
      {
          {"not a list", R"({})", R"({"op":"add"})", k400, "must be a list of operations"},
          {"op not an object", R"({})", R"([1])", k400, "operation 0 must be an object"},
          {"missing op", R"({})", R"([{"path":"/a"}])", k400, "\"op\" must be a string"},
          {"unknown op", R"({})", R"([{"op":"merge","path":"/a","value":1}])", k400,
           "unknown op \"merge\""},
          {"missing path", R"({})", R"([{"op":"remove"}])", k400, "\"path\" must be a string"},
          {"path not a string", R"({})", R"([{"op":"remove","path":3}])", k400,
           "\"path\" must be a string"},
          {"pointer without slash", R"({"a":1})", R"([{"op":"remove","path":"a"}])", k400,
           "must be empty or start with '/'"},
          {"bad escape", R"({"a":1})", R"([{"op":"remove","path":"/a~2"}])", k400,
           "'~' must be followed by '0' or '1'"},
          {"trailing tilde", R"({"a":1})", R"([{"op":"remove","path":"/a~"}])", k400,
           "'~' must be followed"},
          {"missing value", R"({})", R"([{"op":"add","path":"/a"}])", k400,
           "operation 0 (add): \"value\" is missing"},
          {"missing from", R"({"a":1})", R"([{"op":"copy","path":"/b"}])", k400,
           "\"from\" must be a string"},
          {"move into a child", R"({"a":{"b":1}})",
           R"([{"op":"move","from":"/a","path":"/a/b/c"}])", k400,
           "cannot be moved into one of its children"},
          {"remove the document", R"({"a":1})", R"([{"op":"remove","path":""}])", k400,
           "cannot be removed"},
          // The shape of every op is checked before any applies: the failing test comes first.
          {"malformed after a failing test", R"({"a":1})",
           R"([{"op":"test","path":"/a","value":2},{"op":"nope","path":"/a"}])", k400,
           "operation 1: unknown op \"nope\""},
      });
}

TEST(JsonPatchTest, PatchesThatDoNotFitTheObjectAreUnprocessable) {
  constexpr auto k422 = Status::Code::kFailedPrecondition;
  ExpectErrors(
      ApplyJsonPatch,
      {
          {"remove a missing member", R"({"a":1})", R"([{"op":"remove","path":"/b"}])", k422,
           "operation 0 (remove \"/b\"): \"/b\" does not exist"},
          {"replace a missing member", R"({"a":1})", R"([{"op":"replace","path":"/b","value":1}])",
           k422, "\"/b\" does not exist"},
          {"test a missing member", R"({"a":1})", R"([{"op":"test","path":"/b","value":null}])",
           k422, "\"/b\" does not exist"},
          {"add past the end", R"({"l":[1]})", R"([{"op":"add","path":"/l/2","value":3}])", k422,
           "index 2 is out of range (the list has 1 elements)"},
          {"remove past the end", R"({"l":[1]})", R"([{"op":"remove","path":"/l/1"}])", k422,
           "index out of range"},
          {"leading zero", R"({"l":[1,2]})", R"([{"op":"remove","path":"/l/01"}])", k422,
           "\"01\" is not an index"},
          {"negative index", R"({"l":[1,2]})", R"([{"op":"remove","path":"/l/-1"}])", k422,
           "\"-1\" is not an index"},
          {"- names no element", R"({"l":[1]})", R"([{"op":"replace","path":"/l/-","value":0}])",
           k422, "\"-\" is not an index"},
          {"through a scalar", R"({"a":1})", R"([{"op":"add","path":"/a/b","value":0}])", k422,
           "is a number, not an object or a list"},
          {"move from a missing member", R"({"a":1})", R"([{"op":"move","from":"/x","path":"/y"}])",
           k422, "from: \"/x\" does not exist"},
          {"copy from a missing member", R"({"a":1})", R"([{"op":"copy","from":"/x","path":"/y"}])",
           k422, "from: \"/x\" does not exist"},
          {"test a different value", R"({"n":"64"})", R"([{"op":"test","path":"/n","value":64}])",
           k422, "test failed: the value is \"64\", not 64"},
          // All or nothing: the first op applied to the working copy, the failure drops it.
          {"a later failure drops earlier ops", R"({"a":1})",
           R"([{"op":"replace","path":"/a","value":2},{"op":"test","path":"/a","value":1}])", k422,
           "operation 1 (test \"/a\")"},
      });
}

// --- Strategic merge patch ---

Result<json> NodePatch(const json& node, const json& patch) {
  return ApplyStrategicMergePatch(node, patch, StrategicSchemaFor("Node"));
}
Result<json> PodPatch(const json& pod, const json& patch) {
  return ApplyStrategicMergePatch(pod, patch, StrategicSchemaFor("Pod"));
}

constexpr char kNode[] = R"({
  "apiVersion":"v1","kind":"Node",
  "metadata":{"name":"gpu-7","labels":{"kubernetes.io/hostname":"gpu-7",
              "nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"},
              "annotations":{"a":"1"}},
  "spec":{"podCIDR":"10.0.7.0/24","podCIDRs":["10.0.7.0/24"],
          "taints":[{"key":"nvidia.com/gpu","value":"present","effect":"NoSchedule"}]},
  "status":{"capacity":{"nvidia.com/gpu":"8"},
            "conditions":[{"type":"MemoryPressure","status":"False"},
                          {"type":"DiskPressure","status":"False"},
                          {"type":"PIDPressure","status":"False"},
                          {"type":"Ready","status":"True","lastHeartbeatTime":"t0"}],
            "addresses":[{"type":"InternalIP","address":"10.1.0.7"},
                         {"type":"Hostname","address":"gpu-7"}],
            "images":[{"names":["a"],"sizeBytes":1}]}})";

// kNode with `edit` applied as a JSON merge patch: the expectations below are hand-written
// diffs of the node, not outputs of the code under test.
std::string NodeWith(const std::string& edit) {
  return ApplyMergePatch(json::parse(kNode), json::parse(edit))->dump();
}

TEST(StrategicMergePatchTest, WhatKubectlSendsToNodes) {
  ExpectResults(
      NodePatch,
      {
          {"kubectl cordon", kNode, R"({"spec":{"unschedulable":true}})",
           NodeWith(R"({"spec":{"unschedulable":true}})")},
          {"kubectl uncordon", NodeWith(R"({"spec":{"unschedulable":true}})"),
           R"({"spec":{"unschedulable":null}})", kNode},
          {"kubectl label node gpu-7 a=b", kNode, R"({"metadata":{"labels":{"a":"b"}}})",
           NodeWith(R"({"metadata":{"labels":{"a":"b"}}})")},
          {"kubectl label node gpu-7 a-", NodeWith(R"({"metadata":{"labels":{"a":"b"}}})"),
           R"({"metadata":{"labels":{"a":null}}})", kNode},
          {"kubectl label --overwrite", kNode,
           R"({"metadata":{"labels":{"nvidia.com/gpu.product":"NVIDIA-A100-SXM4-80GB"}}})",
           NodeWith(
               R"({"metadata":{"labels":{"nvidia.com/gpu.product":"NVIDIA-A100-SXM4-80GB"}}})")},
          {"kubectl annotate", kNode, R"({"metadata":{"annotations":{"steward/xid":"79"}}})",
           NodeWith(R"({"metadata":{"annotations":{"steward/xid":"79"}}})")},
          // kubectl taint sends the whole new list: taints have no merge key, so it replaces.
          {"kubectl taint node gpu-7 xid=79:NoExecute", kNode,
           R"({"spec":{"taints":[{"effect":"NoSchedule","key":"nvidia.com/gpu","value":"present"},
                                 {"effect":"NoExecute","key":"xid","value":"79"}]}})",
           NodeWith(R"({"spec":{"taints":[
               {"effect":"NoSchedule","key":"nvidia.com/gpu","value":"present"},
               {"effect":"NoExecute","key":"xid","value":"79"}]}})")},
          {"kubectl taint node gpu-7 nvidia.com/gpu- (the first of two)",
           NodeWith(R"({"spec":{"taints":[
               {"effect":"NoSchedule","key":"nvidia.com/gpu","value":"present"},
               {"effect":"NoExecute","key":"xid","value":"79"}]}})"),
           R"({"spec":{"taints":[{"effect":"NoExecute","key":"xid","value":"79"}]}})",
           NodeWith(R"({"spec":{"taints":[{"effect":"NoExecute","key":"xid","value":"79"}]}})")},
          {"kubectl taint removing the last taint", kNode, R"({"spec":{"taints":null}})",
           NodeWith(R"({"spec":{"taints":null}})")},
          // The two-way patch of a status change names the order of the merged list.
          {"kubelet heartbeat with $setElementOrder", kNode,
           R"({"status":{"$setElementOrder/conditions":[{"type":"MemoryPressure"},
                 {"type":"DiskPressure"},{"type":"PIDPressure"},{"type":"Ready"}],
               "conditions":[{"lastHeartbeatTime":"t1","type":"Ready"}]}})",
           NodeWith(R"({"status":{"conditions":[{"type":"MemoryPressure","status":"False"},
                          {"type":"DiskPressure","status":"False"},
                          {"type":"PIDPressure","status":"False"},
                          {"type":"Ready","status":"True","lastHeartbeatTime":"t1"}]}})")},
          {"a new GPU condition placed by $setElementOrder", kNode,
           R"({"status":{"$setElementOrder/conditions":[{"type":"MemoryPressure"},
                 {"type":"DiskPressure"},{"type":"PIDPressure"},{"type":"Ready"},
                 {"type":"GpuXidError"}],
               "conditions":[{"type":"GpuXidError","status":"True","reason":"Xid79"}]}})",
           NodeWith(R"({"status":{"conditions":[{"type":"MemoryPressure","status":"False"},
                          {"type":"DiskPressure","status":"False"},
                          {"type":"PIDPressure","status":"False"},
                          {"type":"Ready","status":"True","lastHeartbeatTime":"t0"},
                          {"type":"GpuXidError","status":"True","reason":"Xid79"}]}})")},
          {"status.addresses merge by type", kNode,
           R"({"status":{"addresses":[{"type":"InternalIP","address":"10.1.0.8"}]}})",
           NodeWith(R"({"status":{"addresses":[{"type":"InternalIP","address":"10.1.0.8"},
                                              {"type":"Hostname","address":"gpu-7"}]}})")},
          {"status.images has no key: replaced", kNode,
           R"({"status":{"images":[{"names":["b"],"sizeBytes":2}]}})",
           NodeWith(R"({"status":{"images":[{"names":["b"],"sizeBytes":2}]}})")},
          {"spec.podCIDRs is a set", kNode, R"({"spec":{"podCIDRs":["fd00::/64","10.0.7.0/24"]}})",
           NodeWith(R"({"spec":{"podCIDRs":["fd00::/64","10.0.7.0/24"]}})")},
          {"capacity drops when GPUs fail", kNode,
           R"({"status":{"capacity":{"nvidia.com/gpu":"7"}}})",
           NodeWith(R"({"status":{"capacity":{"nvidia.com/gpu":"7"}}})")},
      });
}

TEST(StrategicMergePatchTest, MergeListsByKey) {
  ExpectResults(
      PodPatch,
      {
          {"update an element in place",
           R"({"status":{"conditions":[{"type":"A","status":"False"},{"type":"B"}]}})",
           R"({"status":{"conditions":[{"type":"A","status":"True"}]}})",
           R"({"status":{"conditions":[{"type":"A","status":"True"},{"type":"B"}]}})"},
          // Without $setElementOrder the API server puts a new element before the old ones
          // it cannot place (patch.go mergeSortedSlice).
          {"a new element without an order",
           R"({"status":{"conditions":[{"type":"A"},{"type":"B"}]}})",
           R"({"status":{"conditions":[{"type":"C","status":"True"}]}})",
           R"({"status":{"conditions":[{"type":"C","status":"True"},{"type":"A"},{"type":"B"}]}})"},
          // Patch order wins among patched elements; the rest keep their old places.
          {"order from the patch (upstream: preserve the order from the patch 2)",
           R"({"status":{"conditions":[{"type":"1"},{"type":"2","v":"b"},{"type":"3"}]}})",
           R"({"status":{"conditions":[{"type":"3","v":"c"},{"type":"1","v":"a"}]}})",
           R"({"status":{"conditions":[{"type":"2","v":"b"},{"type":"3","v":"c"},
                                       {"type":"1","v":"a"}]}})"},
          {"null deletes a field of an element",
           R"({"status":{"conditions":[{"type":"A","reason":"x","message":"m"}]}})",
           R"({"status":{"conditions":[{"type":"A","reason":null}]}})",
           R"({"status":{"conditions":[{"type":"A","message":"m"}]}})"},
          {"$patch: delete removes by key",
           R"({"status":{"conditions":[{"type":"A"},{"type":"B"},{"type":"C"}]}})",
           R"({"status":{"conditions":[{"type":"B","$patch":"delete"}]}})",
           R"({"status":{"conditions":[{"type":"A"},{"type":"C"}]}})"},
          {"$patch: delete removes every duplicate (upstream test)",
           R"({"status":{"conditions":[{"type":"1"},{"type":"1"},{"type":"2","v":"a"},
                                       {"type":"3"},{"type":"3"}]}})",
           R"({"status":{"conditions":[{"type":"1","$patch":"delete"},
                                       {"type":"3","$patch":"delete"}]}})",
           R"({"status":{"conditions":[{"type":"2","v":"a"}]}})"},
          {"$patch: delete of a missing element", R"({"status":{"conditions":[{"type":"A"}]}})",
           R"({"status":{"conditions":[{"type":"Z","$patch":"delete"}]}})",
           R"({"status":{"conditions":[{"type":"A"}]}})"},
          {"$patch: replace inside a list",
           R"({"status":{"conditions":[{"type":"A","x":1},{"type":"B"}]}})",
           R"({"status":{"conditions":[{"$patch":"replace"},{"type":"C"}]}})",
           R"({"status":{"conditions":[{"type":"C"}]}})"},
          {"$patch: replace alone empties the list", R"({"status":{"conditions":[{"type":"A"}]}})",
           R"({"status":{"conditions":[{"$patch":"replace"}]}})",
           R"({"status":{"conditions":[]}})"},
          {"new list taken whole, directives and nulls dropped", R"({"status":{}})",
           R"({"status":{"conditions":[{"type":"A","reason":null},
                                       {"type":"B","$patch":"delete"}]}})",
           R"({"status":{"conditions":[{"type":"A"}]}})"},
          {"nested lists: containers by name, ports by containerPort, env by name",
           R"({"spec":{"containers":[
                {"name":"trainer","image":"t:1","ports":[{"containerPort":8080,"name":"http"}],
                 "env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},
                {"name":"sidecar","image":"s:1"}]}})",
           R"({"spec":{"containers":[{"name":"trainer","image":"t:2",
                "ports":[{"containerPort":8080,"protocol":"TCP"}],
                "env":[{"name":"B","value":"3"}]}]}})",
           R"({"spec":{"containers":[
                {"name":"trainer","image":"t:2",
                 "ports":[{"containerPort":8080,"name":"http","protocol":"TCP"}],
                 "env":[{"name":"A","value":"1"},{"name":"B","value":"3"}]},
                {"name":"sidecar","image":"s:1"}]}})"},
          {"kubectl apply's $setElementOrder/containers",
           R"({"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1"}]}})",
           R"({"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"}],
                       "containers":[{"image":"b:2","name":"b"}]}})",
           R"({"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:2"}]}})"},
          {"volumeMounts by mountPath in initContainers",
           R"({"spec":{"initContainers":[{"name":"i","volumeMounts":[
                {"mountPath":"/data","name":"d"}]}]}})",
           R"({"spec":{"initContainers":[{"name":"i","volumeMounts":[
                {"mountPath":"/data","readOnly":true},{"mountPath":"/ckpt","name":"c"}]}]}})",
           R"({"spec":{"initContainers":[{"name":"i","volumeMounts":[
                {"mountPath":"/data","name":"d","readOnly":true},
                {"mountPath":"/ckpt","name":"c"}]}]}})"},
          {"spec.tolerations have no key: replaced",
           R"({"spec":{"tolerations":[{"key":"a","operator":"Exists"}]}})",
           R"({"spec":{"tolerations":[{"key":"b","operator":"Exists"}]}})",
           R"({"spec":{"tolerations":[{"key":"b","operator":"Exists"}]}})"},
          {"status.containerStatuses have no key: replaced",
           R"({"status":{"containerStatuses":[{"name":"a","ready":true},{"name":"b"}]}})",
           R"({"status":{"containerStatuses":[{"name":"a","ready":false}]}})",
           R"({"status":{"containerStatuses":[{"name":"a","ready":false}]}})"},
          {"ownerReferences by uid",
           R"({"metadata":{"ownerReferences":[{"uid":"u1","kind":"Job","name":"j"}]}})",
           R"({"metadata":{"ownerReferences":[{"uid":"u1","controller":true}]}})",
           R"({"metadata":{"ownerReferences":[{"uid":"u1","kind":"Job","name":"j",
                                               "controller":true}]}})"},
      });
}

TEST(StrategicMergePatchTest, PrimitiveSetsAndDirectives) {
  ExpectResults(
      PodPatch,
      {
          {"finalizers: union without duplicates (upstream: unique scalars)",
           R"({"metadata":{"finalizers":["1","2"]}})", R"({"metadata":{"finalizers":["2","3"]}})",
           R"({"metadata":{"finalizers":["1","2","3"]}})"},
          {"finalizers: patch order among patched values",
           R"({"metadata":{"finalizers":["1","2","3"]}})",
           R"({"metadata":{"finalizers":["3","1"]}})",
           R"({"metadata":{"finalizers":["2","3","1"]}})"},
          {"$deleteFromPrimitiveList", R"({"metadata":{"finalizers":["a","b","c"]}})",
           R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["b","zz"]}})",
           R"({"metadata":{"finalizers":["a","c"]}})"},
          {"$deleteFromPrimitiveList on a missing list adds nothing", R"({"metadata":{}})",
           R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["b"]}})", R"({"metadata":{}})"},
          {"$deleteFromPrimitiveList on a replaced list (container args)",
           R"({"spec":{"containers":[{"name":"c","args":["--a","--b","--a"]}]}})",
           R"({"spec":{"containers":[{"name":"c","$deleteFromPrimitiveList/args":["--a"]}]}})",
           R"({"spec":{"containers":[{"name":"c","args":["--b"]}]}})"},
          {"add and delete in one patch", R"({"metadata":{"finalizers":["a","b"]}})",
           R"({"metadata":{"$setElementOrder/finalizers":["c","a"],"finalizers":["c"],
                           "$deleteFromPrimitiveList/finalizers":["b"]}})",
           R"({"metadata":{"finalizers":["c","a"]}})"},
          {"$setElementOrder on primitives", R"({"metadata":{"finalizers":["x","y","z"]}})",
           R"({"metadata":{"$setElementOrder/finalizers":["z","y","x"]}})",
           R"({"metadata":{"finalizers":["z","y","x"]}})"},
          {"$patch: replace on a map", R"({"metadata":{"labels":{"a":"1","b":"2"}}})",
           R"({"metadata":{"labels":{"$patch":"replace","c":"3"}}})",
           R"({"metadata":{"labels":{"c":"3"}}})"},
          {"$patch: delete on a map", R"({"metadata":{"name":"p","labels":{"a":"1"}}})",
           R"({"metadata":{"labels":{"$patch":"delete"}}})",
           R"({"metadata":{"name":"p","labels":{}}})"},
          {"$patch: merge on a map is the default", R"({"metadata":{"labels":{"a":"1"}}})",
           R"({"metadata":{"labels":{"$patch":"merge","b":"2"}}})",
           R"({"metadata":{"labels":{"a":"1","b":"2"}}})"},
          {"$patch: replace of the whole object", R"({"a":1,"b":{"c":2}})",
           R"({"$patch":"replace","d":4})", R"({"d":4})"},
          {"a new map drops nulls and directives", R"({"metadata":{"name":"p"}})",
           R"({"metadata":{"annotations":{"a":"1","b":null},
                           "labels":{"$patch":"replace","x":"y"}}})",
           R"({"metadata":{"name":"p","annotations":{"a":"1"}}})"},
          {"null on a missing field", R"({"spec":{}})", R"({"spec":{"nodeName":null}})",
           R"({"spec":{}})"},
          {"scalar replaced by a map", R"({"spec":{"x":"1"}})",
           R"({"spec":{"x":{"a":null,"b":1}}})", R"({"spec":{"x":{"b":1}}})"},
          // $retainKeys (upstream: retainKeys list of maps clears a field): volumes by name,
          // the volume keeps only the listed keys.
          {"$retainKeys in a merged list element",
           R"({"spec":{"volumes":[{"name":"v","hostPath":{"path":"/x"}},{"name":"w"}]}})",
           R"({"spec":{"volumes":[{"name":"v","$retainKeys":["emptyDir","name"],
                                   "emptyDir":{}}]}})",
           R"({"spec":{"volumes":[{"name":"v","emptyDir":{}},{"name":"w"}]}})"},
          {"$retainKeys on a map", R"({"spec":{"strategy":{"type":"Recreate","x":1,"y":2}}})",
           R"({"spec":{"strategy":{"$retainKeys":["type","y"],"type":"RollingUpdate"}}})",
           R"({"spec":{"strategy":{"type":"RollingUpdate","y":2}}})"},
      });
}

// The three "set elements order" cases of apimachinery's patch_test.go, on node conditions.
TEST(StrategicMergePatchTest, SetElementOrderWithServerOnlyElements) {
  auto conditions = [](const std::string& list) {
    return R"({"status":{"conditions":)" + list + "}}";
  };
  ExpectResults(
      NodePatch,
      {
          {"set elements order in a list",
           conditions(R"([{"type":"1","o":"a"},{"type":"3","v":3},{"type":"4","v":4},
                          {"type":"2","v":2}])"),
           R"({"status":{"$setElementOrder/conditions":[{"type":"4"},{"type":"2"},{"type":"3"},
                                                        {"type":"1"}]}})",
           conditions(R"([{"type":"4","v":4},{"type":"2","v":2},{"type":"3","v":3},
                          {"type":"1","o":"a"}])")},
          {"with server-only items",
           conditions(R"([{"type":"1","o":"a"},{"type":"3","v":3},{"type":"4","v":4},
                          {"type":"2","v":2},{"type":"9"}])"),
           R"({"status":{"$setElementOrder/conditions":[{"type":"4"},{"type":"2"},{"type":"3"},
                                                        {"type":"1"}]}})",
           conditions(R"([{"type":"4","v":4},{"type":"2","v":2},{"type":"3","v":3},
                          {"type":"1","o":"a"},{"type":"9"}])")},
          {"with server-only items 2",
           conditions(R"([{"type":"1","o":"a"},{"type":"2","v":2},{"type":"9"},
                          {"type":"3","v":3},{"type":"4","v":4}])"),
           R"({"status":{"$setElementOrder/conditions":[{"type":"2"},{"type":"1"},{"type":"4"},
                                                        {"type":"3"}]}})",
           conditions(R"([{"type":"2","v":2},{"type":"1","o":"a"},{"type":"9"},
                          {"type":"4","v":4},{"type":"3","v":3}])")},
          {"with server-only items 3",
           conditions(R"([{"type":"1","o":"a"},{"type":"2","v":2},{"type":"7"},{"type":"9"},
                          {"type":"8"},{"type":"3","v":3},{"type":"4","v":4}])"),
           R"({"status":{"$setElementOrder/conditions":[{"type":"2"},{"type":"1"},{"type":"4"},
                                                        {"type":"3"}]}})",
           conditions(R"([{"type":"2","v":2},{"type":"1","o":"a"},{"type":"7"},{"type":"9"},
                          {"type":"8"},{"type":"4","v":4},{"type":"3","v":3}])")},
          {"order entries naming no element are ignored",
           conditions(R"([{"type":"1"},{"type":"3"}])"),
           R"({"status":{"$setElementOrder/conditions":[{"type":"3"},{"type":"2"},{"type":"1"}],
                         "conditions":[{"type":"3","v":3},{"type":"1","v":1}]}})",
           conditions(R"([{"type":"3","v":3},{"type":"1","v":1}])")},
          {"a list the object lacks", R"({"status":{}})",
           R"({"status":{"$setElementOrder/conditions":[{"type":"B"},{"type":"A"}],
                         "conditions":[{"type":"B"},{"type":"A"}]}})",
           conditions(R"([{"type":"B"},{"type":"A"}])")},
          {"nothing to order", R"({"status":{}})",
           R"({"status":{"$setElementOrder/conditions":[{"type":"A"}]}})", R"({"status":{}})"},
      });
}

TEST(StrategicMergePatchTest, SchemasOfTheBuiltInKinds) {
  const json kWithMeta = json::parse(
      R"({"metadata":{"finalizers":["a"],"ownerReferences":[{"uid":"1","name":"x"}]},
          "data":{"k":"v"},"items":[{"name":"a","v":1}]})");
  const json kPatch = json::parse(
      R"({"metadata":{"finalizers":["b"],"ownerReferences":[{"uid":"2","name":"y"}]},
          "items":[{"name":"a","v":2}]})");
  // Any kind: ObjectMeta's lists merge (new elements first, as without $setElementOrder the
  // API server cannot place them), others are replaced.
  const json kExpected = json::parse(
      R"({"metadata":{"finalizers":["b","a"],
                      "ownerReferences":[{"uid":"2","name":"y"},{"uid":"1","name":"x"}]},
          "data":{"k":"v"},"items":[{"name":"a","v":2}]})");
  for (const char* kind : {"ConfigMap", "Event", "Lease", "Namespace", "PodDisruptionBudget",
                           "Node", "Pod", "Workload"}) {
    SCOPED_TRACE(kind);
    Result<json> got = ApplyStrategicMergePatch(kWithMeta, kPatch, StrategicSchemaFor(kind));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, kExpected) << got->dump();
  }
  // Conditions merge by type for Namespace and PodDisruptionBudget, not for Event or Lease.
  const json kConditions = json::parse(R"({"status":{"conditions":[{"type":"A"},{"type":"B"}]}})");
  const json kNewB = json::parse(R"({"status":{"conditions":[{"type":"B","status":"True"}]}})");
  for (const char* kind : {"Namespace", "PodDisruptionBudget"}) {
    Result<json> got = ApplyStrategicMergePatch(kConditions, kNewB, StrategicSchemaFor(kind));
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, json::parse(R"({"status":{"conditions":[{"type":"A"},
                                                            {"type":"B","status":"True"}]}})"))
        << kind;
  }
  for (const char* kind : {"Event", "Lease", "ConfigMap"}) {
    Result<json> got = ApplyStrategicMergePatch(kConditions, kNewB, StrategicSchemaFor(kind));
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, kNewB) << kind;
  }
  // A PodDisruptionBudget's selector has patchStrategy replace.
  Result<json> pdb = ApplyStrategicMergePatch(
      json::parse(R"({"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"a"}}}})"),
      json::parse(R"({"spec":{"selector":{"matchLabels":{"app":"b","tier":"x"}}}})"),
      StrategicSchemaFor("PodDisruptionBudget"));
  ASSERT_TRUE(pdb.ok());
  EXPECT_EQ(*pdb, json::parse(R"({"spec":{"minAvailable":1,
                                          "selector":{"matchLabels":{"app":"b","tier":"x"}}}})"));
  Result<json> pod_like =
      ApplyStrategicMergePatch(json::parse(R"({"spec":{"selector":{"matchLabels":{"app":"a"}}}})"),
                               json::parse(R"({"spec":{"selector":{"matchLabels":{"tier":"x"}}}})"),
                               StrategicSchemaFor("Pod"));
  ASSERT_TRUE(pod_like.ok());
  EXPECT_EQ(*pod_like,
            json::parse(R"({"spec":{"selector":{"matchLabels":{"app":"a","tier":"x"}}}})"));
}

TEST(StrategicMergePatchTest, Errors) {
  constexpr auto k400 = Status::Code::kInvalidArgument;
  constexpr auto k422 = Status::Code::kFailedPrecondition;
  ExpectErrors(
      PodPatch,
      {
          {"not an object", R"({})", R"([1])", k400,
           "a strategic merge patch must be a JSON object (got array)"},
          {"unknown $patch on a map", R"({"metadata":{}})", R"({"metadata":{"$patch":"remove"}})",
           k400, "metadata: unknown $patch directive \"remove\""},
          {"$patch: merge in a list", R"({"status":{"conditions":[{"type":"A"}]}})",
           R"({"status":{"conditions":[{"$patch":"merge"}]}})", k400,
           "$patch: merge cannot be given inside a list"},
          {"bad $setElementOrder key", R"({"spec":{}})",
           R"({"spec":{"$setElementOrder":[{"name":"a"}]}})", k400,
           "must have the form $setElementOrder/<list>"},
          {"$setElementOrder not a list", R"({"spec":{}})",
           R"({"spec":{"$setElementOrder/containers":{"name":"a"}}})", k400,
           "$setElementOrder/containers must be a list"},
          {"patch list out of order (upstream: doesn't match)",
           R"({"status":{"conditions":[{"type":"1"},{"type":"3"},{"type":"2"}]}})",
           R"({"status":{"$setElementOrder/conditions":[{"type":"1"},{"type":"2"},{"type":"3"}],
                         "conditions":[{"type":"3","v":3},{"type":"1","v":1}]}})",
           k400, "status.conditions: the order of the patch list does not match"},
          {"patch element missing from the order", R"({"status":{"conditions":[{"type":"1"}]}})",
           R"({"status":{"$setElementOrder/conditions":[{"type":"1"}],
                         "conditions":[{"type":"5"}]}})",
           k400, "does not match $setElementOrder/conditions"},
          {"primitive list out of order", R"({"metadata":{"finalizers":["1","3","2"]}})",
           R"({"metadata":{"$setElementOrder/finalizers":["1","2","3"],"finalizers":["3","1"]}})",
           k400, "metadata.finalizers: the order of the patch list does not match"},
          {"bad $deleteFromPrimitiveList key", R"({"metadata":{"finalizers":["a"]}})",
           R"({"metadata":{"$deleteFromPrimitiveList":["a"]}})", k400,
           "must have the form $deleteFromPrimitiveList/<list>"},
          {"$deleteFromPrimitiveList not a list", R"({"metadata":{"finalizers":["a"]}})",
           R"({"metadata":{"$deleteFromPrimitiveList/finalizers":"a"}})", k400,
           "$deleteFromPrimitiveList/metadata.finalizers must be a list"},
          {"$retainKeys not a list", R"({"spec":{"strategy":{}}})",
           R"({"spec":{"strategy":{"$retainKeys":"type"}}})", k400,
           "spec.strategy: $retainKeys must be a list"},
          {"a patched key missing from $retainKeys", R"({"spec":{"strategy":{}}})",
           R"({"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":{}}}})", k400,
           "the patch sets \"rollingUpdate\", which $retainKeys does not list"},
          {"lists of lists", R"({"metadata":{"finalizers":["a"]}})",
           R"({"metadata":{"finalizers":[["b"]]}})", k400, "lists of lists cannot merge"},
          {"patch element without its merge key (upstream: missing merge key)",
           R"({"status":{"conditions":[{"type":"A"}]}})",
           R"({"status":{"conditions":[{"status":"True"}]}})", k422,
           "status.conditions: element {\"status\":\"True\"} does not contain the merge key "
           "\"type\""},
          {"$patch: delete without the merge key", R"({"status":{"conditions":[{"type":"A"}]}})",
           R"({"status":{"conditions":[{"$patch":"delete"}]}})", k422,
           "does not contain the merge key \"type\""},
          {"object element without its merge key", R"({"status":{"conditions":[{"x":1}]}})",
           R"({"status":{"conditions":[{"type":"A"}]}})", k422,
           "element {\"x\":1} does not contain the merge key"},
          {"objects and plain values", R"({"metadata":{"finalizers":[{"a":1}]}})",
           R"({"metadata":{"finalizers":["b"]}})", k422,
           "disagree on whether the list holds objects or plain values"},
          {"the object is not an object", R"([])", R"({})", k422,
           "the object to patch is not a JSON object"},
      });
}

}  // namespace
}  // namespace steward::kube
