// CustomResourceDefinitions through the real Store over the embedded backend: kube's defaults and
// validation messages, and the controller that names, establishes, serves and finalizes them (custom
// resources pruned, defaulted and validated, status and scale subresources, printer columns).
#include <gtest/gtest.h>

#include "api/apiextensions/crd_controller.h"
#include "api/apiextensions/crd_resource.h"
#include "api/apiextensions/crd_types.h"
#include "apimachinery/object_meta.h"
#include "apps/api_test_env.h"
#include "endpoints/installer.h"

namespace capstan::api::apiextensions {
namespace {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using testing::ApiTestEnv;
using testing::Parse;

const char* kCronTab = R"({
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "crontabs.stable.example.com"},
  "spec": {
    "group": "stable.example.com", "scope": "Namespaced",
    "names": {"plural": "crontabs", "kind": "CronTab", "shortNames": ["ct"]},
    "versions": [{
      "name": "v1", "served": true, "storage": true,
      "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector"}},
      "additionalPrinterColumns": [{"name": "Spec", "type": "string", "jsonPath": ".spec.cronSpec"},
                                   {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"}],
      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "required": ["cronSpec"], "properties": {
          "cronSpec": {"type": "string", "pattern": "^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$"},
          "image": {"type": "string", "default": "nginx"},
          "replicas": {"type": "integer", "minimum": 1, "maximum": 10},
          "mode": {"type": "string", "enum": ["a", "b"]},
          "port": {"x-kubernetes-int-or-string": true},
          "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
        "status": {"type": "object", "properties": {"replicas": {"type": "integer"}, "selector": {"type": "string"}}}}}}
    }]
  }
})";

Object CronTab(const std::string& name, const std::string& spec) {
  return Parse(R"({"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":")" + name +
               R"(","namespace":"default"},"spec":)" + spec + "}");
}

class CrdTest : public ::testing::Test {
 protected:
  CrdTest()
      : env_([this](const registry::GroupDeps& d) {
          deps_ = d;
          return Install(d);
        }) {
    endpoints::InstallResources(apis_, env_.resources());
    CrdController::Options o;
    o.deps.deps = deps_;
    controller_ = std::make_unique<CrdController>(apis_, nullptr, o);
  }

  // Runs controller passes until nothing more is written.
  void Settle() {
    for (int i = 0; i < 10; ++i) {
      auto wrote = controller_->ReconcileOnce();
      ASSERT_TRUE(wrote.ok()) << wrote.status().message();
      if (!*wrote) return;
    }
    FAIL() << "controller did not settle";
  }
  const endpoints::ResourceEntry* Cr(const std::string& sub = "") {
    snap_ = apis_.Snapshot();
    return snap_->FindResource("stable.example.com", "v1", "crontabs", sub);
  }
  registry::Context Ns() {
    registry::Context c;
    c.namespace_ = "default";
    return c;
  }

  registry::GroupDeps deps_;
  ApiTestEnv env_;
  endpoints::ApiRegistry apis_;
  std::unique_ptr<CrdController> controller_;
  std::shared_ptr<const endpoints::ApiSnapshot> snap_;
};

TEST_F(CrdTest, DefaultsOnCreate) {
  auto crd = env_.Create("customresourcedefinitions", Parse(kCronTab));
  ASSERT_TRUE(crd.ok()) << crd.status().message();
  EXPECT_EQ(am::GetGeneration(*crd), 1);
  EXPECT_EQ(json::serialize((*crd)["spec"].at("names")),
            R"({"plural":"crontabs","kind":"CronTab","shortNames":["ct"],"singular":"crontab","listKind":"CronTabList"})");
  EXPECT_EQ(json::serialize((*crd)["spec"].at("conversion")), R"({"strategy":"None"})");
  EXPECT_EQ(json::serialize((*crd)["status"].at("storedVersions")), R"(["v1"])");
  auto cols = env_.Columns("customresourcedefinitions");
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(cols[1].name, "Created At");
}

TEST_F(CrdTest, ValidationMessages) {
  Object bad = Parse(kCronTab);
  bad["metadata"].as_object()["name"] = "wrong.stable.example.com";
  auto r = env_.Create("customresourcedefinitions", bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 422);
  EXPECT_EQ(r.status().message(),
            "CustomResourceDefinition.apiextensions.k8s.io \"wrong.stable.example.com\" is invalid: metadata.name: "
            "Invalid value: \"wrong.stable.example.com\": must be spec.names.plural+\".\"+spec.group");

  Object nonstructural = Parse(kCronTab);
  nonstructural["spec"].as_object()["versions"].as_array()[0].as_object()["schema"] =
      Parse(R"({"openAPIV3Schema":{"type":"object","properties":{"spec":{"properties":{"a":{"type":"string"}}}}}})");
  r = env_.Create("customresourcedefinitions", nonstructural);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "CustomResourceDefinition.apiextensions.k8s.io \"crontabs.stable.example.com\" is invalid: "
            "spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified "
            "object fields");

  Object defaults = Parse(kCronTab);
  auto& spec_props = defaults["spec"].as_object()["versions"].as_array()[0].as_object()["schema"].as_object()
                         ["openAPIV3Schema"].as_object()["properties"].as_object()["spec"].as_object()["properties"].as_object();
  spec_props["replicas"].as_object()["default"] = "two";
  spec_props["extra"] = Parse(R"({"type":"object","properties":{"a":{"type":"string"}},"default":{"a":"x","b":1}})");
  r = env_.Create("customresourcedefinitions", defaults);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(
                // kube-openapi names the value by its path below the default: nothing.
                "spec.validation.openAPIV3Schema.properties[spec].properties[replicas].default: Invalid value: \"string\": "
                " in body must be of type integer: \"string\""),
            std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("spec.validation.openAPIV3Schema.properties[spec].properties[extra].default: Invalid "
                                      "value: {\"a\":\"x\",\"b\":1}: must not have unknown fields"),
            std::string::npos)
      << r.status().message();

  Object lists = Parse(kCronTab);
  auto& list_props = lists["spec"].as_object()["versions"].as_array()[0].as_object()["schema"].as_object()
                         ["openAPIV3Schema"].as_object()["properties"].as_object()["spec"].as_object()["properties"].as_object();
  list_props["ports"] = Parse(R"({"type":"array","x-kubernetes-list-type":"map","items":{"type":"object","properties":{"name":{"type":"string"}}}})");
  r = env_.Create("customresourcedefinitions", lists);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "CustomResourceDefinition.apiextensions.k8s.io \"crontabs.stable.example.com\" is invalid: "
            "spec.validation.openAPIV3Schema.properties[spec].properties[ports].x-kubernetes-list-map-keys: Required value: "
            "must not be empty if x-kubernetes-list-type is map");

  Object scope = Parse(kCronTab);
  scope["spec"].as_object()["scope"] = "Galaxy";
  scope["spec"].as_object()["group"] = "nodot";
  scope["metadata"].as_object()["name"] = "crontabs.nodot";
  r = env_.Create("customresourcedefinitions", scope);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "CustomResourceDefinition.apiextensions.k8s.io \"crontabs.nodot\" is invalid: [spec.group: Invalid value: "
            "\"nodot\": should be a domain with at least one dot, spec.scope: Unsupported value: \"Galaxy\": supported "
            "values: \"Cluster\", \"Namespaced\"]");

  Object kinds = Parse(kCronTab);
  auto& names = kinds["spec"].as_object()["names"].as_object();
  names["listKind"] = "CronTab";
  names["shortNames"] = json::array{"Bad_Name"};
  r = env_.Create("customresourcedefinitions", kinds);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("spec.names.shortNames[0]: Invalid value: \"Bad_Name\": a DNS-1035 label must consist"),
            std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("spec.names.listKind: Invalid value: \"CronTab\": kind and listKind may not be the same"),
            std::string::npos);

  Object two = Parse(kCronTab);
  json::object v2 = two["spec"].as_object()["versions"].as_array()[0].as_object();
  v2["name"] = "v2";
  two["spec"].as_object()["versions"].as_array().push_back(v2);
  r = env_.Create("customresourcedefinitions", two);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("spec.versions: Invalid value: "), std::string::npos);
  EXPECT_NE(r.status().message().find("must have exactly one version marked as storage version"), std::string::npos);
}

TEST_F(CrdTest, EstablishServeValidatePruneDefault) {
  ASSERT_TRUE(env_.Create("customresourcedefinitions", Parse(kCronTab)).ok());
  Settle();
  auto crd = env_.Get("customresourcedefinitions", "crontabs.stable.example.com");
  ASSERT_TRUE(crd.ok());
  EXPECT_TRUE(IsConditionTrue(*crd, "NamesAccepted"));
  EXPECT_TRUE(IsConditionTrue(*crd, "Established"));
  EXPECT_EQ(json::serialize((*crd)["status"].at("acceptedNames")),
            R"({"kind":"CronTab","listKind":"CronTabList","plural":"crontabs","shortNames":["ct"],"singular":"crontab"})");
  const auto* cr = Cr();
  ASSERT_NE(cr, nullptr);
  ASSERT_NE(Cr("status"), nullptr);
  ASSERT_NE(Cr("scale"), nullptr);
  EXPECT_TRUE(cr->custom);
  EXPECT_EQ(cr->info.short_names, std::vector<std::string>{"ct"});

  auto created = SyncWait(cr->creater->Create(
      Ns(), CronTab("a", R"({"cronSpec":"* * * * */5","replicas":2,"unknown":1,"extra":{"x":1},"port":"http"})"), {}));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_FALSE((*created)["spec"].as_object().contains("unknown"));
  EXPECT_EQ((*created)["spec"].at("image").as_string(), "nginx");
  EXPECT_EQ((*created)["spec"].at("extra").at("x").as_int64(), 1);
  EXPECT_EQ(am::GetGeneration(*created), 1);

  auto invalid = SyncWait(cr->creater->Create(Ns(), CronTab("b", R"({"cronSpec":"x","replicas":"two","mode":"c"})"), {}));
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.status().code(), 422);
  EXPECT_EQ(invalid.status().message(),
            "CronTab.stable.example.com \"b\" is invalid: [spec.cronSpec: Invalid value: \"x\": spec.cronSpec in body "
            "should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$', spec.replicas: Invalid value: "
            "\"string\": spec.replicas in body must be of type integer: \"string\", spec.mode: Unsupported value: "
            "\"c\": supported values: \"a\", \"b\"]");
  auto missing = SyncWait(cr->creater->Create(Ns(), CronTab("c", R"({"replicas":20})"), {}));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("spec.cronSpec: Required value"), std::string::npos) << missing.status().message();
  EXPECT_NE(missing.status().message().find("spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10"),
            std::string::npos)
      << missing.status().message();

  // Table cells from the printer columns.
  auto cols = cr->table->TableColumns();
  ASSERT_EQ(cols.size(), 3u);
  auto cells = cr->table->TableCells(*created);
  EXPECT_EQ(cells[1].as_string(), "* * * * */5");
  EXPECT_EQ(cells[2].as_int64(), 2);

  // Status: the main resource keeps it; the status subresource writes it without bumping generation.
  auto st = SyncWait(Cr("status")->updater->Update(
      Ns(), "a",
      [](const Object* cur) -> Task<StatusOr<Object>> {
        Object o = *cur;
        o["status"] = json::object{{"replicas", 2}, {"selector", "app=a"}};
        co_return o;
      },
      {}));
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(am::GetGeneration(st->object), 1);
  auto scale = SyncWait(Cr("scale")->getter->Get(Ns(), "a", {}));
  ASSERT_TRUE(scale.ok()) << scale.status().message();
  EXPECT_EQ((*scale)["spec"].at("replicas").as_int64(), 2);
  EXPECT_EQ((*scale)["status"].at("selector").as_string(), "app=a");
  auto spec = SyncWait(cr->updater->Update(
      Ns(), "a",
      [](const Object* cur) -> Task<StatusOr<Object>> {
        Object o = *cur;
        o["spec"].as_object()["replicas"] = 3;
        o.erase("status");
        co_return o;
      },
      {}));
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(am::GetGeneration(spec->object), 2);
  EXPECT_EQ(spec->object["status"].at("replicas").as_int64(), 2);
}

TEST_F(CrdTest, NameConflictIsRefusedInCondition) {
  ASSERT_TRUE(env_.Create("customresourcedefinitions", Parse(kCronTab)).ok());
  Settle();
  Object other = Parse(kCronTab);
  other["metadata"].as_object()["name"] = "othertabs.stable.example.com";
  other["spec"].as_object()["names"].as_object()["plural"] = "othertabs";
  other["spec"].as_object()["names"].as_object().erase("shortNames");
  ASSERT_TRUE(env_.Create("customresourcedefinitions", other).ok());
  Settle();
  auto crd = env_.Get("customresourcedefinitions", "othertabs.stable.example.com");
  ASSERT_TRUE(crd.ok());
  const auto* names = FindCondition(*crd, "NamesAccepted");
  ASSERT_NE(names, nullptr);
  EXPECT_EQ(names->at("status").as_string(), "False");
  EXPECT_EQ(names->at("reason").as_string(), "ListKindConflict");
  EXPECT_EQ(names->at("message").as_string(), "\"CronTabList\" is already in use");
  const auto* est = FindCondition(*crd, "Established");
  ASSERT_NE(est, nullptr);
  EXPECT_EQ(est->at("status").as_string(), "False");
  EXPECT_EQ(est->at("reason").as_string(), "NotAccepted");
  snap_ = apis_.Snapshot();
  EXPECT_EQ(snap_->FindResource("stable.example.com", "v1", "othertabs", ""), nullptr);
}

TEST_F(CrdTest, DeletionRemovesInstancesThenTheCrd) {
  ASSERT_TRUE(env_.Create("customresourcedefinitions", Parse(kCronTab)).ok());
  Settle();
  ASSERT_TRUE(SyncWait(Cr()->creater->Create(Ns(), CronTab("a", R"({"cronSpec":"* * * * *"})"), {})).ok());
  ASSERT_TRUE(SyncWait(Cr()->creater->Create(Ns(), CronTab("b", R"({"cronSpec":"* * * * *"})"), {})).ok());
  auto* deleter = env_.As<registry::GracefulDeleter>("customresourcedefinitions");
  auto del = SyncWait(deleter->Delete(env_.Ctx(""), "crontabs.stable.example.com", {}));
  ASSERT_TRUE(del.ok()) << del.status().message();
  EXPECT_FALSE(del->deleted);
  EXPECT_EQ(am::GetFinalizers(del->object), std::vector<std::string>{kCleanupFinalizer});
  // One pass: the CRD is Terminating, creates are refused.
  ASSERT_TRUE(controller_->ReconcileOnce().ok());
  auto terminating = env_.Get("customresourcedefinitions", "crontabs.stable.example.com");
  ASSERT_TRUE(terminating.ok());
  const auto* term = FindCondition(*terminating, "Terminating");
  ASSERT_NE(term, nullptr);
  EXPECT_EQ(term->at("reason").as_string(), "InstanceDeletionInProgress");
  auto refused = SyncWait(Cr()->creater->Create(Ns(), CronTab("c", R"({"cronSpec":"* * * * *"})"), {}));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), 405);
  EXPECT_EQ(refused.status().message(), "create not allowed while custom resource definition is terminating");
  Settle();
  EXPECT_EQ(env_.Get("customresourcedefinitions", "crontabs.stable.example.com").status().code(), 404);
  EXPECT_EQ(Cr(), nullptr);
  EXPECT_TRUE(controller_->Served().empty());
  // The instances are gone from storage too: a new CRD of the same name starts empty.
  ASSERT_TRUE(env_.Create("customresourcedefinitions", Parse(kCronTab)).ok());
  Settle();
  ASSERT_NE(Cr(), nullptr);
  registry::Context all;
  auto list = SyncWait(Cr()->lister->List(all, {}));
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->items.empty());
}

TEST_F(CrdTest, VersionsWithConversionNone) {
  Object crd = Parse(kCronTab);
  auto& versions = crd["spec"].as_object()["versions"].as_array();
  json::object v2 = versions[0].as_object();
  v2["name"] = "v2";
  v2["storage"] = false;
  v2.erase("subresources");
  v2["additionalPrinterColumns"] = json::parse(R"([{"name":"Image","type":"string","jsonPath":".spec.image"}])").as_array();
  versions.push_back(v2);
  versions[0].as_object()["served"] = true;
  ASSERT_TRUE(env_.Create("customresourcedefinitions", crd).ok());
  Settle();
  snap_ = apis_.Snapshot();
  const auto* v1 = snap_->FindResource("stable.example.com", "v1", "crontabs", "");
  const auto* v2e = snap_->FindResource("stable.example.com", "v2", "crontabs", "");
  ASSERT_NE(v1, nullptr);
  ASSERT_NE(v2e, nullptr);
  EXPECT_EQ(snap_->FindResource("stable.example.com", "v2", "crontabs", "status"), nullptr);
  // Discovery prefers the version of highest priority (v2 over v1), whatever the order in the CRD.
  const endpoints::GroupEntry* group = nullptr;
  for (const auto& g : snap_->groups) {
    if (g.name == "stable.example.com") group = &g;
  }
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->versions, (std::vector<std::string>{"v2", "v1"}));
  Object body = CronTab("a", R"({"cronSpec":"* * * * *"})");
  body["apiVersion"] = "stable.example.com/v2";
  auto created = SyncWait(v2e->creater->Create(Ns(), body, {}));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ((*created)["apiVersion"].as_string(), "stable.example.com/v2");
  auto as_v1 = SyncWait(v1->getter->Get(Ns(), "a", {}));
  ASSERT_TRUE(as_v1.ok());
  EXPECT_EQ((*as_v1)["apiVersion"].as_string(), "stable.example.com/v1");
  EXPECT_EQ((*as_v1)["spec"].at("image").as_string(), "nginx");
  // Each version prints its own columns.
  ASSERT_EQ(v2e->table->TableColumns().size(), 2u);
  EXPECT_EQ(v2e->table->TableColumns()[1].name, "Image");
  EXPECT_EQ(v2e->table->TableCells(*created)[1].as_string(), "nginx");
  EXPECT_EQ(v1->table->TableColumns()[1].name, "Spec");
  auto listed = SyncWait(v2e->lister->List(Ns(), {}));
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->items.size(), 1u);
  EXPECT_EQ(listed->items[0]["apiVersion"].as_string(), "stable.example.com/v2");

  // Only one storage version; storedVersions records every version that has been one.
  auto moved = env_.Mutate("customresourcedefinitions", "crontabs.stable.example.com", [](Object& o) {
    auto& vs = o["spec"].as_object()["versions"].as_array();
    vs[0].as_object()["storage"] = false;
    vs[1].as_object()["storage"] = true;
  });
  ASSERT_TRUE(moved.ok()) << moved.status().message();
  EXPECT_EQ(json::serialize(moved->object["status"].at("storedVersions")), R"(["v1","v2"])");
  auto dropped = env_.Mutate("customresourcedefinitions", "crontabs.stable.example.com", [](Object& o) {
    auto& vs = o["spec"].as_object()["versions"].as_array();
    vs.erase(vs.begin());
  });
  ASSERT_FALSE(dropped.ok());
  EXPECT_NE(dropped.status().message().find(
                "status.storedVersions[0]: Invalid value: \"v1\": missing from spec.versions; v1 was previously a "
                "storage version, and must remain in spec.versions until a storage migration ensures no data remains "
                "persisted in v1 and removes v1 from status.storedVersions"),
            std::string::npos)
      << dropped.status().message();
}

TEST_F(CrdTest, WebhookConversionWithoutClientAndCelRules) {
  Object crd = Parse(kCronTab);
  auto& spec = crd["spec"].as_object();
  auto& versions = spec["versions"].as_array();
  json::object v2 = versions[0].as_object();
  v2["name"] = "v2";
  v2["storage"] = false;
  v2.erase("subresources");
  v2["schema"].as_object()["openAPIV3Schema"].as_object()["x-kubernetes-validations"] =
      json::array{json::object{{"rule", "self.spec.replicas < 5"}}};
  versions.push_back(v2);
  spec["conversion"] = Parse(R"({"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],
      "clientConfig":{"url":"https://127.0.0.1:1/convert"}}})");
  RequestScope scope;
  registry::Context ctx = env_.Ctx("");
  ctx.scope = &scope;
  auto* creater = env_.As<registry::Creater>("customresourcedefinitions");
  auto created = SyncWait(creater->Create(ctx, crd, {}));
  ASSERT_TRUE(created.ok()) << created.status().message();
  // The rules are compiled and enforced: no "not enforced" warning any more.
  EXPECT_TRUE(scope.warnings().empty());
  Settle();
  ASSERT_TRUE(SyncWait(Cr()->creater->Create(Ns(), CronTab("a", R"({"cronSpec":"* * * * *"})"), {})).ok());
  snap_ = apis_.Snapshot();
  const auto* v2e = snap_->FindResource("stable.example.com", "v2", "crontabs", "");
  ASSERT_NE(v2e, nullptr);
  auto get = SyncWait(v2e->getter->Get(Ns(), "a", {}));
  ASSERT_FALSE(get.ok());
  EXPECT_EQ(get.status().code(), 500);
  // No HTTP client in this test: the conversion fails with kube's prefix (conversion_test.cpp has the
  // webhook itself).
  EXPECT_EQ(get.status().message(),
            "conversion webhook for stable.example.com/v1, Kind=CronTab failed: no HTTP client for conversion webhooks");
}

TEST_F(CrdTest, EmbeddedResourcesAndIntOrString) {
  Object crd = Parse(kCronTab);
  auto& props = crd["spec"].as_object()["versions"].as_array()[0].as_object()["schema"].as_object()["openAPIV3Schema"]
                    .as_object()["properties"].as_object()["spec"].as_object()["properties"].as_object();
  props["template"] = Parse(R"({"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true})");
  ASSERT_TRUE(env_.Create("customresourcedefinitions", crd).ok());
  Settle();
  auto bad = SyncWait(Cr()->creater->Create(
      Ns(), CronTab("a", R"({"cronSpec":"* * * * *","port":true,"template":{"apiVersion":"v1","metadata":{"name":"a/b"},"x":1}})"), {}));
  ASSERT_FALSE(bad.ok());
  const std::string& m = bad.status().message();
  EXPECT_NE(m.find("spec.port: Invalid value: \"boolean\": spec.port in body must be of type integer,string: \"boolean\""),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("spec.template.kind: Required value"), std::string::npos) << m;
  EXPECT_NE(m.find("spec.template.metadata.name: Invalid value: \"a/b\": may not contain '/'"), std::string::npos) << m;
  auto good = SyncWait(Cr()->creater->Create(
      Ns(), CronTab("b", R"({"cronSpec":"* * * * *","port":8080,"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"x":1}}})"), {}));
  ASSERT_TRUE(good.ok()) << good.status().message();
  EXPECT_EQ((*good)["spec"].at("template").at("spec").at("x").as_int64(), 1);
}

TEST_F(CrdTest, SelectableFields) {
  Object crd = Parse(kCronTab);
  crd["spec"].as_object()["versions"].as_array()[0].as_object()["selectableFields"] =
      json::array{json::object{{"jsonPath", ".spec.mode"}}};
  ASSERT_TRUE(env_.Create("customresourcedefinitions", crd).ok());
  Settle();
  ASSERT_TRUE(SyncWait(Cr()->creater->Create(Ns(), CronTab("a", R"({"cronSpec":"* * * * *","mode":"a"})"), {})).ok());
  ASSERT_TRUE(SyncWait(Cr()->creater->Create(Ns(), CronTab("b", R"({"cronSpec":"* * * * *","mode":"b"})"), {})).ok());
  registry::ListOptions opts;
  opts.field_selector = "spec.mode=b";
  auto list = SyncWait(Cr()->lister->List(Ns(), opts));
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(list->items[0]["metadata"].at("name").as_string(), "b");
  opts.field_selector = "spec.cronSpec=x";
  auto bad = SyncWait(Cr()->lister->List(Ns(), opts));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), 400);
  EXPECT_NE(bad.status().message().find("spec.cronSpec"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace capstan::api::apiextensions
