#include "storage/transformers/encryption_config.h"


#include <boost/json.hpp>
#include <fstream>
#include <set>
#include <sstream>

#include "apimachinery/field_errors.h"
#include "apimachinery/yaml.h"
#include "storage/transformers/aes.h"
#include "storage/transformers/prefix_transformer.h"
#include "storage/transformers/secretbox.h"
#include "util/duration.h"
#include "util/strings.h"
#include "util/feature_gate.h"

namespace capstan::storage::transformers {
namespace {

namespace json = boost::json;

constexpr char kApiVersion[] = "apiserver.config.k8s.io/v1";
constexpr char kKind[] = "EncryptionConfiguration";

Status ConfigError(std::string message) { return Status(400, "BadRequest", std::move(message)); }

std::string StringAt(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : "";
}

const json::array* ArrayAt(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_array() ? &v->get_array() : nullptr;
}

// kube's grYAMLString.
std::string GrString(const GroupResource& gr) {
  if (gr.group.empty() && gr.resource == "*") return "*.";
  return gr.group.empty() ? gr.resource : gr.resource + "." + gr.group;
}

bool HasCapital(std::string_view s) {
  for (char c : s) {
    if (c >= 'A' && c <= 'Z') return true;
  }
  return false;
}

const GroupResource kAnyGroupAnyResource{"*", "*"};

void ValidateOverlap(const std::vector<std::string>& resources, const FieldPath& path, ErrorList& errs) {
  if (resources.size() < 2) return;
  std::vector<GroupResource> r;
  for (const auto& s : resources) r.push_back(ParseGroupResource(s));
  bool overlap = false, duplicate = false;
  for (size_t i = 0; i < r.size(); ++i) {
    for (size_t j = 0; j < r.size(); ++j) {
      if (i == j) continue;
      if (r[i] == r[j] && !duplicate) {
        duplicate = true;
        continue;
      }
      if (overlap) continue;
      if (r[i] == kAnyGroupAnyResource) {
        overlap = true;
        continue;
      }
      if (r[i].group != r[j].group) continue;
      if (r[i].resource == "*" || r[j].resource == "*") overlap = true;
    }
  }
  json::array value;
  for (const auto& s : resources) value.emplace_back(s);
  if (duplicate) errs.push_back(InvalidError(path, json::value(value), "the same resource cannot be specified multiple times"));
  if (overlap) {
    errs.push_back(InvalidError(path, json::value(value),
                                "using overlapping resources such as 'secrets' and '*.' in the same resource list is "
                                "not allowed as they will be masked"));
  }
}

void ValidateNames(const std::vector<std::string>& resources, const FieldPath& path, ErrorList& errs) {
  for (size_t j = 0; j < resources.size(); ++j) {
    const std::string& res = resources[j];
    FieldPath p = path.Index(j);
    GroupResource gr = ParseGroupResource(res);
    if (HasCapital(res)) {
      errs.push_back(InvalidError(p, res, "resource name should not contain capital letters"));
    } else if (res == "*") {
      errs.push_back(InvalidError(p, res, "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources"));
    } else if (res == "apiserveripinfo" || res == "serviceipallocations" || res == "servicenodeportallocations") {
      errs.push_back(InvalidError(p, res, "resources which do not have REST API/s cannot be encrypted"));
    } else if (gr.group == "events.k8s.io") {
      errs.push_back(InvalidError(p, res,
                                  "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use "
                                  "'events' instead in the config file"));
    } else if (gr.group == "extensions") {
      errs.push_back(InvalidError(p, res, "'extensions' group has been removed and cannot be used for encryption"));
    } else if (gr.group == "*" && gr.resource != "*") {
      errs.push_back(InvalidError(p, res, "encrypting the same resource across groups is not supported"));
    }
  }
}

void ValidateKeys(const std::vector<KeyConfig>& keys, const FieldPath& path, const std::vector<size_t>& sizes,
                  ErrorList& errs) {
  if (keys.empty()) {
    errs.push_back(RequiredError(path, "at least one keys is required"));
    return;
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    FieldPath p = path.Index(i);
    if (keys[i].name.empty()) errs.push_back(RequiredError(p.Child("name"), "name is a mandatory field for a key"));
    if (keys[i].secret.empty()) {
      errs.push_back(RequiredError(p.Child("secret"), "secret is a mandatory field for a key"));
      continue;
    }
    std::string raw;
    if (!Base64Decode(keys[i].secret, raw)) {
      errs.push_back(InvalidError(p.Child("secret"), "REDACTED", "secrets must be base64 encoded"));
      continue;
    }
    bool matched = false;
    std::vector<std::string> want;
    for (size_t s : sizes) {
      matched = matched || raw.size() == s;
      want.push_back(std::to_string(s));
    }
    if (!matched) {
      errs.push_back(InvalidError(p.Child("secret"), "REDACTED",
                                  "secret is not of the expected length, got " + std::to_string(raw.size()) +
                                      ", expected one of [" + Join(want, " ") + "]"));
    }
  }
}

StatusOr<std::vector<KeyConfig>> ParseKeys(const json::value& provider_body) {
  std::vector<KeyConfig> keys;
  if (!provider_body.is_object()) return keys;
  if (const json::array* arr = ArrayAt(provider_body.get_object(), "keys")) {
    for (const auto& k : *arr) {
      if (!k.is_object()) return ConfigError("keys must be a list of {name, secret}");
      keys.push_back({StringAt(k.get_object(), "name"), StringAt(k.get_object(), "secret")});
    }
  }
  return keys;
}

// kube's KMSConfiguration defaults and validateKMSConfiguration.
void ParseKms(const json::value& body, const FieldPath& path, std::set<std::string>& names, KmsConfig& out,
              ErrorList& errs) {
  if (!body.is_object()) return;
  const json::object& o = body.get_object();
  out.name = StringAt(o, "name");
  if (std::string v = StringAt(o, "apiVersion"); !v.empty()) out.api_version = v;
  out.endpoint = StringAt(o, "endpoint");
  if (const json::value* t = o.if_contains("timeout"); t && t->is_string()) {
    auto d = ParseGoDuration(std::string(t->get_string()));
    if (!d) {
      errs.push_back(InvalidError(path.Child("timeout"), json::value(t->get_string()), "invalid duration"));
    } else {
      out.timeout = *d;
      if (d->count() <= 0) {
        errs.push_back(InvalidError(path.Child("timeout"), json::value(t->get_string()),
                                    "timeout should be a positive value"));
      }
    }
  }
  if (out.name.empty()) errs.push_back(RequiredError(path.Child("name"), "name is a mandatory field for a provider"));
  if (out.api_version != "v1" && out.name.find(':') != std::string::npos) {
    errs.push_back(InvalidError(path.Child("name"), json::value(out.name),
                                "invalid KMS provider name " + out.name + ", must not contain ':'"));
  }
  if (!out.name.empty() && !names.insert(out.name).second) {
    errs.push_back(InvalidError(path.Child("name"), json::value(out.name),
                                "duplicate KMS provider name " + out.name + ", names must be unique"));
  }
  if (o.contains("cachesize") && out.api_version != "v1") {
    errs.push_back(InvalidError(path.Child("cachesize"), o.at("cachesize"), "cachesize is not supported in v2"));
  } else if (const json::value* c = o.if_contains("cachesize"); c && c->is_number()) {
    out.cache_size = static_cast<int>(c->to_number<double>());
    if (out.cache_size == 0) {
      errs.push_back(InvalidError(path.Child("cachesize"), *c, "cachesize should be a positive value, or negative to disable"));
    }
  }
  if (out.endpoint.empty()) {
    errs.push_back(InvalidError(path.Child("endpoint"), json::value(""), "endpoint is a mandatory field for a kms"));
  } else if (out.endpoint.rfind("unix://", 0) != 0) {
    std::string scheme = out.endpoint.substr(0, out.endpoint.find(':'));
    errs.push_back(InvalidError(path.Child("endpoint"), json::value(out.endpoint),
                                "unsupported scheme \"" + scheme + "\" for KMS provider, only unix is supported"));
  }
  if (out.api_version != "v1" && out.api_version != "v2") {
    errs.push_back(InvalidError(path.Child("apiVersion"), json::value(out.api_version),
                                "unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported"));
  }
}

// One provider's entry in the resource's list: its prefix and a transformer choosing among its keys.
PrefixEntry ProviderEntry(const ProviderConfig& p) {
  if (p.type == "identity") return {"", EncryptCheckIdentity()};
  std::vector<PrefixEntry> keys;
  for (const auto& k : p.keys) {
    std::string raw;
    Base64Decode(k.secret, raw);  // validated already
    std::shared_ptr<const Transformer> t;
    if (p.type == "aesgcm") t = NewAesGcmTransformer(raw);
    if (p.type == "aescbc") t = NewAesCbcTransformer(raw);
    if (p.type == "secretbox") t = NewSecretboxTransformer(raw);
    keys.push_back({k.name + ":", std::move(t)});
  }
  std::string no_match = p.type == "secretbox" ? "no matching key was found for the provided Secretbox transformer"
                                               : "no matching key was found for the provided AES transformer";
  return {"k8s:enc:" + p.type + ":v1:", std::make_shared<PrefixTransformers>(std::move(keys), std::move(no_match))};
}

}  // namespace

GroupResource ParseGroupResource(std::string_view s) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos) return {"", std::string(s)};
  return {std::string(s.substr(dot + 1)), std::string(s.substr(0, dot))};
}

StatusOr<EncryptionConfig> ParseEncryptionConfig(std::string_view text) {
  auto parsed = apimachinery::YamlToJson(text);
  if (!parsed.ok()) return ConfigError(parsed.status().message());
  if (!parsed->value.is_object()) return ConfigError("the configuration is not an object");
  const json::object& root = parsed->value.get_object();
  std::string api_version = StringAt(root, "apiVersion"), kind = StringAt(root, "kind");
  if (api_version != kApiVersion || kind != kKind) {
    return ConfigError("got unexpected config type: " + (api_version.empty() ? "" : api_version + ", ") + "Kind=" +
                       kind + " (want " + kApiVersion + ", Kind=" + kKind + ")");
  }
  EncryptionConfig config;
  ErrorList errs;
  FieldPath root_path("resources");
  const json::array* resources = ArrayAt(root, "resources");
  if (!resources || resources->empty()) {
    errs.push_back(RequiredError(root_path, "at least one resources is required"));
    return ConfigError(AggregateMessage(errs));
  }
  std::set<std::string> kms_names;
  for (size_t i = 0; i < resources->size(); ++i) {
    if (!(*resources)[i].is_object()) return ConfigError("resources[" + std::to_string(i) + "] must be an object");
    const json::object& entry = (*resources)[i].get_object();
    FieldPath r = root_path.Index(i).Child("resources");
    FieldPath p = root_path.Index(i).Child("providers");
    ResourceConfig rc;
    if (const json::array* names = ArrayAt(entry, "resources")) {
      for (const auto& n : *names) {
        if (!n.is_string()) return ConfigError(r.str() + " must be a list of strings");
        rc.resources.emplace_back(n.get_string());
      }
    }
    if (rc.resources.empty()) errs.push_back(RequiredError(r, "at least one " + r.str() + " is required"));
    ValidateOverlap(rc.resources, r, errs);
    ValidateNames(rc.resources, r, errs);
    const json::array* providers = ArrayAt(entry, "providers");
    if (!providers || providers->empty()) errs.push_back(RequiredError(p, "at least one " + p.str() + " is required"));
    for (size_t j = 0; providers && j < providers->size(); ++j) {
      FieldPath path = p.Index(j);
      const json::value& pv = (*providers)[j];
      std::vector<std::string> kinds;
      if (pv.is_object()) {
        for (const char* k : {"kms", "aesgcm", "aescbc", "secretbox", "identity"}) {
          if (const json::value* body = pv.get_object().if_contains(k); body && !body->is_null()) kinds.push_back(k);
        }
      }
      if (kinds.empty()) {
        errs.push_back(InvalidError(path, pv,
                                    "provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, "
                                    "Secretbox, Identity"));
        continue;
      }
      if (kinds.size() > 1) {
        errs.push_back(InvalidError(path, pv,
                                    "more than one provider specified in a single element, should split into different "
                                    "list elements"));
        continue;
      }
      ProviderConfig pc;
      pc.type = kinds[0];
      auto keys = ParseKeys(pv.get_object().at(pc.type));
      if (!keys.ok()) return keys.TakeStatus();
      pc.keys = std::move(*keys);
      if (pc.type == "kms") {
        ParseKms(pv.get_object().at("kms"), path.Child("kms"), kms_names, pc.kms, errs);
      } else if (pc.type == "aesgcm" || pc.type == "aescbc") {
        ValidateKeys(pc.keys, path.Child(pc.type).Child("keys"), {16, 24, 32}, errs);
      } else if (pc.type == "secretbox") {
        ValidateKeys(pc.keys, path.Child(pc.type).Child("keys"), {32}, errs);
      }
      rc.providers.push_back(std::move(pc));
    }
    config.resources.push_back(std::move(rc));
  }
  if (!errs.empty()) return ConfigError(AggregateMessage(errs));
  return config;
}

namespace {

// kube's loadDataAndHash: the file's bytes, refused when unreadable or empty.
StatusOr<std::string> ReadConfigFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return ConfigError("error reading encryption provider configuration file " + GoQuote(path) + ": open " + path +
                       ": no such file or directory");
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (ss.str().empty()) return ConfigError("encryption provider configuration file " + GoQuote(path) + " is empty");
  return ss.str();
}

}  // namespace

std::string EncryptionConfigHash(std::string_view data) { return "k8s:enc:unstable:1:" + Sha256Hex(data); }

StatusOr<std::string> EncryptionConfigFileHash(const std::string& path) {
  auto data = ReadConfigFile(path);
  if (!data.ok()) return data.status();
  return EncryptionConfigHash(*data);
}

StatusOr<EncryptionConfig> LoadEncryptionConfig(const std::string& path, std::string* content_hash) {
  auto data = ReadConfigFile(path);
  if (!data.ok()) return ConfigError("error while loading file: " + data.status().message());
  auto config = ParseEncryptionConfig(*data);
  if (!config.ok()) {
    return ConfigError("error while parsing encryption provider configuration file " + GoQuote(path) + ": " +
                       config.status().message());
  }
  if (content_hash) *content_hash = EncryptionConfigHash(*data);
  return config;
}

StatusOr<std::map<GroupResource, std::shared_ptr<const Transformer>>> BuildTransformers(const EncryptionConfig& config,
                                                                                       const KmsFactory& kms) {
  std::map<GroupResource, std::vector<PrefixEntry>> entries;
  std::map<std::string, std::shared_ptr<const Transformer>> kms_by_name;
  for (const auto& rc : config.resources) {
    std::vector<PrefixEntry> providers;
    for (const auto& p : rc.providers) {
      if (p.type != "kms") {
        providers.push_back(ProviderEntry(p));
        continue;
      }
      if (p.kms.api_version == "v1" && !features::Enabled("KMSv1")) {  // kube 1.32: v1 only behind its gate
        return ConfigError("KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 "
                           "instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.");
      }
      auto& t = kms_by_name[p.kms.name];
      if (!t) {
        if (!kms) return ConfigError("KMS providers are not reloaded by Capstan yet (restart to change them)");
        auto built = kms(p.kms);
        if (!built.ok()) return built.TakeStatus();
        t = std::move(*built);
      }
      providers.push_back({"k8s:enc:kms:" + p.kms.api_version + ":" + p.kms.name + ":", t});
    }
    for (const auto& name : rc.resources) {
      GroupResource gr = ParseGroupResource(name);
      GroupResource any_in_group{gr.group, "*"};
      if (entries.count(any_in_group)) {
        return ConfigError("resource " + GoQuote(GrString(gr)) + " is masked by earlier rule " +
                           GoQuote(GrString(any_in_group)));
      }
      if (entries.count(kAnyGroupAnyResource)) {
        return ConfigError("resource " + GoQuote(GrString(gr)) + " is masked by earlier rule " +
                           GoQuote(GrString(kAnyGroupAnyResource)));
      }
      auto& list = entries[gr];
      list.insert(list.end(), providers.begin(), providers.end());
    }
  }
  std::map<GroupResource, std::shared_ptr<const Transformer>> out;
  for (auto& [gr, list] : entries) {
    out[gr] = std::make_shared<PrefixTransformers>(std::move(list), "no matching prefix found");
  }
  return out;
}

}  // namespace capstan::storage::transformers
