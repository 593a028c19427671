#include "api/apiextensions/crd_types.h"

#include <chrono>
#include <ctime>

namespace capstan::api::apiextensions {

namespace json = boost::json;

namespace {

std::string Str(const json::object* o, std::string_view key) {
  if (!o) return "";
  const auto* v = o->if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

bool Bool(const json::object* o, std::string_view key) {
  if (!o) return false;
  const auto* v = o->if_contains(key);
  return v && v->is_bool() && v->get_bool();
}

const json::object* Obj(const json::object* o, std::string_view key) {
  if (!o) return nullptr;
  const auto* v = o->if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

const json::array* Arr(const json::object* o, std::string_view key) {
  if (!o) return nullptr;
  const auto* v = o->if_contains(key);
  return v && v->is_array() ? &v->get_array() : nullptr;
}

std::vector<std::string> Strings(const json::object* o, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* a = Arr(o, key)) {
    for (const auto& x : *a) {
      if (x.is_string()) out.emplace_back(x.get_string());
    }
  }
  return out;
}

}  // namespace

const CrdVersion* Crd::Version(std::string_view v) const {
  for (const auto& x : versions) {
    if (x.name == v) return &x;
  }
  return nullptr;
}

const CrdVersion* Crd::StorageVersion() const {
  for (const auto& x : versions) {
    if (x.storage) return &x;
  }
  return nullptr;
}

CrdNames ParseNames(const json::object* n) {
  CrdNames names;
  names.plural = Str(n, "plural");
  names.singular = Str(n, "singular");
  names.kind = Str(n, "kind");
  names.list_kind = Str(n, "listKind");
  names.short_names = Strings(n, "shortNames");
  names.categories = Strings(n, "categories");
  return names;
}

json::object NamesToJson(const CrdNames& n) {
  json::object o;
  if (!n.categories.empty()) {
    json::array a;
    for (const auto& c : n.categories) a.emplace_back(c);
    o["categories"] = std::move(a);
  }
  if (!n.kind.empty()) o["kind"] = n.kind;
  if (!n.list_kind.empty()) o["listKind"] = n.list_kind;
  if (!n.plural.empty()) o["plural"] = n.plural;
  if (!n.short_names.empty()) {
    json::array a;
    for (const auto& c : n.short_names) a.emplace_back(c);
    o["shortNames"] = std::move(a);
  }
  if (!n.singular.empty()) o["singular"] = n.singular;
  return o;
}

Crd ParseCrd(const Object& obj) {
  Crd c;
  c.name = Str(Obj(&obj, "metadata"), "name");
  const json::object* spec = Obj(&obj, "spec");
  c.group = Str(spec, "group");
  c.names = ParseNames(Obj(spec, "names"));
  c.scope = Str(spec, "scope");
  c.preserve_unknown_fields = Bool(spec, "preserveUnknownFields");
  if (const auto* conv = Obj(spec, "conversion")) {
    std::string s = Str(conv, "strategy");
    if (!s.empty()) c.conversion_strategy = s;
  }
  if (const auto* versions = Arr(spec, "versions")) {
    for (const auto& vv : *versions) {
      if (!vv.is_object()) continue;
      const json::object* v = &vv.get_object();
      CrdVersion ver;
      ver.name = Str(v, "name");
      ver.served = Bool(v, "served");
      ver.storage = Bool(v, "storage");
      ver.deprecated = Bool(v, "deprecated");
      if (const auto* w = v->if_contains("deprecationWarning"); w && w->is_string()) {
        ver.deprecation_warning = std::string(w->get_string());
      }
      if (const auto* schema = Obj(v, "schema")) ver.schema = schema->if_contains("openAPIV3Schema");
      if (const auto* sub = Obj(v, "subresources")) {
        ver.has_status = Obj(sub, "status") != nullptr;
        if (const auto* scale = Obj(sub, "scale")) {
          ver.scale = ScaleSubresource{Str(scale, "specReplicasPath"), Str(scale, "statusReplicasPath"),
                                       Str(scale, "labelSelectorPath")};
        }
      }
      if (const auto* cols = Arr(v, "additionalPrinterColumns")) {
        for (const auto& cv : *cols) {
          if (!cv.is_object()) continue;
          const json::object* co = &cv.get_object();
          PrinterColumn pc;
          pc.name = Str(co, "name");
          pc.type = Str(co, "type");
          pc.format = Str(co, "format");
          pc.description = Str(co, "description");
          pc.json_path = Str(co, "jsonPath");
          if (const auto* p = co->if_contains("priority"); p && p->is_int64()) pc.priority = static_cast<int>(p->get_int64());
          ver.columns.push_back(std::move(pc));
        }
      }
      if (const auto* sf = Arr(v, "selectableFields")) {
        for (const auto& f : *sf) {
          if (f.is_object()) ver.selectable_fields.push_back(Str(&f.get_object(), "jsonPath"));
        }
      }
      c.versions.push_back(std::move(ver));
    }
  }
  if (const auto* stored = Arr(Obj(&obj, "status"), "storedVersions")) {
    for (const auto& v : *stored) {
      if (v.is_string()) c.stored_versions.emplace_back(v.get_string());
    }
  }
  return c;
}

const json::object* FindCondition(const Object& crd, std::string_view type) {
  const json::object* status = Obj(&crd, "status");
  const json::array* conds = Arr(status, "conditions");
  if (!conds) return nullptr;
  for (const auto& c : *conds) {
    if (c.is_object() && Str(&c.get_object(), "type") == type) return &c.get_object();
  }
  return nullptr;
}

bool IsConditionTrue(const Object& crd, std::string_view type) {
  const json::object* c = FindCondition(crd, type);
  return c && Str(c, "status") == "True";
}

void SetCondition(Object& crd, std::string_view type, std::string_view status, std::string_view reason,
                  std::string_view message, std::string_view now) {
  json::value& sv = crd["status"];
  if (!sv.is_object()) sv = json::object();
  json::value& cv = sv.get_object()["conditions"];
  if (!cv.is_array()) cv = json::array();
  json::array& conds = cv.get_array();
  for (auto& c : conds) {
    if (!c.is_object() || Str(&c.get_object(), "type") != type) continue;
    json::object& o = c.get_object();
    if (Str(&o, "status") != status) o["lastTransitionTime"] = now;
    o["status"] = status;
    o["reason"] = reason;
    o["message"] = message;
    return;
  }
  json::object o;
  o["type"] = type;
  o["status"] = status;
  o["lastTransitionTime"] = now;
  o["reason"] = reason;
  o["message"] = message;
  conds.emplace_back(std::move(o));
}

void RemoveCondition(Object& crd, std::string_view type) {
  auto* sv = crd.if_contains("status");
  if (!sv || !sv->is_object()) return;
  auto* cv = sv->get_object().if_contains("conditions");
  if (!cv || !cv->is_array()) return;
  auto& a = cv->get_array();
  for (auto it = a.begin(); it != a.end();) {
    if (it->is_object() && Str(&it->get_object(), "type") == type) {
      it = a.erase(it);
    } else {
      ++it;
    }
  }
}

std::string NowRfc3339() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace capstan::api::apiextensions
