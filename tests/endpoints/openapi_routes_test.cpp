// The routes kube-apiserver documents for installed resources: paths per verb, operation ids,
// tags, descriptions, parameters, media types and responses.
#include "endpoints/openapi_routes.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "endpoints/openapi_test_util.h"

namespace capstan::endpoints {
namespace {

using testing::BuiltinSchemas;

struct RouteKey {
  std::string path;
  std::string method;
  auto operator<=>(const RouteKey&) const = default;
};

std::map<RouteKey, const OpenApiRoute*> Index(const OpenApiService& svc) {
  std::map<RouteKey, const OpenApiRoute*> m;
  for (const auto& r : svc.routes) m[{r.path, r.method}] = &r;
  return m;
}

class OpenApiRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::InstallCoreSubset(apis_, BuiltinSchemas().get()); }
  OpenApiService Core() { return GroupVersionService(*apis_.Snapshot()->Find("", "v1")); }
  ApiRegistry apis_;
};

TEST_F(OpenApiRoutesTest, NamespacedResourceHasKubesPathsPerVerb) {
  OpenApiService svc = Core();
  EXPECT_EQ(svc.root, "api/v1");
  auto idx = Index(svc);
  const std::map<RouteKey, std::pair<std::string, std::string>> want = {
      {{"/api/v1/", "get"}, {"getCoreV1APIResources", ""}},
      {{"/api/v1/namespaces/{namespace}/configmaps", "get"}, {"listCoreV1NamespacedConfigMap", "list"}},
      {{"/api/v1/namespaces/{namespace}/configmaps", "post"}, {"createCoreV1NamespacedConfigMap", "post"}},
      {{"/api/v1/namespaces/{namespace}/configmaps", "delete"},
       {"deleteCoreV1CollectionNamespacedConfigMap", "deletecollection"}},
      {{"/api/v1/namespaces/{namespace}/configmaps/{name}", "get"}, {"readCoreV1NamespacedConfigMap", "get"}},
      {{"/api/v1/namespaces/{namespace}/configmaps/{name}", "put"}, {"replaceCoreV1NamespacedConfigMap", "put"}},
      {{"/api/v1/namespaces/{namespace}/configmaps/{name}", "patch"}, {"patchCoreV1NamespacedConfigMap", "patch"}},
      {{"/api/v1/namespaces/{namespace}/configmaps/{name}", "delete"}, {"deleteCoreV1NamespacedConfigMap", "delete"}},
      {{"/api/v1/watch/namespaces/{namespace}/configmaps", "get"}, {"watchCoreV1NamespacedConfigMapList", "watchlist"}},
      {{"/api/v1/watch/namespaces/{namespace}/configmaps/{name}", "get"}, {"watchCoreV1NamespacedConfigMap", "watch"}},
      {{"/api/v1/configmaps", "get"}, {"listCoreV1ConfigMapForAllNamespaces", "list"}},
      {{"/api/v1/watch/configmaps", "get"}, {"watchCoreV1ConfigMapListForAllNamespaces", "watchlist"}},
  };
  for (const auto& [key, id_action] : want) {
    auto it = idx.find(key);
    ASSERT_NE(it, idx.end()) << key.method << " " << key.path;
    EXPECT_EQ(it->second->operation_id, id_action.first) << key.path;
    EXPECT_EQ(it->second->action, id_action.second) << key.path;
    EXPECT_EQ(it->second->tags, std::vector<std::string>{"core_v1"}) << key.path;
    if (!id_action.second.empty()) {
      ASSERT_TRUE(it->second->gvk.has_value());
      EXPECT_EQ(it->second->gvk->kind, "ConfigMap");
      EXPECT_EQ(it->second->gvk->version, "v1");
      EXPECT_EQ(it->second->gvk->group, "");
    }
  }
  // Only these for configmaps (namespaces add their own).
  size_t configmap_routes = 0;
  for (const auto& r : svc.routes) configmap_routes += r.path.find("configmaps") != std::string::npos;
  EXPECT_EQ(configmap_routes, want.size() - 1);
}

TEST_F(OpenApiRoutesTest, ClusterScopedResourceAndSubresources) {
  OpenApiService svc = Core();
  auto idx = Index(svc);
  EXPECT_TRUE(idx.count({"/api/v1/namespaces", "get"}));
  EXPECT_TRUE(idx.count({"/api/v1/namespaces/{name}", "get"}));
  EXPECT_FALSE(idx.count({"/api/v1/watch/namespaces/{namespace}/namespaces", "get"}));
  ASSERT_TRUE(idx.count({"/api/v1/namespaces/{name}", "delete"}));
  EXPECT_EQ((idx[{"/api/v1/namespaces/{name}", "delete"}])->operation_id, "deleteCoreV1Namespace");
  // The status subresource: get, put, patch, named after the parent kind.
  ASSERT_TRUE(idx.count({"/api/v1/namespaces/{name}/status", "get"}));
  EXPECT_EQ((idx[{"/api/v1/namespaces/{name}/status", "get"}])->operation_id, "readCoreV1NamespaceStatus");
  EXPECT_EQ((idx[{"/api/v1/namespaces/{name}/status", "get"}])->description, "read status of the specified Namespace");
  EXPECT_EQ((idx[{"/api/v1/namespaces/{name}/status", "put"}])->operation_id, "replaceCoreV1NamespaceStatus");
  EXPECT_EQ((idx[{"/api/v1/namespaces/{name}/status", "patch"}])->operation_id, "patchCoreV1NamespaceStatus");
  EXPECT_FALSE(idx.count({"/api/v1/namespaces/{name}/status", "delete"}));
  // finalize: only an update.
  ASSERT_TRUE(idx.count({"/api/v1/namespaces/{name}/finalize", "put"}));
  EXPECT_EQ((idx[{"/api/v1/namespaces/{name}/finalize", "put"}])->operation_id, "replaceCoreV1NamespaceFinalize");
  EXPECT_FALSE(idx.count({"/api/v1/namespaces/{name}/finalize", "get"}));
  EXPECT_FALSE(idx.count({"/api/v1/namespaces/{name}/finalize", "patch"}));
}

TEST_F(OpenApiRoutesTest, DescriptionsMediaTypesAndResponses) {
  OpenApiService svc = Core();
  auto idx = Index(svc);
  const OpenApiRoute* create = idx[{"/api/v1/namespaces/{namespace}/configmaps", "post"}];
  EXPECT_EQ(create->description, "create a ConfigMap");
  EXPECT_EQ(create->consumes, std::vector<std::string>{"*/*"});
  EXPECT_EQ(create->produces,
            (std::vector<std::string>{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}));
  ASSERT_EQ(create->responses.size(), 3u);
  EXPECT_EQ(create->responses[0].code, 200);
  EXPECT_EQ(create->responses[1].code, 201);
  EXPECT_EQ(create->responses[1].description, "Created");
  EXPECT_EQ(create->responses[2].code, 202);
  EXPECT_EQ(create->responses[2].schema, "io.k8s.api.core.v1.ConfigMap");

  const OpenApiRoute* list = idx[{"/api/v1/namespaces/{namespace}/configmaps", "get"}];
  EXPECT_EQ(list->description, "list or watch objects of kind ConfigMap");
  EXPECT_EQ(list->responses.at(0).schema, "io.k8s.api.core.v1.ConfigMapList");
  EXPECT_EQ(list->produces.size(), 5u);
  EXPECT_EQ(list->produces.back(), "application/vnd.kubernetes.protobuf;stream=watch");

  const OpenApiRoute* patch = idx[{"/api/v1/namespaces/{namespace}/configmaps/{name}", "patch"}];
  EXPECT_EQ(patch->description, "partially update the specified ConfigMap");
  EXPECT_EQ(patch->consumes,
            (std::vector<std::string>{"application/json-patch+json", "application/merge-patch+json",
                                      "application/strategic-merge-patch+json", "application/apply-patch+yaml"}));

  const OpenApiRoute* del = idx[{"/api/v1/namespaces/{namespace}/configmaps/{name}", "delete"}];
  EXPECT_EQ(del->description, "delete a ConfigMap");
  EXPECT_EQ(del->responses.at(0).schema, "io.k8s.apimachinery.pkg.apis.meta.v1.Status");
  EXPECT_EQ(del->responses.at(1).code, 202);

  const OpenApiRoute* dc = idx[{"/api/v1/namespaces/{namespace}/configmaps", "delete"}];
  EXPECT_EQ(dc->description, "delete collection of ConfigMap");

  const OpenApiRoute* watch = idx[{"/api/v1/watch/namespaces/{namespace}/configmaps/{name}", "get"}];
  EXPECT_EQ(watch->responses.at(0).schema, "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent");
  EXPECT_EQ(watch->description,
            "watch changes to an object of kind ConfigMap. deprecated: use the 'watch' parameter with a list "
            "operation instead, filtered to a single item with the 'fieldSelector' parameter.");
}

std::set<std::string> Names(const std::vector<OpenApiParam>& ps) {
  std::set<std::string> s;
  for (const auto& p : ps) s.insert(p.name + "/" + p.in);
  return s;
}

TEST_F(OpenApiRoutesTest, ParametersPerVerbAndCommonOnesOnThePath) {
  OpenApiService svc = Core();
  std::map<std::string, std::vector<const OpenApiRoute*>> by_path;
  for (const auto& r : svc.routes) by_path[r.path].push_back(&r);

  const auto& item = by_path["/api/v1/namespaces/{namespace}/configmaps/{name}"];
  PathParams split = SplitPathParams(item);
  EXPECT_EQ(Names(split.common), (std::set<std::string>{"name/path", "namespace/path", "pretty/query"}));
  for (size_t i = 0; i < item.size(); ++i) {
    std::set<std::string> own = Names(split.per_route[i]);
    if (item[i]->method == "patch") {
      EXPECT_EQ(own, (std::set<std::string>{"body/body", "dryRun/query", "fieldManager/query", "fieldValidation/query",
                                            "force/query"}));
      // Sorted by name.
      EXPECT_EQ(split.per_route[i].front().name, "body");
      EXPECT_EQ(split.per_route[i].back().name, "force");
    } else if (item[i]->method == "delete") {
      EXPECT_EQ(own, (std::set<std::string>{"body/body", "dryRun/query", "gracePeriodSeconds/query",
                                            "ignoreStoreReadErrorWithClusterBreakingPotential/query",
                                            "orphanDependents/query", "propagationPolicy/query"}));
      for (const auto& p : split.per_route[i]) {
        if (p.in == "body") EXPECT_FALSE(p.required) << "a delete body is optional";
      }
    } else if (item[i]->method == "get") {
      EXPECT_TRUE(own.empty());
    }
  }

  // A path with one route (the watch paths, the all-namespaces list) puts all its parameters on the path.
  const auto& watch = by_path["/api/v1/watch/configmaps"];
  PathParams ws = SplitPathParams(watch);
  EXPECT_TRUE(ws.per_route.at(0).empty());
  EXPECT_EQ(Names(ws.common),
            (std::set<std::string>{"allowWatchBookmarks/query", "continue/query", "fieldSelector/query",
                                   "labelSelector/query", "limit/query", "pretty/query", "resourceVersion/query",
                                   "resourceVersionMatch/query", "sendInitialEvents/query", "timeoutSeconds/query",
                                   "watch/query"}));

  // deletecollection takes the list options except watch and allowWatchBookmarks.
  const auto& coll = by_path["/api/v1/namespaces/{namespace}/configmaps"];
  PathParams cs = SplitPathParams(coll);
  EXPECT_EQ(Names(cs.common), (std::set<std::string>{"namespace/path", "pretty/query"}));
  for (size_t i = 0; i < coll.size(); ++i) {
    if (coll[i]->action != "deletecollection") continue;
    auto own = Names(cs.per_route[i]);
    EXPECT_TRUE(own.count("labelSelector/query"));
    EXPECT_TRUE(own.count("gracePeriodSeconds/query"));
    EXPECT_FALSE(own.count("watch/query"));
    EXPECT_FALSE(own.count("allowWatchBookmarks/query"));
  }
}

TEST_F(OpenApiRoutesTest, GroupsAndDiscoveryServices) {
  auto services = BuildOpenApiServices(*apis_.Snapshot());
  std::vector<std::string> roots;
  for (const auto& s : services) roots.push_back(s.root);
  EXPECT_EQ(roots, (std::vector<std::string>{"api", "api/v1", "apis", "apis/coordination.k8s.io",
                                             "apis/coordination.k8s.io/v1", "version"}));
  for (const auto& s : services) {
    if (s.root == "apis/coordination.k8s.io") {
      ASSERT_EQ(s.routes.size(), 1u);
      EXPECT_EQ(s.routes[0].path, "/apis/coordination.k8s.io/");
      EXPECT_EQ(s.routes[0].operation_id, "getCoordinationAPIGroup");
      EXPECT_EQ(s.routes[0].tags, std::vector<std::string>{"coordination"});
      EXPECT_EQ(s.routes[0].responses.at(0).schema, "io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup");
    }
    if (s.root == "apis/coordination.k8s.io/v1") {
      auto idx = Index(s);
      ASSERT_TRUE(idx.count({"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases", "get"}));
      const OpenApiRoute* r = idx[{"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases", "get"}];
      EXPECT_EQ(r->operation_id, "listCoordinationV1NamespacedLease");
      EXPECT_EQ(r->tags, std::vector<std::string>{"coordination_v1"});
      EXPECT_EQ(r->gvk->group, "coordination.k8s.io");
      EXPECT_EQ((idx[{"/apis/coordination.k8s.io/v1/", "get"}])->operation_id, "getCoordinationV1APIResources");
    }
    if (s.root == "api") EXPECT_EQ(s.routes.at(0).operation_id, "getCoreAPIVersions");
    if (s.root == "apis") EXPECT_EQ(s.routes.at(0).operation_id, "getAPIVersions");
    if (s.root == "version") {
      EXPECT_EQ(s.routes.at(0).operation_id, "getCodeVersion");
      EXPECT_EQ(s.routes.at(0).produces, std::vector<std::string>{"application/json"});
    }
  }
}

TEST(OpenApiOperationIdTest, KubesNaming) {
  std::string id;
  std::vector<std::string> tags;
  OperationIdAndTags("listClusterRole", "/apis/rbac.authorization.k8s.io/v1/clusterroles", &id, &tags);
  EXPECT_EQ(id, "listRbacAuthorizationV1ClusterRole");
  EXPECT_EQ(tags, std::vector<std::string>{"rbacAuthorization_v1"});
  OperationIdAndTags("deletecollectionNamespacedDeployment", "/apis/apps/v1/namespaces/{namespace}/deployments", &id,
                     &tags);
  EXPECT_EQ(id, "deleteAppsV1CollectionNamespacedDeployment");
  OperationIdAndTags("listFlowSchema", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", &id, &tags);
  EXPECT_EQ(id, "listFlowcontrolApiserverV1FlowSchema");
  EXPECT_EQ(tags, std::vector<std::string>{"flowcontrolApiserver_v1"});
  OperationIdAndTags("listNamespacedCronTab", "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs", &id, &tags);
  EXPECT_EQ(id, "listStableExampleComV1NamespacedCronTab");
  EXPECT_EQ(tags, std::vector<std::string>{"stableExampleCom_v1"});
  OperationIdAndTags("getAPIVersions", "/api/", &id, &tags);
  EXPECT_EQ(id, "getCoreAPIVersions");
  EXPECT_EQ(tags, std::vector<std::string>{"core"});
  OperationIdAndTags("getCodeVersion", "/version/", &id, &tags);
  EXPECT_EQ(id, "getCodeVersion");
  EXPECT_EQ(tags, std::vector<std::string>{"version"});
}

TEST(OpenApiListDefinitionTest, SamePackageAsTheKind) {
  registry::ResourceInfo i = testing::Info("", "v1", "configmaps", "ConfigMap", true, "io.k8s.api.core.v1.ConfigMap");
  EXPECT_EQ(ListDefinitionName(i), "io.k8s.api.core.v1.ConfigMapList");
  i.list_kind.clear();
  EXPECT_EQ(ListDefinitionName(i), "io.k8s.api.core.v1.ConfigMapList");
}

TEST(OpenApiRoutesArticleTest, PluralKindsHaveNoArticle) {
  ApiRegistry apis;
  testing::InstallStub<testing::FullStub>(apis, testing::Info("", "v1", "endpoints", "Endpoints", true,
                                                              "io.k8s.api.core.v1.Endpoints"),
                                          BuiltinSchemas().get());
  testing::InstallStub<testing::FullStub>(apis, testing::Info("", "v1", "events", "Event", true,
                                                              "io.k8s.api.core.v1.Event"),
                                          BuiltinSchemas().get());
  OpenApiService svc = GroupVersionService(*apis.Snapshot()->Find("", "v1"));
  auto idx = Index(svc);
  EXPECT_EQ((idx[{"/api/v1/namespaces/{namespace}/endpoints", "post"}])->description, "create Endpoints");
  EXPECT_EQ((idx[{"/api/v1/namespaces/{namespace}/events", "post"}])->description, "create an Event");
  EXPECT_EQ((idx[{"/api/v1/namespaces/{namespace}/events/{name}", "delete"}])->description, "delete an Event");
}

}  // namespace
}  // namespace capstan::endpoints
