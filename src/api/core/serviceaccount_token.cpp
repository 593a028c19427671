// api/core/serviceaccount_token.cpp: serviceaccounts/token (kube's TokenREST).
#include "api/core/serviceaccount_token.h"

#include <boost/json.hpp>

#include "api/common.h"
#include "apimachinery/errors.h"
#include "apimachinery/field_errors.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

const am::GroupKind kTokenRequestKind{"authentication.k8s.io", "TokenRequest"};

class TokenRequestStore : public registry::Creater {
 public:
  TokenRequestStore(registry::ResourceInfo info, ServiceAccountTokenOptions opts, const Clock* clock,
                    registry::AdmissionHook* admission = nullptr)
      : info_(std::move(info)), opts_(std::move(opts)), clock_(clock), admission_(admission) {}
  const registry::ResourceInfo& Info() const override { return info_; }

  Task<StatusOr<Object>> Create(const registry::Context& ctx, Object req, const registry::CreateOptions&) override {
    const std::string& ns = ctx.namespace_;
    const std::string& name = ctx.name;
    if (ns.empty()) co_return am::NewBadRequest("namespace is required");
    // Mutating admission of the request as decoded (serviceaccounts/token CREATE), as kube's create handler.
    CO_RETURN_IF_ERROR(co_await Admission(ctx, req, false));
    json::object& md = req["metadata"].is_object() ? req["metadata"].get_object() : (req["metadata"] = json::object()).get_object();
    std::string req_name = StringAt(md, "name");
    std::string req_ns = StringAt(md, "namespace");
    if (!req_name.empty() && req_name != name) {
      co_return am::NewInvalid(kTokenRequestKind, name,
                               {InvalidError(FieldPath("metadata").Child("name"), req_name,
                                             "must match the service account name if specified")});
    }
    if (!req_ns.empty() && req_ns != ns) {
      co_return am::NewInvalid(kTokenRequestKind, name,
                               {InvalidError(FieldPath("metadata").Child("namespace"), req_ns,
                                             "must match the service account namespace if specified")});
    }
    auto sa = co_await opts_.get("serviceaccounts", ns, name);
    if (!sa.ok()) co_return sa.TakeStatus();
    std::string sa_uid(am::GetUid(*sa));
    std::string req_uid = StringAt(md, "uid");
    if (!req_uid.empty() && req_uid != sa_uid) {
      ctx.Warn("the UID in the token request (" + req_uid + ") does not match the UID of the service account (" + sa_uid +
               ") but TokenRequestServiceAccountUIDValidation is not enabled. In the future, this will return a conflict error");
    }

    json::object& spec = req["spec"].is_object() ? req["spec"].get_object() : (req["spec"] = json::object()).get_object();
    std::vector<std::string> audiences;
    if (const auto* a = ArrayAt(spec, "audiences")) {
      for (const auto& x : *a) {
        if (x.is_string()) audiences.emplace_back(x.get_string());
      }
    }
    if (audiences.empty()) {
      audiences = opts_.api_audiences;
      json::array arr;
      for (const auto& x : audiences) arr.emplace_back(x);
      spec["audiences"] = std::move(arr);
    }
    if (!spec.contains("expirationSeconds") || spec["expirationSeconds"].is_null()) spec["expirationSeconds"] = 3600;
    int64_t expiration = IntAt(spec, "expirationSeconds", 3600);
    if (req_name.empty()) md["name"] = name;
    if (req_ns.empty()) md["namespace"] = ns;
    if (req_uid.empty()) md["uid"] = sa_uid;
    auto now = clock_->Now();
    md["creationTimestamp"] = am::FormatRfc3339(am::Timestamp::FromTimePoint(now));
    req.erase("status");

    ErrorList errs;
    if (expiration < 600) {
      errs.push_back(InvalidError(FieldPath("spec").Child("expirationSeconds"), expiration,
                                  "may not specify a duration less than 10 minutes"));
    }
    if (expiration > (int64_t{1} << 32)) {
      errs.push_back(InvalidError(FieldPath("spec").Child("expirationSeconds"), expiration,
                                  "may not specify a duration larger than 2^32 seconds"));
    }
    if (!errs.empty()) co_return am::NewInvalid(kTokenRequestKind, "", errs);
    CO_RETURN_IF_ERROR(co_await Admission(ctx, req, true));  // validating admission after static validation

    TokenClaimsSpec claims;
    claims.namespace_ = ns;
    claims.service_account = {name, sa_uid};
    if (const auto* ref = ObjectAt(spec, "boundObjectRef")) {
      std::string api_version = StringAt(*ref, "apiVersion");
      std::string kind = StringAt(*ref, "kind");
      std::string ref_name = StringAt(*ref, "name");
      std::string ref_uid = StringAt(*ref, "uid");
      std::string group, version = api_version;
      if (auto slash = api_version.find('/'); slash != std::string::npos) {
        group = api_version.substr(0, slash);
        version = api_version.substr(slash + 1);
      }
      std::string uid;
      if (group.empty() && kind == "Pod") {
        auto pod = co_await opts_.get("pods", ns, ref_name);
        if (!pod.ok()) co_return pod.TakeStatus();
        if (StrOf(PathAt(*pod, {"spec", "serviceAccountName"})) != name) {
          co_return am::NewBadRequest("cannot bind token for serviceaccount " + GoQuote(name) +
                                      " to pod running with different serviceaccount name.");
        }
        uid = std::string(am::GetUid(*pod));
        claims.pod = TokenClaimsSpec::Ref{ref_name, uid};
        if (std::string node_name = StrOf(PathAt(*pod, {"spec", "nodeName"})); !node_name.empty()) {
          auto node = co_await opts_.get("nodes", "", node_name);
          if (node.ok()) {
            claims.node = TokenClaimsSpec::Ref{node_name, std::string(am::GetUid(*node))};
          } else if (node.status().code() == 404) {
            claims.node = TokenClaimsSpec::Ref{node_name, ""};
          } else {
            co_return am::NewInternalError(node.status().message());
          }
        }
      } else if (group.empty() && kind == "Node") {
        auto node = co_await opts_.get("nodes", "", ref_name);
        if (!node.ok()) co_return node.TakeStatus();
        uid = std::string(am::GetUid(*node));
        claims.node = TokenClaimsSpec::Ref{ref_name, uid};
      } else if (group.empty() && kind == "Secret") {
        auto secret = co_await opts_.get("secrets", ns, ref_name);
        if (!secret.ok()) co_return secret.TakeStatus();
        uid = std::string(am::GetUid(*secret));
        claims.secret = TokenClaimsSpec::Ref{ref_name, uid};
      } else {
        co_return am::NewBadRequest("cannot bind token to object of type " + group + "/" + version + ", Kind=" + kind);
      }
      if (!ref_uid.empty() && uid != ref_uid) {
        co_return am::NewConflict({group, kind}, ref_name,
                                  "the UID in the bound object reference (" + ref_uid +
                                      ") does not match the UID in record. The object might have been deleted and then recreated");
      }
    }
    if (opts_.max_expiration_seconds > 0 && expiration > opts_.max_expiration_seconds) {
      ctx.Warn("requested expiration of " + std::to_string(expiration) + " seconds shortened to " +
               std::to_string(opts_.max_expiration_seconds) + " seconds");
      expiration = opts_.max_expiration_seconds;
      spec["expirationSeconds"] = expiration;
    }
    // Kubelet's projected tokens ask for 3607 s: warn after that, fail after a year (kube's safe rollout).
    int64_t exp = expiration;
    int64_t warn_after = 0;
    bool kube_audiences = true;
    for (const auto& a : audiences) {
      kube_audiences = kube_audiences && std::find(opts_.api_audiences.begin(), opts_.api_audiences.end(), a) != opts_.api_audiences.end();
    }
    if (opts_.extend_expiration && claims.pod && expiration == kWarnOnlyBoundTokenExpirationSeconds && kube_audiences) {
      warn_after = exp;
      exp = kExpirationExtensionSeconds;
    }
    claims.audiences = audiences;
    claims.expiration_seconds = exp;
    claims.warn_after_seconds = warn_after;
    claims.now = now;
    auto token = opts_.sign(claims);
    if (!token.ok()) co_return am::NewInternalError("failed to generate token: " + token.status().message());
    json::object status;
    status["token"] = std::move(*token);
    status["expirationTimestamp"] =
        am::FormatRfc3339(am::Timestamp::FromTimePoint(now + std::chrono::seconds(expiration)));
    req["apiVersion"] = "authentication.k8s.io/v1";
    req["kind"] = "TokenRequest";
    req["status"] = std::move(status);
    co_return req;
  }

 private:
  static std::string StrOf(const json::value* v) { return v && v->is_string() ? std::string(v->get_string()) : ""; }

  Task<Status> Admission(const registry::Context& ctx, Object& req, bool validating) const {
    if (!admission_) co_return Status();
    registry::AdmissionAttributes a = registry::AttributesFor(ctx, "CREATE", info_, ctx.name);
    a.subresource = "token";
    a.object = &req;
    if (!validating) co_return co_await admission_->Admit(a);
    Object copy = req;
    a.object = &copy;
    co_return co_await admission_->Validate(a);
  }

  registry::ResourceInfo info_;
  ServiceAccountTokenOptions opts_;
  const Clock* clock_;
  registry::AdmissionHook* admission_ = nullptr;
};

}  // namespace

std::vector<registry::RestResource> ServiceAccountToken(const registry::GroupDeps& deps, ServiceAccountTokenOptions opts) {
  auto info = MakeInfo({"", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true, {}, {},
                        "io.k8s.api.authentication.v1.TokenRequest"});
  info.subresource = "token";
  info.kind = "TokenRequest";
  info.kind_group = "authentication.k8s.io";
  info.kind_version = "v1";
  info.list_kind.clear();
  registry::RestResource r;
  r.info = info;
  r.storage = std::make_shared<TokenRequestStore>(info, std::move(opts), deps.clock, deps.admission);
  r.schema = deps.schemas ? deps.schemas->Find(info.definition) : nullptr;
  return {std::move(r)};
}

}  // namespace capstan::api::core
