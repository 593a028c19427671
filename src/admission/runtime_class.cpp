#include "admission/runtime_class.h"

#include <boost/json.hpp>

#include "admission/default_toleration_seconds.h"
#include "apimachinery/errors.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

const json::object* ObjectAt(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

}  // namespace

Task<Status> RuntimeClassPlugin::Admit(Attributes& a) {
  if (!IsPod(a) || !a.object) co_return Status();
  json::value* spec_v = a.object->if_contains("spec");
  if (!spec_v || !spec_v->is_object()) co_return Status();
  json::object& spec = spec_v->as_object();
  const json::value* rcn = spec.if_contains("runtimeClassName");
  if (!rcn || !rcn->is_string() || rcn->as_string().empty()) co_return Status();
  std::string name(rcn->as_string());
  auto rc = co_await get_("node.k8s.io", "v1", "runtimeclasses", "", name);
  if (!rc.ok()) {
    if (rc.status().code() == 404) co_return ForbiddenFor(a, "pod rejected: RuntimeClass \"" + name + "\" not found");
    co_return am::NewInternalError(rc.status().message());
  }
  if (const json::object* overhead = ObjectAt(*rc, "overhead")) {
    if (const json::object* fixed = ObjectAt(*overhead, "podFixed")) {
      const json::object* given = ObjectAt(spec, "overhead");
      if (given && *given != *fixed) {
        co_return ForbiddenFor(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
      }
      spec["overhead"] = *fixed;
    }
  }
  if (const json::object* sched = ObjectAt(*rc, "scheduling")) {
    if (const json::object* sel = ObjectAt(*sched, "nodeSelector")) {
      json::value& ns = spec["nodeSelector"];
      if (!ns.is_object()) ns = json::object();
      for (const auto& [k, v] : *sel) {
        const json::value* cur = ns.as_object().if_contains(k);
        if (cur && *cur != v) {
          auto text = [](const json::value& x) { return x.is_string() ? std::string(x.as_string()) : json::serialize(x); };
          co_return ForbiddenFor(a, "conflict: runtimeClass.scheduling.nodeSelector[" + std::string(k) + "] = " + text(v) +
                                        "; pod.spec.nodeSelector[" + std::string(k) + "] = " + text(*cur));
        }
        ns.as_object()[k] = v;
      }
    }
    if (const json::value* tols = sched->if_contains("tolerations"); tols && tols->is_array()) {
      json::value& list = spec["tolerations"];
      if (!list.is_array()) list = json::array();
      for (const auto& t : tols->as_array()) {
        bool present = false;
        for (const auto& have : list.as_array()) present = present || have == t;
        if (!present) list.as_array().push_back(t);
      }
    }
  }
  co_return Status();
}

}  // namespace capstan::admission
