#include "aggregator/aggregator.h"

#include <boost/json.hpp>
#include <set>

#include "aggregator/json_helpers.h"
#include "endpoints/discovery.h"

namespace capstan::aggregator {

namespace json = boost::json;
namespace am = capstan::apimachinery;
using namespace detail;

Task<void> Aggregator::ServeGroupList(http::RequestContext& ctx, const std::string& agg_version) {
  auto snap = apis_.Snapshot();
  std::vector<ApiServiceInfo> services = co_await ListApiServices();
  const bool aggregated = !agg_version.empty();
  // Legacy discovery lists available APIServices only; aggregated discovery lists a remote version
  // whose document was fetched at least once (Stale when the last fetch failed).
  std::vector<ApiServiceInfo> listed;
  for (const auto& s : services) {
    if (s.group.empty()) continue;
    if (!s.remote || s.available) {
      listed.push_back(s);
    } else if (aggregated && DiscoveryOf(s.name).have) {
      listed.push_back(s);
    }
  }
  json::object doc = aggregated ? endpoints::AggregatedDiscoveryJson(*snap, false, agg_version)
                                : endpoints::ApiGroupListJson(*snap);
  const char* key = aggregated ? "items" : "groups";
  std::vector<std::string> local_order;
  std::map<std::string, json::value> local;
  if (const json::array* items = Arr(doc, key)) {
    for (const auto& it : *items) {
      if (!it.is_object()) continue;
      std::string name;
      if (aggregated) {
        if (const json::object* md = Obj(it.as_object(), "metadata")) name = Str(*md, "name");
      } else {
        name = Str(it.as_object(), "name");
      }
      local_order.push_back(name);
      local[name] = it;
    }
  }
  // A local group without an APIService (a CRD's group) sorts as kube's CRD registration ranks it.
  std::set<std::string> registered;
  for (const auto& s : listed) registered.insert(s.group);
  for (const auto& name : local_order) {
    if (registered.count(name) || name == kGroup) continue;
    ApiServiceInfo crd;
    crd.group = name;
    crd.version = "v1";
    crd.group_priority_minimum = 1000;
    crd.version_priority = 100;
    listed.push_back(std::move(crd));
  }
  std::map<std::string, const ApiServiceInfo*> by_gv;
  for (const auto& s : listed) by_gv[s.group + "/" + s.version] = &s;
  json::array out;
  // The aggregator's own group always comes first, as kube lists it.
  if (auto own = local.find(kGroup); own != local.end()) {
    out.push_back(std::move(own->second));
    local.erase(own);
  }
  for (const auto& g : OrderGroups(listed)) {
    auto lit = local.find(g.group);
    if (lit != local.end()) {
      out.push_back(std::move(lit->second));
      local.erase(lit);
      continue;
    }
    json::array versions;
    for (const auto& v : g.versions) {
      const ApiServiceInfo* s = by_gv[g.group + "/" + v];
      if (!s || !s->remote) continue;
      if (aggregated) {
        Discovery d = DiscoveryOf(s->name);
        if (!d.have) {
          co_await Check(*s);
          d = DiscoveryOf(s->name);
        }
        if (!d.have) continue;
        versions.push_back(VersionDiscoveryFromResourceList(d.resource_list, g.group, v, d.stale));
      } else {
        versions.push_back(json::object{{"groupVersion", g.group + "/" + v}, {"version", v}});
      }
    }
    if (versions.empty()) continue;
    if (aggregated) {
      out.push_back(json::object{{"metadata", json::object{{"name", g.group}, {"creationTimestamp", nullptr}}},
                                 {"versions", std::move(versions)}});
    } else {
      json::value preferred = versions.front();
      out.push_back(json::object{{"name", g.group}, {"versions", std::move(versions)}, {"preferredVersion", preferred}});
    }
  }
  for (const auto& name : local_order) {
    auto lit = local.find(name);
    if (lit != local.end()) out.push_back(std::move(lit->second));
  }
  doc[key] = std::move(out);
  co_await WriteJson(ctx, doc,
                     aggregated ? "application/json;g=apidiscovery.k8s.io;v=" + agg_version + ";as=APIGroupDiscoveryList"
                                : "application/json");
}

Task<bool> Aggregator::ServeGroup(http::RequestContext& ctx, const std::string& group) {
  std::vector<ApiServiceInfo> services = co_await ListApiServices();
  std::vector<ApiServiceInfo> mine;
  for (const auto& s : services) {
    if (s.group == group && s.remote && s.available) mine.push_back(s);
  }
  if (mine.empty()) co_return false;
  auto order = OrderGroups(mine);
  json::array versions;
  for (const auto& v : order.front().versions) versions.push_back(json::object{{"groupVersion", group + "/" + v}, {"version", v}});
  json::value preferred = versions.front();
  json::object o{{"kind", "APIGroup"}, {"apiVersion", "v1"}, {"name", group}, {"versions", std::move(versions)},
                 {"preferredVersion", preferred}};
  co_await WriteJson(ctx, o, "application/json");
  co_return true;
}
}  // namespace capstan::aggregator
