#include "admission/default_toleration_seconds.h"

#include <boost/json.hpp>

namespace capstan::admission {

namespace json = boost::json;

namespace {

constexpr char kNotReady[] = "node.kubernetes.io/not-ready";
constexpr char kUnreachable[] = "node.kubernetes.io/unreachable";

std::string Str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

json::object Toleration(const char* key, int64_t seconds) {
  json::object t;
  t["key"] = key;
  t["operator"] = "Exists";
  t["effect"] = "NoExecute";
  t["tolerationSeconds"] = seconds;
  return t;
}

}  // namespace

bool IsPod(const Attributes& a) {
  return a.resource && a.resource->group.empty() && a.resource->resource == "pods" && a.subresource.empty();
}

Task<Status> DefaultTolerationSeconds::Admit(Attributes& a) {
  if (!IsPod(a) || !a.object) co_return Status();
  json::value* spec_v = a.object->if_contains("spec");
  if (!spec_v || !spec_v->is_object()) co_return Status();
  json::object& spec = spec_v->as_object();
  bool not_ready = false, unreachable = false;
  if (const json::value* tv = spec.if_contains("tolerations"); tv && tv->is_array()) {
    for (const auto& t : tv->as_array()) {
      if (!t.is_object()) continue;
      std::string key = Str(t.as_object(), "key"), effect = Str(t.as_object(), "effect");
      bool no_execute = effect.empty() || effect == "NoExecute";
      if (no_execute && (key.empty() || key == kNotReady)) not_ready = true;
      if (no_execute && (key.empty() || key == kUnreachable)) unreachable = true;
    }
  }
  if (not_ready && unreachable) co_return Status();
  json::value& list = spec["tolerations"];
  if (!list.is_array()) list = json::array();
  if (!not_ready) list.as_array().push_back(Toleration(kNotReady, not_ready_));
  if (!unreachable) list.as_array().push_back(Toleration(kUnreachable, unreachable_));
  co_return Status();
}

}  // namespace capstan::admission
