// api/authorization/reviews.cpp: kube's pkg/registry/authorization/{subjectaccessreview,
// localsubjectaccessreview,selfsubjectaccessreview,selfsubjectrulesreview}.
#include "api/authorization/authorization.h"
#include "api/common.h"
#include "apimachinery/errors.h"

namespace capstan::api::authorization {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

enum class Kind { kSubject, kLocal, kSelf, kRules };

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kSubject: return "SubjectAccessReview";
    case Kind::kLocal: return "LocalSubjectAccessReview";
    case Kind::kSelf: return "SelfSubjectAccessReview";
    case Kind::kRules: return "SelfSubjectRulesReview";
  }
  return "";
}

std::vector<std::string> Strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* a = ArrayAt(o, key)) {
    for (const auto& v : *a) {
      if (v.is_string()) out.emplace_back(v.get_string());
    }
  }
  return out;
}

json::array ToArray(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.emplace_back(s);
  return a;
}

json::value Or(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v ? *v : json::value(nullptr);
}

bool IsSet(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && !v->is_null();
}

// Whether ObjectMeta is empty (ignoring managedFields and, for local reviews, the namespace): a
// client's encoder writes creationTimestamp: null.
bool MetadataEmpty(const Object& obj, bool allow_namespace) {
  const auto* md = ObjectAt(obj, "metadata");
  if (!md) return true;
  for (const auto& [k, v] : *md) {
    if (k == "managedFields" || (allow_namespace && k == "namespace")) continue;
    if (v.is_null()) continue;
    if (v.is_string() && v.get_string().empty()) continue;
    if (v.is_object() && v.get_object().empty()) continue;
    if (v.is_array() && v.get_array().empty()) continue;
    if (v.is_int64() && v.get_int64() == 0) continue;
    return false;
  }
  return true;
}

class ReviewStore : public registry::Creater {
 public:
  ReviewStore(registry::ResourceInfo info, Kind kind, AuthorizationApiOptions opts)
      : info_(std::move(info)), kind_(kind), opts_(std::move(opts)) {}
  const registry::ResourceInfo& Info() const override { return info_; }

  Task<StatusOr<Object>> Create(const registry::Context& ctx, Object obj, const registry::CreateOptions&) override {
    const am::GroupKind gk{"authorization.k8s.io", KindName(kind_)};
    if (kind_ == Kind::kRules) co_return RulesReview(ctx, std::move(obj));
    if (kind_ == Kind::kLocal) {
      if (ctx.namespace_.empty()) co_return am::NewBadRequest("namespace is required on this type: ");
    }
    static const json::object kEmpty;
    const json::object* spec_ptr = ObjectAt(obj, "spec");
    const json::object& spec = spec_ptr ? *spec_ptr : kEmpty;
    ErrorList errs = ValidateAccessReviewSpec(spec, kind_ == Kind::kSelf, FieldPath("spec"));
    std::string md_ns;
    if (const auto* md = ObjectAt(obj, "metadata")) md_ns = StringAt(*md, "namespace");
    if (kind_ == Kind::kSubject && !MetadataEmpty(obj, false)) {
      errs.push_back(InvalidError(FieldPath("metadata"), Or(obj, "metadata"), "must be empty"));
    }
    if (kind_ == Kind::kLocal) {
      if (md_ns.empty()) md_ns = ctx.namespace_;
      if (!MetadataEmpty(obj, true)) {
        errs.push_back(InvalidError(FieldPath("metadata"), Or(obj, "metadata"), "must be empty except for namespace"));
      }
      if (const auto* ra = ObjectAt(spec, "resourceAttributes"); ra && StringAt(*ra, "namespace") != md_ns) {
        errs.push_back(InvalidError(FieldPath("spec.resourceAttributes.namespace"), StringAt(*ra, "namespace"),
                                    "must match metadata.namespace"));
      }
      if (IsSet(spec, "nonResourceAttributes")) {
        errs.push_back(InvalidError(FieldPath("spec.nonResourceAttributes"), Or(spec, "nonResourceAttributes"),
                                    "disallowed on this kind of request"));
      }
    }
    if (!errs.empty()) co_return am::NewInvalid(gk, "", errs);
    if (kind_ == Kind::kLocal && md_ns != ctx.namespace_) {
      co_return am::NewBadRequest("namespace of the request (" + ctx.namespace_ +
                                  ") does not match the namespace of the object (" + md_ns + ")");
    }

    ReviewAttributes a;
    if (kind_ == Kind::kSelf) {
      if (!ctx.user) co_return am::NewBadRequest("no user present on request");
      a.user = *ctx.user;
    } else {
      a.user.name = StringAt(spec, "user");
      a.user.uid = StringAt(spec, "uid");
      a.user.groups = Strings(spec, "groups");
      if (const auto* extra = ObjectAt(spec, "extra")) {
        for (const auto& [k, v] : *extra) {
          auto& vals = a.user.extra[std::string(k)];
          if (v.is_array()) {
            for (const auto& x : v.get_array()) {
              if (x.is_string()) vals.emplace_back(x.get_string());
            }
          }
        }
      }
    }
    if (const auto* ra = ObjectAt(spec, "resourceAttributes")) {
      a.resource_request = true;
      a.verb = StringAt(*ra, "verb");
      a.namespace_ = StringAt(*ra, "namespace");
      a.group = StringAt(*ra, "group");
      a.version = StringAt(*ra, "version");
      a.resource = StringAt(*ra, "resource");
      a.subresource = StringAt(*ra, "subresource");
      a.name = StringAt(*ra, "name");
    } else if (const auto* nra = ObjectAt(spec, "nonResourceAttributes")) {
      a.verb = StringAt(*nra, "verb");
      a.path = StringAt(*nra, "path");
    }
    ReviewDecision d;
    if (opts_.review) d = co_await opts_.review(a);
    json::object status;
    status["allowed"] = d.allowed;
    if (d.denied) status["denied"] = true;
    if (!d.reason.empty()) status["reason"] = d.reason;
    if (!d.evaluation_error.empty()) status["evaluationError"] = d.evaluation_error;
    obj["apiVersion"] = "authorization.k8s.io/v1";
    obj["kind"] = KindName(kind_);
    if (!obj.contains("metadata") || !obj["metadata"].is_object()) obj["metadata"] = json::object{};
    obj["metadata"].get_object()["creationTimestamp"] = nullptr;
    obj["status"] = std::move(status);
    co_return obj;
  }

 private:
  StatusOr<Object> RulesReview(const registry::Context& ctx, Object obj) const {
    if (!ctx.user) return am::NewBadRequest("no user present on request");
    std::string ns;
    if (const auto* spec = ObjectAt(obj, "spec")) ns = StringAt(*spec, "namespace");
    if (ns.empty()) return am::NewBadRequest("no namespace on request");
    RulesDecision d;
    if (opts_.rules) d = opts_.rules(*ctx.user, ns);
    json::array resource_rules;
    for (const auto& r : d.resource_rules) {
      json::object o;
      o["verbs"] = ToArray(r.verbs);
      if (!r.api_groups.empty()) o["apiGroups"] = ToArray(r.api_groups);
      if (!r.resources.empty()) o["resources"] = ToArray(r.resources);
      if (!r.resource_names.empty()) o["resourceNames"] = ToArray(r.resource_names);
      resource_rules.emplace_back(std::move(o));
    }
    json::array non_resource_rules;
    for (const auto& r : d.non_resource_rules) {
      json::object o;
      o["verbs"] = ToArray(r.verbs);
      if (!r.non_resource_urls.empty()) o["nonResourceURLs"] = ToArray(r.non_resource_urls);
      non_resource_rules.emplace_back(std::move(o));
    }
    json::object status;
    status["resourceRules"] = std::move(resource_rules);
    status["nonResourceRules"] = std::move(non_resource_rules);
    status["incomplete"] = d.incomplete;
    if (!d.evaluation_error.empty()) status["evaluationError"] = d.evaluation_error;
    Object out;
    out["kind"] = "SelfSubjectRulesReview";
    out["apiVersion"] = "authorization.k8s.io/v1";
    json::object md;
    md["creationTimestamp"] = nullptr;
    out["metadata"] = std::move(md);
    out["spec"] = json::object{};
    out["status"] = std::move(status);
    return out;
  }

  registry::ResourceInfo info_;
  Kind kind_;
  AuthorizationApiOptions opts_;
};

}  // namespace

ErrorList ValidateAccessReviewSpec(const registry::Object& spec, bool self, const FieldPath& path) {
  ErrorList errs;
  bool ra = IsSet(spec, "resourceAttributes");
  bool nra = IsSet(spec, "nonResourceAttributes");
  if (ra && nra) {
    errs.push_back(InvalidError(path.Child("nonResourceAttributes"), Or(spec, "nonResourceAttributes"),
                                "cannot be specified in combination with resourceAttributes"));
  }
  if (!ra && !nra) {
    errs.push_back(InvalidError(path.Child("resourceAttributes"), Or(spec, "nonResourceAttributes"),
                                "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  }
  if (!self && StringAt(spec, "user").empty() && Strings(spec, "groups").empty()) {
    errs.push_back(InvalidError(path.Child("user"), StringAt(spec, "user"), "at least one of user or group must be specified"));
  }
  return errs;
}

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps, AuthorizationApiOptions opts) {
  std::vector<registry::RestResource> all;
  auto add = [&](const char* resource, const char* singular, Kind kind, bool namespaced) {
    std::string k = KindName(kind);
    auto info = MakeInfo({"authorization.k8s.io", "v1", resource, singular, k, namespaced, {}, {},
                          "io.k8s.api.authorization.v1." + k});
    info.list_kind.clear();
    registry::RestResource r;
    r.info = info;
    r.storage = std::make_shared<ReviewStore>(info, kind, opts);
    r.schema = deps.schemas ? deps.schemas->Find(info.definition) : nullptr;
    all.push_back(std::move(r));
  };
  add("localsubjectaccessreviews", "localsubjectaccessreview", Kind::kLocal, true);
  add("selfsubjectaccessreviews", "selfsubjectaccessreview", Kind::kSelf, false);
  add("selfsubjectrulesreviews", "selfsubjectrulesreview", Kind::kRules, false);
  add("subjectaccessreviews", "subjectaccessreview", Kind::kSubject, false);
  return all;
}

}  // namespace capstan::api::authorization
