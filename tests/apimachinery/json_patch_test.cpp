// Cases from evanphx/json-patch's tests (the library kube-apiserver applies JSON patches with) and
// kube-apiserver's patch handler answers.
#include "apimachinery/json_patch.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace capstan::apimachinery {
namespace {

using testing::J;

std::string Apply(std::string_view doc, std::string_view patch, boost::json::value* out = nullptr, int64_t max_copy = 0) {
  boost::json::value d = J(doc);
  std::string err = JsonPatchOperations(d, J(patch).as_array(), max_copy);
  if (out) *out = d;
  return err;
}

void ExpectApplies(std::string_view doc, std::string_view patch, std::string_view want) {
  boost::json::value out;
  std::string err = Apply(doc, patch, &out);
  EXPECT_EQ(err, "") << patch;
  EXPECT_EQ(out, J(want)) << patch;
}

TEST(JsonPatchTest, LibraryCases) {
  ExpectApplies(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux"}])", R"({"baz":"qux","foo":"bar"})");
  ExpectApplies(R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/1","value":"qux"}])", R"({"foo":["bar","qux","baz"]})");
  ExpectApplies(R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/-1","value":"qux"}])", R"({"foo":["bar","baz","qux"]})");
  ExpectApplies(R"({"baz":"qux","foo":"bar"})", R"([{"op":"remove","path":"/baz"}])", R"({"foo":"bar"})");
  ExpectApplies(R"({"foo":["bar","qux","baz"]})", R"([{"op":"remove","path":"/foo/1"}])", R"({"foo":["bar","baz"]})");
  ExpectApplies(R"({"baz":"qux","foo":"bar"})", R"([{"op":"replace","path":"/baz","value":"boo"}])", R"({"baz":"boo","foo":"bar"})");
  ExpectApplies(R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
                R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
                R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})");
  ExpectApplies(R"({"foo":["all","grass","cows","eat"]})", R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
                R"({"foo":["all","cows","eat","grass"]})");
  ExpectApplies(R"({"foo":["bar"]})", R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])", R"({"foo":["bar",["abc","def"]]})");
  ExpectApplies(R"({"foo":"bar","qux":{"baz":1,"bar":null}})", R"([{"op":"remove","path":"/qux/bar"}])", R"({"foo":"bar","qux":{"baz":1}})");
  ExpectApplies(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":null}])", R"({"baz":null,"foo":"bar"})");
  ExpectApplies(R"([{"foo":["bar","qux","baz"]}])", R"([{"op":"replace","path":"/0/foo/0","value":"bum"}])", R"([{"foo":["bum","qux","baz"]}])");
  ExpectApplies(R"([{"foo":["bar","qux","baz"],"bar":["qux","baz"]}])", R"([{"op":"copy","from":"/0/foo/0","path":"/0/bar/0"}])",
                R"([{"foo":["bar","qux","baz"],"bar":["bar","qux","baz"]}])");
  ExpectApplies(R"({"foo":["bar"]})", R"([{"op":"copy","path":"/foo/0","from":"/foo"}])", R"({"foo":[["bar"],"bar"]})");
  ExpectApplies(R"({"foo":["bar","qux","baz"]})", R"([{"op":"remove","path":"/foo/-2"}])", R"({"foo":["bar","baz"]})");
  ExpectApplies(R"({"foo":[]})", R"([{"op":"add","path":"/foo/-1","value":"qux"}])", R"({"foo":["qux"]})");
  ExpectApplies(R"({"bar":[{"baz":null}]})", R"([{"op":"replace","path":"/bar/0/baz","value":1}])", R"({"bar":[{"baz":1}]})");
  ExpectApplies(R"({"bar":[1]})", R"([{"op":"replace","path":"/bar/0","value":null}])", R"({"bar":[null]})");
  ExpectApplies(R"({"a~b":{"c/d":1}})", R"([{"op":"replace","path":"/a~0b/c~1d","value":2}])", R"({"a~b":{"c/d":2}})");
  ExpectApplies(R"({"id":"0","parentID":"0"})",
                R"([{"op":"test","path":"","value":{"id":"0","parentID":"0"}},{"op":"replace","path":"","value":{"id":"1"}}])",
                R"({"id":"1"})");
}

TEST(JsonPatchTest, QuirksKubeInherits) {
  // replace of a missing object key adds it; copy of a missing key writes null.
  ExpectApplies(R"({"a":1})", R"([{"op":"replace","path":"/b","value":2}])", R"({"a":1,"b":2})");
  ExpectApplies(R"({"a":1})", R"([{"op":"copy","from":"/missing","path":"/b"}])", R"({"a":1,"b":null})");
  // add without a value adds null.
  ExpectApplies(R"({"a":1})", R"([{"op":"add","path":"/b"}])", R"({"a":1,"b":null})");
}

TEST(JsonPatchTest, FailuresCarryTheLibraryText) {
  EXPECT_EQ(Apply(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz/bat","value":"qux"}])"),
            R"(add operation does not apply: doc is missing path: "/baz/bat": missing value)");
  EXPECT_EQ(Apply(R"({"a":{"b":{"d":1}}})", R"([{"op":"remove","path":"/a/b/c"}])"),
            "error in remove for path: '/a/b/c': Unable to remove nonexistent key: c: missing value");
  EXPECT_EQ(Apply(R"({"a":{"b":{"d":1}}})", R"([{"op":"move","from":"/a/b/c","path":"/a/b/e"}])"),
            "error in move for path: 'c': Unable to remove nonexistent key: c: missing value");
  EXPECT_EQ(Apply(R"({"a":{"b":[1]}})", R"([{"op":"remove","path":"/a/b/1"}])"),
            "error in remove for path: '/a/b/1': Unable to access invalid index: 1: invalid index referenced");
  EXPECT_EQ(Apply(R"({"foo":"bar"})", R"([{"op":"add","pathz":"/baz","value":"qux"}])"),
            "add operation failed to decode path: missing value");
  EXPECT_EQ(Apply(R"({"foo":"bar"})", R"([{"op":"add","path":"","value":"qux"}])"),
            R"(add operation does not apply: doc is missing path: "": missing value)");
  EXPECT_EQ(Apply(R"({"foo":["bar","baz"]})", R"([{"op":"replace","path":"/foo/2","value":"bum"}])"),
            "replace operation does not apply: doc is missing key: /foo/2: missing value");
  EXPECT_EQ(Apply(R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/-4","value":"bum"}])"),
            "error in add for path: '/foo/-4': Unable to access invalid index: -4: invalid index referenced");
  EXPECT_EQ(Apply(R"({"name":{"foo":"bat"}})", R"([{"op":"replace","path":"/foo/bar","value":"baz"}])"),
            "replace operation does not apply: doc is missing path: /foo/bar: missing value");
  EXPECT_EQ(Apply(R"({"foo":[]})", R"([{"op":"remove","path":"/foo/-"}])"),
            "error in remove for path: '/foo/-': strconv.Atoi: parsing \"-\": invalid syntax");
  EXPECT_EQ(Apply(R"({"foo":["bar"]})", R"([{"op":"remove","path":"/foo/-2"}])"),
            "error in remove for path: '/foo/-2': Unable to access invalid index: -2: invalid index referenced");
  EXPECT_EQ(Apply("{}", R"([{"op":null,"path":""}])"), "Unexpected kind: unknown");
  EXPECT_EQ(Apply("{}", R"([{"op":"copy","from":null}])"),
            "copy operation failed to decode from: operation, missing from field: missing value");
  EXPECT_NE(Apply(R"({"foo":["bar"]})", R"([{"op":"copy","path":"/foo/6666666666","from":"/"}])"), "");
  EXPECT_EQ(Apply(R"({"foo":["bar"]})", R"([{"op":"copy","path":"/foo/2","from":"/foo/0"}])"),
            "error while adding value during copy: Unable to access invalid index: 2: invalid index referenced");
  EXPECT_EQ(Apply(R"({"foo":["all","grass","cows","eat"]})", R"([{"op":"move","from":"/foo/1","path":"/foo/4"}])"),
            "error in move for path: '/foo/4': Unable to access invalid index: 4: invalid index referenced");
  EXPECT_EQ(Apply(R"({"foo":[]})", R"([{"op":"add","path":"/foo/x","value":1}])"),
            "error in add for path: '/foo/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": invalid syntax");
}

TEST(JsonPatchTest, CopySizeIsBounded) {
  std::string a48(48, 'A'), a49(49, 'A');
  // Each copy adds the value's JSON size (quotes included): 50 bytes, twice, fits a 100-byte limit.
  EXPECT_EQ(Apply(R"({"foo":["A",")" + a48 + R"("]})",
                  R"([{"op":"copy","path":"/foo/-","from":"/foo/1"},{"op":"copy","path":"/foo/-","from":"/foo/1"}])",
                  nullptr, 100),
            "");
  EXPECT_EQ(Apply(R"({"foo":["A",")" + a49 + R"("]})",
                  R"([{"op":"copy","path":"/foo/-","from":"/foo/1"},{"op":"copy","path":"/foo/-","from":"/foo/1"}])",
                  nullptr, 100),
            "Unable to complete the copy, the accumulated size increase of copy is 102, exceeding the limit 100");
}

TEST(JsonPatchTest, TestOperation) {
  EXPECT_EQ(Apply(R"({"baz":"qux","foo":["a",2,"c"]})",
                  R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])"),
            "");
  EXPECT_EQ(Apply(R"({"baz":"qux"})", R"([{"op":"test","path":"/baz","value":"bar"}])"), "testing value /baz failed: test failed");
  EXPECT_EQ(Apply(R"({"baz":"qux"})", R"([{"op":"test","path":"/foo","value":42}])"), "testing value /foo failed: test failed");
  EXPECT_EQ(Apply(R"({"baz":"qux"})", R"([{"op":"test","path":"/foo","value":null}])"), "");
  EXPECT_EQ(Apply(R"({"foo":null})", R"([{"op":"test","path":"/foo","value":null}])"), "");
  EXPECT_EQ(Apply(R"({"foo":{}})", R"([{"op":"test","path":"/foo","value":null}])"), "testing value /foo failed: test failed");
  EXPECT_EQ(Apply(R"({"baz/foo":"qux"})", R"([{"op":"test","path":"/baz~1foo","value":"qux"}])"), "");
  EXPECT_EQ(Apply(R"({"foo":[]})", R"([{"op":"test","path":"/foo"}])"), "testing value /foo failed: test failed");
  EXPECT_EQ(Apply(R"({"baz":[]})", R"([{"op":"test","path":"/foo"}])"), "");
}

TEST(JsonPatchTest, KubeAnswers) {
  boost::json::value doc = J(R"({"kind":"ConfigMap","data":{"a":"1"}})");
  auto ok = ApplyJsonPatch(doc, R"([{"op":"replace","path":"/data/a","value":"2"}])");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, J(R"({"kind":"ConfigMap","data":{"a":"2"}})"));
  EXPECT_EQ(doc, J(R"({"kind":"ConfigMap","data":{"a":"1"}})"));  // the input is not changed

  auto bad_json = ApplyJsonPatch(doc, "[{");
  EXPECT_EQ(bad_json.status().code(), 400);
  EXPECT_EQ(bad_json.status().reason(), "BadRequest");
  EXPECT_EQ(bad_json.status().message(), "invalid JSON patch");

  auto not_array = ApplyJsonPatch(doc, R"({"op":"add"})");
  EXPECT_EQ(not_array.status().code(), 400);
  EXPECT_EQ(not_array.status().message(), "json: cannot unmarshal object into Go value of type jsonpatch.Patch");

  auto bad_op = ApplyJsonPatch(doc, R"(["add"])");
  EXPECT_EQ(bad_op.status().message(), "json: cannot unmarshal string into Go value of type jsonpatch.Operation");

  auto failed = ApplyJsonPatch(doc, R"([{"op":"remove","path":"/data/zzz"}])");
  EXPECT_EQ(failed.status().code(), 422);
  EXPECT_EQ(failed.status().reason(), "Invalid");
  EXPECT_EQ(failed.status().message(), "the server rejected our request due to an error in our request");

  JsonPatchOptions small;
  small.max_operations = 2;
  auto too_many = ApplyJsonPatch(doc, R"([{"op":"test","path":"/kind","value":"ConfigMap"},{"op":"test","path":"/kind","value":"ConfigMap"},{"op":"test","path":"/kind","value":"ConfigMap"}])", small);
  EXPECT_EQ(too_many.status().code(), 413);
  EXPECT_EQ(too_many.status().message(),
            "Request entity too large: The allowed maximum operations in a JSON patch is 2, got 3");

  auto null_patch = ApplyJsonPatch(doc, "null");
  ASSERT_TRUE(null_patch.ok());
  EXPECT_EQ(*null_patch, doc);
}

}  // namespace
}  // namespace capstan::apimachinery
