#include "audit/event.h"

#include <boost/json.hpp>
#include <cstdio>
#include <ctime>

#include "apimachinery/user_info_json.h"
#include "apimachinery/json_write.h"
#include "util/strings.h"

namespace capstan::audit {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

void PutIf(json::object& o, std::string_view key, const std::string& v) {
  if (!v.empty()) o[key] = v;
}

std::string TrimSpace(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

// Whether s looks like an IPv4 or IPv6 literal (what Go's net.ParseIP would accept, roughly).
bool LooksLikeIp(std::string_view s) {
  if (s.empty() || s.size() > 45) return false;
  bool colon = false;
  for (char c : s) {
    if (c == ':') colon = true;
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '.' || c == ':';
    if (!ok) return false;
  }
  if (!colon) {
    int dots = 0;
    for (char c : s) dots += c == '.';
    if (dots != 3) return false;
    for (char c : s) {
      if (!((c >= '0' && c <= '9') || c == '.')) return false;
    }
  }
  return true;
}

}  // namespace

std::vector<std::string> SourceIps(std::string_view xff, std::string_view real_ip, std::string_view remote) {
  std::vector<std::string> out;
  auto add = [&](const std::string& ip) {
    if (!LooksLikeIp(ip)) return;
    for (const auto& x : out) {
      if (x == ip) return;
    }
    out.push_back(ip);
  };
  while (!xff.empty()) {
    size_t comma = xff.find(',');
    add(TrimSpace(xff.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    xff.remove_prefix(comma + 1);
  }
  add(TrimSpace(real_ip));
  std::string_view host = remote;
  if (!host.empty() && host.front() == '[') {
    size_t close = host.find(']');
    host = close == std::string_view::npos ? std::string_view() : host.substr(1, close - 1);
  } else if (size_t colon = host.rfind(':'); colon != std::string_view::npos && host.find(':') == colon) {
    host = host.substr(0, colon);
  }
  add(std::string(host));
  return out;
}

json::object EventToJson(const Event& e) {
  json::object o;
  o["kind"] = "Event";
  o["apiVersion"] = "audit.k8s.io/v1";
  o["level"] = std::string(LevelName(e.level));
  o["auditID"] = e.audit_id;
  o["stage"] = std::string(StageName(e.stage));
  o["requestURI"] = e.request_uri;
  o["verb"] = e.verb;
  o["user"] = am::UserInfoToJson(e.user);
  if (e.impersonated_user) o["impersonatedUser"] = am::UserInfoToJson(*e.impersonated_user);
  if (!e.source_ips.empty()) {
    json::array a;
    for (const auto& ip : e.source_ips) a.emplace_back(ip);
    o["sourceIPs"] = std::move(a);
  }
  PutIf(o, "userAgent", e.user_agent);
  if (e.object_ref) {
    const ObjectReference& r = *e.object_ref;
    json::object ref;
    PutIf(ref, "resource", r.resource);
    PutIf(ref, "namespace", r.namespace_);
    PutIf(ref, "name", r.name);
    PutIf(ref, "uid", r.uid);
    PutIf(ref, "apiGroup", r.api_group);
    PutIf(ref, "apiVersion", r.api_version);
    PutIf(ref, "resourceVersion", r.resource_version);
    PutIf(ref, "subresource", r.subresource);
    o["objectRef"] = std::move(ref);
  }
  if (e.response_status) o["responseStatus"] = *e.response_status;
  if (e.request_object) o["requestObject"] = *e.request_object;
  if (e.response_object) o["responseObject"] = *e.response_object;
  o["requestReceivedTimestamp"] = am::FormatRfc3339Micro(e.request_received);
  o["stageTimestamp"] = am::FormatRfc3339Micro(e.stage_timestamp);
  if (!e.annotations.empty()) {
    json::object an;
    for (const auto& [k, v] : e.annotations) an[k] = v;
    o["annotations"] = std::move(an);
  }
  return o;
}

std::string EventToJsonLine(const Event& e) {
  std::string s = am::ToJson(EventToJson(e));
  s.push_back('\n');
  return s;
}

}  // namespace capstan::audit

namespace capstan::audit {

namespace {

// Go's time.RFC3339Nano in UTC: fractional seconds with the trailing zeros cut, none when zero.
std::string Rfc3339Nano(am::Timestamp t) {
  std::time_t secs = static_cast<std::time_t>(t.seconds);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out = buf;
  if (t.nanos > 0) {
    char frac[16];
    std::snprintf(frac, sizeof frac, ".%09d", t.nanos);
    std::string f = frac;
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  return out + "Z";
}

// kube's auditStringSlice: each element %q-quoted, joined by commas.
std::string QuotedList(const std::vector<std::string>& list) {
  std::string out;
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) out.push_back(',');
    out += GoQuote(list[i]);
  }
  return out;
}

}  // namespace

std::string EventToLegacyLine(const Event& e) {
  std::string username = "<none>";
  std::string groups = "<none>";
  if (!e.user.name.empty()) {
    username = e.user.name;
    if (!e.user.groups.empty()) groups = QuotedList(e.user.groups);
  }
  std::string asuser = "<self>";
  std::string asgroups = "<lookup>";
  if (e.impersonated_user) {
    asuser = e.impersonated_user->name;
    if (!e.impersonated_user->groups.empty()) asgroups = QuotedList(e.impersonated_user->groups);
  }
  std::string ns = "<none>";
  if (e.object_ref && !e.object_ref->namespace_.empty()) ns = e.object_ref->namespace_;
  std::string response = "<deferred>";
  if (e.response_status) {
    const json::value* code = e.response_status->if_contains("code");
    boost::system::error_code ec;
    int64_t n = code && code->is_number() ? code->to_number<int64_t>(ec) : 0;
    response = std::to_string(ec ? 0 : n);
  }
  std::string ip = e.source_ips.empty() ? "<unknown>" : e.source_ips.front();
  return Rfc3339Nano(e.request_received) + " AUDIT: id=" + GoQuote(e.audit_id) +
         " stage=" + GoQuote(StageName(e.stage)) + " ip=" + GoQuote(ip) + " method=" + GoQuote(e.verb) +
         " user=" + GoQuote(username) + " groups=" + GoQuote(groups) + " as=" + GoQuote(asuser) +
         " asgroups=" + GoQuote(asgroups) + " user-agent=" + GoQuote(e.user_agent) + " namespace=" + GoQuote(ns) +
         " uri=" + GoQuote(e.request_uri) + " response=\"" + response + "\"\n";
}

}  // namespace capstan::audit
