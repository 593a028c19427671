// Strategic merge patch behaviour as k8s.io/apimachinery's strategicpatch applies it server-side.
#include "apimachinery/strategic_merge_patch.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace capstan::apimachinery {
namespace {

using testing::J;

// A pod-like schema: containers merge by name, ports by containerPort, finalizers as a set,
// args replaced, volumes with retainKeys.
std::shared_ptr<SchemaRegistry> PodSchemas() {
  auto reg = std::make_shared<SchemaRegistry>();
  EXPECT_TRUE(reg->AddDocumentJson(R"({"definitions":{
      "Pod":{"type":"object","properties":{
          "metadata":{"$ref":"#/definitions/ObjectMeta"},
          "spec":{"$ref":"#/definitions/PodSpec"}}},
      "ObjectMeta":{"type":"object","properties":{
          "labels":{"type":"object","additionalProperties":{"type":"string"}},
          "finalizers":{"type":"array","items":{"type":"string"},"x-kubernetes-patch-strategy":"merge"}}},
      "PodSpec":{"type":"object","properties":{
          "containers":{"type":"array","items":{"$ref":"#/definitions/Container"},
                        "x-kubernetes-patch-merge-key":"name","x-kubernetes-patch-strategy":"merge"},
          "volumes":{"type":"array","items":{"$ref":"#/definitions/Volume"},
                     "x-kubernetes-patch-merge-key":"name","x-kubernetes-patch-strategy":"merge,retainKeys"},
          "nodeSelector":{"type":"object","additionalProperties":{"type":"string"},"x-kubernetes-patch-strategy":"replace"},
          "tolerations":{"type":"array","items":{"type":"object"}}}},
      "Container":{"type":"object","properties":{
          "name":{"type":"string"},"image":{"type":"string"},
          "args":{"type":"array","items":{"type":"string"}},
          "ports":{"type":"array","items":{"type":"object"},
                   "x-kubernetes-patch-merge-key":"containerPort","x-kubernetes-patch-strategy":"merge"}}},
      "Volume":{"type":"object","properties":{"name":{"type":"string"},
          "emptyDir":{"type":"object"},"hostPath":{"type":"object"},"configMap":{"type":"object"}}}}})").ok());
  EXPECT_TRUE(reg->Resolve().ok());
  return reg;
}

class StrategicMergePatchTest : public ::testing::Test {
 protected:
  boost::json::value Apply(std::string_view original, std::string_view patch) {
    auto r = ApplyStrategicMergePatch(J(original), patch, reg_->Find("Pod"));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : boost::json::value();
  }
  Status Fail(std::string_view original, std::string_view patch) {
    auto r = ApplyStrategicMergePatch(J(original), patch, reg_->Find("Pod"));
    EXPECT_FALSE(r.ok());
    return r.status();
  }
  std::shared_ptr<SchemaRegistry> reg_ = PodSchemas();
};

TEST_F(StrategicMergePatchTest, MergesListsOfObjectsByKey) {
  EXPECT_EQ(Apply(R"({"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1"}]}})",
                  R"({"spec":{"containers":[{"name":"b","image":"b:2"},{"name":"c","image":"c:1"}]}})"),
            J(R"({"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:2"},{"name":"c","image":"c:1"}]}})"));
}

TEST_F(StrategicMergePatchTest, ReplacesListsWithoutMergeStrategy) {
  EXPECT_EQ(Apply(R"({"spec":{"containers":[{"name":"a","args":["x","y"]}],"tolerations":[{"key":"k"}]}})",
                  R"({"spec":{"containers":[{"name":"a","args":["z"]}],"tolerations":[]}})"),
            J(R"({"spec":{"containers":[{"name":"a","args":["z"]}],"tolerations":[]}})"));
}

TEST_F(StrategicMergePatchTest, MergesScalarListsAsSets) {
  EXPECT_EQ(Apply(R"({"metadata":{"finalizers":["a","b"]}})", R"({"metadata":{"finalizers":["b","c"]}})"),
            J(R"({"metadata":{"finalizers":["a","b","c"]}})"));
}

TEST_F(StrategicMergePatchTest, DeleteFromPrimitiveList) {
  EXPECT_EQ(Apply(R"({"metadata":{"finalizers":["a","b","c"]}})", R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["b","x"]}})"),
            J(R"({"metadata":{"finalizers":["a","c"]}})"));
  // No list to delete from: nothing is added.
  EXPECT_EQ(Apply(R"({"metadata":{}})", R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["b"]}})"), J(R"({"metadata":{}})"));
}

TEST_F(StrategicMergePatchTest, PatchDirectivesInLists) {
  EXPECT_EQ(Apply(R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
                  R"({"spec":{"containers":[{"name":"a","$patch":"delete"}]}})"),
            J(R"({"spec":{"containers":[{"name":"b"}]}})"));
  EXPECT_EQ(Apply(R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
                  R"({"spec":{"containers":[{"name":"c"},{"$patch":"replace"}]}})"),
            J(R"({"spec":{"containers":[{"name":"c"}]}})"));
}

TEST_F(StrategicMergePatchTest, PatchDirectivesInMaps) {
  EXPECT_EQ(Apply(R"({"metadata":{"labels":{"a":"1","b":"2"}}})", R"({"metadata":{"labels":{"$patch":"replace","c":"3"}}})"),
            J(R"({"metadata":{"labels":{"c":"3"}}})"));
  EXPECT_EQ(Apply(R"({"metadata":{"labels":{"a":"1"}}})", R"({"metadata":{"labels":{"$patch":"delete"}}})"),
            J(R"({"metadata":{"labels":{}}})"));
  EXPECT_EQ(Apply(R"({"metadata":{"labels":{"a":"1","b":"2"}}})", R"({"metadata":{"labels":{"a":null,"c":"3"}}})"),
            J(R"({"metadata":{"labels":{"b":"2","c":"3"}}})"));
  // A field with strategy replace is replaced as a whole.
  EXPECT_EQ(Apply(R"({"spec":{"nodeSelector":{"a":"1"}}})", R"({"spec":{"nodeSelector":{"b":"2"}}})"),
            J(R"({"spec":{"nodeSelector":{"b":"2"}}})"));
}

TEST_F(StrategicMergePatchTest, NewValuesLoseNullsAndDirectives) {
  EXPECT_EQ(Apply(R"({})", R"({"metadata":{"labels":{"a":"1","b":null}},"spec":{"containers":[{"name":"x"},{"name":"y","$patch":"delete"}]}})"),
            J(R"({"metadata":{"labels":{"a":"1"}},"spec":{"containers":[{"name":"x"}]}})"));
}

TEST_F(StrategicMergePatchTest, SetElementOrder) {
  EXPECT_EQ(Apply(R"({"spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}})",
                  R"({"spec":{"$setElementOrder/containers":[{"name":"c"},{"name":"a"},{"name":"b"}],
                              "containers":[{"name":"a","image":"i"}]}})"),
            J(R"({"spec":{"containers":[{"name":"c"},{"name":"a","image":"i"},{"name":"b"}]}})"));
  EXPECT_EQ(Apply(R"({"metadata":{"finalizers":["a","b","c"]}})", R"({"metadata":{"$setElementOrder/finalizers":["c","b","a"]}})"),
            J(R"({"metadata":{"finalizers":["c","b","a"]}})"));
}

TEST_F(StrategicMergePatchTest, RetainKeysClearsOtherFields) {
  EXPECT_EQ(Apply(R"({"spec":{"volumes":[{"name":"v","emptyDir":{}}]}})",
                  R"({"spec":{"volumes":[{"name":"v","$retainKeys":["name","hostPath"],"hostPath":{"path":"/x"}}]}})"),
            J(R"({"spec":{"volumes":[{"name":"v","hostPath":{"path":"/x"}}]}})"));
  Status bad = Fail(R"({"spec":{"volumes":[{"name":"v"}]}})",
                    R"({"spec":{"volumes":[{"name":"v","$retainKeys":["name"],"hostPath":{"path":"/x"}}]}})");
  EXPECT_EQ(bad.code(), 400);
  EXPECT_EQ(bad.message(), "invalid patch format of retainKeys");
}

TEST_F(StrategicMergePatchTest, NestedMergeByKey) {
  EXPECT_EQ(Apply(R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http"}]}]}})",
                  R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":443}]}]}})"),
            J(R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http","protocol":"TCP"},{"containerPort":443}]}]}})"));
}

TEST_F(StrategicMergePatchTest, ErrorsAreKubes) {
  Status no_key = Fail(R"({"spec":{"containers":[{"name":"a"}]}})", R"({"spec":{"containers":[{"image":"x"}]}})");
  EXPECT_EQ(no_key.code(), 500);
  EXPECT_EQ(no_key.reason(), "");
  EXPECT_EQ(no_key.message(), "map: map[image:x] does not contain declared merge key: name");

  Status bad_directive2 = Fail(R"({"metadata":{"labels":{}}})", R"({"metadata":{"labels":{"$patch":"merge"}}})");
  EXPECT_EQ(bad_directive2.message(), "unknown patch type: merge in map: map[$patch:merge]");

  Status bad_prefix = Fail("{}", R"({"$deleteFromPrimitiveListfoo":["a"]})");
  EXPECT_EQ(bad_prefix.code(), 400);
  EXPECT_EQ(bad_prefix.message(), "invalid patch format of primitive list");

  Status bad_order = Fail(R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
                          R"({"spec":{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"name":"b"}]}})");
  EXPECT_EQ(bad_order.message(),
            "The order in patch list:\n[map[name:b]]\n doesn't match $setElementOrder list:\n[map[name:a]]\n");

  Status lists_of_lists = Fail(R"({"metadata":{"finalizers":[["a"]]}})", R"({"metadata":{"finalizers":[["b"]]}})");
  EXPECT_EQ(lists_of_lists.code(), 422);

  Status mixed = Fail(R"({"metadata":{"finalizers":["a"]}})", R"({"metadata":{"finalizers":[1]}})");
  EXPECT_EQ(mixed.message(), "list element types are not identical: [[a] [1]]");

  Status not_object = Fail("{}", "[1]");
  EXPECT_EQ(not_object.code(), 400);
  EXPECT_EQ(not_object.message(), "json: cannot unmarshal array into Go value of type map[string]interface {}");
  EXPECT_EQ(Fail("{}", "{").message(), "invalid JSON patch");
}

TEST(StrategicMergePatchNoSchemaTest, MergesMapsAndReplacesLists) {
  auto r = ApplyStrategicMergePatch(J(R"({"a":{"b":1,"c":[1,2]},"d":1})"), R"({"a":{"c":[3],"e":null},"d":null})", nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, J(R"({"a":{"b":1,"c":[3]}})"));
  auto n = ApplyStrategicMergePatch(J(R"({"a":1})"), "null", nullptr);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, J(R"({"a":1})"));
}

}  // namespace
}  // namespace capstan::apimachinery
