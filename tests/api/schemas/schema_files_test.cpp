// The built-in schema files as data: they parse, their references resolve, every property carries
// a well-formed protobuf description, and the kinds of the default kube-apiserver catalog are all
// there; the documentation files document only definitions and properties that exist.

#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "api/schemas/builtin_schemas.h"
#include "api/schemas/proto_check.h"
#include "api/schemas/schema_index.h"

namespace capstan::api::testing {
namespace {

namespace json = boost::json;

class SchemaFilesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    errors_ = new std::vector<std::string>();
    index_ = SchemaIndex::Load(errors_).release();
  }
  static void TearDownTestSuite() {
    delete index_;
    delete errors_;
  }
  static const SchemaIndex& index() { return *index_; }

  static SchemaIndex* index_;
  static std::vector<std::string>* errors_;
};
SchemaIndex* SchemaFilesTest::index_ = nullptr;
std::vector<std::string>* SchemaFilesTest::errors_ = nullptr;

std::string Str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

TEST_F(SchemaFilesTest, EveryFileParses) {
  EXPECT_TRUE(errors_->empty()) << (*errors_)[0];
  auto files = BuiltinSchemaFiles();
  ASSERT_GE(files.size(), 27u);
  for (size_t i = 1; i < files.size(); ++i) EXPECT_LT(files[i - 1].name, files[i].name);
  ASSERT_NE(FindBuiltinSchemaFile("core.v1.json"), nullptr);
  EXPECT_EQ(FindBuiltinSchemaFile("core.v1.json")->name, "core.v1.json");
  EXPECT_EQ(FindBuiltinSchemaFile("nope.json"), nullptr);
  EXPECT_GT(index().definitions().size(), 600u);
}

void CollectRefs(const json::value& v, std::vector<std::string>* refs) {
  if (const json::object* o = v.if_object()) {
    for (const auto& [k, child] : *o) {
      if (k == "$ref" && child.is_string()) refs->push_back(std::string(child.get_string()));
      CollectRefs(child, refs);
    }
  } else if (const json::array* a = v.if_array()) {
    for (const json::value& child : *a) CollectRefs(child, refs);
  }
}

// Each node of a documentation file names a node of the definition: its properties, items and
// additionalProperties exist there (through $ref and allOf), its enums sit on string nodes.
void CheckDocumentation(const SchemaIndex& index, const json::object& schema, const json::object& doc,
                        const std::string& where, size_t* nodes) {
  ++*nodes;
  const json::object* s = index.Resolve(schema);
  if (s == nullptr) {
    ADD_FAILURE() << where << ": the schema's reference does not resolve";
    return;
  }
  for (const auto& [key, value] : doc) {
    if (key == "description") {
      EXPECT_TRUE(value.is_string() && !value.get_string().empty()) << where;
    } else if (key == "enum") {
      EXPECT_EQ(Str(*s, "type"), "string") << where << " has an enum but is not a string";
      EXPECT_TRUE(value.is_array() && !value.get_array().empty()) << where;
    } else if (key == "properties") {
      const json::value* props = s->if_contains("properties");
      ASSERT_NE(props, nullptr) << where << " documents properties it does not have";
      for (const auto& [name, pdoc] : value.get_object()) {
        const json::value* p = props->get_object().if_contains(name);
        ASSERT_NE(p, nullptr) << where << " documents a property " << name << " it does not have";
        CheckDocumentation(index, p->get_object(), pdoc.get_object(), where + "." + std::string(name), nodes);
      }
    } else if (key == "items" || key == "additionalProperties") {
      const json::value* child = s->if_contains(key);
      ASSERT_TRUE(child != nullptr && child->is_object()) << where << " has no " << key;
      CheckDocumentation(index, child->get_object(), value.get_object(), where + "[" + std::string(key) + "]", nodes);
    } else {
      ADD_FAILURE() << where << ": unexpected key " << key;
    }
  }
}

TEST_F(SchemaFilesTest, DocumentationDocumentsDefinitionsThatExist) {
  auto files = BuiltinDescriptionFiles();
  ASSERT_GE(files.size(), 20u);
  size_t nodes = 0, definitions = 0;
  for (const BuiltinSchemaFile& f : files) {
    boost::system::error_code ec;
    json::value v = json::parse(f.text, ec);
    ASSERT_FALSE(ec) << f.name << ": " << ec.message();
    std::string package(f.name.substr(0, f.name.rfind(".json")));
    for (const auto& [name, doc] : v.at("descriptions").get_object()) {
      ++definitions;
      EXPECT_EQ(std::string(name).rfind(package + ".", 0), 0u) << name << " in " << f.name;
      const json::object* def = index().Find(name);
      ASSERT_NE(def, nullptr) << f.name << " documents " << name << ", which no schema file defines";
      CheckDocumentation(index(), *def, doc.get_object(), std::string(name), &nodes);
    }
  }
  EXPECT_GT(definitions, 550u);
  EXPECT_GT(nodes, 3000u);
}

TEST_F(SchemaFilesTest, EveryRefResolves) {
  size_t refs_seen = 0;
  for (const auto& [name, def] : index().definitions()) {
    std::vector<std::string> refs;
    CollectRefs(json::value(*def), &refs);
    refs_seen += refs.size();
    for (const std::string& ref : refs) {
      EXPECT_NE(index().Find(SchemaIndex::RefName(ref)), nullptr) << name << " refers to " << ref;
    }
  }
  EXPECT_GT(refs_seen, 1000u);
}

TEST_F(SchemaFilesTest, RequiredNamesAreProperties) {
  for (const auto& [name, def] : index().definitions()) {
    const json::value* req = def->if_contains("required");
    if (req == nullptr) continue;
    const json::value* props = def->if_contains("properties");
    ASSERT_NE(props, nullptr) << name;
    for (const json::value& r : req->get_array()) {
      EXPECT_TRUE(props->get_object().contains(r.get_string())) << name << " requires " << r;
    }
  }
}

TEST_F(SchemaFilesTest, EveryPropertyHasAProtobufDescription) {
  static const std::set<std::string> kTypes = {"string", "bytes",  "bool",  "int32",   "int64", "uint32",
                                               "uint64", "float", "double", "message", "map"};
  size_t described = 0;
  for (const auto& [name, def] : index().definitions()) {
    const json::value* pm = def->if_contains("x-proto-message");
    bool no_proto = pm != nullptr && Str(pm->get_object(), "kind") == "none";
    std::set<int64_t> embedded;
    if (const json::value* e = def->if_contains("x-proto-embedded")) {
      for (const json::value& ev : e->get_array()) embedded.insert(ev.at("tag").to_number<int64_t>());
    }
    if (const json::value* props = def->if_contains("properties")) {
      for (const auto& [pname, pv] : props->get_object()) {
        std::string where = name + "." + std::string(pname);
        const json::object& p = pv.get_object();
        const json::value* xpv = p.if_contains("x-proto");
        if (xpv == nullptr) {
          // Only JSON-only types and TypeMeta's fields (which travel in the envelope) have none.
          EXPECT_TRUE(no_proto || pname == "apiVersion" || pname == "kind") << where << " has no x-proto";
          continue;
        }
        EXPECT_FALSE(no_proto) << where;
        const json::object& xp = xpv->get_object();
        ASSERT_TRUE(xp.contains("omitempty")) << where;
        ++described;
        EXPECT_GT(xp.at("tag").to_number<int64_t>(), 0) << where;
        EXPECT_TRUE(xp.at("ptr").is_bool()) << where;
        std::string type = Str(xp, "type");
        EXPECT_TRUE(kTypes.count(type)) << where << ": " << type;
        bool array = Str(p, "type") == "array";
        if (type == "message") {
          EXPECT_FALSE(array ? Str(p.at("items").get_object(), "$ref").empty() : Str(p, "$ref").empty()) << where;
        }
        if (type == "map") {
          EXPECT_TRUE(kTypes.count(Str(xp, "key"))) << where;
          EXPECT_TRUE(kTypes.count(Str(xp, "value"))) << where;
          EXPECT_TRUE(p.contains("additionalProperties")) << where;
        }
        if (type == "bytes") EXPECT_EQ(Str(p, "format"), "byte") << where;
        if (const json::value* in = xp.if_contains("in")) {
          EXPECT_TRUE(embedded.count(in->get_array().at(0).to_number<int64_t>())) << where;
        }
      }
    }
    if (no_proto) continue;
    std::vector<std::string> problems;
    ProtoFieldsOf(index(), name, &problems);
    EXPECT_TRUE(problems.empty()) << problems[0];
  }
  EXPECT_GT(described, 2000u);
}

TEST_F(SchemaFilesTest, DefaultCatalogKindsHaveDefinitions) {
  // The group/version/kinds of kube-apiserver 1.32's default catalog (issue 6), the review and
  // subresource kinds, AdmissionReview and meta.k8s.io.
  const std::vector<std::tuple<std::string, std::string, std::vector<std::string>>> kCatalog = {
      {"", "v1", {"Pod", "Service", "Endpoints", "Node", "PersistentVolume", "PersistentVolumeClaim",
                  "ReplicationController", "PodTemplate", "LimitRange", "ResourceQuota", "Namespace", "ConfigMap",
                  "Secret", "ServiceAccount", "Event", "Binding", "ComponentStatus", "Status", "WatchEvent",
                  "DeleteOptions", "ListOptions", "APIResourceList", "APIGroupList", "APIGroup", "APIVersions",
                  "PodList", "ConfigMapList"}},
      {"apps", "v1", {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ControllerRevision", "DeploymentList"}},
      {"batch", "v1", {"Job", "CronJob"}},
      {"autoscaling", "v1", {"HorizontalPodAutoscaler", "Scale"}},
      {"autoscaling", "v2", {"HorizontalPodAutoscaler"}},
      {"policy", "v1", {"PodDisruptionBudget", "Eviction"}},
      {"networking.k8s.io", "v1", {"Ingress", "IngressClass", "NetworkPolicy"}},
      {"discovery.k8s.io", "v1", {"EndpointSlice"}},
      {"storage.k8s.io", "v1", {"StorageClass", "VolumeAttachment", "CSIDriver", "CSINode", "CSIStorageCapacity"}},
      {"scheduling.k8s.io", "v1", {"PriorityClass"}},
      {"node.k8s.io", "v1", {"RuntimeClass"}},
      {"certificates.k8s.io", "v1", {"CertificateSigningRequest"}},
      {"admissionregistration.k8s.io", "v1", {"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
                                              "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}},
      {"apiregistration.k8s.io", "v1", {"APIService"}},
      {"flowcontrol.apiserver.k8s.io", "v1", {"FlowSchema", "PriorityLevelConfiguration"}},
      {"coordination.k8s.io", "v1", {"Lease"}},
      {"events.k8s.io", "v1", {"Event"}},
      {"rbac.authorization.k8s.io", "v1", {"Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"}},
      {"authentication.k8s.io", "v1", {"TokenReview", "TokenRequest", "SelfSubjectReview"}},
      {"authorization.k8s.io", "v1", {"SubjectAccessReview", "SelfSubjectAccessReview", "LocalSubjectAccessReview",
                                      "SelfSubjectRulesReview"}},
      {"apiextensions.k8s.io", "v1", {"CustomResourceDefinition", "ConversionReview"}},
      {"admission.k8s.io", "v1", {"AdmissionReview"}},
      {"meta.k8s.io", "v1", {"Table", "PartialObjectMetadata", "PartialObjectMetadataList", "DeleteOptions"}},
  };
  size_t n = 0;
  for (const auto& [group, version, kinds] : kCatalog) {
    for (const std::string& kind : kinds) {
      ++n;
      std::string def = index().DefinitionForKind(group, version, kind);
      EXPECT_FALSE(def.empty()) << group << "/" << version << " " << kind;
      if (def.empty()) continue;
      EXPECT_EQ(def.substr(def.rfind('.') + 1), kind);
    }
  }
  EXPECT_EQ(index().DefinitionForKind("", "v1", "Pod"), "io.k8s.api.core.v1.Pod");
  EXPECT_EQ(index().DefinitionForKind("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition");
  EXPECT_EQ(index().DefinitionForKind("apiregistration.k8s.io", "v1", "APIService"),
            "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService");
  EXPECT_GT(n, 75u);
}

TEST_F(SchemaFilesTest, KnownFactsOfTheApi) {
  const json::object* pod_spec = index().Find("io.k8s.api.core.v1.PodSpec");
  ASSERT_NE(pod_spec, nullptr);
  const json::object& containers = pod_spec->at("properties").at("containers").get_object();
  EXPECT_EQ(Str(containers, "x-kubernetes-patch-merge-key"), "name");
  EXPECT_EQ(Str(containers, "x-kubernetes-patch-strategy"), "merge");
  EXPECT_EQ(Str(containers, "x-kubernetes-list-type"), "map");
  EXPECT_EQ(json::serialize(containers.at("x-kubernetes-list-map-keys")), R"(["name"])");
  EXPECT_EQ(Str(containers.at("items").get_object(), "$ref"), "#/definitions/io.k8s.api.core.v1.Container");
  EXPECT_EQ(containers.at("x-proto").at("tag").to_number<int64_t>(), 2);

  const json::object& port = index().Find("io.k8s.api.core.v1.ContainerPort")->at("properties").as_object();
  EXPECT_EQ(port.at("protocol").at("default"), "TCP");
  EXPECT_EQ(Str(port.at("containerPort").get_object(), "format"), "int32");

  const json::object& meta = index().Find("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")->at("properties").as_object();
  EXPECT_EQ(Str(meta.at("creationTimestamp").get_object(), "$ref"),
            "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time");
  EXPECT_EQ(Str(meta.at("labels").at("additionalProperties").get_object(), "type"), "string");
  EXPECT_EQ(Str(meta.at("labels").at("x-proto").get_object(), "type"), "map");

  const json::object* time = index().Find("io.k8s.apimachinery.pkg.apis.meta.v1.Time");
  EXPECT_EQ(Str(*time, "format"), "date-time");
  EXPECT_EQ(Str(time->at("x-proto-message").get_object(), "kind"), "timestamp");
  EXPECT_TRUE(index().Find("io.k8s.apimachinery.pkg.util.intstr.IntOrString")->at("x-kubernetes-int-or-string").as_bool());

  const json::object& secret = index().Find("io.k8s.api.core.v1.Secret")->at("properties").as_object();
  EXPECT_EQ(Str(secret.at("data").at("additionalProperties").get_object(), "format"), "byte");
  EXPECT_EQ(Str(secret.at("data").at("x-proto").get_object(), "value"), "bytes");
  EXPECT_TRUE(secret.at("immutable").at("x-proto").at("ptr").as_bool());
}

}  // namespace
}  // namespace capstan::api::testing
