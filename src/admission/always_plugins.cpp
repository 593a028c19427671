#include "admission/always_plugins.h"

#include <boost/json.hpp>

namespace capstan::admission {

namespace json = boost::json;

Task<Status> AlwaysPullImages::Admit(Attributes& a) {
  // Pods and their ephemeralcontainers subresource, as kube.
  if (!a.resource || !a.resource->group.empty() || a.resource->resource != "pods" || !a.object) co_return Status();
  if (!a.subresource.empty() && a.subresource != "ephemeralcontainers") co_return Status();
  json::value* spec = a.object->if_contains("spec");
  if (!spec || !spec->is_object()) co_return Status();
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    json::value* cs = spec->as_object().if_contains(list);
    if (!cs || !cs->is_array()) continue;
    for (auto& c : cs->as_array()) {
      if (c.is_object()) c.as_object()["imagePullPolicy"] = "Always";
    }
  }
  co_return Status();
}

}  // namespace capstan::admission
