#include "auth/authn/authenticator.h"

#include <algorithm>

#include <set>

namespace capstan::authn {

Audiences IntersectAudiences(const Audiences& have, const Audiences& want) {
  Audiences out;
  for (const auto& w : want) {
    for (const auto& h : have) {
      if (h == w) {
        out.push_back(w);
        break;
      }
    }
  }
  return out;
}

Status UnauthorizedStatus() { return Status(401, "Unauthorized", "Unauthorized"); }

Status AuthError(std::string message) { return Status(401, "Unauthorized", std::move(message)); }

Status AggregateAuthErrors(const std::vector<Status>& errors) {
  if (errors.empty()) return Status();
  if (errors.size() == 1) return errors[0];
  std::set<std::string> seen;
  std::string joined;
  for (const auto& e : errors) {
    if (!seen.insert(e.message()).second) continue;
    if (seen.size() > 1) joined += ", ";
    joined += e.message();
  }
  if (seen.size() == 1) return AuthError(joined);
  return AuthError("[" + joined + "]");
}

Task<StatusOr<std::optional<UserInfo>>> RequestAuthenticator::Authenticate(const http::HttpRequest& req) {
  auto r = co_await AuthenticateRequest(req, {});
  if (!r.ok()) co_return r.TakeStatus();
  if (!r->has_value()) co_return std::optional<UserInfo>();
  co_return std::optional<UserInfo>(std::move((*r)->user));
}

Task<AuthResult> UnionAuthenticator::AuthenticateRequest(const http::HttpRequest& req, const Audiences& audiences) {
  std::vector<Status> errors;
  for (auto& m : members_) {
    auto r = co_await m->AuthenticateRequest(req, audiences);
    if (!r.ok()) {
      errors.push_back(r.TakeStatus());
      continue;
    }
    if (r->has_value()) co_return std::move(*r);
  }
  if (!errors.empty()) co_return AggregateAuthErrors(errors);
  co_return std::optional<Response>();
}

Task<AuthResult> TopLevelAuthenticator::AuthenticateRequest(const http::HttpRequest& req, const Audiences& audiences) {
  const bool implicit = audiences.empty();
  const Audiences& want = implicit ? api_audiences_ : audiences;
  auto r = co_await inner_->AuthenticateRequest(req, want);
  if (!r.ok()) co_return r;
  if (r->has_value()) {
    Response& resp = **r;
    if (implicit && !want.empty() && !resp.audiences.empty() && IntersectAudiences(want, resp.audiences).empty()) {
      co_return AuthError("token audiences are invalid for the server's audiences");
    }
    // kube's AuthenticatedGroupAdder: not for system:anonymous, nor for users already in either group.
    if (resp.user.name != http::kAnonymousUser && !resp.user.InGroup(http::kAllAuthenticated) &&
        !resp.user.InGroup(http::kAllUnauthenticated)) {
      resp.user.groups.push_back(http::kAllAuthenticated);
    }
    co_return r;
  }
  const bool path_allowed = anonymous_paths_.empty() ||
                            std::find(anonymous_paths_.begin(), anonymous_paths_.end(), req.path) != anonymous_paths_.end();
  if (anonymous_ && path_allowed) {
    Response anon;
    anon.user.name = http::kAnonymousUser;
    anon.user.groups = {http::kAllUnauthenticated};
    anon.audiences = want;
    co_return std::optional<Response>(std::move(anon));
  }
  co_return std::optional<Response>();
}

}  // namespace capstan::authn
