#include "audit/event.h"

#include <gtest/gtest.h>

#include "apimachinery/json_write.h"

namespace capstan::audit {
namespace {

TEST(EventTest, JsonHasKubesFieldsInOrderAndOmitsEmpty) {
  Event e;
  e.level = Level::kMetadata;
  e.audit_id = "id-1";
  e.stage = Stage::kResponseComplete;
  e.request_uri = "/api/v1/namespaces/default/configmaps?limit=500";
  e.verb = "list";
  e.user = UserInfo{"admin", "", {"system:masters", "system:authenticated"}, {}};
  e.source_ips = {"127.0.0.1"};
  e.user_agent = "kubectl/v1.31.0";
  ObjectReference r;
  r.resource = "configmaps";
  r.namespace_ = "default";
  r.api_version = "v1";
  e.object_ref = r;
  boost::json::object st;
  st["metadata"] = boost::json::object();
  st["code"] = 200;
  e.response_status = st;
  e.request_received = {1700000000, 123456789};
  e.stage_timestamp = {1700000001, 5000};
  e.annotations["authorization.k8s.io/decision"] = "allow";
  EXPECT_EQ(EventToJsonLine(e),
            "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"Metadata\",\"auditID\":\"id-1\","
            "\"stage\":\"ResponseComplete\",\"requestURI\":\"/api/v1/namespaces/default/configmaps?limit=500\","
            "\"verb\":\"list\",\"user\":{\"username\":\"admin\",\"groups\":[\"system:masters\",\"system:"
            "authenticated\"]},\"sourceIPs\":[\"127.0.0.1\"],\"userAgent\":\"kubectl/v1.31.0\",\"objectRef\":{"
            "\"resource\":\"configmaps\",\"namespace\":\"default\",\"apiVersion\":\"v1\"},\"responseStatus\":{"
            "\"metadata\":{},\"code\":200},\"requestReceivedTimestamp\":\"2023-11-14T22:13:20.123456Z\","
            "\"stageTimestamp\":\"2023-11-14T22:13:21.000005Z\",\"annotations\":{\"authorization.k8s.io/decision\":"
            "\"allow\"}}\n");
}

TEST(EventTest, SourceIpsFollowForwardedForThenRealIpThenPeer) {
  EXPECT_EQ(SourceIps("", "", "127.0.0.1:5555"), std::vector<std::string>({"127.0.0.1"}));
  EXPECT_EQ(SourceIps("10.0.0.1, 10.0.0.2", "10.0.0.3", "[::1]:443"),
            std::vector<std::string>({"10.0.0.1", "10.0.0.2", "10.0.0.3", "::1"}));
  EXPECT_EQ(SourceIps("junk, 10.0.0.1", "10.0.0.1", "10.0.0.1:1"), std::vector<std::string>({"10.0.0.1"}));
}

}  // namespace
}  // namespace capstan::audit
