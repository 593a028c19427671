#include "aggregator/aggregator.h"

#include <boost/json.hpp>
#include <set>

#include "aggregator/json_helpers.h"
#include "apimachinery/errors.h"
#include "apimachinery/json_parse.h"
#include "apimachinery/time_util.h"
#include "registry/rest.h"
#include "util/log.h"

namespace capstan::aggregator {

namespace json = boost::json;
namespace am = capstan::apimachinery;
using namespace detail;

Task<Aggregator::ProbeResult> Aggregator::Check(const ApiServiceInfo& svc) {
  auto mark_stale = [&] {
    std::lock_guard lock(mu_);
    auto it = discovery_.find(svc.name);
    if (it != discovery_.end()) it->second.stale = true;
  };
  auto fail = [&](std::string reason, std::string message) {
    mark_stale();
    return ProbeResult{"False", std::move(reason), std::move(message)};
  };
  auto snap = apis_.Snapshot();
  const auto* services = snap->FindResource("", "v1", "services", "");
  const auto* endpoints = snap->FindResource("", "v1", "endpoints", "");
  if (!services || !services->getter || !endpoints || !endpoints->getter) {
    co_return fail("ServiceAccessError", "services are not served");
  }
  registry::Context rctx;
  rctx.namespace_ = svc.service_namespace;
  auto service = co_await services->getter->Get(rctx, svc.service_name, {});
  if (!service.ok()) {
    if (am::IsNotFound(service.status())) {
      co_return fail("ServiceNotFound", "service/" + svc.service_name + " in " + Quote(svc.service_namespace) +
                                            " is not present");
    }
    co_return fail("ServiceAccessError", service.status().message());
  }
  const json::object* spec = Obj(*service, "spec");
  if (!spec || Str(*spec, "type") != "ExternalName") {
    std::string port_name;
    bool found = false;
    if (const json::array* ports = spec ? Arr(*spec, "ports") : nullptr) {
      for (const auto& p : *ports) {
        if (!p.is_object()) continue;
        const json::value* pv = p.as_object().if_contains("port");
        if (pv && pv->is_int64() && pv->as_int64() == svc.port) {
          port_name = Str(p.as_object(), "name");
          found = true;
          break;
        }
      }
    }
    if (!found) {
      co_return fail("ServicePortError", "service/" + svc.service_name + " in " + Quote(svc.service_namespace) +
                                             " is not listening on port " + std::to_string(svc.port));
    }
    auto eps = co_await endpoints->getter->Get(rctx, svc.service_name, {});
    if (!eps.ok()) {
      if (am::IsNotFound(eps.status())) {
        co_return fail("EndpointsNotFound", "cannot find endpoints for service/" + svc.service_name + " in " +
                                                Quote(svc.service_namespace));
      }
      co_return fail("EndpointsAccessError", eps.status().message());
    }
    bool active = false;
    if (const json::array* subsets = Arr(*eps, "subsets")) {
      for (const auto& sub : *subsets) {
        if (!sub.is_object()) continue;
        const json::array* addrs = Arr(sub.as_object(), "addresses");
        if (!addrs || addrs->empty()) continue;
        if (const json::array* ports = Arr(sub.as_object(), "ports")) {
          for (const auto& p : *ports) {
            if (p.is_object() && Str(p.as_object(), "name") == port_name) active = true;
          }
        }
      }
    }
    if (!active) {
      co_return fail("MissingEndpoints", "endpoints for service/" + svc.service_name + " in " +
                                             Quote(svc.service_namespace) + " have no addresses with port name " +
                                             Quote(port_name));
    }
  }
  if (!opts_.resolve_service) co_return fail("FailedDiscoveryCheck", "service resolution is not available");
  auto target = co_await opts_.resolve_service(svc.service_namespace, svc.service_name, svc.port);
  if (!target.ok()) co_return fail("FailedDiscoveryCheck", target.status().message());
  std::string url = "https://" + *target + "/apis/" + svc.group + "/" + svc.version;
  auto client = ClientFor(svc);
  if (!client.ok()) co_return fail("FailedDiscoveryCheck", "failing or missing response from " + url + ": " + client.status().message());
  http::ClientRequest req;
  req.url = url;
  req.headers.Set("Accept", "application/json");
  req.headers.Set("X-Remote-User", "system:kube-aggregator");
  req.headers.Set("X-Remote-Group", "system:masters");
  req.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(opts_.probe_timeout);
  auto resp = co_await (*client)->Do(std::move(req));
  if (!resp.ok()) co_return fail("FailedDiscoveryCheck", "failing or missing response from " + url + ": " + resp.status().message());
  if (resp->status < 200 || resp->status > 299) {
    co_return fail("FailedDiscoveryCheck", "failing or missing response from " + url + ": bad status from " + url +
                                               ": " + std::to_string(resp->status));
  }
  auto parsed = am::ParseJsonValue(resp->body);
  {
    std::lock_guard lock(mu_);
    Discovery& d = discovery_[svc.name];
    if (parsed.ok() && parsed->is_object()) {
      d.resource_list = parsed->as_object();
      d.have = true;
      d.stale = false;
    } else {
      d.stale = true;
    }
  }
  co_return ProbeResult{"True", "Passed", "all checks passed"};
}

Task<void> Aggregator::WriteCondition(const std::string& name, const ProbeResult& r) {
  auto snap = apis_.Snapshot();
  const auto* main = snap->FindResource(kGroup, "v1", "apiservices", "");
  const auto* status = snap->FindResource(kGroup, "v1", "apiservices", "status");
  if (!main || !main->getter || !status || !status->updater) co_return;
  registry::Context ctx;
  auto current = co_await main->getter->Get(ctx, name, {});
  if (!current.ok()) co_return;
  if (const json::object* st = Obj(*current, "status")) {
    if (const json::array* cs = Arr(*st, "conditions")) {
      for (const auto& c : *cs) {
        if (!c.is_object() || Str(c.as_object(), "type") != "Available") continue;
        const json::object& co = c.as_object();
        if (Str(co, "status") == r.status && Str(co, "reason") == r.reason && Str(co, "message") == r.message) co_return;
      }
    }
  }
  if (unavailable_total_ && r.status == "False") unavailable_total_->With({name, r.reason})->Inc();
  registry::Context uctx;
  uctx.subresource = "status";
  uctx.name = name;
  auto outcome = co_await status->updater->Update(
      uctx, name,
      [r](const registry::Object* cur) -> Task<StatusOr<registry::Object>> {
        if (!cur) co_return am::NewNotFound({kGroup, "apiservices"}, "");
        registry::Object obj = *cur;
        json::object& st = obj["status"].is_object() ? obj["status"].as_object() : (obj["status"] = json::object()).as_object();
        json::value& cv = st["conditions"];
        if (!cv.is_array()) cv = json::array();
        json::array& cs = cv.as_array();
        std::string now = am::FormatRfc3339(am::Timestamp::Now());
        json::object cond{{"type", "Available"}, {"status", r.status}, {"lastTransitionTime", now},
                          {"reason", r.reason}, {"message", r.message}};
        bool replaced = false;
        for (auto& c : cs) {
          if (!c.is_object() || Str(c.as_object(), "type") != "Available") continue;
          if (Str(c.as_object(), "status") == r.status) cond["lastTransitionTime"] = c.as_object()["lastTransitionTime"];
          c = cond;
          replaced = true;
        }
        if (!replaced) cs.push_back(cond);
        co_return obj;
      },
      {});
  if (!outcome.ok()) {
    LogWarn("aggregator: cannot update APIService status", {{"apiservice", name}, {"error", outcome.status().message()}});
  } else {
    LogInfo("aggregator: APIService availability", {{"apiservice", name}, {"status", r.status}, {"reason", r.reason}});
  }
}

Task<std::string> Aggregator::Fingerprint(const ApiServiceInfo& svc) {
  auto snap = apis_.Snapshot();
  std::string fp = svc.resource_version;
  registry::Context rctx;
  rctx.namespace_ = svc.service_namespace;
  for (const char* res : {"services", "endpoints"}) {
    const auto* r = snap->FindResource("", "v1", res, "");
    if (!r || !r->getter) continue;
    auto obj = co_await r->getter->Get(rctx, svc.service_name, {});
    fp += "/" + (obj.ok() ? ResourceVersionOf(*obj) : std::string("-"));
  }
  co_return fp;
}

Task<void> Aggregator::SyncAll(bool force) {
  if (force && opts_.authentication_info) {
    Status st = co_await PublishAuthenticationInfo(apis_, *opts_.authentication_info);
    if (!st.ok()) LogWarn("aggregator: cannot publish extension-apiserver-authentication", {{"error", st.message()}});
  }
  std::vector<ApiServiceInfo> services = co_await ListApiServices();
  std::set<std::string> seen;
  for (const auto& svc : services) {
    if (!svc.remote) continue;
    seen.insert(svc.name);
    std::string fp = co_await Fingerprint(svc);
    auto it = fingerprints_.find(svc.name);
    if (!force && it != fingerprints_.end() && it->second == fp) continue;
    ProbeResult r = co_await Check(svc);
    if (unavailable_) unavailable_->With({svc.name})->Set(r.status == "True" ? 0 : 1);
    co_await WriteCondition(svc.name, r);
    // The status write changed the APIService's resourceVersion: fingerprint what is stored now.
    auto now = co_await GetApiService(svc.name);
    fingerprints_[svc.name] = now ? co_await Fingerprint(*now) : fp;
  }
  for (auto it = fingerprints_.begin(); it != fingerprints_.end();) {
    it = seen.count(it->first) ? std::next(it) : fingerprints_.erase(it);
  }
  std::lock_guard lock(mu_);
  for (auto it = discovery_.begin(); it != discovery_.end();) {
    it = seen.count(it->first) ? std::next(it) : discovery_.erase(it);
  }
}
}  // namespace capstan::aggregator
