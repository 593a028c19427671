// api/core/limit_range.cpp: core/v1 LimitRanges: kube's SetDefaults_LimitRangeItem for Container
// items (default from max, defaultRequest from default or min) and ValidateLimitRange (types, resource
// names, the min <= defaultRequest <= default <= max ordering, ratios); kube has no printer for them.
#include <map>
#include <set>

#include "api/core/core_helpers.h"
#include "api/core/core_resources.h"
#include "apimachinery/quantity.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

namespace {

void DefaultItem(json::object& item) {
  if (StrOf(item.if_contains("type")) != "Container") return;
  auto copy_missing = [](const json::value* from, json::object& to) {
    if (!from || !from->is_object()) return;
    for (const auto& kv : from->get_object()) {
      if (!to.contains(kv.key())) to[kv.key()] = kv.value();
    }
  };
  // Built apart and stored at the end: references into `item` do not survive its insertions.
  json::object def, req;
  if (const auto* d = item.if_contains("default"); d && d->is_object()) def = d->get_object();
  if (const auto* r = item.if_contains("defaultRequest"); r && r->is_object()) req = r->get_object();
  copy_missing(item.if_contains("max"), def);
  json::value def_copy = def;
  copy_missing(&def_copy, req);
  copy_missing(item.if_contains("min"), req);
  if (!def.empty()) item["default"] = std::move(def);
  if (!req.empty()) item["defaultRequest"] = std::move(req);
}

// A Quantity as kube prints it through %s (its String()), for bad values.
FieldError InvalidQuantity(const FieldPath& p, const am::Quantity& q, std::string detail) {
  FieldError e = InvalidError(p, "", "");
  e.omit_value = true;
  e.detail = q.String() + ": " + detail;
  return e;
}

class LimitRangeStrategy : public registry::DefaultStrategy {
 public:
  LimitRangeStrategy() : DefaultStrategy(Options{}) {}
  static void Default(Object& lr) {
    auto* spec = lr.if_contains("spec");
    if (!spec || !spec->is_object()) return;
    if (auto* limits = ArrayField(spec->get_object(), "limits")) {
      for (auto& l : *limits) {
        if (l.is_object()) DefaultItem(l.get_object());
      }
    }
  }
  void PrepareForCreate(const registry::Context&, Object& lr) const override { Default(lr); }
  void PrepareForUpdate(const registry::Context&, Object& lr, const Object&) const override { Default(lr); }

  ErrorList Validate(const registry::Context&, const Object& lr) const override {
    ErrorList errs;
    const auto* limits = PathAt(lr, {"spec", "limits"});
    if (!limits || !limits->is_array()) return errs;
    std::set<std::string> types;
    for (size_t i = 0; i < limits->get_array().size(); ++i) {
      const auto& lv = limits->get_array()[i];
      if (!lv.is_object()) continue;
      const auto& l = lv.get_object();
      FieldPath p = FieldPath("spec").Child("limits").Index(i);
      std::string type = StrOf(l.if_contains("type"));
      auto more = ProblemsAt(am::IsQualifiedName(type), p.Child("type"), type);
      errs.insert(errs.end(), more.begin(), more.end());
      if (more.empty() && type.find('/') == std::string::npos && type != "Pod" && type != "Container" &&
          type != "PersistentVolumeClaim") {
        errs.push_back(InvalidError(p.Child("type"), type, "must be a standard limit type or fully qualified"));
      }
      if (!types.insert(type).second) errs.push_back(DuplicateError(p.Child("type"), type));
      std::map<std::string, std::map<std::string, am::Quantity>> q;
      std::set<std::string> keys;
      for (const char* field : {"max", "min", "default", "defaultRequest", "maxLimitRequestRatio"}) {
        const auto* m = l.if_contains(field);
        if (!m || !m->is_object()) continue;
        if (type == "Pod" && (std::string_view(field) == "default" || std::string_view(field) == "defaultRequest") &&
            !m->get_object().empty()) {
          errs.push_back(ForbiddenError(p.Child(field), "may not be specified when `type` is 'Pod'"));
          continue;
        }
        for (const auto& k : SortedKeys(&m->get_object())) {
          auto names = ProblemsAt(am::IsQualifiedName(k), p.Child(field).Key(k), k);
          errs.insert(errs.end(), names.begin(), names.end());
          auto parsed = am::ParseQuantityJson(m->get_object().at(k));
          if (!parsed.ok()) {
            errs.push_back(InvalidError(p.Child(field).Key(k), m->get_object().at(k), parsed.status().message()));
            continue;
          }
          q[field][k] = *parsed;
          keys.insert(k);
        }
      }
      if (type == "PersistentVolumeClaim" && !q["min"].count("storage") && !q["max"].count("storage")) {
        errs.push_back(RequiredError(p.Child("limits"), "either minimum or maximum storage value is required, but neither was provided"));
      }
      for (const auto& k : keys) {
        auto get = [&](const char* f) -> const am::Quantity* {
          auto it = q[f].find(k);
          return it == q[f].end() ? nullptr : &it->second;
        };
        const am::Quantity* mn = get("min");
        const am::Quantity* mx = get("max");
        const am::Quantity* df = get("default");
        const am::Quantity* dr = get("defaultRequest");
        const am::Quantity* ratio = get("maxLimitRequestRatio");
        if (mn && mx && mn->Cmp(*mx) > 0) {
          errs.push_back(InvalidQuantity(p.Child("min").Key(k), *mn, "min value " + mn->String() + " is greater than max value " + mx->String()));
        }
        if (dr && mn && mn->Cmp(*dr) > 0) {
          errs.push_back(InvalidQuantity(p.Child("defaultRequest").Key(k), *dr,
                                         "min value " + mn->String() + " is greater than default request value " + dr->String()));
        }
        if (dr && mx && dr->Cmp(*mx) > 0) {
          errs.push_back(InvalidQuantity(p.Child("defaultRequest").Key(k), *dr,
                                         "default request value " + dr->String() + " is greater than max value " + mx->String()));
        }
        if (dr && df && dr->Cmp(*df) > 0) {
          errs.push_back(InvalidQuantity(p.Child("defaultRequest").Key(k), *dr,
                                         "default request value " + dr->String() + " is greater than default limit value " + df->String()));
        }
        if (df && mn && mn->Cmp(*df) > 0) {
          errs.push_back(InvalidQuantity(p.Child("default").Key(k), *mn, "min value " + mn->String() + " is greater than default value " + df->String()));
        }
        if (df && mx && df->Cmp(*mx) > 0) {
          errs.push_back(InvalidQuantity(p.Child("default").Key(k), *mx, "default value " + df->String() + " is greater than max value " + mx->String()));
        }
        if (ratio && ratio->Cmp(am::Quantity::FromInt(1)) < 0) {
          errs.push_back(InvalidQuantity(p.Child("maxLimitRequestRatio").Key(k), *ratio, "ratio " + ratio->String() + " is less than 1"));
        }
        if (ratio && mn && mx && mn->MilliValue() > 0) {
          double limit = static_cast<double>(mx->MilliValue()) / static_cast<double>(mn->MilliValue());
          double r = static_cast<double>(ratio->MilliValue()) / 1000;
          if (r > limit) {
            char buf[64];
            std::snprintf(buf, sizeof(buf), "%f", limit);
            errs.push_back(InvalidQuantity(p.Child("maxLimitRequestRatio").Key(k), *ratio,
                                           "ratio " + ratio->String() + " is greater than max/min = " + buf));
          }
        }
      }
    }
    return errs;
  }
  ErrorList ValidateUpdate(const registry::Context& ctx, const Object& lr, const Object&) const override {
    return Validate(ctx, lr);
  }
};

}  // namespace

std::vector<registry::RestResource> LimitRanges(const registry::GroupDeps& deps) {
  auto info = MakeInfo({"", "v1", "limitranges", "limitrange", "LimitRange", true, {"limits"}, {}, "io.k8s.api.core.v1.LimitRange"});
  return MakeCoreResource(deps, info, std::make_shared<LimitRangeStrategy>());
}

}  // namespace capstan::api::core
