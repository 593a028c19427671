#include "server/filters/filters.h"
#include "server/http/responses.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::server {
namespace {

struct ImpersonationRequest {
  std::string kind;  // ServiceAccount, User, Group, UserExtra, UID
  std::string namespace_;
  std::string name;
  std::string extra_key;
};

constexpr std::string_view kExtraPrefix = "Impersonate-Extra-";

bool SplitServiceAccount(const std::string& user, std::string& ns, std::string& name) {
  constexpr std::string_view kPrefix = "system:serviceaccount:";
  if (!StartsWith(user, kPrefix)) return false;
  auto parts = Split(std::string_view(user).substr(kPrefix.size()), ':');
  if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) return false;
  ns = parts[0];
  name = parts[1];
  return true;
}

// Go's %v of kube's []v1.ObjectReference for the requests: "[{Group  g1    } {UID  u  authentication.k8s.io/v1  }]"
// (Kind Namespace Name UID APIVersion ResourceVersion FieldPath, blank when empty).
std::string DescribeRequests(const std::vector<ImpersonationRequest>& requests) {
  std::string out = "[";
  for (size_t i = 0; i < requests.size(); ++i) {
    const auto& r = requests[i];
    bool v1 = r.kind == "UserExtra" || r.kind == "UID";
    if (i > 0) out += " ";
    out += "{" + r.kind + " " + r.namespace_ + " " + r.name + "  " + (v1 ? "authentication.k8s.io/v1" : "") + "  " +
           r.extra_key + "}";
  }
  return out + "]";
}

}  // namespace

Handler WithImpersonation(Handler next, authz::Authorizer& authorizer) {
  return [next = std::move(next), &authorizer](http::RequestContext& ctx) -> Task<void> {
    const auto& headers = ctx.request.headers;
    std::vector<ImpersonationRequest> requests;
    std::string requested_user(headers.Get("Impersonate-User"));
    bool has_user = !requested_user.empty();
    if (has_user) {
      ImpersonationRequest r;
      if (SplitServiceAccount(requested_user, r.namespace_, r.name)) {
        r.kind = "ServiceAccount";
      } else {
        r.kind = "User";
        r.name = requested_user;
      }
      requests.push_back(r);
    }
    bool has_other = false;
    for (auto g : headers.GetAll("Impersonate-Group")) {
      has_other = true;
      requests.push_back({"Group", "", std::string(g), ""});
    }
    for (const auto& f : headers.fields()) {
      if (f.name.size() <= kExtraPrefix.size() || !EqualsIgnoreCase(f.name.substr(0, kExtraPrefix.size()), kExtraPrefix)) {
        continue;
      }
      has_other = true;
      std::string key;
      std::string raw = ToLower(f.name.substr(kExtraPrefix.size()));
      if (!PercentDecode(raw, key, false)) key = raw;
      requests.push_back({"UserExtra", "", f.value, key});
    }
    std::string requested_uid(headers.Get("Impersonate-Uid"));
    if (!requested_uid.empty()) {
      has_other = true;
      requests.push_back({"UID", "", requested_uid, ""});
    }
    if (requests.empty()) {
      co_await next(ctx);
      co_return;
    }
    if (has_other && !has_user) {
      co_await http::RespondStatus(ctx, Status(400, "BadRequest", "requested " + DescribeRequests(requests) + " without impersonating a user"));
      co_return;
    }

    bool groups_specified = !headers.GetAll("Impersonate-Group").empty();
    http::UserInfo user;
    for (const auto& r : requests) {
      authz::Attributes a;
      a.user = *ctx.user;
      a.verb = "impersonate";
      a.resource_request = true;
      a.namespace_ = r.namespace_;
      a.name = r.name;
      if (r.kind == "ServiceAccount") {
        a.resource = "serviceaccounts";
        user.name = "system:serviceaccount:" + r.namespace_ + ":" + r.name;
        if (!groups_specified) {
          user.groups = {"system:serviceaccounts", "system:serviceaccounts:" + r.namespace_};
        }
      } else if (r.kind == "User") {
        a.resource = "users";
        user.name = r.name;
      } else if (r.kind == "Group") {
        a.resource = "groups";
        user.groups.push_back(r.name);
      } else if (r.kind == "UserExtra") {
        a.api_group = "authentication.k8s.io";
        a.api_version = "v1";
        a.resource = "userextras";
        a.subresource = r.extra_key;
        user.extra[r.extra_key].push_back(r.name);
      } else {
        a.api_group = "authentication.k8s.io";
        a.api_version = "v1";
        a.resource = "uids";
        user.uid = r.name;
      }
      authz::Result decision = co_await authorizer.Authorize(a);
      if (decision.decision != authz::Decision::kAllow) {
        co_await http::RespondStatus(ctx, authz::ForbiddenStatus(a, decision.reason));
        co_return;
      }
    }
    if (user.name != http::kAnonymousUser) {
      if (!user.InGroup(http::kAllAuthenticated) && !user.InGroup(http::kAllUnauthenticated)) {
        user.groups.push_back(http::kAllAuthenticated);
      }
    } else if (!user.InGroup(http::kAllUnauthenticated)) {
      user.groups.push_back(http::kAllUnauthenticated);
    }
    LogDebug("impersonating", {{"user", ctx.user->name}, {"as", user.name}});
    ctx.impersonator = std::move(ctx.user);
    ctx.user = std::move(user);
    ctx.request.headers.Remove("Impersonate-User");
    ctx.request.headers.Remove("Impersonate-Group");
    ctx.request.headers.Remove("Impersonate-Uid");
    std::vector<std::string> extra_names;
    for (const auto& f : ctx.request.headers.fields()) {
      if (f.name.size() > kExtraPrefix.size() && EqualsIgnoreCase(f.name.substr(0, kExtraPrefix.size()), kExtraPrefix)) {
        extra_names.push_back(f.name);
      }
    }
    for (const auto& n : extra_names) ctx.request.headers.Remove(n);
    co_await next(ctx);
  };
}

}  // namespace capstan::server
