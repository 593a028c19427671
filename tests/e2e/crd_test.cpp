// End-to-end: CustomResourceDefinitions through the real kubectl (1.31 and 1.33): apply a CRD, wait
// for Established, create/get/list/patch/delete custom resources, printer columns in `kubectl get`,
// `kubectl explain`, kube's 422 messages for invalid objects, pruning and defaults, the status and
// scale subresources, strategic merge patch refused with 415, discovery, and deleting the CRD (its
// custom resources go with it, and the resource stops being served). /readyz stays 200 while CRDs are
// added (the storage-readiness check latches).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <regex>
#include <sstream>
#include <thread>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

const char* kCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Spec
      type: string
      jsonPath: .spec.cronSpec
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    schema:
      openAPIV3Schema:
        type: object
        description: CronTab runs an image on a schedule.
        properties:
          spec:
            type: object
            description: The desired schedule.
            required: [cronSpec]
            properties:
              cronSpec:
                type: string
                description: The cron schedule.
                pattern: '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'
              image:
                type: string
                default: nginx
              replicas:
                type: integer
                minimum: 1
                maximum: 10
          status:
            type: object
            properties:
              replicas:
                type: integer
)";

const char* kCronTab = R"(apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-cron
spec:
  cronSpec: "* * * * */5"
  replicas: 2
)";

class CrdTest : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }
  CommandResult K(const std::vector<std::string>& args, const std::string& input = "") const {
    return server_->Kubectl(args, input, GetParam());
  }
  static std::vector<std::string> Lines(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) out.push_back(std::regex_replace(l, std::regex(" +"), " "));
    return out;
  }
  static ServerProcess* server_;
};
ServerProcess* CrdTest::server_ = nullptr;

TEST_P(CrdTest, LifecycleThroughKubectl) {
  auto apply = K({"apply", "-f", "-"}, kCrd);
  ASSERT_EQ(apply.exit_code, 0) << apply.err;
  EXPECT_EQ(apply.out, "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created\n");
  auto wait = K({"wait", "--for=condition=Established", "--timeout=10s", "crd/crontabs.stable.example.com"});
  ASSERT_EQ(wait.exit_code, 0) << wait.err;
  EXPECT_EQ(wait.out, "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com condition met\n");
  auto names = K({"get", "crd", "crontabs.stable.example.com", "-o",
                  "jsonpath={.status.acceptedNames.kind},{.status.conditions[?(@.type==\"NamesAccepted\")].reason},"
                  "{.status.storedVersions[0]}"});
  EXPECT_EQ(names.out, "CronTab,NoConflicts,v1");

  // Discovery (aggregated for the newer kubectls) lists the resource with its short name.
  auto res = K({"api-resources", "--api-group=stable.example.com"});
  ASSERT_EQ(res.exit_code, 0) << res.err;
  auto rl = Lines(res.out);
  ASSERT_EQ(rl.size(), 2u) << res.out;
  EXPECT_EQ(rl[1], "crontabs ct stable.example.com/v1 true CronTab");

  auto create = K({"create", "-f", "-"}, kCronTab);
  ASSERT_EQ(create.exit_code, 0) << create.err;
  EXPECT_EQ(create.out, "crontab.stable.example.com/my-cron created\n");
  auto get = K({"get", "crontabs"});
  ASSERT_EQ(get.exit_code, 0) << get.err;
  auto gl = Lines(get.out);
  ASSERT_EQ(gl.size(), 2u) << get.out;
  EXPECT_EQ(gl[0], "NAME SPEC REPLICAS AGE");
  EXPECT_TRUE(std::regex_match(gl[1], std::regex("my-cron \\* \\* \\* \\* \\*/5 2 [0-9]+s"))) << gl[1];
  auto by_short = K({"get", "ct", "my-cron", "-o", "jsonpath={.spec.image},{.metadata.generation}"});
  EXPECT_EQ(by_short.out, "nginx,1") << by_short.err;

  // Patches: merge and JSON; strategic merge is refused for custom resources.
  auto merge = K({"patch", "crontab", "my-cron", "--type=merge", "-p", R"({"spec":{"replicas":3}})"});
  ASSERT_EQ(merge.exit_code, 0) << merge.err;
  EXPECT_EQ(merge.out, "crontab.stable.example.com/my-cron patched\n");
  auto jp = K({"patch", "crontab", "my-cron", "--type=json", "-p", R"([{"op":"replace","path":"/spec/image","value":"busybox"}])"});
  ASSERT_EQ(jp.exit_code, 0) << jp.err;
  auto smp = K({"patch", "crontab", "my-cron", "--type=strategic", "-p", R"({"spec":{"replicas":4}})"});
  EXPECT_NE(smp.exit_code, 0);
  EXPECT_NE(smp.err.find("the body of the request was in an unknown format - accepted media types include: "
                         "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"),
            std::string::npos)
      << smp.err;
  auto after = K({"get", "crontab", "my-cron", "-o", "jsonpath={.spec.replicas},{.spec.image},{.metadata.generation}"});
  EXPECT_EQ(after.out, "3,busybox,3");

  // Scale subresource.
  auto scale = K({"scale", "crontab", "my-cron", "--replicas=5"});
  ASSERT_EQ(scale.exit_code, 0) << scale.err;
  EXPECT_EQ(K({"get", "crontab", "my-cron", "-o", "jsonpath={.spec.replicas}"}).out, "5");

  // Invalid objects: kube's 422 messages.
  auto invalid = K({"create", "-f", "-"}, R"(apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: bad
spec:
  cronSpec: "nope"
  replicas: 20
)");
  EXPECT_NE(invalid.exit_code, 0);
  EXPECT_NE(invalid.err.find("The CronTab \"bad\" is invalid: \n* spec.cronSpec: Invalid value: \"nope\": spec.cronSpec in "
                             "body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'\n* spec.replicas: "
                             "Invalid value: 20: spec.replicas in body should be less than or equal to 10"),
            std::string::npos)
      << invalid.err;
  auto type = K({"create", "-f", "-"}, R"(apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: bad
spec:
  cronSpec: "* * * * *"
  replicas: "two"
)");
  EXPECT_NE(type.exit_code, 0);
  EXPECT_NE(type.err.find("The CronTab \"bad\" is invalid: spec.replicas: Invalid value: \"string\": spec.replicas in "
                          "body must be of type integer: \"string\""),
            std::string::npos)
      << type.err;

  // Unknown fields are pruned (and reported as kubectl's strict validation asks).
  auto unknown = K({"create", "--validate=false", "-f", "-"}, R"(apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: pruned
spec:
  cronSpec: "* * * * *"
  color: blue
)");
  ASSERT_EQ(unknown.exit_code, 0) << unknown.err;
  EXPECT_EQ(K({"get", "crontab", "pruned", "-o", "jsonpath={.spec}"}).out, R"({"cronSpec":"* * * * *","image":"nginx"})");
  auto strict = K({"create", "--validate=strict", "-f", "-"}, R"(apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: strict
spec:
  cronSpec: "* * * * *"
  color: blue
)");
  EXPECT_NE(strict.exit_code, 0);
  EXPECT_NE(strict.err.find("unknown field \"spec.color\""), std::string::npos) << strict.err;

  // kubectl explain reads the published OpenAPI schema.
  auto explain = K({"explain", "crontabs.spec"});
  ASSERT_EQ(explain.exit_code, 0) << explain.err;
  EXPECT_NE(explain.out.find("The desired schedule."), std::string::npos) << explain.out;
  EXPECT_NE(explain.out.find("cronSpec"), std::string::npos) << explain.out;
  EXPECT_NE(explain.out.find("The cron schedule."), std::string::npos) << explain.out;

  // The group-version's OpenAPI v3 document has the kind and its list kind.
  auto v3 = K({"get", "--raw", "/openapi/v3/apis/stable.example.com/v1"});
  ASSERT_EQ(v3.exit_code, 0) << v3.err;
  EXPECT_NE(v3.out.find(R"("com.example.stable.v1.CronTabList":)"), std::string::npos);
  EXPECT_NE(v3.out.find(R"("x-kubernetes-group-version-kind":[{"group":"stable.example.com","kind":"CronTab","version":"v1"}])"),
            std::string::npos);

  // Deleting the CRD deletes its custom resources and stops serving them.
  auto del = K({"delete", "crd", "crontabs.stable.example.com", "--timeout=20s"});
  ASSERT_EQ(del.exit_code, 0) << del.err;
  EXPECT_EQ(del.out, "customresourcedefinition.apiextensions.k8s.io \"crontabs.stable.example.com\" deleted\n");
  auto gone = K({"get", "crd", "crontabs.stable.example.com"});
  EXPECT_NE(gone.exit_code, 0);
  bool unserved = false;
  for (int i = 0; i < 50 && !unserved; ++i) {
    auto r = K({"get", "--raw", "/apis/stable.example.com/v1/crontabs"});
    unserved = r.exit_code != 0 && r.err.find("NotFound") != std::string::npos;
    if (!unserved) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(unserved);
  EXPECT_EQ(K({"api-resources", "--api-group=stable.example.com", "--no-headers"}).out, "");

  // Re-created, the resource starts empty: the old instances were deleted from storage.
  ASSERT_EQ(K({"apply", "-f", "-"}, kCrd).exit_code, 0);
  ASSERT_EQ(K({"wait", "--for=condition=Established", "--timeout=10s", "crd/crontabs.stable.example.com"}).exit_code, 0);
  bool empty = false;
  for (int i = 0; i < 50 && !empty; ++i) {
    auto r = K({"get", "crontabs", "-A", "--no-headers"});
    empty = r.exit_code == 0 && r.out.empty() && r.err.find("No resources found") != std::string::npos;
    if (!empty) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(empty);
  ASSERT_EQ(K({"delete", "crd", "crontabs.stable.example.com"}).exit_code, 0);
}

TEST_P(CrdTest, InvalidCrdIsRejectedWithKubesMessage) {
  std::string bad = kCrd;
  bad = std::regex_replace(bad, std::regex("            type: object\n            description: The desired schedule.\n"),
                           "            description: The desired schedule.\n");
  auto r = K({"apply", "-f", "-"}, bad);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("The CustomResourceDefinition \"crontabs.stable.example.com\" is invalid: "
                       "spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for "
                       "specified object fields"),
            std::string::npos)
      << r.err;
}

INSTANTIATE_TEST_SUITE_P(Kubectl, CrdTest, ::testing::Values("31", "33"));

// Raw HTTPS as the admin (client certificate from the server's PKI).
RawResult AdminRequest(const ServerProcess& s, const std::string& method, const std::string& path,
                       const std::string& body = "") {
  std::string req = method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n";
  if (!body.empty()) {
    req += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  req += "\r\n" + body;
  return RawHttps(s.port(), {req}, s.data_dir() + "/pki/admin.crt", s.data_dir() + "/pki/admin.key");
}

// The time from the CRD's create (its POST answered) to the custom resource answering a list with
// 200, polled every 5ms over fresh connections: the figure reported for the CRD controller.
TEST(CrdServingTest, TimeFromCreateToServedAndWatch) {
  ServerProcess server;
  ASSERT_TRUE(server.ok()) << server.error();
  const std::string crd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"widgets.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},
      "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
        "properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}})";
  auto before = AdminRequest(server, "GET", "/apis/example.com/v1/namespaces/default/widgets");
  ASSERT_EQ(HttpStatusOf(before.response), 404) << before.response;
  auto created = AdminRequest(server, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(HttpStatusOf(created.response), 201) << created.response;
  int status = 0;
  std::chrono::steady_clock::duration elapsed{};
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10)) {
    auto r = AdminRequest(server, "GET", "/apis/example.com/v1/namespaces/default/widgets");
    status = HttpStatusOf(r.response);
    if (status == 200) {
      elapsed = std::chrono::steady_clock::now() - t0;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(status, 200);
  double ms = std::chrono::duration<double, std::milli>(elapsed).count();
  std::cout << "[ FIGURE   ] CRD create to custom resource served: " << ms << " ms\n";
  RecordProperty("crd_create_to_served_ms", std::to_string(ms));

  // A watch sees a custom resource created after it started (events from the watch cache).
  auto w = AdminRequest(server, "POST", "/apis/example.com/v1/namespaces/default/widgets",
                        R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"any":{"x":1}}})");
  ASSERT_EQ(HttpStatusOf(w.response), 201) << w.response;
  auto watch = AdminRequest(server, "GET", "/apis/example.com/v1/namespaces/default/widgets?watch=1&timeoutSeconds=1");
  EXPECT_EQ(HttpStatusOf(watch.response), 200);
  EXPECT_NE(watch.response.find(R"("type":"ADDED")"), std::string::npos) << watch.response;
  EXPECT_NE(watch.response.find(R"("any":{"x":1})"), std::string::npos) << watch.response;

  // Deleting a namespace deletes the custom resources in it (the namespace controller sees served
  // custom resources).
  auto ns = AdminRequest(server, "POST", "/api/v1/namespaces",
                         R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}})");
  ASSERT_EQ(HttpStatusOf(ns.response), 201) << ns.response;
  auto in_ns = AdminRequest(server, "POST", "/apis/example.com/v1/namespaces/team/widgets",
                            R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w2"}})");
  ASSERT_EQ(HttpStatusOf(in_ns.response), 201) << in_ns.response;
  ASSERT_EQ(HttpStatusOf(AdminRequest(server, "DELETE", "/api/v1/namespaces/team").response), 200);
  int gone = 0;
  for (int i = 0; i < 200 && gone != 404; ++i) {
    gone = HttpStatusOf(AdminRequest(server, "GET", "/apis/example.com/v1/namespaces/team/widgets/w2").response);
    if (gone != 404) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(gone, 404);
}

// CRDs created and deleted in a row while a client watches the CRDs: each is served, then removed
// with its custom resources, and the watch sees every change.
TEST(CrdServingTest, ChurnWhileWatching) {
  ServerProcess server;
  ASSERT_TRUE(server.ok()) << server.error();
  std::string watched;
  std::thread watcher([&] {
    watched = AdminRequest(server, "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?watch=1&timeoutSeconds=8")
                  .response;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto poll = [&](const std::string& path, int want) {
    int got = 0;
    for (int i = 0; i < 400 && got != want; ++i) {
      got = HttpStatusOf(AdminRequest(server, "GET", path).response);
      if (got != want) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return got;
  };
  for (int round = 0; round < 4; ++round) {
    const std::string plural = "gadgets" + std::to_string(round);
    const std::string crd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
      "metadata":{"name":")" + plural + R"(.example.com"},
      "spec":{"group":"example.com","scope":"Cluster","names":{"plural":")" + plural + R"(","kind":"Gadget)" +
                            std::to_string(round) + R"("},
        "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
          "x-kubernetes-preserve-unknown-fields":true}}}]}})";
    auto c = AdminRequest(server, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
    ASSERT_EQ(HttpStatusOf(c.response), 201) << c.response;
    const std::string path = "/apis/example.com/v1/" + plural;
    ASSERT_EQ(poll(path, 200), 200) << "round " << round;
    auto item = AdminRequest(server, "POST", path,
                             R"({"apiVersion":"example.com/v1","kind":"Gadget)" + std::to_string(round) +
                                 R"(","metadata":{"name":"g"},"anything":[1,2]})");
    ASSERT_EQ(HttpStatusOf(item.response), 201) << item.response;
    auto d = AdminRequest(server, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + plural + ".example.com");
    ASSERT_EQ(HttpStatusOf(d.response), 200) << d.response;
    EXPECT_EQ(poll("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + plural + ".example.com", 404), 404);
    EXPECT_EQ(poll(path, 404), 404) << "round " << round;
  }
  watcher.join();
  for (int round = 0; round < 4; ++round) {
    const std::string name = "gadgets" + std::to_string(round) + ".example.com";
    EXPECT_NE(watched.find(R"("type":"ADDED","object":{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":")" + name),
              std::string::npos)
        << name;
    EXPECT_NE(watched.find(R"("type":"DELETED")"), std::string::npos);
  }
}

// The storage-readiness check latches: once /readyz answered 200, a CRD's new watch cache (not yet
// listed) must not turn it to 503. /readyz is polled over fresh connections from another thread while
// two CRDs are created, custom resources written, and one CRD deleted.
TEST(CrdServingTest, ReadyzStaysOkWhileCrdsAndCustomResourcesAreCreated) {
  ServerProcess server;
  ASSERT_TRUE(server.ok()) << server.error();
  std::atomic<bool> stop{false};
  int polls = 0, ok_polls = 0;
  bool seen_ok = false;
  std::vector<std::string> regressions;  // non-200 answers after the first 200
  std::thread poller([&] {
    while (!stop) {
      auto r = AdminRequest(server, "GET", "/readyz?verbose");
      int status = HttpStatusOf(r.response);
      ++polls;
      if (status == 200) {
        ++ok_polls;
        seen_ok = true;
      } else if (seen_ok && regressions.size() < 5) {
        regressions.push_back(std::to_string(status) + ": " + r.response);
      }
    }
  });
  auto poll = [&](const std::string& path, int want) {
    int got = 0;
    for (int i = 0; i < 1000 && got != want; ++i) {
      got = HttpStatusOf(AdminRequest(server, "GET", path).response);
      if (got != want) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return got;
  };
  for (int round = 0; round < 2; ++round) {
    const std::string plural = "sprockets" + std::to_string(round);
    const std::string kind = "Sprocket" + std::to_string(round);
    const std::string crd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
      "metadata":{"name":")" + plural + R"(.example.com"},
      "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":")" + plural + R"(","kind":")" + kind +
                            R"("},
        "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
          "x-kubernetes-preserve-unknown-fields":true}}}]}})";
    auto c = AdminRequest(server, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
    ASSERT_EQ(HttpStatusOf(c.response), 201) << c.response;
    const std::string path = "/apis/example.com/v1/namespaces/default/" + plural;
    ASSERT_EQ(poll(path, 200), 200) << "round " << round;
    for (int n = 0; n < 10; ++n) {
      auto item = AdminRequest(server, "POST", path,
                               R"({"apiVersion":"example.com/v1","kind":")" + kind + R"(","metadata":{"name":"s)" +
                                   std::to_string(n) + R"("},"spec":{"n":)" + std::to_string(n) + "}}");
      ASSERT_EQ(HttpStatusOf(item.response), 201) << item.response;
    }
  }
  auto d = AdminRequest(server, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/sprockets0.example.com");
  EXPECT_EQ(HttpStatusOf(d.response), 200) << d.response;
  EXPECT_EQ(poll("/apis/example.com/v1/namespaces/default/sprockets0", 404), 404);
  // A few more polls after the last change.
  int until = polls + 20;
  for (int i = 0; i < 500 && polls < until; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  stop = true;
  poller.join();
  std::cout << "[ FIGURE   ] /readyz polled " << polls << " times during CRD and custom resource writes, " << ok_polls
            << " answered 200\n";
  EXPECT_TRUE(seen_ok);
  EXPECT_GT(polls, 20);
  EXPECT_TRUE(regressions.empty()) << regressions.size() << " non-200 after 200, first: " << regressions.front();
}

}  // namespace
}  // namespace capstan::e2e
