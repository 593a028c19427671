#include "auth/authn/authenticator.h"

namespace capstan::authn {

Status UnauthorizedStatus() { return Status(401, "Unauthorized", "Unauthorized"); }

Task<StatusOr<std::optional<UserInfo>>> UnionAuthenticator::Authenticate(const http::HttpRequest& req) {
  std::optional<Status> first_error;
  for (auto& m : members_) {
    auto r = co_await m->Authenticate(req);
    if (!r.ok()) {
      if (!first_error) first_error = r.TakeStatus();
      continue;
    }
    if (r->has_value()) co_return std::move(*r);
  }
  if (first_error) co_return *first_error;
  co_return std::optional<UserInfo>();
}

Task<StatusOr<std::optional<UserInfo>>> TopLevelAuthenticator::Authenticate(const http::HttpRequest& req) {
  auto r = co_await inner_->Authenticate(req);
  if (!r.ok()) co_return r;
  if (r->has_value()) {
    UserInfo& u = **r;
    if (!u.InGroup(http::kAllAuthenticated)) u.groups.push_back(http::kAllAuthenticated);
    co_return r;
  }
  if (anonymous_) {
    UserInfo anon;
    anon.name = http::kAnonymousUser;
    anon.groups = {http::kAllUnauthenticated};
    co_return std::optional<UserInfo>(std::move(anon));
  }
  co_return std::optional<UserInfo>();
}

}  // namespace capstan::authn
