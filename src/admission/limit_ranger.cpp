#include "admission/limit_ranger.h"

#include <algorithm>
#include <boost/json.hpp>
#include <climits>
#include <cstdio>
#include <map>

#include "admission/default_toleration_seconds.h"
#include "apimachinery/errors.h"
#include "apimachinery/quantity.h"
#include "util/strings.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

const json::object* ObjectAt(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

json::object& EnsureObject(json::object& o, std::string_view key) {
  json::value& v = o[key];
  if (!v.is_object()) v = json::object();
  return v.as_object();
}

std::string QuantityText(const json::value& v) {
  auto q = am::ParseQuantityJson(v);
  return q.ok() ? q->String() : (v.is_string() ? std::string(v.as_string()) : json::serialize(v));
}

// Fills missing limits/requests of each container in `list`; adds kube's annotation parts.
void MergeDefaults(json::object& spec, std::string_view list, const char* what, const json::object* limits,
                   const json::object* requests, std::vector<std::string>& notes) {
  json::value* cs = spec.if_contains(list);
  if (!cs || !cs->is_array()) return;
  for (auto& cv : cs->as_array()) {
    if (!cv.is_object()) continue;
    json::object& c = cv.as_object();
    std::string cname = c.if_contains("name") && c["name"].is_string() ? std::string(c["name"].as_string()) : "";
    std::vector<std::string> set_limits, set_requests;
    if ((!limits || limits->empty()) && (!requests || requests->empty())) continue;
    json::object& res = EnsureObject(c, "resources");
    if (limits && !limits->empty()) {
      json::object& l = EnsureObject(res, "limits");
      for (const auto& [k, v] : *limits) {
        if (l.contains(k)) continue;
        l[k] = v;
        set_limits.emplace_back(k);
      }
    }
    if (requests && !requests->empty()) {
      json::object& r = EnsureObject(res, "requests");
      for (const auto& [k, v] : *requests) {
        if (r.contains(k)) continue;
        r[k] = v;
        set_requests.emplace_back(k);
      }
    }
    std::sort(set_limits.begin(), set_limits.end());
    std::sort(set_requests.begin(), set_requests.end());
    if (!set_requests.empty()) notes.push_back(Join(set_requests, ", ") + " request for " + what + " " + cname);
    if (!set_limits.empty()) notes.push_back(Join(set_limits, ", ") + " limit for " + what + " " + cname);
  }
}

// A resource list (requests or limits) parsed; entries that do not parse are left out (validation
// of the object reports them).
using ResourceList = std::map<std::string, am::Quantity, std::less<>>;

ResourceList ParseList(const json::object* list) {
  ResourceList out;
  if (!list) return out;
  for (const auto& [k, v] : *list) {
    auto q = am::ParseQuantityJson(v);
    if (q.ok()) out.emplace(std::string(k), *q);
  }
  return out;
}

ResourceList ContainerList(const json::object& c, std::string_view which) {
  const json::object* res = ObjectAt(c, "resources");
  return ParseList(res ? ObjectAt(*res, which) : nullptr);
}

void AddTo(ResourceList& into, const ResourceList& add) {
  for (const auto& [k, q] : add) {
    auto it = into.find(k);
    if (it == into.end()) {
      into.emplace(k, q);
    } else {
      it->second = it->second.Add(q);
    }
  }
}

void MaxInto(ResourceList& into, const ResourceList& other) {
  for (const auto& [k, q] : other) {
    auto it = into.find(k);
    if (it == into.end()) {
      into.emplace(k, q);
    } else if (q.Cmp(it->second) > 0) {
      it->second = q;
    }
  }
}

// kube's podRequests / podLimits: the containers' sum, raised to what any init container needs (a
// restartable init container — a sidecar — adds to the sum and to every later init container).
ResourceList PodTotal(const json::object& spec, std::string_view which) {
  ResourceList total, sidecars, init_max;
  if (const json::value* cs = spec.if_contains("containers"); cs && cs->is_array()) {
    for (const auto& c : cs->as_array()) {
      if (c.is_object()) AddTo(total, ContainerList(c.as_object(), which));
    }
  }
  if (const json::value* cs = spec.if_contains("initContainers"); cs && cs->is_array()) {
    for (const auto& cv : cs->as_array()) {
      if (!cv.is_object()) continue;
      const json::object& c = cv.as_object();
      ResourceList own = ContainerList(c, which);
      const json::value* rp = c.if_contains("restartPolicy");
      if (rp && rp->is_string() && rp->as_string() == "Always") {
        AddTo(total, own);
        AddTo(sidecars, own);
        MaxInto(init_max, sidecars);
      } else {
        AddTo(own, sidecars);
        MaxInto(init_max, own);
      }
    }
  }
  MaxInto(total, init_max);
  return total;
}

// kube's requestLimitEnforcedValues: compared in milli-units when none of them overflows there.
struct Compared {
  int64_t request = 0, limit = 0, enforced = 0;
};
Compared Values(const am::Quantity* req, const am::Quantity* lim, const am::Quantity& enforced) {
  constexpr int64_t kMaxMilliValue = INT64_MAX / 1000;
  am::Quantity zero;
  const am::Quantity& r = req ? *req : zero;
  const am::Quantity& l = lim ? *lim : zero;
  Compared c{r.Value(), l.Value(), enforced.Value()};
  if (c.request <= kMaxMilliValue && c.limit <= kMaxMilliValue && c.enforced <= kMaxMilliValue) {
    c = {r.MilliValue(), l.MilliValue(), enforced.MilliValue()};
  }
  return c;
}

const am::Quantity* Find(const ResourceList& l, const std::string& k) {
  auto it = l.find(k);
  return it == l.end() ? nullptr : &it->second;
}

// kube's minConstraint, maxConstraint, maxRequestConstraint and limitRequestRatioConstraint for one
// item's min / max / maxLimitRequestRatio against one set of requests and limits.
class Constraints {
 public:
  Constraints(const json::object& item, std::string type) : item_(item), type_(std::move(type)) {}

  void Min(const ResourceList& requests, const ResourceList& limits, std::vector<std::string>& errs) const {
    ForEach("min", [&](const std::string& k, const am::Quantity& e, const std::string& et) {
      const am::Quantity* req = Find(requests, k);
      const am::Quantity* lim = Find(limits, k);
      Compared v = Values(req, lim, e);
      if (!req) {
        errs.push_back(Head("minimum", k, et) + ".  No request is specified");
      } else if (v.request < v.enforced) {
        errs.push_back(Head("minimum", k, et) + ", but request is " + req->String());
      } else if (lim && v.limit < v.enforced) {
        errs.push_back(Head("minimum", k, et) + ", but limit is " + lim->String());
      }
    });
  }

  void Max(const ResourceList& requests, const ResourceList& limits, std::vector<std::string>& errs) const {
    ForEach("max", [&](const std::string& k, const am::Quantity& e, const std::string& et) {
      const am::Quantity* req = Find(requests, k);
      const am::Quantity* lim = Find(limits, k);
      Compared v = Values(req, lim, e);
      if (!lim) {
        errs.push_back(Head("maximum", k, et) + ".  No limit is specified");
      } else if (v.limit > v.enforced) {
        errs.push_back(Head("maximum", k, et) + ", but limit is " + lim->String());
      } else if (req && v.request > v.enforced) {
        errs.push_back(Head("maximum", k, et) + ", but request is " + req->String());
      }
    });
  }

  // For a claim, which has no limits: max applies to its requests.
  void MaxRequest(const ResourceList& requests, std::vector<std::string>& errs) const {
    ForEach("max", [&](const std::string& k, const am::Quantity& e, const std::string& et) {
      const am::Quantity* req = Find(requests, k);
      Compared v = Values(req, nullptr, e);
      if (!req) {
        errs.push_back(Head("maximum", k, et) + ".  No request is specified");
      } else if (v.request > v.enforced) {
        errs.push_back(Head("maximum", k, et) + ", but request is " + req->String());
      }
    });
  }

  void Ratio(const ResourceList& requests, const ResourceList& limits, std::vector<std::string>& errs) const {
    ForEach("maxLimitRequestRatio", [&](const std::string& k, const am::Quantity& e, const std::string& et) {
      const am::Quantity* req = Find(requests, k);
      const am::Quantity* lim = Find(limits, k);
      Compared v = Values(req, lim, e);
      const std::string head = k + " max limit to request ratio per " + type_ + " is " + et;
      if (!req || v.request == 0) {
        errs.push_back(head + ", but no request is specified or request is 0");
        return;
      }
      if (!lim || v.limit == 0) {
        errs.push_back(head + ", but no limit is specified or limit is 0");
        return;
      }
      double observed = static_cast<double>(v.limit) / static_cast<double>(v.request);
      const double shown = observed;
      double allowed = static_cast<double>(e.Value());
      if (e.Value() <= INT64_MAX / 1000) {
        observed *= 1000;
        allowed = static_cast<double>(e.MilliValue());
      }
      if (observed > allowed) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%f", shown);  // Go's %f
        errs.push_back(head + ", but provided ratio is " + buf);
      }
    });
  }

 private:
  template <class F>
  void ForEach(std::string_view field, F f) const {
    const json::object* list = ObjectAt(item_, field);
    if (!list) return;
    for (const auto& [kv, ev] : *list) {
      auto enforced = am::ParseQuantityJson(ev);
      if (enforced.ok()) f(std::string(kv), *enforced, enforced->String());
    }
  }
  std::string Head(const char* what, const std::string& k, const std::string& enforced) const {
    return std::string(what) + " " + k + " usage per " + type_ + " is " + enforced;
  }

  const json::object& item_;
  std::string type_;
};

std::string ItemType(const json::object& item) {
  const json::value* t = item.if_contains("type");
  return t && t->is_string() ? std::string(t->as_string()) : "";
}

bool IsClaim(const Attributes& a) {
  return a.resource && a.resource->group.empty() && a.resource->resource == "persistentvolumeclaims" &&
         a.subresource.empty();
}

Status Refuse(const Attributes& a, const std::vector<std::string>& errs) {
  if (errs.empty()) return Status();
  return ForbiddenFor(a, errs.size() == 1 ? errs[0] : "[" + Join(errs, ", ") + "]");
}

}  // namespace

bool LimitRanger::Handles(const std::string& op) const { return op == "CREATE" || op == "UPDATE"; }

// kube's SupportsAttributes: pods on create (their containers cannot change later) and claims on
// create and update; never a subresource.
bool LimitRanger::Applies(const Attributes& a) {
  if (!a.object) return false;
  if (IsPod(a)) return a.operation == "CREATE";
  return IsClaim(a);
}

Task<StatusOr<std::vector<json::object>>> LimitRanger::Items(const Attributes& a) {
  std::vector<json::object> items;
  auto ranges = co_await list_("", "v1", "limitranges", a.namespace_);
  if (!ranges.ok()) {
    if (ranges.status().code() == 404) co_return items;
    co_return am::NewInternalError(ranges.status().message());
  }
  for (const auto& lr : *ranges) {
    const json::object* spec = ObjectAt(lr, "spec");
    const json::value* limits = spec ? spec->if_contains("limits") : nullptr;
    if (!limits || !limits->is_array()) continue;
    for (const auto& item : limits->as_array()) {
      if (item.is_object()) items.push_back(item.as_object());
    }
  }
  co_return items;
}

Task<Status> LimitRanger::Admit(Attributes& a) {
  if (!Applies(a) || !IsPod(a)) co_return Status();
  json::value* spec_v = a.object->if_contains("spec");
  if (!spec_v || !spec_v->is_object()) co_return Status();
  auto items = co_await Items(a);
  if (!items.ok()) co_return items.status();
  // kube's defaultContainerResourceRequirements: every Container item's default and defaultRequest,
  // a later item's value winning, merged into each container once.
  json::object limits, requests;
  for (const auto& item : *items) {
    if (ItemType(item) != "Container") continue;
    if (const json::object* d = ObjectAt(item, "default")) {
      for (const auto& [k, v] : *d) limits[k] = v;
    }
    if (const json::object* d = ObjectAt(item, "defaultRequest")) {
      for (const auto& [k, v] : *d) requests[k] = v;
    }
  }
  std::vector<std::string> notes;
  MergeDefaults(spec_v->as_object(), "containers", "container", &limits, &requests, notes);
  MergeDefaults(spec_v->as_object(), "initContainers", "init container", &limits, &requests, notes);
  if (!notes.empty()) {
    json::object& md = EnsureObject(*a.object, "metadata");
    EnsureObject(md, "annotations")["kubernetes.io/limit-ranger"] = "LimitRanger plugin set: " + Join(notes, "; ");
  }
  co_return Status();
}

Task<Status> LimitRanger::Validate(const Attributes& a) {
  if (!Applies(a)) co_return Status();
  const json::object* spec = ObjectAt(*a.object, "spec");
  if (!spec) co_return Status();
  auto items = co_await Items(a);
  if (!items.ok()) co_return items.status();
  std::vector<std::string> errs;
  if (IsClaim(a)) {
    // kube's PersistentVolumeClaimValidateLimitFunc: min and max against the claim's requests.
    const json::object* res = ObjectAt(*spec, "resources");
    ResourceList requests = ParseList(res ? ObjectAt(*res, "requests") : nullptr);
    for (const auto& item : *items) {
      if (ItemType(item) != "PersistentVolumeClaim") continue;
      Constraints c(item, "PersistentVolumeClaim");
      c.Min(requests, {}, errs);
      c.MaxRequest(requests, errs);
    }
    co_return Refuse(a, errs);
  }
  // kube's PodValidateLimitFunc: per container (containers, then init containers), then the pod's totals.
  for (const auto& item : *items) {
    const std::string type = ItemType(item);
    if (type == "Container") {
      Constraints c(item, type);
      for (const char* list : {"containers", "initContainers"}) {
        const json::value* cs = spec->if_contains(list);
        if (!cs || !cs->is_array()) continue;
        for (const auto& cv : cs->as_array()) {
          if (!cv.is_object()) continue;
          ResourceList requests = ContainerList(cv.as_object(), "requests");
          ResourceList limits = ContainerList(cv.as_object(), "limits");
          c.Min(requests, limits, errs);
          c.Max(requests, limits, errs);
          c.Ratio(requests, limits, errs);
        }
      }
    } else if (type == "Pod") {
      Constraints c(item, type);
      ResourceList requests = PodTotal(*spec, "requests");
      ResourceList limits = PodTotal(*spec, "limits");
      c.Min(requests, limits, errs);
      c.Max(requests, limits, errs);
      c.Ratio(requests, limits, errs);
    }
  }
  co_return Refuse(a, errs);
}

}  // namespace capstan::admission
