// api/core/secret.cpp: Secrets: stringData folded into data, type defaults and the type-specific
// required keys, the 1 MiB limit, immutable type and `immutable`.
#include <algorithm>

#include "api/common.h"
#include "api/core/core.h"
#include "apimachinery/json_parse.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

// v1 → stored form, as kube's conversion does: stringData wins over data and is not kept; an empty
// type is Opaque.
void Normalize(Object& s) {
  if (const auto* sd = ObjectAt(s, "stringData")) {
    json::object data;
    if (const auto* d = ObjectAt(s, "data")) data = *d;
    for (const auto& kv : *sd) {
      if (kv.value().is_string()) data[kv.key()] = Base64Encode(std::string_view(kv.value().get_string()));
    }
    s["data"] = std::move(data);
    s.stable_erase("stringData");
  }
  if (StringAt(s, "type").empty()) s["type"] = "Opaque";
}

bool HasKey(const json::object* data, std::string_view key) { return data && data->contains(key); }

std::string DataValue(const json::object* data, std::string_view key) {
  if (!data) return "";
  const auto* v = data->if_contains(key);
  if (!v || !v->is_string()) return "";
  std::string out;
  Base64Decode(std::string_view(v->get_string()), out);
  return out;
}

class SecretStrategy : public registry::DefaultStrategy {
 public:
  SecretStrategy() : DefaultStrategy(Options{}) {}

  void PrepareForCreate(const registry::Context& ctx, Object& s) const override {
    DefaultStrategy::PrepareForCreate(ctx, s);
    Normalize(s);
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& s, const Object& old) const override {
    DefaultStrategy::PrepareForUpdate(ctx, s, old);
    Normalize(s);
  }

  ErrorList Validate(const registry::Context&, const Object& s) const override {
    ErrorList errs;
    FieldPath data_path("data");
    const auto* data = ObjectAt(s, "data");
    size_t total = 0;
    if (data) {
      std::vector<std::string> keys;
      for (const auto& kv : *data) keys.emplace_back(kv.key());
      std::sort(keys.begin(), keys.end());
      for (const auto& key : keys) {
        for (const auto& msg : am::IsConfigMapKey(key)) errs.push_back(InvalidError(data_path.Key(key), key, msg));
        total += DataValue(data, key).size();
      }
    }
    if (total > static_cast<size_t>(kMaxSecretSize)) errs.push_back(TooLongError(data_path, kMaxSecretSize));
    std::string type = StringAt(s, "type");
    if (type == "kubernetes.io/service-account-token") {
      bool has = false;
      for (const auto& [k, v] : am::GetAnnotations(s)) has = has || (k == "kubernetes.io/service-account.name" && !v.empty());
      if (!has) {
        errs.push_back(RequiredError(FieldPath("metadata").Child("annotations").Key("kubernetes.io/service-account.name"), ""));
      }
    } else if (type == "kubernetes.io/dockercfg" || type == "kubernetes.io/dockerconfigjson") {
      std::string key = type == "kubernetes.io/dockercfg" ? ".dockercfg" : ".dockerconfigjson";
      if (!HasKey(data, key)) {
        errs.push_back(RequiredError(data_path.Key(key), ""));
      } else {
        auto parsed = am::ParseJsonValue(DataValue(data, key));
        if (!parsed.ok() || !parsed->is_object()) {
          errs.push_back(InvalidError(data_path.Key(key), "<secret contents redacted>",
                                      parsed.ok() ? "json: cannot unmarshal into map" : parsed.status().message()));
        }
      }
    } else if (type == "kubernetes.io/basic-auth") {
      if (!HasKey(data, "username") && !HasKey(data, "password")) {
        errs.push_back(RequiredError(data_path.Key("username"), ""));
        errs.push_back(RequiredError(data_path.Key("password"), ""));
      }
    } else if (type == "kubernetes.io/ssh-auth") {
      if (DataValue(data, "ssh-privatekey").empty()) errs.push_back(RequiredError(data_path.Key("ssh-privatekey"), ""));
    } else if (type == "kubernetes.io/tls") {
      if (!HasKey(data, "tls.crt")) errs.push_back(RequiredError(data_path.Key("tls.crt"), ""));
      if (!HasKey(data, "tls.key")) errs.push_back(RequiredError(data_path.Key("tls.key"), ""));
    }
    return errs;
  }

  ErrorList ValidateUpdate(const registry::Context& ctx, const Object& s, const Object& old) const override {
    ErrorList errs;
    if (StringAt(s, "type") != StringAt(old, "type")) {
      errs.push_back(InvalidError(FieldPath("type"), StringAt(s, "type"), "field is immutable"));
    }
    if (BoolAt(old, "immutable")) {
      if (!BoolAt(s, "immutable")) {
        errs.push_back(ForbiddenError(FieldPath("immutable"), "field is immutable when `immutable` is set"));
      }
      const auto* a = s.if_contains("data");
      const auto* b = old.if_contains("data");
      bool a_empty = !a || (a->is_object() && a->get_object().empty());
      bool b_empty = !b || (b->is_object() && b->get_object().empty());
      if (!(a_empty && b_empty) && !(a && b && *a == *b)) {
        errs.push_back(ForbiddenError(FieldPath("data"), "field is immutable when `immutable` is set"));
      }
    }
    ErrorList more = Validate(ctx, s);
    errs.insert(errs.end(), more.begin(), more.end());
    return errs;
  }

  std::string UnsupportedFieldLabelMessage(std::string_view f) const override { return am::FieldLabelNotSupportedError(f); }
  std::vector<std::string> SelectableFieldNames() const override {
    return {"metadata.name", "metadata.namespace", "type"};
  }
  am::FieldSet SelectableFields(const Object& s) const override {
    am::FieldSet f = DefaultStrategy::SelectableFields(s);
    f["type"] = StringAt(s, "type");
    return f;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Type", "string", "", "The type of the secret", 0},
            {"Data", "string", "", "The number of items in the secret", 0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& s) const override {
    return {json::value(am::GetName(s)), json::value(StringAt(s, "type")), CountAt(s, "data"), AgeCell(s)};
  }
};

}  // namespace

std::vector<registry::RestResource> Secrets(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"", "v1", "secrets", "secret", "Secret", true, {}, {}, "io.k8s.api.core.v1.Secret"});
  spec.strategy = std::make_shared<SecretStrategy>();
  return registry::MakeResource(deps, std::move(spec));
}

}  // namespace capstan::api::core
