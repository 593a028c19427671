// api/core/configmap.cpp: ConfigMaps: key rules, the 1 MiB limit, and `immutable`.
#include <algorithm>

#include "api/common.h"
#include "api/core/core.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

namespace {

std::vector<std::string> SortedKeys(const boost::json::object* o) {
  std::vector<std::string> keys;
  if (o) {
    for (const auto& kv : *o) keys.emplace_back(kv.key());
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

class ConfigMapStrategy : public registry::DefaultStrategy {
 public:
  ConfigMapStrategy() : DefaultStrategy(Options{}) {}

  ErrorList Validate(const registry::Context&, const Object& cm) const override {
    ErrorList errs;
    const auto* data = ObjectAt(cm, "data");
    const auto* binary = ObjectAt(cm, "binaryData");
    size_t total = 0;
    for (const auto& key : SortedKeys(data)) {
      for (const auto& msg : am::IsConfigMapKey(key)) {
        errs.push_back(InvalidError(FieldPath("data").Key(key), key, msg));
      }
      if (binary && binary->contains(key)) {
        errs.push_back(InvalidError(FieldPath("data").Key(key), key, "duplicate of key present in binaryData"));
      }
      const auto& v = data->at(key);
      if (v.is_string()) total += v.get_string().size();
    }
    for (const auto& key : SortedKeys(binary)) {
      for (const auto& msg : am::IsConfigMapKey(key)) {
        errs.push_back(InvalidError(FieldPath("binaryData").Key(key), key, msg));
      }
      const auto& v = binary->at(key);
      if (v.is_string()) {
        std::string decoded;
        Base64Decode(std::string_view(v.get_string()), decoded);
        total += decoded.size();
      }
    }
    if (total > static_cast<size_t>(kMaxSecretSize)) errs.push_back(TooLongError(FieldPath(""), kMaxSecretSize));
    return errs;
  }

  ErrorList ValidateUpdate(const registry::Context& ctx, const Object& cm, const Object& old) const override {
    ErrorList errs;
    if (BoolAt(old, "immutable")) {
      if (!BoolAt(cm, "immutable")) {
        errs.push_back(ForbiddenError(FieldPath("immutable"), "field is immutable when `immutable` is set"));
      }
      auto same = [&](std::string_view key) {
        const auto* a = cm.if_contains(key);
        const auto* b = old.if_contains(key);
        auto empty = [](const boost::json::value* v) { return !v || v->is_null() || (v->is_object() && v->get_object().empty()); };
        if (empty(a) && empty(b)) return true;
        return a && b && *a == *b;
      };
      if (!same("data")) errs.push_back(ForbiddenError(FieldPath("data"), "field is immutable when `immutable` is set"));
      if (!same("binaryData")) {
        errs.push_back(ForbiddenError(FieldPath("binaryData"), "field is immutable when `immutable` is set"));
      }
    }
    ErrorList more = Validate(ctx, cm);
    errs.insert(errs.end(), more.begin(), more.end());
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(), {"Data", "integer", "", "Data contains the configuration data.", 0}, registry::AgeColumn()};
  }
  boost::json::array TableCells(const Object& cm) const override {
    return {boost::json::value(am::GetName(cm)), CountAt(cm, "data") + CountAt(cm, "binaryData"), AgeCell(cm)};
  }
};

}  // namespace

std::vector<registry::RestResource> ConfigMaps(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"", "v1", "configmaps", "configmap", "ConfigMap", true, {"cm"}, {}, "io.k8s.api.core.v1.ConfigMap"});
  spec.strategy = std::make_shared<ConfigMapStrategy>();
  return registry::MakeResource(deps, std::move(spec));
}

}  // namespace capstan::api::core
