#include "admission/limit_ranger.h"

#include <algorithm>
#include <boost/json.hpp>

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
  if (v.is_string()) return std::string(v.as_string());
  auto q = am::ParseQuantityJson(v);
  return q.ok() ? q->String() : json::serialize(v);
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

// kube's minConstraint / maxConstraint for one resource of one container.
void Check(const json::object& item, const json::object& c, std::vector<std::string>& errs) {
  const json::object* res = ObjectAt(c, "resources");
  const json::object* requests = res ? ObjectAt(*res, "requests") : nullptr;
  const json::object* limits = res ? ObjectAt(*res, "limits") : nullptr;
  auto get = [](const json::object* list, const std::string& k) -> std::optional<am::Quantity> {
    if (!list) return std::nullopt;
    const json::value* v = list->if_contains(k);
    if (!v) return std::nullopt;
    auto q = am::ParseQuantityJson(*v);
    if (!q.ok()) return std::nullopt;
    return *q;
  };
  if (const json::object* min = ObjectAt(item, "min")) {
    for (const auto& [kv, ev] : *min) {
      std::string k(kv);
      auto enforced = am::ParseQuantityJson(ev);
      if (!enforced.ok()) continue;
      auto req = get(requests, k), lim = get(limits, k);
      if (!req) {
        errs.push_back("minimum " + k + " usage per Container is " + QuantityText(ev) + ".  No request is specified");
      } else if (req->Cmp(*enforced) < 0) {
        errs.push_back("minimum " + k + " usage per Container is " + QuantityText(ev) + ", but request is " +
                       QuantityText(requests->at(k)));
      } else if (lim && lim->Cmp(*enforced) < 0) {
        errs.push_back("minimum " + k + " usage per Container is " + QuantityText(ev) + ", but limit is " +
                       QuantityText(limits->at(k)));
      }
    }
  }
  if (const json::object* max = ObjectAt(item, "max")) {
    for (const auto& [kv, ev] : *max) {
      std::string k(kv);
      auto enforced = am::ParseQuantityJson(ev);
      if (!enforced.ok()) continue;
      auto req = get(requests, k), lim = get(limits, k);
      if (!lim) {
        errs.push_back("maximum " + k + " usage per Container is " + QuantityText(ev) + ".  No limit is specified");
      } else if (lim->Cmp(*enforced) > 0) {
        errs.push_back("maximum " + k + " usage per Container is " + QuantityText(ev) + ", but limit is " +
                       QuantityText(limits->at(k)));
      } else if (req && req->Cmp(*enforced) > 0) {
        errs.push_back("maximum " + k + " usage per Container is " + QuantityText(ev) + ", but request is " +
                       QuantityText(requests->at(k)));
      }
    }
  }
}

}  // namespace

Task<StatusOr<std::vector<json::object>>> LimitRanger::ContainerItems(const Attributes& a) {
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
      if (!item.is_object()) continue;
      const json::value* type = item.as_object().if_contains("type");
      if (type && type->is_string() && type->as_string() == "Container") items.push_back(item.as_object());
    }
  }
  co_return items;
}

Task<Status> LimitRanger::Admit(Attributes& a) {
  if (!IsPod(a) || !a.object) co_return Status();
  json::value* spec_v = a.object->if_contains("spec");
  if (!spec_v || !spec_v->is_object()) co_return Status();
  auto items = co_await ContainerItems(a);
  if (!items.ok()) co_return items.status();
  std::vector<std::string> notes;
  for (const auto& item : *items) {
    const json::object* limits = ObjectAt(item, "default");
    const json::object* requests = ObjectAt(item, "defaultRequest");
    MergeDefaults(spec_v->as_object(), "containers", "container", limits, requests, notes);
    MergeDefaults(spec_v->as_object(), "initContainers", "init container", limits, requests, notes);
  }
  if (!notes.empty()) {
    json::object& md = EnsureObject(*a.object, "metadata");
    EnsureObject(md, "annotations")["kubernetes.io/limit-ranger"] = "LimitRanger plugin set: " + Join(notes, "; ");
  }
  co_return Status();
}

Task<Status> LimitRanger::Validate(const Attributes& a) {
  if (!IsPod(a) || !a.object) co_return Status();
  const json::object* spec = ObjectAt(*a.object, "spec");
  if (!spec) co_return Status();
  auto items = co_await ContainerItems(a);
  if (!items.ok()) co_return items.status();
  std::vector<std::string> errs;
  for (const auto& item : *items) {
    for (const char* list : {"initContainers", "containers"}) {
      const json::value* cs = spec->if_contains(list);
      if (!cs || !cs->is_array()) continue;
      for (const auto& c : cs->as_array()) {
        if (c.is_object()) Check(item, c.as_object(), errs);
      }
    }
  }
  if (errs.empty()) co_return Status();
  co_return ForbiddenFor(a, errs.size() == 1 ? errs[0] : "[" + Join(errs, ", ") + "]");
}

}  // namespace capstan::admission
