#include "auth/authn/request_header.h"

#include <algorithm>

#include "util/strings.h"

namespace capstan::authn {

namespace {

StatusOr<std::vector<std::string>> TrimHeaders(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& n : names) {
    std::string t(TrimSpace(n));
    if (t.empty()) return Status(500, "InternalError", "empty header " + GoQuote(n));
    out.push_back(std::move(t));
  }
  return out;
}

bool HasPrefixIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

}  // namespace

std::optional<UserInfo> UserFromRequestHeaders(const http::Headers& headers, const RequestHeaderConfig& config) {
  std::string name;
  for (const auto& h : config.username_headers) {
    auto v = headers.Get(h);
    if (!v.empty()) {
      name = std::string(v);
      break;
    }
  }
  if (name.empty()) return std::nullopt;
  UserInfo u;
  u.name = std::move(name);
  for (const auto& h : config.uid_headers) {
    auto v = headers.Get(h);
    if (!v.empty()) {
      u.uid = std::string(v);
      break;
    }
  }
  for (const auto& h : config.group_headers) {
    for (auto v : headers.GetAll(h)) {
      if (!v.empty()) u.groups.emplace_back(v);
    }
  }
  for (const auto& prefix : config.extra_header_prefixes) {
    for (const auto& f : headers.fields()) {
      if (!HasPrefixIgnoreCase(f.name, prefix)) continue;
      std::string raw = ToLower(std::string_view(f.name).substr(prefix.size()));
      std::string key;
      // url.PathUnescape: a malformed escape keeps the raw key.
      if (!PercentDecode(raw, key, false)) key = raw;
      u.extra[key].push_back(f.value);
    }
  }
  return u;
}

StatusOr<std::unique_ptr<RequestHeaderAuthenticator>> RequestHeaderAuthenticator::Create(RequestHeaderConfig config) {
  auto verifier = X509Authenticator::FromFile(config.client_ca_file);
  if (!verifier.ok()) {
    return Status(500, "InternalError", "--requestheader-client-ca-file: " + verifier.status().message());
  }
  return Create(std::move(config), std::move(*verifier));
}

StatusOr<std::unique_ptr<RequestHeaderAuthenticator>> RequestHeaderAuthenticator::Create(
    RequestHeaderConfig config, std::unique_ptr<X509Authenticator> verifier) {
  for (auto* list : {&config.username_headers, &config.uid_headers, &config.group_headers,
                     &config.extra_header_prefixes}) {
    auto trimmed = TrimHeaders(*list);
    if (!trimmed.ok()) return trimmed.TakeStatus();
    *list = std::move(*trimmed);
  }
  auto a = std::unique_ptr<RequestHeaderAuthenticator>(new RequestHeaderAuthenticator());
  a->config_ = std::move(config);
  a->verifier_ = std::move(verifier);
  return a;
}

Task<AuthResult> RequestHeaderAuthenticator::AuthenticateRequest(const http::HttpRequest& req, const Audiences&) {
  auto chain = verifier_->VerifyChain(req.peer_certs_der);
  if (!chain.ok()) co_return chain.TakeStatus();
  if (!chain->has_value()) co_return std::optional<Response>();
  const auto& allowed = config_.allowed_names;
  if (!allowed.empty() &&
      std::find(allowed.begin(), allowed.end(), (*chain)->common_name) == allowed.end()) {
    co_return AuthError("x509: subject with cn=" + (*chain)->common_name + " is not in the allowed list");
  }
  auto user = UserFromRequestHeaders(req.headers, config_);
  if (!user) co_return std::optional<Response>();
  Response r;
  r.user = std::move(*user);
  co_return std::optional<Response>(std::move(r));
}

}  // namespace capstan::authn
