#include "auth/authn/issuer_discovery.h"

#include <boost/json.hpp>
#include <set>

#include "server/http/http_client.h"

namespace capstan::authn {

namespace json = boost::json;

StatusOr<IssuerDiscovery> IssuerDiscovery::Create(const std::string& issuer, const std::string& jwks_uri,
                                                  const std::vector<JwsKey>& keys) {
  auto iss = http::ParseHttpUrl(issuer);
  if (!iss || iss->scheme != "https") {
    return Status(500, "InternalError", "issuer URL must use https scheme, got: " + issuer);
  }
  if (issuer.find('?') != std::string::npos) return Status(500, "InternalError", "issuer URL must not include a query, got: " + issuer);
  auto jwks = http::ParseHttpUrl(jwks_uri);
  if (!jwks || jwks->scheme != "https") {
    return Status(500, "InternalError", "jwksURI requires https scheme, parsed as: " + jwks_uri);
  }
  std::set<std::string> algs;
  for (const auto& k : keys) algs.insert(k.DefaultAlgorithm());
  json::array alg_list;
  for (const auto& a : algs) alg_list.emplace_back(a);
  json::object config;
  config["issuer"] = issuer;
  config["jwks_uri"] = jwks_uri;
  config["response_types_supported"] = json::array{"id_token"};
  config["subject_types_supported"] = json::array{"public"};
  config["id_token_signing_alg_values_supported"] = std::move(alg_list);
  IssuerDiscovery d;
  d.configuration_ = json::serialize(config);
  std::vector<JwsKey> publics;
  for (const auto& k : keys) publics.push_back(k.PublicOnly());
  d.jwks_ = json::serialize(JwksDocument(publics));
  return d;
}

}  // namespace capstan::authn
