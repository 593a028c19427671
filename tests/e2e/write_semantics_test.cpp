// End-to-end: how writes are answered, compared with kube-apiserver 1.32 (issue 30): no-op updates and
// patches that write nothing, delete preconditions, resourceVersion "0" in a PUT, the Priority and
// DefaultTolerationSeconds plugins on update, []byte fields that are not base64, malformed bodies,
// an over-limit body, methods a path does not serve, strategic-merge-patch type errors and duplicate
// list-map keys. Driven by kubectl 1.32, and by curl where kubectl cannot send the request.
#include <gtest/gtest.h>

#include <string>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

class WriteSemanticsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }

  static CommandResult K(const std::vector<std::string>& args, const std::string& input = "") {
    return server_->Kubectl(args, input);
  }
  static void Namespace(const std::string& ns) { ASSERT_EQ(K({"create", "namespace", ns}).exit_code, 0); }
  // curl with the admin certificate: "<code>\n<body>".
  static std::string Curl(const std::string& method, const std::string& path, const std::string& body = "",
                          const std::string& content_type = "application/json") {
    std::string pki = server_->data_dir() + "/pki/";
    std::vector<std::string> argv = {"curl", "-sS", "-X", method, "--cacert", pki + "ca.crt", "--cert", pki + "admin.crt",
                                     "--key", pki + "admin.key", "-w", "\n%{http_code}"};
    if (!body.empty()) argv.insert(argv.end(), {"-H", "Content-Type: " + content_type, "--data-binary", "@-"});
    argv.push_back("https://127.0.0.1:" + std::to_string(server_->port()) + path);
    auto r = RunCommand(argv, body);
    size_t nl = r.out.rfind('\n');
    if (nl == std::string::npos) return r.out + r.err;
    return r.out.substr(nl + 1) + "\n" + r.out.substr(0, nl);
  }
  static std::string Jsonpath(const std::string& what, const std::string& ns, const std::string& path) {
    return K({"get", what, "-n", ns, "-o", "jsonpath=" + path}).out;
  }
  // The events a watch from `rv` sees for one object within a second: none when nothing was written.
  static std::string EventsSince(const std::string& ns, const std::string& resource, const std::string& name,
                                 const std::string& rv) {
    std::string group_path = resource == "daemonsets" ? "/apis/apps/v1" : "/api/v1";
    return K({"get", "--raw", group_path + "/namespaces/" + ns + "/" + resource + "?watch=1&timeoutSeconds=1&resourceVersion=" +
                                  rv + "&fieldSelector=metadata.name%3D" + name})
        .out;
  }
  static ServerProcess* server_;
};
ServerProcess* WriteSemanticsTest::server_ = nullptr;

TEST_F(WriteSemanticsTest, NoOpReplacePatchAndApplyWriteNothing) {
  Namespace("noop");
  ASSERT_EQ(K({"create", "configmap", "x", "-n", "noop", "--from-literal=a=b"}).exit_code, 0);
  std::string manifest = K({"get", "cm", "x", "-n", "noop", "-o", "yaml"}).out;
  std::string rv = Jsonpath("cm/x", "noop", "{.metadata.resourceVersion}");
  auto replaced = K({"replace", "-f", "-"}, manifest);
  EXPECT_EQ(replaced.out, "configmap/x replaced\n") << replaced.err;
  EXPECT_EQ(Jsonpath("cm/x", "noop", "{.metadata.resourceVersion}"), rv);
  auto patched = K({"patch", "cm", "x", "-n", "noop", "-p", R"({"data":{"a":"b"}})"});
  EXPECT_EQ(patched.out, "configmap/x patched (no change)\n") << patched.err;
  auto merge = K({"patch", "cm", "x", "-n", "noop", "--type=merge", "-p", R"({"data":{"a":"b"}})"});
  EXPECT_EQ(merge.out, "configmap/x patched (no change)\n") << merge.err;
  EXPECT_EQ(EventsSince("noop", "configmaps", "x", rv), "");

  // A patch that only restates a default: no write, no generation bump.
  ASSERT_EQ(K({"create", "-n", "noop", "-f", "-"}, R"({"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"bind"},
      "spec":{"selector":{"matchLabels":{"app":"bind"}},"template":{"metadata":{"labels":{"app":"bind"}},
      "spec":{"containers":[{"name":"c","image":"nginx"}]}}}})")
                .exit_code,
            0);
  std::string ds_rv = Jsonpath("ds/bind", "noop", "{.metadata.resourceVersion}");
  auto ds = K({"patch", "ds", "bind", "-n", "noop", "--type=merge", "-p", R"({"spec":{"minReadySeconds":0}})"});
  EXPECT_EQ(ds.out, "daemonset.apps/bind patched (no change)\n") << ds.err;
  EXPECT_EQ(Jsonpath("ds/bind", "noop", "{.metadata.generation} {.metadata.resourceVersion}"), "1 " + ds_rv);
  EXPECT_EQ(EventsSince("noop", "daemonsets", "bind", ds_rv), "");

  // Re-applying an unchanged manifest, client-side and server-side.
  const std::string applied = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"applied","namespace":"noop"},"data":{"k":"v"}})";
  ASSERT_EQ(K({"apply", "-f", "-"}, applied).exit_code, 0);
  std::string applied_rv = Jsonpath("cm/applied", "noop", "{.metadata.resourceVersion}");
  EXPECT_EQ(K({"apply", "-f", "-"}, applied).out, "configmap/applied unchanged\n");
  ASSERT_EQ(K({"apply", "--server-side", "--field-manager=ssa", "-f", "-"}, applied).exit_code, 0);
  std::string ssa_rv = Jsonpath("cm/applied", "noop", "{.metadata.resourceVersion}");
  EXPECT_NE(ssa_rv, applied_rv) << "the first server-side apply adds its manager";
  auto again = K({"apply", "--server-side", "--field-manager=ssa", "-f", "-"}, applied);
  EXPECT_EQ(again.out, "configmap/applied serverside-applied\n") << again.err;
  EXPECT_EQ(Jsonpath("cm/applied", "noop", "{.metadata.resourceVersion}"), ssa_rv);
  EXPECT_EQ(EventsSince("noop", "configmaps", "applied", ssa_rv), "");
}

TEST_F(WriteSemanticsTest, DeletePreconditionsAnswerKubesConflictTexts) {
  Namespace("precond");
  ASSERT_EQ(K({"create", "configmap", "x", "-n", "precond"}).exit_code, 0);
  std::string rv = Jsonpath("cm/x", "precond", "{.metadata.resourceVersion}");
  std::string uid = Jsonpath("cm/x", "precond", "{.metadata.uid}");
  EXPECT_EQ(Curl("DELETE", "/api/v1/namespaces/precond/configmaps/x", R"({"preconditions":{"resourceVersion":"1"}})"),
            "409\n{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Operation "
            "cannot be fulfilled on ConfigMap \\\"x\\\": the ResourceVersion in the precondition (1) does not match the "
            "ResourceVersion in record (" + rv + "). The object might have been modified\",\"reason\":\"Conflict\","
            "\"details\":{\"name\":\"x\",\"kind\":\"ConfigMap\"},\"code\":409}\n");
  auto by_uid = Curl("DELETE", "/api/v1/namespaces/precond/configmaps/x", R"({"preconditions":{"uid":"nope"}})");
  EXPECT_NE(by_uid.find("Operation cannot be fulfilled on ConfigMap \\\"x\\\": the UID in the precondition (nope) does not "
                        "match the UID in record (" + uid + "). The object might have been deleted and then recreated"),
            std::string::npos)
      << by_uid;
  EXPECT_EQ(by_uid.substr(0, 4), "409\n");
  // Matching preconditions delete.
  auto ok = Curl("DELETE", "/api/v1/namespaces/precond/configmaps/x",
                 R"({"preconditions":{"uid":")" + uid + R"(","resourceVersion":")" + rv + R"("}})");
  EXPECT_EQ(ok.substr(0, 4), "200\n") << ok;
}

TEST_F(WriteSemanticsTest, ResourceVersionZeroOrEmptyInAPutIsUnconditional) {
  ASSERT_EQ(K({"create", "-f", "-"}, R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"rv-zero"}})").exit_code, 0);
  auto zero = K({"replace", "-f", "-"},
                R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"rv-zero","resourceVersion":"0","annotations":{"a":"b"}}})");
  EXPECT_EQ(zero.out, "node/rv-zero replaced\n") << zero.err;
  auto empty = K({"replace", "-f", "-"},
                 R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"rv-zero","resourceVersion":"","annotations":{"a":"c"}}})");
  EXPECT_EQ(empty.out, "node/rv-zero replaced\n") << empty.err;
  EXPECT_EQ(K({"get", "node", "rv-zero", "-o", "jsonpath={.metadata.annotations.a}"}).out, "c");
  auto stale = K({"replace", "-f", "-"},
                 R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"rv-zero","resourceVersion":"1","annotations":{"a":"d"}}})");
  EXPECT_NE(stale.err.find("the object has been modified"), std::string::npos) << stale.err;
}

TEST_F(WriteSemanticsTest, ReplacingAPodFromItsManifestKeepsPriorityAndTolerations) {
  Namespace("prio");
  const std::string pod = R"(apiVersion: v1
kind: Pod
metadata: {name: p, namespace: prio}
spec:
  serviceAccountName: default
  automountServiceAccountToken: false
  containers: [{name: c, image: "nginx:1.26", imagePullPolicy: IfNotPresent}]
)";
  ASSERT_EQ(K({"create", "-f", "-"}, pod).exit_code, 0);
  std::string updated = pod;
  updated.replace(updated.find("nginx:1.26"), 10, "nginx:1.27");
  auto replaced = K({"replace", "-f", "-"}, updated);
  EXPECT_EQ(replaced.out, "pod/p replaced\n") << replaced.err;
  EXPECT_EQ(Jsonpath("pod/p", "prio", "{.spec.containers[0].image} {.spec.priority} {.spec.preemptionPolicy}"),
            "nginx:1.27 0 PreemptLowerPriority");
  EXPECT_EQ(Jsonpath("pod/p", "prio", "{.spec.tolerations[*].key}"),
            "node.kubernetes.io/not-ready node.kubernetes.io/unreachable");
}

TEST_F(WriteSemanticsTest, ByteFieldsThatAreNotBase64AreRefused) {
  Namespace("b64");
  auto secret = K({"create", "-n", "b64", "-f", "-"},
                  R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"k":"not base64!"}})");
  EXPECT_NE(secret.exit_code, 0);
  EXPECT_NE(secret.err.find(R"(Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3)"),
            std::string::npos)
      << secret.err;
  EXPECT_NE(K({"get", "secret", "s", "-n", "b64"}).exit_code, 0) << "nothing was stored";
  auto cm = K({"create", "-n", "b64", "-f", "-"},
              R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"binaryData":{"k":"YWJ"}})");
  EXPECT_NE(cm.err.find(R"(ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 0)"),
            std::string::npos)
      << cm.err;
  auto webhook = K({"create", "-f", "-"}, R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration",
      "metadata":{"name":"w"},"webhooks":[{"name":"w.example.com","clientConfig":{"url":"https://example.com","caBundle":"*"},
      "sideEffects":"None","admissionReviewVersions":["v1"]}]})");
  EXPECT_NE(webhook.err.find("cannot be handled as a ValidatingWebhookConfiguration: illegal base64 data at input byte 0"),
            std::string::npos)
      << webhook.err;
  auto good = K({"create", "-n", "b64", "-f", "-"},
                R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"ok"},"data":{"k":"YWJj\nZA=="}})");
  EXPECT_EQ(good.out, "secret/ok created\n") << good.err;
}

TEST_F(WriteSemanticsTest, MalformedJsonBodiesAnswerKubesDecodeErrors) {
  EXPECT_EQ(Curl("POST", "/api/v1/namespaces/default/configmaps", R"({"kind":"ConfigMap","data":{"a":)"),
            "400\n{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"the object "
            "provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected "
            "end of JSON input ({\\\"kind\\\":\\\"ConfigMap\\\",\\\"data\\\":{\\\"a ...)\",\"reason\":\"BadRequest\",\"code\":400}\n");
  auto array = Curl("POST", "/api/v1/namespaces/default/configmaps", "[1]");
  EXPECT_NE(array.find("the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse "
                       "error: json: cannot unmarshal array into Go value of type struct"),
            std::string::npos)
      << array;
  EXPECT_NE(array.find("(5b315d)"), std::string::npos) << "a body that is not an object is quoted in hex: " << array;
  auto put = Curl("PUT", "/api/v1/namespaces/default/configmaps/x", "{\"metadata\":");
  EXPECT_NE(put.find("the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse "
                     "error: unexpected end of JSON input ({\\\"metadata\\\":)"),
            std::string::npos)
      << put;
  auto kubectl = K({"create", "--raw", "/api/v1/namespaces/default/configmaps", "-f", "-"}, "{\"kind\":}");
  EXPECT_NE(kubectl.err.find("the object provided is unrecognized (must be of type ConfigMap)"), std::string::npos)
      << kubectl.err;
}

TEST_F(WriteSemanticsTest, OverLimitBodyIsAnswered413) {
  std::string huge = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"huge","namespace":"default"},"data":{"k":")" +
                     std::string(4 * 1024 * 1024, 'x') + "\"}}";
  // Several times: closing on a client that is still writing resets the connection only sometimes.
  for (int i = 0; i < 5; ++i) {
    auto r = K({"create", "-f", "-"}, huge);
    EXPECT_NE(r.err.find("Request entity too large: limit is 3145728"), std::string::npos) << i << ": " << r.err;
  }
  auto raw = Curl("POST", "/api/v1/namespaces/default/configmaps", huge);
  EXPECT_EQ(raw.substr(0, 4), "413\n") << raw.substr(0, 300);
  EXPECT_NE(raw.find("\"reason\":\"RequestEntityTooLarge\""), std::string::npos) << raw.substr(0, 300);
  // The server is fine afterwards.
  EXPECT_EQ(K({"get", "ns", "default", "-o", "name"}).out, "namespace/default\n");
}

TEST_F(WriteSemanticsTest, MethodsAPathDoesNotServeAre405) {
  const std::string not_allowed =
      "405\n{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"the server does not "
      "allow this method on the requested resource\",\"reason\":\"MethodNotAllowed\",\"details\":{},\"code\":405}\n";
  EXPECT_EQ(Curl("PUT", "/api/v1/namespaces/default/configmaps", "{}"), not_allowed);
  EXPECT_EQ(Curl("PATCH", "/api/v1/namespaces/default/configmaps", "{}", "application/merge-patch+json"), not_allowed);
  EXPECT_EQ(Curl("POST", "/api/v1/namespaces/default/configmaps/x", "{}"), not_allowed);
  EXPECT_EQ(Curl("POST", "/api/v1/configmaps", "{}"), not_allowed) << "all namespaces: list and watch only";
  EXPECT_EQ(Curl("GET", "/apis/authentication.k8s.io/v1/tokenreviews"), not_allowed) << "create only";
  EXPECT_EQ(Curl("DELETE", "/api/v1/componentstatuses"), not_allowed) << "get and list only";
  EXPECT_EQ(Curl("GET", "/api/v1/configmaps/x").substr(0, 4), "404\n") << "no route at all";
  EXPECT_EQ(Curl("GET", "/api/v1/namespaces/default/bindings/x").substr(0, 4), "404\n");
}

TEST_F(WriteSemanticsTest, NamespacesOfferNoDeleteCollection) {
  Namespace("keep-me");
  const std::string not_allowed =
      "405\n{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"the server does not "
      "allow this method on the requested resource\",\"reason\":\"MethodNotAllowed\",\"details\":{},\"code\":405}\n";
  EXPECT_EQ(Curl("DELETE", "/api/v1/namespaces"), not_allowed);
  EXPECT_EQ(Curl("DELETE", "/api/v1/namespaces?labelSelector=kubernetes.io%2Fmetadata.name%3Dkeep-me"), not_allowed);
  // Nothing was deleted or marked Terminating.
  EXPECT_EQ(K({"get", "ns", "keep-me", "-o", "jsonpath={.status.phase}"}).out, "Active");
  EXPECT_EQ(K({"get", "ns", "default", "-o", "jsonpath={.status.phase}"}).out, "Active");
  // Discovery lists namespaces' verbs as kube does.
  auto discovery = K({"get", "--raw", "/api/v1"}).out;
  EXPECT_NE(discovery.find(R"("name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace",)"
                           R"("verbs":["create","delete","get","list","patch","update","watch"])"),
            std::string::npos)
      << discovery.substr(0, 2000);
}

TEST_F(WriteSemanticsTest, StrategicMergePatchTypeErrorsUseKubesTexts) {
  Namespace("smp");
  ASSERT_EQ(K({"create", "configmap", "c", "-n", "smp"}).exit_code, 0);
  auto labels = K({"patch", "cm", "c", "-n", "smp", "-p", R"({"metadata":{"labels":"x"}})"});
  EXPECT_NE(labels.exit_code, 0);
  EXPECT_NE(labels.err.find(R"(patch: Invalid value: "map[metadata:map[labels:x]]": cannot restore map from string)"),
            std::string::npos)
      << labels.err;
  auto raw = Curl("PATCH", "/api/v1/namespaces/smp/configmaps/c", R"({"metadata":{"finalizers":"x"}})",
                  "application/strategic-merge-patch+json");
  EXPECT_EQ(raw, "422\n{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\" \\\"\\\" is "
                 "invalid: patch: Invalid value: \\\"map[metadata:map[finalizers:x]]\\\": cannot restore slice from string\","
                 "\"reason\":\"Invalid\",\"details\":{\"causes\":[{\"reason\":\"FieldValueInvalid\",\"message\":\"Invalid value: "
                 "\\\"map[metadata:map[finalizers:x]]\\\": cannot restore slice from string\",\"field\":\"patch\"}]},\"code\":422}\n");
  ASSERT_EQ(K({"create", "-n", "smp", "-f", "-"}, R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
      "spec":{"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},
      "spec":{"containers":[{"name":"c","image":"nginx"}]}}}})")
                .exit_code,
            0);
  auto strategy = K({"patch", "deploy", "d", "-n", "smp", "-p", R"({"spec":{"strategy":"x"}})"});
  EXPECT_NE(strategy.err.find("cannot restore struct from: string"), std::string::npos) << strategy.err;
  auto replicas = K({"patch", "deploy", "d", "-n", "smp", "-p", R"({"spec":{"replicas":"x"}})"});
  EXPECT_NE(replicas.err.find("unrecognized type: int32"), std::string::npos) << replicas.err;
}

TEST_F(WriteSemanticsTest, DuplicateListMapKeysUseKubesText) {
  ASSERT_EQ(K({"apply", "-f", "-"}, R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
      "metadata":{"name":"gates.example.com"},
      "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gates","singular":"gate","kind":"Gate"},
        "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{
          "spec":{"type":"object","properties":{"listeners":{"type":"array","x-kubernetes-list-type":"map",
            "x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],
            "properties":{"name":{"type":"string"},"port":{"type":"integer"}}}}}}}}}}]}})")
                .exit_code,
            0);
  ASSERT_EQ(K({"wait", "--for=condition=Established", "crd/gates.example.com", "--timeout=60s"}).exit_code, 0);
  auto dup = K({"create", "-f", "-"}, R"({"apiVersion":"example.com/v1","kind":"Gate","metadata":{"name":"g","namespace":"default"},
      "spec":{"listeners":[{"name":"http","port":80},{"name":"http","port":8080}]}})");
  EXPECT_NE(dup.err.find(R"(spec.listeners[1]: Duplicate value: map[string]interface {}{"name":"http"})"), std::string::npos)
      << dup.err;
}

}  // namespace
}  // namespace capstan::e2e
