#include "admission/pod_toleration_restriction.h"

#include <boost/json.hpp>

#include "admission/builtin_plugins.h"
#include "admission/default_toleration_seconds.h"
#include "admission/plugin_config_decode.h"
#include "admission/resource_quota_evaluator.h"
#include "apimachinery/errors.h"
#include "util/strings.h"

namespace capstan::admission {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

constexpr char kApiVersion[] = "podtolerationrestriction.admission.k8s.io/v1alpha1";
constexpr char kSchemeName[] = "k8s.io/kubernetes/plugin/pkg/admission/podtolerationrestriction/config.go:32";
constexpr char kDefaultTolerations[] = "scheduler.alpha.kubernetes.io/defaultTolerations";
constexpr char kTolerationsWhitelist[] = "scheduler.alpha.kubernetes.io/tolerationsWhitelist";

// How a []v1.Toleration is decoded: the Go names in the type errors, and whether keys match
// ignoring case (encoding/json) or exactly (the config decoder, sigs.k8s.io/json).
struct TolerationsDecoding {
  std::string list_field;   // "Configuration.default"; "" at the top (Go value of type ...)
  std::string item_prefix;  // "Toleration.default"; "Toleration" at the top
  bool fold_case = false;
};

bool KeyIs(std::string_view got, std::string_view want, bool fold) { return got == want || (fold && EqualFold(got, want)); }

// The list, or one of its items, is not what Go expects there.
Status TypeError(const json::value& v, const TolerationsDecoding& d, std::string_view go_type) {
  if (d.list_field.empty()) {
    return ConfigError("json: cannot unmarshal " + GoJsonValueWord(v) + " into Go value of type " + std::string(go_type));
  }
  return UnmarshalTypeError(v, d.list_field, go_type);
}

StatusOr<Toleration> DecodeToleration(const json::object& o, const TolerationsDecoding& d) {
  Toleration t;
  struct StringField {
    const char* name;
    const char* go_type;
    std::string Toleration::*member;
  };
  static const StringField kStrings[] = {{"key", "string", &Toleration::key},
                                         {"operator", "v1.TolerationOperator", &Toleration::op},
                                         {"value", "string", &Toleration::value},
                                         {"effect", "v1.TaintEffect", &Toleration::effect}};
  for (const auto& kv : o) {
    if (kv.value().is_null()) continue;
    bool known = false;
    for (const auto& f : kStrings) {
      if (!KeyIs(kv.key(), f.name, d.fold_case)) continue;
      known = true;
      if (!kv.value().is_string()) return UnmarshalTypeError(kv.value(), d.item_prefix + "." + f.name, f.go_type);
      t.*f.member = std::string(kv.value().get_string());
    }
    if (!known && KeyIs(kv.key(), "tolerationSeconds", d.fold_case)) {
      const json::value& s = kv.value();
      if (s.is_int64()) {
        t.toleration_seconds = s.get_int64();
      } else if (s.is_uint64() && s.get_uint64() <= static_cast<uint64_t>(INT64_MAX)) {
        t.toleration_seconds = static_cast<int64_t>(s.get_uint64());
      } else {
        return UnmarshalTypeError(s, d.item_prefix + ".tolerationSeconds", "int64");
      }
    }
  }
  return t;
}

StatusOr<std::vector<Toleration>> DecodeTolerations(const json::value& v, const TolerationsDecoding& d) {
  std::vector<Toleration> out;
  if (v.is_null()) return out;
  if (!v.is_array()) return TypeError(v, d, "[]v1.Toleration");
  for (const auto& item : v.get_array()) {
    if (item.is_null()) {
      out.emplace_back();
      continue;
    }
    if (!item.is_object()) return TypeError(item, d, "v1.Toleration");
    ASSIGN_OR_RETURN(Toleration t, DecodeToleration(item.get_object(), d));
    out.push_back(std::move(t));
  }
  return out;
}

// The pod's tolerations as its (already decoded) object has them.
std::vector<Toleration> PodTolerations(const json::object& pod) {
  const json::value* spec = pod.if_contains("spec");
  const json::value* list = spec && spec->is_object() ? spec->get_object().if_contains("tolerations") : nullptr;
  if (!list) return {};
  auto decoded = DecodeTolerations(*list, {"", "Toleration", false});
  return decoded.ok() ? std::move(*decoded) : std::vector<Toleration>{};
}

// qos.GetPodQOS: the status's class when set, else the computed one.
bool IsBestEffortPod(const json::object& pod) {
  const json::value* status = pod.if_contains("status");
  const json::value* qos = status && status->is_object() ? status->get_object().if_contains("qosClass") : nullptr;
  if (qos && qos->is_string() && !qos->get_string().empty()) return qos->get_string() == "BestEffort";
  return quota::IsBestEffort(pod);
}

}  // namespace

StatusOr<PodTolerationRestrictionConfig> ParsePodTolerationRestrictionConfig(const std::optional<json::value>& config) {
  PodTolerationRestrictionConfig out;
  if (!config) return out;
  RETURN_IF_ERROR(CheckConfigKind(*config, {kApiVersion}, "Configuration", kSchemeName));
  const json::object& o = config->get_object();
  if (const json::value* d = o.if_contains("default")) {
    ASSIGN_OR_RETURN(out.default_tolerations,
                     DecodeTolerations(*d, {"Configuration.default", "Toleration.default", false}));
  }
  if (const json::value* w = o.if_contains("whitelist")) {
    ASSIGN_OR_RETURN(out.whitelist, DecodeTolerations(*w, {"Configuration.whitelist", "Toleration.whitelist", false}));
  }
  FieldPath root("podtolerationrestriction");
  ErrorList errs = ValidateTolerations(out.default_tolerations, root.Child("default"));
  ErrorList more = ValidateTolerations(out.whitelist, root.Child("whitelist"));
  errs.insert(errs.end(), more.begin(), more.end());
  if (!errs.empty()) {
    // fmt's %v of a field.ErrorList: every error, space-separated, in brackets.
    std::vector<std::string> texts;
    for (const auto& e : errs) texts.push_back(e.ToString());
    return ConfigError("invalid config: [" + Join(texts, " ") + "]");
  }
  return out;
}

StatusOr<std::vector<Toleration>> ParseTolerationsAnnotation(std::string_view text) {
  json::stream_parser parser;
  boost::system::error_code ec;
  size_t used = parser.write_some(text.data(), text.size(), ec);
  if (!ec) parser.finish(ec);
  if (ec) {
    // Go's texts for the common cases: input that stops early, and a character that cannot start
    // (or continue) the value.
    std::string_view rest = text.substr(std::min(used, text.size()));
    if (TrimSpace(rest).empty()) return ConfigError("unexpected end of JSON input");
    return ConfigError(std::string("invalid character '") + rest.front() + "' looking for beginning of value");
  }
  return DecodeTolerations(parser.release(), {"", "Toleration", true});
}

Task<StatusOr<std::optional<std::vector<Toleration>>>> PodTolerationRestriction::NamespaceTolerations(
    const std::string& ns, const char* key) const {
  auto got = co_await lookup_(ns);
  if (!got.ok()) {
    if (got.status().code() == 404) co_return got.status();
    co_return am::NewInternalError(got.status().message());
  }
  const json::value* meta = got->if_contains("metadata");
  const json::value* ann = meta && meta->is_object() ? meta->get_object().if_contains("annotations") : nullptr;
  const json::value* v = ann && ann->is_object() ? ann->get_object().if_contains(key) : nullptr;
  if (!v) co_return std::optional<std::vector<Toleration>>();
  std::string_view text = v->is_string() ? std::string_view(v->get_string()) : "";
  if (text.empty()) co_return std::optional<std::vector<Toleration>>(std::vector<Toleration>{});
  auto parsed = ParseTolerationsAnnotation(text);
  if (!parsed.ok()) co_return PlainError(parsed.status().message());
  co_return std::optional<std::vector<Toleration>>(std::move(*parsed));
}

Task<Status> PodTolerationRestriction::Admit(Attributes& a) {
  if (!IsPod(a) || !a.object) co_return Status();
  std::vector<Toleration> extra;
  if (a.operation == "CREATE") {
    auto ns_default = co_await NamespaceTolerations(a.namespace_, kDefaultTolerations);
    if (!ns_default.ok()) co_return ns_default.status();
    extra = *ns_default ? std::move(**ns_default) : config_.default_tolerations;
  }
  if (!IsBestEffortPod(*a.object)) {
    extra.push_back(Toleration{"node.kubernetes.io/memory-pressure", "Exists", "", "NoSchedule", std::nullopt});
  }
  if (!extra.empty()) {
    json::array list;
    for (const auto& t : MergeTolerations(PodTolerations(*a.object), extra)) list.push_back(t.ToJson());
    json::value& spec = (*a.object)["spec"];
    if (!spec.is_object()) spec = json::object();
    spec.get_object()["tolerations"] = std::move(list);
  }
  co_return co_await Validate(a);
}

Task<Status> PodTolerationRestriction::Validate(const Attributes& a) {
  if (!IsPod(a) || !a.object) co_return Status();
  std::vector<Toleration> tolerations = PodTolerations(*a.object);
  if (tolerations.empty()) co_return Status();
  auto ns_whitelist = co_await NamespaceTolerations(a.namespace_, kTolerationsWhitelist);
  if (!ns_whitelist.ok()) co_return ns_whitelist.status();
  const std::vector<Toleration>& whitelist = *ns_whitelist ? **ns_whitelist : config_.whitelist;
  const char* scope = *ns_whitelist ? "namespace" : "cluster";
  if (!VerifyAgainstWhitelist(tolerations, whitelist)) {
    co_return PlainError(std::string("pod tolerations (possibly merged with namespace default tolerations) conflict "
                                     "with its ") + scope + " whitelist");
  }
  co_return Status();
}

StatusOr<std::unique_ptr<Plugin>> NewPodTolerationRestrictionPlugin(const PluginDeps& deps) {
  if (!deps.namespace_lookup) return std::unique_ptr<Plugin>();
  std::optional<json::value> config;
  if (deps.config) {
    ASSIGN_OR_RETURN(config, deps.config->ConfigFor("PodTolerationRestriction"));
  }
  auto parsed = ParsePodTolerationRestrictionConfig(config);
  if (!parsed.ok()) {
    return ConfigError("couldn't init admission plugin \"PodTolerationRestriction\": " + parsed.status().message());
  }
  return std::unique_ptr<Plugin>(std::make_unique<PodTolerationRestriction>(std::move(*parsed), deps.namespace_lookup));
}

}  // namespace capstan::admission
