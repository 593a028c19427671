// End-to-end: API Priority and Fairness (issue 22). A user given a priority level of one seat with
// limitResponse Reject is refused with kube's 429 (Retry-After, plain-text body) while that seat is
// held, while kubectl as system:masters and a second user keep being answered; responses name the
// matched FlowSchema and PriorityLevelConfiguration UIDs; a new level and schema take effect without
// a restart; a queued request that waits past a quarter of --request-timeout is refused; the metrics
// and the debug dumps show it; --enable-priority-and-fairness=false gives the max-in-flight filter.
//
// The seat is held by a create that a validating webhook (objectSelector slow=yes) keeps waiting:
// the webhook URL is a socket that accepts connections and never answers, so the call lasts the
// webhook's timeoutSeconds (failurePolicy Ignore: the create then succeeds).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

struct Answer {
  int code = 0;
  std::string headers;  // lowercased
  std::string body;
  std::string Header(const std::string& name) const {
    std::string key = "\n" + name + ": ";
    size_t at = headers.find(key);
    if (at == std::string::npos) return "";
    size_t end = headers.find('\r', at + key.size());
    return headers.substr(at + key.size(), end - at - key.size());
  }
};

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class ApfTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(MakeTempDir("apf"));
    std::ofstream(*dir_ + "/tokens.csv") << "flood-token-0123456789,flooder,flooder-uid\n"
                                             "good-token-0123456789,gooduser,gooduser-uid\n";
    // Sum 100: the 1-share level gets ceil(100 x 1 / 246) = 1 seat. A queued request waits 4s.
    std::ofstream(*dir_ + "/audit-policy.yaml") << "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n"
                                                   "- level: Metadata\n  users: [flooder]\n";
    server_ = new ServerProcess({"--token-auth-file=" + *dir_ + "/tokens.csv", "--max-requests-inflight=60",
                                 "--max-mutating-requests-inflight=40", "--request-timeout=16s",
                                 "--audit-policy-file=" + *dir_ + "/audit-policy.yaml",
                                 "--audit-log-path=" + *dir_ + "/audit.log"});
    // The webhook's black hole: connections complete in the backlog and are never answered.
    hole_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(hole_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    listen(hole_, 64);
    socklen_t len = sizeof addr;
    getsockname(hole_, reinterpret_cast<sockaddr*>(&addr), &len);
    hole_port_ = ntohs(addr.sin_port);
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    close(hole_);
    delete dir_;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }

  static CommandResult K(const std::vector<std::string>& args, const std::string& input = "") {
    return server_->Kubectl(args, input);
  }
  // curl with a bearer token ("" for the admin certificate).
  static Answer Curl(const std::string& token, const std::string& method, const std::string& path,
                     const std::string& body = "") {
    std::string pki = server_->data_dir() + "/pki/";
    std::vector<std::string> argv = {"curl", "-sS", "-i", "-X", method, "--cacert", pki + "ca.crt"};
    if (token.empty()) {
      argv.insert(argv.end(), {"--cert", pki + "admin.crt", "--key", pki + "admin.key"});
    } else {
      argv.insert(argv.end(), {"-H", "Authorization: Bearer " + token});
    }
    if (!body.empty()) argv.insert(argv.end(), {"-H", "Content-Type: application/json", "--data-binary", "@-"});
    argv.push_back("https://127.0.0.1:" + std::to_string(server_->port()) + path);
    auto r = RunCommand(argv, body, seconds(30));
    Answer a;
    size_t split = r.out.find("\r\n\r\n");
    std::string head = split == std::string::npos ? r.out : r.out.substr(0, split);
    a.body = split == std::string::npos ? "" : r.out.substr(split + 4);
    a.headers = Lower(head) + "\r";
    // "HTTP/1.1 200 OK" or, over h2, "HTTP/2 200".
    if (size_t sp = head.find(' '); sp != std::string::npos) a.code = std::atoi(head.c_str() + sp + 1);
    return a;
  }
  static std::string Uid(const std::string& what) { return K({"get", what, "-o", "jsonpath={.metadata.uid}"}).out; }

  static void CreateLevel(const std::string& name, const std::string& limit_response) {
    auto r = K({"apply", "-f", "-"}, R"({"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration",
        "metadata":{"name":")" + name + R"("},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":1,
        "lendablePercent":0,"borrowingLimitPercent":0,"limitResponse":)" + limit_response + "}}}");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void CreateSchema(const std::string& name, const std::string& level, const std::string& user) {
    auto r = K({"apply", "-f", "-"}, R"({"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema",
        "metadata":{"name":")" + name + R"("},"spec":{"priorityLevelConfiguration":{"name":")" + level + R"("},
        "matchingPrecedence":500,"distinguisherMethod":{"type":"ByUser"},"rules":[{"subjects":[{"kind":"User","user":{"name":")" +
                                         user + R"("}}],
        "resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"namespaces":["*"],"clusterScope":true}],
        "nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}]}]}})");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // Waits until the user's requests are classified by `schema` (the controller has the change).
  static bool ClassifiedAs(const std::string& token, const std::string& schema_uid) {
    for (int i = 0; i < 100; ++i) {
      if (Curl(token, "GET", "/api/v1/namespaces/apf/configmaps").Header("x-kubernetes-pf-flowschema-uid") == schema_uid) {
        return true;
      }
      std::this_thread::sleep_for(milliseconds(100));
    }
    return false;
  }
  // Lets `user` create configmaps in namespace apf, and sends labelled ones to the black hole.
  static void PrepareSlowCreates() {
    static bool done = false;
    if (done) return;
    done = true;
    ASSERT_EQ(K({"create", "namespace", "apf"}).exit_code, 0);
    ASSERT_EQ(K({"create", "role", "cm", "-n", "apf", "--verb=create,get,list", "--resource=configmaps"}).exit_code, 0);
    ASSERT_EQ(K({"create", "rolebinding", "cm", "-n", "apf", "--role=cm", "--user=flooder", "--user=gooduser"}).exit_code, 0);
    auto r = K({"apply", "-f", "-"}, R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration",
        "metadata":{"name":"slow"},"webhooks":[{"name":"slow.example.com","clientConfig":{"url":"https://127.0.0.1:)" +
                                         std::to_string(hole_port_) + R"(/"},
        "rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["configmaps"]}],
        "objectSelector":{"matchLabels":{"slow":"yes"}},"failurePolicy":"Ignore","sideEffects":"None",
        "timeoutSeconds":12,"admissionReviewVersions":["v1"]}]})");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static std::string SlowConfigMap(const std::string& name) {
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"(","labels":{"slow":"yes"}}})";
  }
  // Waits until the level has `n` executing requests (dump_priority_levels).
  static bool Executing(const std::string& level, int n) {
    for (int i = 0; i < 100; ++i) {
      std::string dump = Curl("", "GET", "/debug/api_priority_and_fairness/dump_priority_levels").body;
      size_t at = dump.find("\n" + level + ",");
      if (at != std::string::npos) {
        std::string row = dump.substr(at + 1, dump.find('\n', at + 1) - at - 1);
        // PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, ...
        std::vector<std::string> cells;
        size_t start = 0;
        while (start < row.size()) {
          size_t comma = row.find(',', start);
          std::string cell = row.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
          cell.erase(0, cell.find_first_not_of(' '));
          cells.push_back(cell);
          if (comma == std::string::npos) break;
          start = comma + 1;
        }
        if (cells.size() > 5 && cells[5] == std::to_string(n)) return true;
      }
      std::this_thread::sleep_for(milliseconds(100));
    }
    return false;
  }

  static std::string* dir_;
  static ServerProcess* server_;
  static int hole_;
  static int hole_port_;
};
std::string* ApfTest::dir_ = nullptr;
ServerProcess* ApfTest::server_ = nullptr;
int ApfTest::hole_ = -1;
int ApfTest::hole_port_ = 0;

TEST_F(ApfTest, ResponsesNameTheMatchedSchemaAndLevel) {
  // kubectl as system:masters: the exempt schema and level.
  Answer admin = Curl("", "GET", "/api/v1/namespaces/default/configmaps");
  EXPECT_EQ(admin.code, 200);
  EXPECT_EQ(admin.Header("x-kubernetes-pf-flowschema-uid"), Uid("flowschema/exempt"));
  EXPECT_EQ(admin.Header("x-kubernetes-pf-prioritylevel-uid"), Uid("prioritylevelconfiguration/exempt"));
  // An ordinary authenticated user: global-default (service accounts and users not matched before).
  Answer good = Curl("good-token-0123456789", "GET", "/api/v1/namespaces/default/configmaps");
  EXPECT_EQ(good.code, 403);  // not authorized, but classified first, as kube orders the filters
  EXPECT_EQ(good.Header("x-kubernetes-pf-flowschema-uid"), Uid("flowschema/global-default"));
  EXPECT_EQ(good.Header("x-kubernetes-pf-prioritylevel-uid"), Uid("prioritylevelconfiguration/global-default"));
  // Health probes of any user: the "probes" schema, on the exempt level.
  Answer probe = Curl("good-token-0123456789", "GET", "/healthz");
  EXPECT_EQ(probe.code, 200);
  EXPECT_EQ(probe.Header("x-kubernetes-pf-flowschema-uid"), Uid("flowschema/probes"));
  EXPECT_EQ(probe.Header("x-kubernetes-pf-prioritylevel-uid"), Uid("prioritylevelconfiguration/exempt"));
}

TEST_F(ApfTest, SaturatedLowPriorityUserGets429WhileOthersAreServed) {
  PrepareSlowCreates();
  CreateLevel("tiny", R"({"type":"Reject"})");
  CreateSchema("flooders", "tiny", "flooder");
  const std::string fs_uid = Uid("flowschema/flooders");
  const std::string pl_uid = Uid("prioritylevelconfiguration/tiny");
  ASSERT_FALSE(fs_uid.empty());
  // A new level and schema act without a restart.
  ASSERT_TRUE(ClassifiedAs("flood-token-0123456789", fs_uid));
  EXPECT_EQ(K({"get", "flowschema", "flooders", "-o", "jsonpath={.status.conditions[?(@.type==\"Dangling\")].reason}"}).out,
            "Found");

  std::atomic<int> slow_code{0};
  std::thread holder([&] { slow_code = Curl("flood-token-0123456789", "POST", "/api/v1/namespaces/apf/configmaps", SlowConfigMap("held")).code; });
  ASSERT_TRUE(Executing("tiny", 1));

  Answer refused = Curl("flood-token-0123456789", "GET", "/api/v1/namespaces/apf/configmaps");
  EXPECT_EQ(refused.code, 429) << server_->log().substr(server_->log().size() > 4000 ? server_->log().size() - 4000 : 0);
  EXPECT_EQ(refused.body, "Too many requests, please try again later.\n");
  EXPECT_EQ(refused.Header("retry-after"), "1");
  EXPECT_EQ(refused.Header("content-type"), "text/plain; charset=utf-8");
  EXPECT_EQ(refused.Header("x-kubernetes-pf-flowschema-uid"), fs_uid);
  EXPECT_EQ(refused.Header("x-kubernetes-pf-prioritylevel-uid"), pl_uid);

  // Everyone else is answered meanwhile: kubectl (system:masters) and another user.
  auto pods = K({"get", "pods", "-A"});
  EXPECT_EQ(pods.exit_code, 0) << pods.err;
  Answer good = Curl("good-token-0123456789", "GET", "/api/v1/namespaces/apf/configmaps");
  EXPECT_EQ(good.code, 200) << good.body;
  // A kube-system service account (as controllers run): kube-system-service-accounts on workload-high.
  std::string sa_token = K({"create", "token", "default", "-n", "kube-system"}).out;
  while (!sa_token.empty() && sa_token.back() == '\n') sa_token.pop_back();
  ASSERT_FALSE(sa_token.empty());
  Answer controller = Curl(sa_token, "GET", "/version");
  EXPECT_EQ(controller.code, 200) << controller.body;
  EXPECT_EQ(controller.Header("x-kubernetes-pf-flowschema-uid"), Uid("flowschema/kube-system-service-accounts"));
  EXPECT_EQ(controller.Header("x-kubernetes-pf-prioritylevel-uid"), Uid("prioritylevelconfiguration/workload-high"));
  // A lease renewal by that account: system-leader-election on leader-election (403 without RBAC,
  // but classified and answered, not queued behind the flood).
  Answer lease = Curl(sa_token, "PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x",
                      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"x"}})");
  EXPECT_NE(lease.code, 429);
  EXPECT_EQ(lease.Header("x-kubernetes-pf-flowschema-uid"), Uid("flowschema/system-leader-election"));
  EXPECT_EQ(lease.Header("x-kubernetes-pf-prioritylevel-uid"), Uid("prioritylevelconfiguration/leader-election"));

  std::string metrics = K({"get", "--raw", "/metrics"}).out;
  EXPECT_NE(metrics.find(R"(apiserver_flowcontrol_rejected_requests_total{flow_schema="flooders",priority_level="tiny",reason="concurrency-limit"} 1)"),
            std::string::npos);
  EXPECT_NE(metrics.find(R"(apiserver_flowcontrol_nominal_limit_seats{priority_level="tiny"} 1)"), std::string::npos);
  EXPECT_NE(metrics.find(R"(apiserver_flowcontrol_current_executing_requests{flow_schema="flooders",priority_level="tiny"} 1)"),
            std::string::npos);
  std::string queues = K({"get", "--raw", "/debug/api_priority_and_fairness/dump_queues"}).out;
  EXPECT_EQ(queues.rfind("PriorityLevelName, Index,  PendingRequests, ExecutingRequests, SeatsInUse, NextDispatchR, ", 0), 0u)
      << queues;
  EXPECT_NE(queues.find("\nworkload-low,"), std::string::npos);
  std::string requests = K({"get", "--raw", "/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1"}).out;
  EXPECT_NE(requests.find("flooders,"), std::string::npos) << requests;
  EXPECT_NE(requests.find("flooder,"), std::string::npos) << requests;

  // The refusal is audited, as kube's filter order (audit outside flow control) audits it.
  bool audited = false;
  for (int i = 0; i < 50 && !audited; ++i) {
    std::ifstream log(*dir_ + "/audit.log");
    for (std::string line; std::getline(log, line);) {
      audited = audited || (Contains(line, R"("stage":"ResponseComplete")") && Contains(line, R"("username":"flooder")") &&
                            Contains(line, R"("verb":"list")") && Contains(line, R"("code":429)"));
    }
    if (!audited) std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_TRUE(audited) << "no ResponseComplete event with code 429 for flooder's list";

  holder.join();
  EXPECT_EQ(slow_code.load(), 201);
  // The seat is free again.
  EXPECT_EQ(Curl("flood-token-0123456789", "GET", "/api/v1/namespaces/apf/configmaps").code, 200);
}

TEST_F(ApfTest, QueuedRequestTimesOutAfterAQuarterOfTheRequestTimeout) {
  PrepareSlowCreates();
  CreateLevel("narrow", R"({"type":"Queue","queuing":{"queues":1,"handSize":1,"queueLengthLimit":10}})");
  CreateSchema("narrow-users", "narrow", "gooduser");
  ASSERT_TRUE(ClassifiedAs("good-token-0123456789", Uid("flowschema/narrow-users")));
  std::thread holder([&] { Curl("good-token-0123456789", "POST", "/api/v1/namespaces/apf/configmaps", SlowConfigMap("held2")); });
  ASSERT_TRUE(Executing("narrow", 1));
  auto start = std::chrono::steady_clock::now();
  Answer waited = Curl("good-token-0123456789", "GET", "/api/v1/namespaces/apf/configmaps");
  auto waited_for = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(waited.code, 429);
  EXPECT_GE(waited_for, milliseconds(3000));  // it queued (--request-timeout 16s: 4s), not rejected at once
  std::string metrics = K({"get", "--raw", "/metrics"}).out;
  EXPECT_NE(metrics.find(R"(apiserver_flowcontrol_rejected_requests_total{flow_schema="narrow-users",priority_level="narrow",reason="time-out"} 1)"),
            std::string::npos);
  holder.join();
  K({"delete", "flowschema", "narrow-users"});
}

// kube's controller keeps the Dangling condition: NotFound while the level is missing, Found once it exists.
TEST_F(ApfTest, DanglingConditionFollowsTheLevel) {
  CreateSchema("orphan", "not-yet", "nobody");
  auto reason = [] {
    return K({"get", "flowschema", "orphan", "-o", "jsonpath={.status.conditions[?(@.type==\"Dangling\")].reason}"}).out;
  };
  auto wait_for = [&](const std::string& want) {
    for (int i = 0; i < 100 && reason() != want; ++i) std::this_thread::sleep_for(milliseconds(100));
    return reason();
  };
  EXPECT_EQ(wait_for("NotFound"), "NotFound");
  EXPECT_EQ(K({"get", "flowschema", "orphan", "-o", "jsonpath={.status.conditions[?(@.type==\"Dangling\")].message}"}).out,
            "This FlowSchema references the PriorityLevelConfiguration object named \"not-yet\" but there is no such object");
  CreateLevel("not-yet", R"({"type":"Reject"})");
  EXPECT_EQ(wait_for("Found"), "Found");
  K({"delete", "flowschema", "orphan"});
}

TEST(ApfDisabledTest, MaxInFlightInsteadWithoutHeaders) {
  ServerProcess server({"--enable-priority-and-fairness=false"});
  ASSERT_TRUE(server.ok()) << server.error();
  auto r = server.Kubectl({"get", "--raw", "/api/v1/namespaces/default/configmaps", "-v=8"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("X-Kubernetes-Pf-Flowschema-Uid"), std::string::npos);
  auto dump = server.Kubectl({"get", "--raw", "/debug/api_priority_and_fairness/dump_priority_levels"});
  EXPECT_NE(dump.exit_code, 0);
}

}  // namespace
}  // namespace capstan::e2e
