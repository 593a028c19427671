#include <gtest/gtest.h>

#include <set>

#include "apimachinery/errors.h"
#include "apimachinery/json.h"
#include "apimachinery/names.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/validation.h"

namespace capstan::apimachinery {
namespace {

namespace json = boost::json;

json::object Obj(std::string_view text) {
  auto v = ParseJsonValue(text);
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v->as_object();
}

std::vector<std::string> Strings(const ErrorList& errs) {
  std::vector<std::string> out;
  for (const FieldError& e : errs) out.push_back(e.ToString());
  return out;
}

const char kSubdomainMsg[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const char kLabelMsg[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

TEST(ValidationTest, Dns1123) {
  EXPECT_TRUE(IsDNS1123Subdomain("a.b-c.d").empty());
  EXPECT_EQ(IsDNS1123Subdomain("Foo"), Problems{kSubdomainMsg});
  EXPECT_EQ(IsDNS1123Subdomain(std::string(254, 'a')), Problems{"must be no more than 253 characters"});
  EXPECT_EQ(IsDNS1123Subdomain("a..b").size(), 1u);
  EXPECT_EQ(IsDNS1123Label("a.b"), Problems{"must not contain dots"});
  EXPECT_EQ(IsDNS1123Label("-a")[0].substr(0, 40), std::string(kLabelMsg).substr(0, 40));
  EXPECT_EQ(IsDNS1123Label(std::string(64, 'a')), Problems{"must be no more than 63 characters"});
  EXPECT_TRUE(IsDNS1035Label("a1").empty());
  EXPECT_EQ(IsDNS1035Label("1a"),
            Problems{"a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                     "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
                     "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"});
}

TEST(ValidationTest, QualifiedNamesAndLabelValues) {
  EXPECT_TRUE(IsQualifiedName("app").empty());
  EXPECT_TRUE(IsQualifiedName("example.com/My_name.x").empty());
  EXPECT_EQ(IsQualifiedName("a/b/c"),
            Problems{"a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and "
                     "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                     "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain "
                     "prefix and '/' (e.g. 'example.com/MyName')"});
  auto empty_name = IsQualifiedName("example.com/");
  ASSERT_EQ(empty_name.size(), 2u);
  EXPECT_EQ(empty_name[0], "name part must be non-empty");
  EXPECT_EQ(empty_name[1].substr(0, 33), "name part must consist of alphanu");
  EXPECT_EQ(IsQualifiedName("/x"), Problems{"prefix part must be non-empty"});
  EXPECT_EQ(IsQualifiedName("Example.com/x"), Problems{std::string("prefix part ") + kSubdomainMsg});
  EXPECT_EQ(IsQualifiedName(std::string(64, 'a')), Problems{"name part must be no more than 63 bytes"});
  EXPECT_TRUE(IsValidLabelValue("").empty());
  EXPECT_TRUE(IsValidLabelValue("My_value-1.2").empty());
  EXPECT_EQ(IsValidLabelValue("-a"),
            Problems{"a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                     "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
                     "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"});
  EXPECT_EQ(IsValidLabelValue(std::string(64, 'a')), Problems{"must be no more than 63 bytes"});
  EXPECT_EQ(IsConfigMapKey(".."), (Problems{"must not be '..'"}));
  EXPECT_EQ(IsConfigMapKey("a b").size(), 1u);
  EXPECT_EQ(IsPathSegmentName(".."), Problems{"may not be '..'"});
  EXPECT_EQ(IsPathSegmentName("a/b%"), (Problems{"may not contain '/'", "may not contain '%'"}));
}

TEST(ValidationTest, GenerateNamePrefixMasking) {
  EXPECT_TRUE(NameIsDNSSubdomain("foo-", true).empty());
  EXPECT_FALSE(NameIsDNSSubdomain("foo-", false).empty());
  EXPECT_FALSE(NameIsDNSSubdomain("Foo-", true).empty());
  EXPECT_TRUE(NameIsDNSLabel("x-", true).empty());
}

TEST(ObjectMetaTest, AccessorsAndSetters) {
  json::object o = Obj(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","generation":2,
    "labels":{"app":"x","n":1},"finalizers":["f1"],"deletionGracePeriodSeconds":30,
    "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u","controller":true}]}})");
  EXPECT_EQ(GetName(o), "a");
  EXPECT_EQ(GetNamespace(o), "ns");
  EXPECT_EQ(GetGeneration(o), 2);
  EXPECT_EQ(GetLabels(o), (StringPairs{{"app", "x"}}));
  EXPECT_EQ(GetLabel(o, "app").value(), "x");
  EXPECT_FALSE(GetLabel(o, "n").has_value());
  EXPECT_EQ(GetFinalizers(o), std::vector<std::string>{"f1"});
  EXPECT_EQ(GetDeletionGracePeriodSeconds(o).value(), 30);
  EXPECT_FALSE(GetDeletionTimestamp(o).has_value());
  ASSERT_EQ(GetOwnerReferences(o).size(), 1u);
  EXPECT_TRUE(GetOwnerReferences(o)[0].controller.value());
  EXPECT_EQ(GetKind(o), "ConfigMap");

  SetResourceVersion(o, "5");
  SetUid(o, "uid-1");
  SetName(o, "");
  SetAnnotation(o, "k", "v");
  SetGeneration(o, 0);
  SetFinalizers(o, {});
  SetDeletionTimestamp(o, "2024-01-01T00:00:00Z");
  EXPECT_EQ(ToJson(o["metadata"]),
            R"({"namespace":"ns","labels":{"app":"x","n":1},"deletionGracePeriodSeconds":30,"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u","controller":true}],"resourceVersion":"5","uid":"uid-1","annotations":{"k":"v"},"deletionTimestamp":"2024-01-01T00:00:00Z"})");
  json::object fresh;
  SetApiVersionAndKind(fresh, "v1", "Secret");
  SetName(fresh, "s");
  EXPECT_EQ(ToJson(fresh), R"({"kind":"Secret","apiVersion":"v1","metadata":{"name":"s"}})");
}

TEST(ObjectMetaValidationTest, CreateRules) {
  json::object ok = Obj(R"({"metadata":{"name":"a","namespace":"default","labels":{"app":"web"}}})");
  EXPECT_TRUE(ValidateObjectMeta(ok, true, NameIsDNSSubdomain).empty());
  json::object missing = Obj(R"({"metadata":{}})");
  EXPECT_EQ(Strings(ValidateObjectMeta(missing, true, NameIsDNSSubdomain)),
            (std::vector<std::string>{"metadata.name: Required value: name or generateName is required",
                                      "metadata.namespace: Required value"}));
  json::object cluster = Obj(R"({"metadata":{"name":"a","namespace":"x"}})");
  EXPECT_EQ(Strings(ValidateObjectMeta(cluster, false, NameIsDNSSubdomain)),
            std::vector<std::string>{"metadata.namespace: Forbidden: not allowed on this type"});
  json::object bad = Obj(R"({"metadata":{"name":"Bad","generateName":"Xy-","namespace":"a.b","generation":-1,
    "labels":{"a b":"-x"},"annotations":{"Example.com/x":"1","a b":"2"},"finalizers":["orphan","foregroundDeletion"]}})");
  auto errs = Strings(ValidateObjectMeta(bad, true, NameIsDNSSubdomain));
  std::vector<std::string> want = {
      std::string("metadata.generateName: Invalid value: \"Xy-\": ") + kSubdomainMsg,
      std::string("metadata.name: Invalid value: \"Bad\": ") + kSubdomainMsg,
      "metadata.namespace: Invalid value: \"a.b\": must not contain dots",
      "metadata.generation: Invalid value: -1: must be greater than or equal to 0",
  };
  ASSERT_EQ(errs.size(), want.size() + 4) << ::testing::PrintToString(errs);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(errs[i], want[i]);
  EXPECT_EQ(errs[4].substr(0, 46), "metadata.labels: Invalid value: \"a b\": name pa");
  EXPECT_EQ(errs[5].substr(0, 38), "metadata.labels: Invalid value: \"-x\": ");
  EXPECT_EQ(errs[6].substr(0, 51), "metadata.annotations: Invalid value: \"a b\": name pa");
  EXPECT_EQ(errs.back(),
            "metadata.finalizers: Invalid value: [\"orphan\",\"foregroundDeletion\"]: finalizer orphan and "
            "foregroundDeletion cannot be both set");
}

TEST(ObjectMetaValidationTest, InvalidStatusMessageMatchesKube) {
  json::object bad = Obj(R"({"metadata":{"name":"Bad","namespace":"default"}})");
  Status s = NewInvalid({"", "ConfigMap"}, "Bad", ValidateObjectMeta(bad, true, NameIsDNSSubdomain));
  EXPECT_EQ(s.message(), std::string("ConfigMap \"Bad\" is invalid: metadata.name: Invalid value: \"Bad\": ") +
                             kSubdomainMsg);
}

TEST(ObjectMetaValidationTest, AnnotationSizeAndOwnerReferences) {
  json::object big;
  SetName(big, "a");
  SetAnnotation(big, "k", std::string(256 * 1024, 'x'));
  EXPECT_EQ(Strings(ValidateObjectMeta(big, false, NameIsDNSSubdomain)),
            std::vector<std::string>{"metadata.annotations: Too long: may not be more than 262144 bytes"});
  json::object refs = Obj(R"({"metadata":{"name":"a","ownerReferences":[
    {"apiVersion":"v1","kind":"Event","name":"e","uid":"1"},
    {"apiVersion":"a/b/c","kind":"","name":"","uid":"","controller":true},
    {"apiVersion":"","kind":"K","name":"n","uid":"2","controller":true}]}})");
  auto errs = Strings(ValidateObjectMeta(refs, false, NameIsDNSSubdomain));
  std::vector<std::string> want = {
      "metadata.ownerReferences[0]: Invalid value: {\"apiVersion\":\"v1\",\"kind\":\"Event\",\"name\":\"e\",\"uid\":\"1\"}: "
      "/v1, Kind=Event is disallowed from being an owner",
      "metadata.ownerReferences[1].apiVersion: Invalid value: \"a/b/c\": must be <group>/<version> or <version>",
      "metadata.ownerReferences[1].kind: Required value: must not be empty",
      "metadata.ownerReferences[1].name: Required value: must not be empty",
      "metadata.ownerReferences[1].uid: Required value: must not be empty",
      "metadata.ownerReferences[2].apiVersion: Required value: must not be empty",
  };
  ASSERT_EQ(errs.size(), want.size() + 1);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(errs[i], want[i]);
  EXPECT_NE(errs.back().find("Only one reference can have Controller set to true. Found \"true\" in references for /"
                             " and K/n"),
            std::string::npos);
}

TEST(ObjectMetaValidationTest, ManagedFields) {
  json::object o = Obj(R"({"metadata":{"name":"a","managedFields":[{"manager":"m\u0007","operation":"Merge","fieldsType":"X"},{"manager":"k"}]}})");
  EXPECT_EQ(Strings(ValidateObjectMeta(o, false, NameIsDNSSubdomain)),
            (std::vector<std::string>{
                "metadata.managedFields[0].operation: Unsupported value: \"Merge\": supported values: \"Apply\", \"Update\"",
                "metadata.managedFields[0].fieldsType: Invalid value: \"X\": must be `FieldsV1`",
                "metadata.managedFields[0].manager: Invalid value: \"m\\a\": invalid character U+0007 (at position 1)",
                "metadata.managedFields[1].operation: Required value: must not be empty"}));
}

TEST(ObjectMetaValidationTest, UpdateRules) {
  json::object old_obj = Obj(R"({"metadata":{"name":"a","namespace":"d","uid":"u1","resourceVersion":"3","generation":2,
    "creationTimestamp":"2024-01-01T00:00:00Z","deletionTimestamp":"2024-01-02T00:00:00Z","finalizers":["x"]}})");
  json::object same = old_obj;
  EXPECT_TRUE(ValidateObjectMetaUpdate(same, old_obj).empty());
  json::object changed = Obj(R"({"metadata":{"name":"b","namespace":"d","uid":"u2","generation":1,
    "creationTimestamp":"2024-01-01T00:00:00Z","finalizers":["x","z","y"],"deletionGracePeriodSeconds":5}})");
  EXPECT_EQ(Strings(ValidateObjectMetaUpdate(changed, old_obj)),
            (std::vector<std::string>{
                "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found "
                "new finalizers []string{\"y\", \"z\"}",
                "metadata.resourceVersion: Invalid value: \"\": must be specified for an update",
                "metadata.generation: Invalid value: 1: must not be decremented",
                "metadata.name: Invalid value: \"b\": field is immutable",
                "metadata.uid: Invalid value: \"u2\": field is immutable",
                "metadata.deletionTimestamp: Invalid value: null: field is immutable",
                "metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable"}));
}

TEST(NamesTest, UidAndGenerateName) {
  std::string a = NewUid(), b = NewUid();
  EXPECT_NE(a, b);
  ASSERT_EQ(a.size(), 36u);
  EXPECT_EQ(a[8], '-');
  EXPECT_EQ(a[14], '4');
  EXPECT_TRUE(a[19] == '8' || a[19] == '9' || a[19] == 'a' || a[19] == 'b');
  std::string n = GenerateName("web-");
  ASSERT_EQ(n.size(), 9u);
  EXPECT_EQ(n.substr(0, 4), "web-");
  for (char c : n.substr(4)) EXPECT_NE(kNameSuffixAlphabet.find(c), std::string_view::npos);
  EXPECT_EQ(GenerateName(std::string(80, 'a')).size(), 63u);
  std::set<char> seen;
  for (int i = 0; i < 200; ++i) {
    for (char c : RandomNameSuffix()) seen.insert(c);
  }
  EXPECT_EQ(seen.size(), kNameSuffixAlphabet.size());
}

}  // namespace
}  // namespace capstan::apimachinery
