#include "auth/authn/token_generator.h"

#include <boost/json.hpp>

#include "apimachinery/names.h"
#include "auth/authn/jwt.h"
#include "auth/authn/service_account.h"

namespace capstan::authn {

namespace json = boost::json;

namespace {

json::object RefJson(const ObjectRef& r) {
  json::object o;
  if (!r.name.empty()) o["name"] = r.name;
  if (!r.uid.empty()) o["uid"] = r.uid;
  return o;
}

}  // namespace

StatusOr<IssuedToken> ServiceAccountTokenGenerator::GenerateBound(const BoundTokenSpec& spec) const {
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(spec.now.time_since_epoch()).count();
  IssuedToken out;
  out.jti = apimachinery::NewUid();
  // Keys in the order kube's tokens have them (go-jose merges the claims into sorted maps).
  json::object k8s;
  k8s["namespace"] = spec.namespace_;
  if (spec.node) k8s["node"] = RefJson(*spec.node);
  if (spec.pod) {
    k8s["pod"] = RefJson(*spec.pod);
  } else if (spec.secret) {
    k8s["secret"] = RefJson(*spec.secret);
  }
  k8s["serviceaccount"] = RefJson(spec.service_account);
  if (spec.warn_after_seconds > 0) k8s["warnafter"] = now + spec.warn_after_seconds;
  json::object claims;
  json::array aud;
  for (const auto& a : spec.audiences) aud.emplace_back(a);
  claims["aud"] = std::move(aud);
  claims["exp"] = now + spec.expiration_seconds;
  claims["iat"] = now;
  claims["iss"] = issuer_;
  claims["jti"] = out.jti;
  claims["kubernetes.io"] = std::move(k8s);
  claims["nbf"] = now;
  claims["sub"] = ServiceAccountUsername(spec.namespace_, spec.service_account.name);
  auto token = SignJwt(claims, key_);
  if (!token.ok()) return token.TakeStatus();
  out.token = std::move(*token);
  return out;
}

StatusOr<std::string> ServiceAccountTokenGenerator::GenerateLegacy(const std::string& ns, const ObjectRef& service_account,
                                                                  const std::string& secret_name) const {
  json::object claims;
  claims["iss"] = kLegacyServiceAccountIssuer;
  claims["kubernetes.io/serviceaccount/namespace"] = ns;
  claims["kubernetes.io/serviceaccount/secret.name"] = secret_name;
  claims["kubernetes.io/serviceaccount/service-account.name"] = service_account.name;
  claims["kubernetes.io/serviceaccount/service-account.uid"] = service_account.uid;
  claims["sub"] = ServiceAccountUsername(ns, service_account.name);
  return SignJwt(claims, key_);
}

}  // namespace capstan::authn
