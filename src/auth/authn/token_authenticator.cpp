#include "auth/authn/token_authenticator.h"

namespace capstan::authn {

namespace {

// kube's audagnostic rule: with wanted audiences, answer only for the implicit ones they include.
AuthResult ApplyImplicitAudiences(AuthResult r, const Audiences& audiences) {
  if (!r.ok() || !r->has_value()) return r;
  if (!(*r)->audiences.empty()) {
    return AuthError("audience agnostic authenticator wrapped an authenticator that returned audiences");
  }
  (*r)->audiences = audiences;
  return r;
}

}  // namespace

Task<AuthResult> TokenUnion::AuthenticateToken(const std::string& token, const Audiences& audiences) {
  std::vector<Status> errors;
  for (auto& m : members_) {
    auto r = co_await m->AuthenticateToken(token, audiences);
    if (!r.ok()) {
      errors.push_back(r.TakeStatus());
      continue;
    }
    if (r->has_value()) co_return r;
  }
  if (!errors.empty()) co_return AggregateAuthErrors(errors);
  co_return std::optional<Response>();
}

Task<AuthResult> AudienceAgnosticToken::AuthenticateToken(const std::string& token, const Audiences& audiences) {
  if (audiences.empty()) co_return co_await delegate_->AuthenticateToken(token, audiences);
  Audiences auds = IntersectAudiences(implicit_, audiences);
  if (auds.empty()) co_return std::optional<Response>();
  co_return ApplyImplicitAudiences(co_await delegate_->AuthenticateToken(token, audiences), auds);
}

Task<AuthResult> AudienceAgnosticRequest::AuthenticateRequest(const http::HttpRequest& req, const Audiences& audiences) {
  if (audiences.empty()) co_return co_await delegate_->AuthenticateRequest(req, audiences);
  Audiences auds = IntersectAudiences(implicit_, audiences);
  if (auds.empty()) co_return std::optional<Response>();
  co_return ApplyImplicitAudiences(co_await delegate_->AuthenticateRequest(req, audiences), auds);
}

}  // namespace capstan::authn
