#include "api/apiextensions/crd_validation.h"

#include "api/admissionregistration/admission_validation.h"
#include "api/apiextensions/api_approval.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <set>

#include "apimachinery/schema_prune.h"
#include "cel/crd_rules.h"
#include "apimachinery/schema_registry.h"
#include "apimachinery/schema_validate.h"
#include "apimachinery/schema_structural.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::apiextensions {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

const std::vector<std::string> kColumnTypes = {"boolean", "date", "integer", "number", "string"};
const std::vector<std::string> kColumnFormats = {"byte", "date", "date-time", "double", "float", "int32", "int64", "password"};
const std::vector<std::string> kSchemaTypes = {"array", "boolean", "integer", "number", "object", "string"};

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

// All versions carry the same non-null value at `key` (kube hoists it to the top level).
bool Identical(const json::array* versions, std::string_view key) {
  if (!versions || versions->empty()) return false;
  const json::value* first = nullptr;
  for (const auto& v : *versions) {
    if (!v.is_object()) return false;
    const auto* x = v.get_object().if_contains(key);
    if (!x || x->is_null() || (x->is_array() && x->get_array().empty())) return false;
    if (!first) {
      first = x;
    } else if (*x != *first) {
      return false;
    }
  }
  return true;
}

void DnsLabel1035(ErrorList& errs, const FieldPath& p, const std::string& v, const std::string& prefix = "") {
  auto problems = am::IsDNS1035Label(v);
  if (!problems.empty()) errs.push_back(InvalidError(p, v, prefix + Join(problems, ",")));
}

// openapiV3 types (kube's requireValidPropertyType), recursively through the structure.
void CheckTypes(ErrorList& errs, const json::value& s, const FieldPath& p, int depth = 0) {
  if (!s.is_object() || depth > 64) return;
  const json::object& o = s.get_object();
  if (const auto* t = o.if_contains("type"); t && t->is_string()) {
    std::string type(t->get_string());
    if (!type.empty() && std::find(kSchemaTypes.begin(), kSchemaTypes.end(), type) == kSchemaTypes.end()) {
      errs.push_back(NotSupportedError(p.Child("type"), type, kSchemaTypes));
    }
  }
  // x-kubernetes-list-type and -list-map-keys (kube's ValidateCustomResourceDefinitionOpenAPISchema).
  const auto* lt = o.if_contains("x-kubernetes-list-type");
  const auto* keys = Arr(&o, "x-kubernetes-list-map-keys");
  std::string type = o.contains("type") && o.at("type").is_string() ? std::string(o.at("type").get_string()) : "";
  if (lt && lt->is_string()) {
    std::string list_type(lt->get_string());
    if (type.empty()) {
      errs.push_back(RequiredError(p.Child("type"), "must be array if x-kubernetes-list-type is specified"));
    } else if (type != "array") {
      errs.push_back(InvalidError(p.Child("type"), type, "must be array if x-kubernetes-list-type is specified"));
    }
    if (list_type != "atomic" && list_type != "set" && list_type != "map") {
      errs.push_back(NotSupportedError(p.Child("x-kubernetes-list-type"), list_type, {"atomic", "set", "map"}));
    }
    if (keys && !keys->empty() && list_type != "map") {
      errs.push_back(InvalidError(p.Child("x-kubernetes-list-type"), list_type, "must be map if x-kubernetes-list-map-keys is non-empty"));
    }
    if (list_type == "map") {
      const json::object* items = Obj(&o, "items");
      if (!keys || keys->empty()) {
        errs.push_back(RequiredError(p.Child("x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"));
      }
      if (!items) {
        errs.push_back(RequiredError(p.Child("items"), "must have a schema if x-kubernetes-list-type is map"));
      } else {
        std::string item_type = items->contains("type") && items->at("type").is_string() ? std::string(items->at("type").get_string()) : "";
        if (item_type != "object") {
          errs.push_back(InvalidError(p.Child("items").Child("type"), item_type, "must be object if parent array's x-kubernetes-list-type is map"));
        } else if (keys) {
          const json::object* item_props = Obj(items, "properties");
          std::set<std::string> seen_keys;
          bool bad_name = false, dup = false;
          for (const auto& k : *keys) {
            std::string key = k.is_string() ? std::string(k.get_string()) : "";
            if (!item_props || !item_props->contains(key)) bad_name = true;
            if (!seen_keys.insert(key).second) dup = true;
          }
          if (bad_name) errs.push_back(InvalidError(p.Child("x-kubernetes-list-map-keys"), json::value(*keys), "entries must all be names of item properties"));
          if (dup) errs.push_back(InvalidError(p.Child("x-kubernetes-list-map-keys"), json::value(*keys), "must not contain duplicate entries"));
        }
      }
    }
  } else if (keys && !keys->empty()) {
    errs.push_back(RequiredError(p.Child("x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"));
  }
  if (const auto* props = Obj(&o, "properties")) {
    for (const auto& [k, v] : *props) CheckTypes(errs, v, p.Child("properties").Key(k), depth + 1);
  }
  if (const auto* items = o.if_contains("items"); items && items->is_object()) CheckTypes(errs, *items, p.Child("items"), depth + 1);
  if (const auto* ap = o.if_contains("additionalProperties"); ap && ap->is_object()) {
    CheckTypes(errs, *ap, p.Child("additionalProperties"), depth + 1);
  }
}

void ValidateSchemaInto(ErrorList& errs, const json::value* schema, bool status_enabled, const FieldPath& validation_path);

// kube's structuraldefaulting.ValidateDefaults outside metadata: every default is pruned already and
// valid against its own schema.
void ValidateDefaults(ErrorList& errs, const am::Schema& s, const FieldPath& p, bool root, int depth = 0) {
  if (depth > 64) return;
  if (s.default_value) {
    json::value pruned = *s.default_value;
    am::PruneBySchema(pruned, &s, s.embedded_resource);
    if (pruned != *s.default_value) {
      errs.push_back(InvalidError(p.Child("default"), FieldValue(*s.default_value), "must not have unknown fields"));
    } else {
      for (auto& e : am::ValidateSchemaValues(s, *s.default_value, p.Child("default"))) errs.push_back(std::move(e));
    }
  }
  for (const auto& [name, child] : s.properties) {
    if (root && name == "metadata") continue;  // kube checks defaults there as metadata
    if (child) ValidateDefaults(errs, *child, p.Child("properties").Key(name), false, depth + 1);
  }
  if (s.items) ValidateDefaults(errs, *s.items, p.Child("items"), false, depth + 1);
  if (s.additional_properties) ValidateDefaults(errs, *s.additional_properties, p.Child("additionalProperties"), false, depth + 1);
}

void ValidateSchema(ErrorList& out, const json::value* schema, bool status_enabled, const FieldPath& validation_path) {
  ErrorList errs;
  ValidateSchemaInto(errs, schema, status_enabled, validation_path);
  for (auto& e : errs) out.push_back(std::move(e));
}

void ValidateSchemaInto(ErrorList& errs, const json::value* schema, bool status_enabled, const FieldPath& validation_path) {
  if (!schema) return;
  FieldPath sp = validation_path.Child("openAPIV3Schema");
  if (!schema->is_object()) {
    errs.push_back(InvalidError(sp, "", "must be an object"));
    return;
  }
  const json::object& so = schema->get_object();
  if (status_enabled) {
    if (const auto* t = so.if_contains("type"); t && t->is_string() && t->get_string() != "object") {
      errs.push_back(InvalidError(validation_path.Child("openAPIV3Schema.type"), std::string(t->get_string()),
                                  "only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled"));
    }
  }
  if (const auto* n = so.if_contains("nullable"); n && n->is_bool() && n->get_bool()) {
    errs.push_back(ForbiddenError(validation_path.Child("openAPIV3Schema.nullable"), "nullable cannot be true at the root"));
  }
  ErrorList init_errs;
  bool structural_ok = false;
  auto parsed = am::ParseSchema(*schema);
  if (!parsed.ok()) {
    init_errs.push_back(InvalidError(sp, "", parsed.status().message()));
  } else if (auto conv = am::StructuralConversionError(**parsed, sp)) {
    init_errs.push_back(*conv);
  } else {
    ErrorList structural = am::ValidateStructural(**parsed, sp);
    if (structural.empty()) ValidateDefaults(structural, **parsed, sp, true);
    structural_ok = structural.empty();
    for (auto& e : structural) errs.push_back(std::move(e));
  }
  CheckTypes(errs, *schema, sp);
  // The x-kubernetes-validations rules: their fields, and their compilation once the schema is
  // structural (kube compiles only then).
  if (parsed.ok() && init_errs.empty()) cel::CheckCrdRules(**parsed, sp, structural_ok, errs);
  if (errs.empty()) {
    for (auto& e : init_errs) errs.push_back(std::move(e));
  }
}

void ValidateSubresources(ErrorList& errs, const json::object* sub, const FieldPath& p) {
  if (!sub) return;
  const json::object* scale = Obj(sub, "scale");
  if (!scale) return;
  FieldPath sp = p.Child("scale");
  auto path_at = [&](std::string_view key, bool required) {
    const auto* v = scale->if_contains(key);
    std::string s = v && v->is_string() ? std::string(v->get_string()) : "";
    FieldPath fp = sp.Child(key);
    if (s.empty()) {
      if (required) errs.push_back(RequiredError(fp, ""));
      return;
    }
    if (s.front() != '.' || s.find('[') != std::string::npos) {
      errs.push_back(InvalidError(fp, s, "must be a simple json path starting with ."));
      return;
    }
    if (key == "specReplicasPath" && s.rfind(".spec.", 0) != 0) {
      errs.push_back(InvalidError(fp, s, "should be a json path under .spec"));
    }
    if (key == "statusReplicasPath" && s.rfind(".status.", 0) != 0) {
      errs.push_back(InvalidError(fp, s, "should be a json path under .status"));
    }
    if (key == "labelSelectorPath" && s.rfind(".spec.", 0) != 0 && s.rfind(".status.", 0) != 0) {
      errs.push_back(InvalidError(fp, s, "should be a json path under either .spec or .status"));
    }
  };
  path_at("specReplicasPath", true);
  path_at("statusReplicasPath", true);
  path_at("labelSelectorPath", false);
}

void ValidateColumn(ErrorList& errs, const json::value& cv, const FieldPath& p) {
  if (!cv.is_object()) return;
  const json::object& c = cv.get_object();
  auto s = [&](std::string_view k) {
    const auto* v = c.if_contains(k);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  if (s("name").empty()) errs.push_back(RequiredError(p.Child("name"), ""));
  std::string type = s("type");
  std::string types = Join(kColumnTypes, ",");
  if (type.empty()) {
    errs.push_back(RequiredError(p.Child("type"), "must be one of " + types));
  } else if (std::find(kColumnTypes.begin(), kColumnTypes.end(), type) == kColumnTypes.end()) {
    errs.push_back(InvalidError(p.Child("type"), type, "must be one of " + types));
  }
  std::string format = s("format");
  if (!format.empty() && std::find(kColumnFormats.begin(), kColumnFormats.end(), format) == kColumnFormats.end()) {
    errs.push_back(InvalidError(p.Child("format"), format, "must be one of " + Join(kColumnFormats, ",")));
  }
  std::string jp = s("jsonPath");
  if (jp.empty()) {
    errs.push_back(RequiredError(p.Child("JSONPath"), ""));
  } else if (jp.front() != '.') {
    errs.push_back(InvalidError(p.Child("JSONPath"), jp, "must be a simple json path starting with ."));
  }
}

// kube's webhook.ValidateCABundle: the bundle must hold a certificate Go's AppendCertsFromPEM takes;
// the error is client-go's ("unable to load root certificates: ..."). Empty when usable.
std::string CaBundleProblem(const std::string& pem) {
  bool any_cert = false, bad_cert = false, any_block = false;
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (!bio) return "";
  for (;;) {
    char* name = nullptr;
    char* header = nullptr;
    unsigned char* data = nullptr;
    long len = 0;
    if (PEM_read_bio(bio, &name, &header, &data, &len) != 1) break;
    any_block = true;
    if (std::string_view(name) == "CERTIFICATE" && (!header || header[0] == '\0')) {
      const unsigned char* p = data;
      X509* x = d2i_X509(nullptr, &p, len);
      if (x) {
        any_cert = true;
        X509_free(x);
      } else if (!any_cert) {
        bad_cert = true;
      }
    }
    OPENSSL_free(name);
    OPENSSL_free(header);
    OPENSSL_free(data);
  }
  BIO_free(bio);
  ERR_clear_error();
  if (any_cert) return "";
  if (!any_block) return "unable to load root certificates: unable to parse bytes as PEM block";
  if (bad_cert) return "unable to load root certificates: failed to parse certificate: x509: malformed certificate";
  return "unable to load root certificates: no valid certificate authority data seen";
}

// kube's webhook.ValidateWebhookService: name, namespace, port (443 when absent) and the path's
// segments.
void ValidateWebhookService(ErrorList& errs, const json::object& svc, const FieldPath& p) {
  auto str = [&](const char* k) {
    const auto* v = svc.if_contains(k);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  if (str("name").empty()) errs.push_back(RequiredError(p.Child("name"), ""));
  if (str("namespace").empty()) errs.push_back(RequiredError(p.Child("namespace"), ""));
  int64_t port = 443;
  if (const auto* pv = svc.if_contains("port"); pv && pv->is_int64()) port = pv->get_int64();
  if (port < 1 || port > 65535) {
    errs.push_back(InvalidError(p.Child("port"), port, "port is not valid: must be between 1 and 65535, inclusive"));
  }
  const auto* pathv = svc.if_contains("path");
  if (!pathv || !pathv->is_string()) return;
  std::string path(pathv->get_string());
  if (path.empty() || path == "/") return;
  if (path == "//") {
    errs.push_back(InvalidError(p.Child("path"), path, "segment[0] may not be empty"));
    return;
  }
  if (path[0] != '/') errs.push_back(InvalidError(p.Child("path"), path, "must start with a '/'"));
  std::string check = path.substr(1);
  if (!check.empty() && check.back() == '/') check.pop_back();
  auto steps = Split(check, '/');
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].empty()) {
      errs.push_back(InvalidError(p.Child("path"), path, "segment[" + std::to_string(i) + "] may not be empty"));
      continue;
    }
    for (const auto& m : am::IsDNS1123Subdomain(steps[i])) {
      errs.push_back(InvalidError(p.Child("path"), path, "segment[" + std::to_string(i) + "]: " + m));
    }
  }
}

void ValidateConversion(ErrorList& errs, const json::object* conv, const FieldPath& p, const std::string& old_ca_bundle) {
  if (!conv) return;
  const auto* sv = conv->if_contains("strategy");
  std::string strategy = sv && sv->is_string() ? std::string(sv->get_string()) : "";
  if (strategy.empty()) {
    errs.push_back(RequiredError(p.Child("strategy"), ""));
  } else if (strategy != "None" && strategy != "Webhook") {
    errs.push_back(NotSupportedError(p.Child("strategy"), strategy, {"None", "Webhook"}));
  }
  const json::object* webhook = Obj(conv, "webhook");
  if (strategy == "Webhook") {
    if (!webhook || !Obj(webhook, "clientConfig")) {
      errs.push_back(RequiredError(p.Child("webhookClientConfig"), "required when strategy is set to Webhook"));
    } else {
      const json::object* cc = Obj(webhook, "clientConfig");
      bool has_url = cc->contains("url"), has_service = cc->contains("service");
      FieldPath cp = p.Child("webhookClientConfig");
      if (has_url == has_service) {
        errs.push_back(RequiredError(cp, "exactly one of url or service is required"));
      } else if (has_url) {
        const auto* u = cc->if_contains("url");
        std::string url = u && u->is_string() ? std::string(u->get_string()) : "";
        for (auto& e : admissionregistration::ValidateWebhookUrl(cp.Child("url"), url)) errs.push_back(std::move(e));
      } else if (const json::object* svc = Obj(cc, "service")) {
        ValidateWebhookService(errs, *svc, cp.Child("service"));
      }
      // caBundle (unless the stored CRD already has this one: kube allows an invalid bundle to stay).
      const auto* ca = cc->if_contains("caBundle");
      std::string bundle = ca && ca->is_string() ? std::string(ca->get_string()) : "";
      std::string pem;
      if (!bundle.empty() && bundle != old_ca_bundle && Base64Decode(bundle, pem) && !pem.empty()) {
        if (std::string problem = CaBundleProblem(pem); !problem.empty()) {
          FieldError e = InvalidError(cp.Child("caBundle"), "", problem);
          e.omit_value = true;  // kube prints the bytes as Go's %#v of a []byte
          errs.push_back(std::move(e));
        }
      }
    }
    const json::array* crv = Arr(webhook, "conversionReviewVersions");
    FieldPath vp = p.Child("conversionReviewVersions");
    if (!crv || crv->empty()) {
      errs.push_back(RequiredError(vp, ""));
    } else {
      bool accepted = false;
      for (const auto& v : *crv) {
        if (v.is_string() && (v.get_string() == "v1" || v.get_string() == "v1beta1")) accepted = true;
      }
      if (!accepted) errs.push_back(InvalidError(vp, json::value(*crv), "must include at least one of v1, v1beta1"));
    }
  } else if (webhook) {
    if (Obj(webhook, "clientConfig")) {
      errs.push_back(ForbiddenError(p.Child("webhookClientConfig"), "should not be set when strategy is not set to Webhook"));
    }
    if (const auto* crv = Arr(webhook, "conversionReviewVersions"); crv && !crv->empty()) {
      errs.push_back(ForbiddenError(p.Child("conversionReviewVersions"), "should not be set when strategy is not set to Webhook"));
    }
  }
}

ErrorList ValidateSpec(const Object& obj, const std::string& old_ca_bundle = "") {
  ErrorList errs;
  const json::object* spec = Obj(&obj, "spec");
  static const json::object kEmpty;
  if (!spec) spec = &kEmpty;
  FieldPath p("spec");
  Crd crd = ParseCrd(obj);

  if (crd.group.empty()) {
    errs.push_back(RequiredError(p.Child("group"), ""));
  } else if (auto problems = am::IsDNS1123Subdomain(crd.group); !problems.empty()) {
    errs.push_back(InvalidError(p.Child("group"), crd.group, Join(problems, ",")));
  } else if (crd.group.find('.') == std::string::npos) {
    errs.push_back(InvalidError(p.Child("group"), crd.group, "should be a domain with at least one dot"));
  }

  if (crd.scope.empty()) {
    errs.push_back(RequiredError(p.Child("scope"), ""));
  } else if (crd.scope != "Cluster" && crd.scope != "Namespaced") {
    errs.push_back(NotSupportedError(p.Child("scope"), crd.scope, {"Cluster", "Namespaced"}));
  }

  const json::array* versions = Arr(spec, "versions");
  const bool hoist_schema = Identical(versions, "schema");
  const bool hoist_sub = Identical(versions, "subresources");
  const bool hoist_cols = Identical(versions, "additionalPrinterColumns");

  // Every version needs a schema (kube's requireOpenAPISchema).
  if (!hoist_schema) {
    for (size_t i = 0; i < crd.versions.size(); ++i) {
      if (!crd.versions[i].schema) {
        errs.push_back(RequiredError(p.Child("versions").Index(i).Child("schema").Child("openAPIV3Schema"), ""));
      }
    }
  }

  int storage_count = 0;
  std::set<std::string> seen;
  bool unique = true;
  for (size_t i = 0; i < crd.versions.size(); ++i) {
    const CrdVersion& v = crd.versions[i];
    FieldPath vp = p.Child("versions").Index(i);
    if (v.storage) ++storage_count;
    if (!seen.insert(v.name).second) unique = false;
    DnsLabel1035(errs, vp.Child("name"), v.name);
    if (!v.deprecated && v.deprecation_warning) {
      errs.push_back(InvalidError(vp.Child("deprecationWarning"), *v.deprecation_warning, "can only be set for deprecated versions"));
    } else if (v.deprecation_warning && v.deprecation_warning->size() > 256) {
      errs.push_back(InvalidError(vp.Child("deprecationWarning"), *v.deprecation_warning, "must be <= 256 characters long"));
    }
    if (!hoist_schema) ValidateSchema(errs, v.schema, v.has_status, vp.Child("schema"));
    const json::object* vo = &(*versions)[i].get_object();
    if (!hoist_sub) ValidateSubresources(errs, Obj(vo, "subresources"), vp.Child("subresources"));
    if (!hoist_cols) {
      if (const auto* cols = Arr(vo, "additionalPrinterColumns")) {
        for (size_t j = 0; j < cols->size(); ++j) ValidateColumn(errs, (*cols)[j], vp.Child("additionalPrinterColumns").Index(j));
      }
    }
    if (!v.selectable_fields.empty()) {
      std::set<std::string> uniq;
      for (size_t j = 0; j < v.selectable_fields.size(); ++j) {
        const std::string& jp = v.selectable_fields[j];
        FieldPath fp = vp.Child("selectableFields").Index(j).Child("jsonPath");
        if (jp.empty()) {
          errs.push_back(RequiredError(fp, ""));
          continue;
        }
        if (jp.rfind(".metadata", 0) == 0) errs.push_back(InvalidError(fp, jp, "must not point to fields in metadata"));
        if (!uniq.insert(jp).second) errs.push_back(DuplicateError(fp, jp));
      }
      if (uniq.size() > 8) errs.push_back(TooManyError(vp.Child("selectableFields"), static_cast<int>(uniq.size()), 8));
    }
  }
  if (!unique) errs.push_back(InvalidError(p.Child("versions"), versions ? json::value(*versions) : json::value(), "must contain unique version names"));
  if (storage_count != 1) {
    errs.push_back(InvalidError(p.Child("versions"), versions ? json::value(*versions) : json::value(),
                                "must have exactly one version marked as storage version"));
  }

  if (crd.names.plural.empty()) errs.push_back(RequiredError(p.Child("names").Child("plural"), ""));
  if (crd.names.singular.empty()) errs.push_back(RequiredError(p.Child("names").Child("singular"), ""));
  if (crd.names.kind.empty()) errs.push_back(RequiredError(p.Child("names").Child("kind"), ""));
  if (crd.names.list_kind.empty()) errs.push_back(RequiredError(p.Child("names").Child("listKind"), ""));
  for (auto& e : ValidateNames(crd.names, p.Child("names"))) errs.push_back(std::move(e));

  if (hoist_schema) {
    bool any_status = false;
    for (const auto& v : crd.versions) any_status = any_status || v.has_status;
    ValidateSchema(errs, crd.versions.front().schema, any_status, p.Child("validation"));
  }
  if (hoist_sub) ValidateSubresources(errs, Obj(&(*versions)[0].get_object(), "subresources"), p.Child("subresources"));
  if (hoist_cols) {
    const json::array* cols = Arr(&(*versions)[0].get_object(), "additionalPrinterColumns");
    for (size_t j = 0; j < cols->size(); ++j) ValidateColumn(errs, (*cols)[j], p.Child("additionalPrinterColumns").Index(j));
  }
  const json::object* conv = Obj(spec, "conversion");
  if (conv && crd.conversion_strategy != "None" && crd.preserve_unknown_fields) {
    errs.push_back(InvalidError(p.Child("conversion").Child("strategy"), crd.conversion_strategy,
                                "must be None if spec.preserveUnknownFields is true"));
  }
  ValidateConversion(errs, conv, p.Child("conversion"), old_ca_bundle);
  if (crd.preserve_unknown_fields) {
    errs.push_back(InvalidError(p.Child("preserveUnknownFields"), true,
                                "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in openAPIV3Schema instead"));
  }
  return errs;
}

ErrorList ValidateStoredVersions(const Object& obj) {
  ErrorList errs;
  FieldPath p = FieldPath("status").Child("storedVersions");
  std::vector<std::string> stored;
  if (const auto* st = Obj(&obj, "status")) {
    if (const auto* a = Arr(st, "storedVersions")) {
      for (const auto& v : *a) {
        if (v.is_string()) stored.emplace_back(v.get_string());
      }
    }
  }
  json::array stored_json;
  for (const auto& s : stored) stored_json.emplace_back(s);
  if (stored.empty()) {
    errs.push_back(InvalidError(p, json::value(stored_json), "must have at least one stored version"));
    return errs;
  }
  Crd crd = ParseCrd(obj);
  for (const auto& v : crd.versions) {
    if (v.storage && std::find(stored.begin(), stored.end(), v.name) == stored.end()) {
      errs.push_back(InvalidError(p, json::value(stored_json), "must have the storage version " + v.name));
    }
  }
  for (size_t i = 0; i < stored.size(); ++i) {
    if (crd.Version(stored[i])) continue;
    const std::string& v = stored[i];
    errs.push_back(InvalidError(p.Index(i), v,
                                "missing from spec.versions; " + v + " was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in " +
                                    v + " and removes " + v + " from status.storedVersions"));
  }
  return errs;
}

}  // namespace

ErrorList ValidateNames(const CrdNames& n, const FieldPath& p) {
  ErrorList errs;
  if (!n.plural.empty()) DnsLabel1035(errs, p.Child("plural"), n.plural);
  if (!n.singular.empty()) DnsLabel1035(errs, p.Child("singular"), n.singular);
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
  };
  if (!n.kind.empty()) {
    if (auto pr = am::IsDNS1035Label(lower(n.kind)); !pr.empty()) {
      errs.push_back(InvalidError(p.Child("kind"), n.kind, "may have mixed case, but should otherwise match: " + Join(pr, ",")));
    }
  }
  if (!n.list_kind.empty()) {
    if (auto pr = am::IsDNS1035Label(lower(n.list_kind)); !pr.empty()) {
      errs.push_back(InvalidError(p.Child("listKind"), n.list_kind, "may have mixed case, but should otherwise match: " + Join(pr, ",")));
    }
  }
  for (size_t i = 0; i < n.short_names.size(); ++i) DnsLabel1035(errs, p.Child("shortNames").Index(i), n.short_names[i]);
  if (!n.kind.empty() && n.kind == n.list_kind) {
    errs.push_back(InvalidError(p.Child("listKind"), n.list_kind, "kind and listKind may not be the same"));
  }
  for (size_t i = 0; i < n.categories.size(); ++i) DnsLabel1035(errs, p.Child("categories").Index(i), n.categories[i]);
  return errs;
}

ErrorList ValidateCrdStatus(const Object& obj) {
  const json::object* st = Obj(&obj, "status");
  return ValidateNames(ParseNames(Obj(st, "acceptedNames")), FieldPath("status").Child("acceptedNames"));
}

ErrorList ValidateCrd(const Object& obj) {
  ErrorList errs;
  Crd crd = ParseCrd(obj);
  std::string required = crd.names.plural + "." + crd.group;
  if (!crd.name.empty() && crd.name != required) {
    errs.push_back(InvalidError(FieldPath("metadata").Child("name"), crd.name, "must be spec.names.plural+\".\"+spec.group"));
  }
  for (auto& e : ValidateSpec(obj)) errs.push_back(std::move(e));
  for (auto& e : ValidateCrdStatus(obj)) errs.push_back(std::move(e));
  for (auto& e : ValidateStoredVersions(obj)) errs.push_back(std::move(e));
  for (auto& e : ValidateApiApproval(obj, nullptr)) errs.push_back(std::move(e));
  return errs;
}

// The stored CRD's conversion webhook caBundle (kube's allowInvalidCABundle keeps it acceptable).
std::string OldCaBundle(const Object& old) {
  const json::object* cc = Obj(Obj(Obj(Obj(&old, "spec"), "conversion"), "webhook"), "clientConfig");
  const auto* ca = cc ? cc->if_contains("caBundle") : nullptr;
  return ca && ca->is_string() ? std::string(ca->get_string()) : "";
}

ErrorList ValidateCrdUpdate(const Object& obj, const Object& old) {
  ErrorList errs = ValidateSpec(obj, OldCaBundle(old));
  Crd crd = ParseCrd(obj), prev = ParseCrd(old);
  FieldPath p("spec");
  auto immutable = [&](const std::string& now, const std::string& before, const FieldPath& fp) {
    if (now != before) errs.push_back(InvalidError(fp, now, "field is immutable"));
  };
  if (IsConditionTrue(old, "Established")) {
    immutable(crd.scope, prev.scope, p.Child("scope"));
    immutable(crd.names.kind, prev.names.kind, p.Child("names").Child("kind"));
  }
  immutable(crd.group, prev.group, p.Child("group"));
  immutable(crd.names.plural, prev.names.plural, p.Child("names").Child("plural"));
  for (auto& e : ValidateCrdStatus(obj)) errs.push_back(std::move(e));
  for (auto& e : ValidateStoredVersions(obj)) errs.push_back(std::move(e));
  for (auto& e : ValidateApiApproval(obj, &old)) errs.push_back(std::move(e));
  return errs;
}

}  // namespace capstan::api::apiextensions
