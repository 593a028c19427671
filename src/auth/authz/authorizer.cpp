#include "auth/authz/authorizer.h"

#include <set>

namespace capstan::authz {

Attributes Attributes::FromRequest(const http::UserInfo& user, const http::RequestInfo& info) {
  Attributes a;
  a.user = user;
  a.verb = info.verb;
  a.resource_request = info.is_resource_request;
  a.namespace_ = info.namespace_;
  a.api_group = info.api_group;
  a.api_version = info.api_version;
  a.resource = info.resource;
  a.subresource = info.subresource;
  a.name = info.name;
  a.path = info.path;
  if (info.is_resource_request &&
      (info.verb == "list" || info.verb == "watch" || info.verb == "deletecollection")) {
    a.field_selector = info.field_selector;
    a.label_selector = info.label_selector;
  }
  return a;
}

RulesResult AlwaysAllow::RulesFor(const http::UserInfo&, const std::string&) const {
  RulesResult r;
  r.resource_rules.push_back({{"*"}, {"*"}, {"*"}, {}});
  r.non_resource_rules.push_back({{"*"}, {"*"}});
  return r;
}

Task<Result> PrivilegedGroupAuthorizer::Authorize(const Attributes& a) {
  if (a.user.InGroup(http::kSystemPrivilegedGroup)) co_return Result{Decision::kAllow, ""};
  co_return Result{Decision::kNoOpinion, ""};
}

Task<Result> AuthenticatedOnly::Authorize(const Attributes& a) {
  if (a.user.InGroup(http::kAllAuthenticated)) co_return Result{Decision::kAllow, ""};
  if (!a.resource_request && a.verb == "get") {
    const std::string& p = a.path;
    if (p == "/healthz" || p == "/livez" || p == "/readyz" || p == "/version" || p == "/version/" || p.rfind("/healthz/", 0) == 0 ||
        p.rfind("/livez/", 0) == 0 || p.rfind("/readyz/", 0) == 0 ||
        // The service-account issuer's public discovery documents, for relying parties outside the cluster.
        p == "/.well-known/openid-configuration" || p == "/openid/v1/jwks") {
      co_return Result{Decision::kAllow, ""};
    }
  }
  co_return Result{Decision::kNoOpinion, ""};
}

Task<Result> UnionAuthorizer::Authorize(const Attributes& a) {
  std::string reasons;
  std::vector<std::string> errors;
  for (auto& m : members_) {
    Result r = co_await m->Authorize(a);
    if (!r.error.empty()) errors.push_back(r.error);
    if (r.decision != Decision::kNoOpinion) co_return r;
    if (!r.reason.empty()) {
      if (!reasons.empty()) reasons += "\n";
      reasons += r.reason;
    }
  }
  co_return Result{Decision::kNoOpinion, reasons, AggregateErrors(errors)};
}

RulesResult UnionAuthorizer::RulesFor(const http::UserInfo& user, const std::string& namespace_) const {
  RulesResult out;
  std::vector<std::string> errors;
  for (const auto& m : members_) {
    RulesResult r = m->RulesFor(user, namespace_);
    for (auto& x : r.resource_rules) out.resource_rules.push_back(std::move(x));
    for (auto& x : r.non_resource_rules) out.non_resource_rules.push_back(std::move(x));
    out.incomplete = out.incomplete || r.incomplete;
    if (!r.error.empty()) errors.push_back(std::move(r.error));
  }
  out.error = AggregateErrors(errors);
  return out;
}

std::string AggregateErrors(const std::vector<std::string>& errs) {
  if (errs.empty()) return "";
  if (errs.size() == 1) return errs[0];
  std::set<std::string> seen;
  std::string result;
  for (const auto& e : errs) {
    if (!seen.insert(e).second) continue;
    if (seen.size() > 1) result += ", ";
    result += e;
  }
  if (seen.size() == 1) return result;
  return "[" + result + "]";
}

namespace {
std::string Sanitize(const std::string& in) {
  std::string out;
  for (char c : in) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out.push_back(c);
  }
  return out;
}
}  // namespace

std::string ForbiddenMessage(const Attributes& a, const std::string& reason) {
  std::string msg;
  if (!a.resource_request) {
    msg = "User \"" + a.user.name + "\" cannot " + a.verb + " path \"" + a.path + "\"";
  } else {
    std::string resource = a.resource;
    if (!a.subresource.empty()) resource += "/" + a.subresource;
    msg = "User \"" + a.user.name + "\" cannot " + a.verb + " resource \"" + resource + "\" in API group \"" +
          a.api_group + "\"";
    if (!a.namespace_.empty()) {
      msg += " in the namespace \"" + a.namespace_ + "\"";
    } else {
      msg += " at the cluster scope";
    }
  }
  msg = Sanitize(msg);
  if (!reason.empty()) msg += ": " + reason;
  std::string gr = a.api_group.empty() ? a.resource : a.resource + "." + a.api_group;
  if (gr.empty()) return "forbidden: " + msg;
  if (a.name.empty()) return gr + " is forbidden: " + msg;
  return gr + " \"" + a.name + "\" is forbidden: " + msg;
}

Status ForbiddenStatus(const Attributes& a, const std::string& reason) {
  Status st(403, "Forbidden", ForbiddenMessage(a, reason));
  StatusDetails d;
  d.name = a.name;
  d.group = a.api_group;
  d.kind = a.resource;
  st.WithDetails(std::move(d));
  return st;
}

}  // namespace capstan::authz
