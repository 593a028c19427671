#include "admission/taint_nodes_by_condition.h"

#include <boost/json.hpp>

namespace capstan::admission {

namespace json = boost::json;

namespace {

std::string Str(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : "";
}

}  // namespace

Task<Status> TaintNodesByCondition::Admit(Attributes& a) {
  if (!a.resource || !a.resource->group.empty() || a.resource->resource != "nodes" || !a.subresource.empty()) {
    co_return Status();
  }
  if (!a.object) co_return ForbiddenFor(a, "unexpected type <nil>");
  json::object& node = *a.object;
  json::value& spec_v = node["spec"];
  if (!spec_v.is_object()) spec_v = json::object();
  json::value& taints_v = spec_v.as_object()["taints"];
  if (!taints_v.is_array()) taints_v = json::array();
  json::array& taints = taints_v.as_array();
  for (const auto& t : taints) {
    // kube's Taint.MatchTaint: same key and effect.
    if (t.is_object() && Str(t.as_object(), "key") == kTaintNodeNotReady && Str(t.as_object(), "effect") == "NoSchedule") {
      co_return Status();
    }
  }
  json::object taint;
  taint["key"] = kTaintNodeNotReady;
  taint["effect"] = "NoSchedule";
  taints.push_back(std::move(taint));
  co_return Status();
}

}  // namespace capstan::admission
