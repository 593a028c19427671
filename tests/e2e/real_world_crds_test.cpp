// End-to-end: real projects' CRDs (cert-manager, Argo CD; unmodified copies under
// testdata/third_party/, see its README for where they come from) and a synthetic 200-level schema
// through kubectl 1.32: applied, Established, read back (get, list with a field selector, watch, a
// protobuf GET, after a restart from disk), re-applied unchanged, and their custom resources served.
// Issue 30 item 1: such CRDs were acknowledged and then every read of them failed with
// "unable to decode stored object ...: too deep" (the read path's JSON depth limit was 32).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

std::string ThirdParty(const std::string& rel) {
  const char* source = std::getenv("CAPSTAN_SOURCE_DIR");
  return std::string(source ? source : ".") + "/tests/e2e/testdata/third_party/" + rel;
}

const char* kInstances = R"(apiVersion: cert-manager.io/v1
kind: Issuer
metadata: {name: selfsigned, namespace: default}
spec: {selfSigned: {}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web, namespace: default}
spec:
  secretName: web-tls
  dnsNames: [web.example.com]
  issuerRef: {name: selfsigned, kind: Issuer}
---
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: team, namespace: default}
spec:
  sourceRepos: ['*']
  destinations: [{namespace: '*', server: '*'}]
---
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: guestbook, namespace: default}
spec:
  generators:
  - matrix:
      generators:
      - list:
          elements: [{cluster: in-cluster, url: 'https://kubernetes.default.svc'}]
      - list:
          elements: [{env: dev}]
  template:
    metadata: {name: '{{cluster}}-{{env}}-guestbook'}
    spec:
      project: default
      source: {repoURL: 'https://github.com/argoproj/argocd-example-apps.git', targetRevision: HEAD, path: guestbook}
      destination: {server: '{{url}}', namespace: guestbook}
)";

const char* kCertManagerCrds[] = {"challenges.acme.cert-manager.io",         "orders.acme.cert-manager.io",
                                  "certificaterequests.cert-manager.io",     "certificates.cert-manager.io",
                                  "clusterissuers.cert-manager.io",          "issuers.cert-manager.io"};
const char* kArgoCrds[] = {"applications.argoproj.io", "applicationsets.argoproj.io", "appprojects.argoproj.io"};

std::string Curl(const ServerProcess& s, const std::string& path, const std::string& accept) {
  std::string pki = s.data_dir() + "/pki/";
  auto r = RunCommand({"curl", "-sS", "-o", "/dev/null", "-w", "%{http_code} %{content_type} %{size_download}",
                       "--cacert", pki + "ca.crt", "--cert", pki + "admin.crt", "--key", pki + "admin.key", "-H",
                       "Accept: " + accept, "https://127.0.0.1:" + std::to_string(s.port()) + path});
  return r.out;
}

void ExpectCrdsReadable(const ServerProcess& s, const std::string& when) {
  for (const char* name : kCertManagerCrds) {
    auto got = s.Kubectl({"get", "crd", name, "-o", "jsonpath={.metadata.name} {.status.conditions[?(@.type==\"Established\")].status}"});
    EXPECT_EQ(got.out, std::string(name) + " True") << when << ": " << got.err;
  }
  for (const char* name : kArgoCrds) {
    auto got = s.Kubectl({"get", "crd", name, "-o", "jsonpath={.metadata.name} {.status.conditions[?(@.type==\"Established\")].status}"});
    EXPECT_EQ(got.out, std::string(name) + " True") << when << ": " << got.err;
  }
  // A list with a field selector goes through the watch cache's predicate, which re-reads the object.
  auto sel = s.Kubectl({"get", "crd", "--field-selector", "metadata.name=challenges.acme.cert-manager.io", "-o", "name"});
  EXPECT_EQ(sel.out, "customresourcedefinition.apiextensions.k8s.io/challenges.acme.cert-manager.io\n") << when << ": " << sel.err;
  auto list = s.Kubectl({"get", "crd", "-o", "name"});
  EXPECT_NE(list.out.find("applicationsets.argoproj.io"), std::string::npos) << when << ": " << list.err;
  // A protobuf client (client-go asks for it) reads the deepest ones too.
  EXPECT_EQ(Curl(s, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/issuers.cert-manager.io",
                 "application/vnd.kubernetes.protobuf").substr(0, 40),
            "200 application/vnd.kubernetes.protobuf ")
      << when;
  auto cert = s.Kubectl({"get", "certificate", "web", "-o", "jsonpath={.spec.issuerRef.name}"});
  EXPECT_EQ(cert.out, "selfsigned") << when << ": " << cert.err;
  auto appset = s.Kubectl({"get", "applicationset", "guestbook", "-o", "jsonpath={.spec.generators[0].matrix.generators[1].list.elements[0].env}"});
  EXPECT_EQ(appset.out, "dev") << when << ": " << appset.err;
}

TEST(RealWorldCrdsTest, CertManagerAndArgoCdCrdsAreStoredAndReadBack) {
  std::string dir = MakeTempDir("capstan-crds");
  {
    ServerProcess s({}, dir);
    ASSERT_TRUE(s.ok()) << s.error();
    auto apply = s.Kubectl({"apply", "-f", ThirdParty("cert-manager"), "-f", ThirdParty("argo-cd/application-crd.yaml"),
                            "-f", ThirdParty("argo-cd/appproject-crd.yaml")});
    ASSERT_EQ(apply.exit_code, 0) << apply.err;
    EXPECT_NE(apply.out.find("customresourcedefinition.apiextensions.k8s.io/challenges.acme.cert-manager.io created"),
              std::string::npos)
        << apply.out;
    // ApplicationSet's CRD is larger than the last-applied annotation allows: Argo CD installs it
    // with server-side apply.
    auto ssa = s.Kubectl({"apply", "--server-side", "-f", ThirdParty("argo-cd/applicationset-crd.yaml")});
    ASSERT_EQ(ssa.exit_code, 0) << ssa.err;
    EXPECT_EQ(ssa.out, "customresourcedefinition.apiextensions.k8s.io/applicationsets.argoproj.io serverside-applied\n");
    auto wait = s.Kubectl({"wait", "--for=condition=Established", "crd", "--all", "--timeout=60s"});
    ASSERT_EQ(wait.exit_code, 0) << wait.out << wait.err;
    auto instances = s.Kubectl({"apply", "-f", "-"}, kInstances);
    ASSERT_EQ(instances.exit_code, 0) << instances.err;
    EXPECT_NE(instances.out.find("applicationset.argoproj.io/guestbook created"), std::string::npos) << instances.out;
    ExpectCrdsReadable(s, "after apply");

    // Re-applying the unchanged manifests reads every CRD back.
    auto again = s.Kubectl({"apply", "-f", ThirdParty("cert-manager"), "-f", ThirdParty("argo-cd/application-crd.yaml"),
                            "-f", ThirdParty("argo-cd/appproject-crd.yaml")});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_NE(again.out.find("customresourcedefinition.apiextensions.k8s.io/issuers.cert-manager.io unchanged"),
              std::string::npos)
        << again.out;
    auto ssa_again = s.Kubectl({"apply", "--server-side", "-f", ThirdParty("argo-cd/applicationset-crd.yaml")});
    EXPECT_EQ(ssa_again.exit_code, 0) << ssa_again.err;

    // A watch sees a change to one of them (the event is decoded from storage).
    auto rv = s.Kubectl({"get", "crd", "clusterissuers.cert-manager.io", "-o", "jsonpath={.metadata.resourceVersion}"});
    ASSERT_EQ(s.Kubectl({"label", "crd", "clusterissuers.cert-manager.io", "e2e=watched"}).exit_code, 0);
    auto watch = s.Kubectl({"get", "--raw",
                            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?watch=1&timeoutSeconds=1&resourceVersion=" +
                                rv.out + "&fieldSelector=metadata.name%3Dclusterissuers.cert-manager.io"});
    EXPECT_NE(watch.out.find(R"({"type":"MODIFIED")"), std::string::npos)
        << watch.out.substr(0, 300) << watch.err;
    EXPECT_NE(watch.out.find(R"("e2e":"watched")"), std::string::npos) << watch.err;
    ASSERT_EQ(s.Stop(), 0);
  }
  // After a restart everything is decoded from disk again.
  {
    ServerProcess s({}, dir);
    ASSERT_TRUE(s.ok()) << s.error();
    auto wait = s.Kubectl({"wait", "--for=condition=Established", "crd", "--all", "--timeout=60s"});
    ASSERT_EQ(wait.exit_code, 0) << wait.out << wait.err;
    ExpectCrdsReadable(s, "after restart");
    EXPECT_EQ(s.Stop(), 0);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

// {"type":"object","properties":{"n":{...}}} `levels` deep, a string at the bottom.
std::string NestedSchema(int levels) {
  std::string s;
  for (int i = 0; i < levels; ++i) s += R"({"type":"object","properties":{"n":)";
  s += R"({"type":"string"})";
  for (int i = 0; i < levels; ++i) s += "}}";
  return s;
}

std::string NestedValue(int levels) {
  std::string s;
  for (int i = 0; i < levels; ++i) s += R"({"n":)";
  s += R"("leaf")";
  for (int i = 0; i < levels; ++i) s += "}";
  return s;
}

TEST(RealWorldCrdsTest, SchemaNested200LevelsIsServedAndReadBack) {
  ServerProcess s;
  ASSERT_TRUE(s.ok()) << s.error();
  constexpr int kLevels = 200;
  std::string crd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"deeps.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced",
      "names":{"plural":"deeps","singular":"deep","kind":"Deep"},
      "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":
        {"type":"object","properties":{"spec":)" +
                    NestedSchema(kLevels - 1) + "}}}}]}}";
  auto created = s.Kubectl({"create", "-f", "-"}, crd);
  ASSERT_EQ(created.exit_code, 0) << created.err;
  auto wait = s.Kubectl({"wait", "--for=condition=Established", "crd/deeps.example.com", "--timeout=60s"});
  ASSERT_EQ(wait.exit_code, 0) << wait.out << wait.err;
  auto got = s.Kubectl({"get", "crd", "deeps.example.com", "-o", "jsonpath={.spec.names.kind}"});
  EXPECT_EQ(got.out, "Deep") << got.err;
  EXPECT_EQ(Curl(s, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/deeps.example.com",
                 "application/vnd.kubernetes.protobuf").substr(0, 40),
            "200 application/vnd.kubernetes.protobuf ");

  std::string cr = R"({"apiVersion":"example.com/v1","kind":"Deep","metadata":{"name":"d1","namespace":"default"},"spec":)" +
                   NestedValue(kLevels - 1) + "}";
  auto cr_created = s.Kubectl({"create", "-f", "-"}, cr);
  ASSERT_EQ(cr_created.exit_code, 0) << cr_created.err;
  std::string path = "{.spec";
  for (int i = 0; i < kLevels - 1; ++i) path += ".n";
  path += "}";
  auto leaf = s.Kubectl({"get", "deep", "d1", "-o", "jsonpath=" + path});
  EXPECT_EQ(leaf.out, "leaf") << leaf.err;
  auto sel = s.Kubectl({"get", "deeps", "--field-selector", "metadata.name=d1", "-o", "name"});
  EXPECT_EQ(sel.out, "deep.example.com/d1\n") << sel.err;
}

}  // namespace
}  // namespace capstan::e2e
