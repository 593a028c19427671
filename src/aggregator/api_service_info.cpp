#include "aggregator/api_service_info.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>

#include "apimachinery/version_priority.h"
#include "server/http/upstream.h"
#include "util/strings.h"

namespace capstan::aggregator {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

std::string Str(const json::object& o, std::string_view k) {
  const json::value* v = o.if_contains(k);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}
int64_t Int(const json::object& o, std::string_view k, int64_t def) {
  const json::value* v = o.if_contains(k);
  return v && v->is_int64() ? v->as_int64() : def;
}
const json::object* Obj(const json::object& o, std::string_view k) {
  const json::value* v = o.if_contains(k);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

}  // namespace

std::optional<ApiServiceInfo> ParseApiService(const json::object& svc) {
  ApiServiceInfo info;
  if (const json::object* md = Obj(svc, "metadata")) {
    info.name = Str(*md, "name");
    info.resource_version = Str(*md, "resourceVersion");
  }
  const json::object* spec = Obj(svc, "spec");
  if (!spec) return std::nullopt;
  info.group = Str(*spec, "group");
  info.version = Str(*spec, "version");
  if (info.version.empty()) return std::nullopt;
  info.group_priority_minimum = Int(*spec, "groupPriorityMinimum", 0);
  info.version_priority = Int(*spec, "versionPriority", 0);
  if (const json::object* s = Obj(*spec, "service")) {
    info.remote = true;
    info.service_namespace = Str(*s, "namespace");
    info.service_name = Str(*s, "name");
    info.port = static_cast<int>(Int(*s, "port", 443));
  }
  std::string ca = Str(*spec, "caBundle");
  if (!ca.empty() && !Base64Decode(ca, info.ca_pem)) info.ca_pem.clear();
  if (const json::value* v = spec->if_contains("insecureSkipTLSVerify"); v && v->is_bool()) {
    info.insecure_skip_tls_verify = v->as_bool();
  }
  if (const json::object* st = Obj(svc, "status")) {
    if (const json::value* cs = st->if_contains("conditions"); cs && cs->is_array()) {
      for (const auto& c : cs->as_array()) {
        if (c.is_object() && Str(c.as_object(), "type") == "Available") {
          info.available = Str(c.as_object(), "status") == "True";
        }
      }
    }
  }
  return info;
}

std::string EscapeExtraKey(const std::string& key) { return PercentEncode(key, "$&+:=@"); }

void SetProxyHeaders(http::Headers& h, const UserInfo& user) {
  std::vector<std::string> drop;
  for (const auto& f : h.fields()) {
    std::string n = ToLower(f.name);
    if (n == "authorization" || n == "x-remote-user" || n == "x-remote-group" || n == "x-remote-uid" ||
        n.starts_with("x-remote-extra-") || n == "impersonate-user" || n == "impersonate-group" ||
        n == "impersonate-uid" || n.starts_with("impersonate-extra-") || http::IsHopByHop(n)) {
      drop.push_back(f.name);
    }
  }
  for (const auto& n : drop) h.Remove(n);
  h.Add("X-Remote-User", user.name);
  for (const auto& g : user.groups) h.Add("X-Remote-Group", g);
  for (const auto& [k, vals] : user.extra) {
    for (const auto& v : vals) h.Add("X-Remote-Extra-" + EscapeExtraKey(k), v);
  }
}

std::vector<GroupOrder> OrderGroups(const std::vector<ApiServiceInfo>& services) {
  struct Acc {
    int64_t priority = 0;
    std::vector<const ApiServiceInfo*> versions;
  };
  std::map<std::string, Acc> groups;
  for (const auto& s : services) {
    Acc& a = groups[s.group];
    if (a.versions.empty() || s.group_priority_minimum > a.priority) a.priority = s.group_priority_minimum;
    a.versions.push_back(&s);
  }
  std::vector<std::pair<std::string, Acc>> sorted(groups.begin(), groups.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) {
    if (x.second.priority != y.second.priority) return x.second.priority > y.second.priority;
    return x.first < y.first;
  });
  std::vector<GroupOrder> out;
  for (auto& [name, acc] : sorted) {
    std::stable_sort(acc.versions.begin(), acc.versions.end(), [](const ApiServiceInfo* x, const ApiServiceInfo* y) {
      if (x->version_priority != y->version_priority) return x->version_priority > y->version_priority;
      return am::KubeAwareVersionLess(x->version, y->version);
    });
    GroupOrder g;
    g.group = name;
    for (const auto* v : acc.versions) g.versions.push_back(v->version);
    out.push_back(std::move(g));
  }
  return out;
}

json::object VersionDiscoveryFromResourceList(const json::object& list, const std::string& group,
                                              const std::string& version, bool stale) {
  json::object ver;
  ver["version"] = version;
  json::array resources;
  const json::value* rl = list.if_contains("resources");
  if (rl && rl->is_array()) {
    // Parents first, then their subresources ("parent/sub").
    std::map<std::string, size_t> index;
    for (const auto& rv : rl->as_array()) {
      if (!rv.is_object()) continue;
      const json::object& r = rv.as_object();
      std::string name = Str(r, "name");
      if (name.empty() || name.find('/') != std::string::npos) continue;
      json::object d;
      d["resource"] = name;
      json::object rk;
      rk["group"] = r.contains("group") ? Str(r, "group") : group;
      rk["version"] = r.contains("version") ? Str(r, "version") : version;
      rk["kind"] = Str(r, "kind");
      d["responseKind"] = std::move(rk);
      const json::value* ns = r.if_contains("namespaced");
      d["scope"] = ns && ns->is_bool() && ns->as_bool() ? "Namespaced" : "Cluster";
      d["singularResource"] = Str(r, "singularName");
      d["verbs"] = r.contains("verbs") && r.at("verbs").is_array() ? r.at("verbs") : json::value(json::array());
      for (const char* k : {"shortNames", "categories"}) {
        if (const json::value* v = r.if_contains(k); v && v->is_array() && !v->as_array().empty()) d[k] = *v;
      }
      index[name] = resources.size();
      resources.push_back(std::move(d));
    }
    for (const auto& rv : rl->as_array()) {
      if (!rv.is_object()) continue;
      const json::object& r = rv.as_object();
      std::string name = Str(r, "name");
      size_t slash = name.find('/');
      if (slash == std::string::npos) continue;
      auto it = index.find(name.substr(0, slash));
      if (it == index.end()) continue;
      json::object sub;
      sub["subresource"] = name.substr(slash + 1);
      json::object sk;
      sk["group"] = r.contains("group") ? Str(r, "group") : group;
      sk["version"] = r.contains("version") ? Str(r, "version") : version;
      sk["kind"] = Str(r, "kind");
      sub["responseKind"] = std::move(sk);
      sub["verbs"] = r.contains("verbs") && r.at("verbs").is_array() ? r.at("verbs") : json::value(json::array());
      json::object& parent = resources[it->second].as_object();
      if (!parent.contains("subresources")) parent["subresources"] = json::array();
      parent["subresources"].as_array().push_back(std::move(sub));
    }
  }
  ver["resources"] = std::move(resources);
  ver["freshness"] = stale ? "Stale" : "Current";
  return ver;
}

}  // namespace capstan::aggregator
