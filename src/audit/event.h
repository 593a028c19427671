// audit/event.h: one audit event (audit.k8s.io/v1 Event) and its JSON form.
//
// The filter fills an Event as the request goes (metadata at RequestReceived, response status,
// objects and annotations at the end) and hands a copy per stage to the backend; backends serialize
// it with EventToJson, in the field order kube writes (kind, apiVersion, level, auditID, stage,
// requestURI, verb, user, impersonatedUser, sourceIPs, userAgent, objectRef, responseStatus,
// requestObject, responseObject, requestReceivedTimestamp, stageTimestamp, annotations), empty fields
// omitted as Go's omitempty does. Values; thread-compatible.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "apimachinery/time_util.h"
#include "apimachinery/user_info.h"
#include "audit/policy.h"

namespace capstan::audit {

struct ObjectReference {
  std::string resource;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string api_group;
  std::string api_version;
  std::string resource_version;
  std::string subresource;
};

struct Event {
  Level level = Level::kNone;
  std::string audit_id;
  Stage stage = Stage::kRequestReceived;
  std::string request_uri;
  std::string verb;
  UserInfo user;
  std::optional<UserInfo> impersonated_user;
  std::vector<std::string> source_ips;
  std::string user_agent;
  std::optional<ObjectReference> object_ref;
  std::optional<boost::json::object> response_status;  // a metav1.Status (code, status, message, ...)
  std::optional<boost::json::value> request_object;
  std::optional<boost::json::value> response_object;
  apimachinery::Timestamp request_received;
  apimachinery::Timestamp stage_timestamp;
  std::map<std::string, std::string> annotations;
};

boost::json::object EventToJson(const Event& e);
// One JSON line (with the trailing newline), as the log backend writes it.
std::string EventToJsonLine(const Event& e);
// kube's legacy line (audit.EventString, --audit-log-format=legacy), with the trailing newline:
// <requestReceived RFC3339Nano> AUDIT: id="..." stage="..." ip="..." method="..." user="..."
// groups="..." as="..." asgroups="..." user-agent="..." namespace="..." uri="..." response="<code>".
std::string EventToLegacyLine(const Event& e);

// kube's utilnet.SourceIPs: the X-Forwarded-For entries, then X-Real-Ip, then the connection's address,
// each once. `remote_addr` is "ip:port" or "[ipv6]:port".
std::vector<std::string> SourceIps(std::string_view x_forwarded_for, std::string_view x_real_ip,
                                   std::string_view remote_addr);

}  // namespace capstan::audit
