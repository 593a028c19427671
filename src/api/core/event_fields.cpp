#include "api/core/event_fields.h"

#include "api/common.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

namespace {
std::string Str(const boost::json::value* v) { return v && v->is_string() ? std::string(v->get_string()) : std::string(); }
}  // namespace

std::vector<std::string> EventSelectableFieldNames() {
  return {"metadata.name", "metadata.namespace", "involvedObject.kind", "involvedObject.namespace",
          "involvedObject.name", "involvedObject.uid", "involvedObject.apiVersion",
          "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason", "reportingComponent", "source",
          "type"};
}

am::FieldSet EventSelectableFields(const registry::Object& e, am::FieldSet f) {
  for (const char* k : {"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"}) {
    f[std::string("involvedObject.") + k] = Str(PathAt(e, {"involvedObject", k}));
  }
  f["reason"] = StringAt(e, "reason");
  f["reportingComponent"] = StringAt(e, "reportingComponent");
  std::string source = Str(PathAt(e, {"source", "component"}));
  if (source.empty()) source = StringAt(e, "reportingComponent");
  f["source"] = source;
  f["type"] = StringAt(e, "type");
  return f;
}

}  // namespace capstan::api::core
