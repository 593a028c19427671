#include "auth/authn/authentication_config.h"

#include <gtest/gtest.h>

#include "authn_test_util.h"

namespace capstan::authn {
namespace {

constexpr char kHeader[] = "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n";

AuthenticationConfiguration Decode(const std::string& body) {
  auto c = DecodeAuthenticationConfiguration(kHeader + body);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : AuthenticationConfiguration{};
}

std::string Errors(const std::string& body, const std::vector<std::string>& disallowed = {}) {
  ErrorList errs = ValidateAuthenticationConfiguration(Decode(body), disallowed);
  return errs.empty() ? "" : AggregateMessage(errs);
}

TEST(AuthenticationConfigTest, DecodesEveryField) {
  testing::TestCa ca("jwt-ca");
  std::string pem = ca.pem();
  std::string indented;
  for (char ch : pem) {
    indented += ch;
    if (ch == '\n') indented += "      ";
  }
  auto c = Decode(R"Y(jwt:
- issuer:
    url: https://issuer.example
    discoveryURL: https://discovery.example/.well-known/openid-configuration
    audiences: [a, b]
    audienceMatchPolicy: MatchAny
    certificateAuthority: |
      )Y" + indented + R"Y(
  claimValidationRules:
  - claim: hd
    requiredValue: example.com
  - expression: claims.exp - claims.nbf <= 86400
    message: too long
  claimMappings:
    username: {expression: "'u:' + claims.sub"}
    groups: {claim: roles, prefix: "r:"}
    uid: {claim: sub}
    extra:
    - key: example.com/tenant
      valueExpression: claims.tenant
  userValidationRules:
  - expression: "!user.username.startsWith('system:')"
    message: no system users
anonymous:
  enabled: true
  conditions:
  - path: /livez
  - path: /readyz
)Y");
  ASSERT_EQ(c.jwt.size(), 1u);
  const JwtAuthenticatorConfig& j = c.jwt[0];
  EXPECT_EQ(j.url, "https://issuer.example");
  EXPECT_EQ(j.discovery_url, "https://discovery.example/.well-known/openid-configuration");
  EXPECT_EQ(j.audiences, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(j.audience_match_policy, "MatchAny");
  EXPECT_NE(j.certificate_authority.find("BEGIN CERTIFICATE"), std::string::npos);
  ASSERT_EQ(j.claim_validation_rules.size(), 2u);
  EXPECT_EQ(j.claim_validation_rules[0].claim, "hd");
  EXPECT_EQ(j.claim_validation_rules[1].message, "too long");
  EXPECT_EQ(j.username.expression, "'u:' + claims.sub");
  EXPECT_FALSE(j.username.prefix.has_value());
  EXPECT_EQ(j.groups.claim, "roles");
  EXPECT_EQ(j.groups.prefix, std::optional<std::string>("r:"));
  EXPECT_EQ(j.uid_claim, "sub");
  ASSERT_EQ(j.extra.size(), 1u);
  EXPECT_EQ(j.extra[0].key, "example.com/tenant");
  ASSERT_EQ(j.user_validation_rules.size(), 1u);
  ASSERT_TRUE(c.anonymous);
  EXPECT_TRUE(c.anonymous->enabled);
  EXPECT_EQ(c.anonymous->condition_paths, (std::vector<std::string>{"/livez", "/readyz"}));
  EXPECT_TRUE(ValidateAuthenticationConfiguration(c, {}).empty())
      << AggregateMessage(ValidateAuthenticationConfiguration(c, {}));
  auto compiled = CompileJwtAuthenticator(j, {});
  EXPECT_TRUE(compiled.errors.empty());
  EXPECT_TRUE(compiled.programs.username);
  EXPECT_FALSE(compiled.programs.groups);
  EXPECT_EQ(compiled.programs.extra.size(), 1u);
  EXPECT_EQ(compiled.programs.claim_validation.size(), 1u);
  EXPECT_EQ(compiled.programs.user_validation.size(), 1u);
}

TEST(AuthenticationConfigTest, DecodingErrorsAreKubes) {
  EXPECT_EQ(DecodeAuthenticationConfiguration("").status().message(), "empty config data");
  EXPECT_EQ(DecodeAuthenticationConfiguration(std::string(kHeader) + "jwt:\n- issuer: {url: x, audience: [a]}\n").status().message(),
            "strict decoding error: unknown field \"jwt[0].issuer.audience\"");
  EXPECT_EQ(DecodeAuthenticationConfiguration(std::string(kHeader) + "jwt: {}\n").status().message(),
            "json: cannot unmarshal object into Go struct field AuthenticationConfiguration.jwt of type "
            "[]v1beta1.JWTAuthenticator");
  EXPECT_EQ(DecodeAuthenticationConfiguration(std::string(kHeader) + "anonymous: {enabled: yes please}\n").status().message(),
            "json: cannot unmarshal string into Go struct field AnonymousAuthConfig.anonymous.enabled of type bool");
  auto wrong = DecodeAuthenticationConfiguration("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\n");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("no kind \"AuthenticationConfiguration\" is registered for version "
                                          "\"apiserver.config.k8s.io/v1\""),
            std::string::npos)
      << wrong.status().message();
}

TEST(AuthenticationConfigTest, IssuerValidation) {
  EXPECT_EQ(Errors("jwt:\n- issuer: {url: 'http://u:p@i.example/x?q=1#f', audiences: [a, a, '']}\n"
                   "  claimMappings: {username: {claim: sub, prefix: ''}}\n"),
            "[jwt[0].issuer.url: Invalid value: \"http://u:p@i.example/x?q=1#f\": URL scheme must be https, "
            "jwt[0].issuer.url: Invalid value: \"http://u:p@i.example/x?q=1#f\": URL must not contain a username or password, "
            "jwt[0].issuer.url: Invalid value: \"http://u:p@i.example/x?q=1#f\": URL must not contain a query, "
            "jwt[0].issuer.url: Invalid value: \"http://u:p@i.example/x?q=1#f\": URL must not contain a fragment, "
            "jwt[0].issuer.audiences[1]: Duplicate value: \"a\", "
            "jwt[0].issuer.audiences[2]: Required value: audience can't be empty, "
            "jwt[0].issuer.audienceMatchPolicy: Invalid value: \"\": audienceMatchPolicy must be MatchAny for multiple audiences]");
  EXPECT_EQ(Errors("jwt:\n- issuer: {url: 'https://i', discoveryURL: 'https://i/', audiences: []}\n"
                   "  claimMappings: {username: {claim: sub, prefix: ''}}\n"),
            "[jwt[0].issuer.discoveryURL: Invalid value: \"https://i/\": discoveryURL must be different from URL, "
            "jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required]");
  EXPECT_EQ(Errors("jwt:\n- issuer: {url: 'https://kubernetes.default.svc', audiences: [a]}\n"
                   "  claimMappings: {username: {claim: sub, prefix: ''}}\n",
                   {"https://kubernetes.default.svc"}),
            "jwt[0].issuer.url: Invalid value: \"https://kubernetes.default.svc\": URL must not overlap with disallowed "
            "issuers: [https://kubernetes.default.svc]");
  EXPECT_EQ(Errors("jwt:\n- issuer: {url: 'https://i', audiences: [a], certificateAuthority: nope}\n"
                   "  claimMappings: {username: {claim: sub, prefix: ''}}\n"
                   "- issuer: {url: 'https://i', audiences: [a]}\n"
                   "  claimMappings: {username: {claim: sub, prefix: ''}}\n"),
            "[jwt[0].issuer.certificateAuthority: Invalid value: \"<omitted>\": data does not contain any valid RSA or "
            "ECDSA certificates, jwt[1].issuer.url: Duplicate value: \"https://i\"]");
}

TEST(AuthenticationConfigTest, MappingAndRuleValidation) {
  const std::string issuer = "jwt:\n- issuer: {url: 'https://i', audiences: [a]}\n";
  EXPECT_EQ(Errors(issuer + "  claimMappings: {username: {claim: sub}}\n"),
            "jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to "
            "an empty string to disable prefixing");
  EXPECT_EQ(Errors(issuer + "  claimMappings: {username: {}}\n"),
            "jwt[0].claimMappings.username: Required value: claim or expression is required");
  EXPECT_EQ(Errors(issuer + "  claimMappings:\n    username: {claim: sub, expression: claims.sub}\n"
                            "    uid: {claim: sub, expression: claims.sub}\n"),
            "[jwt[0].claimMappings.username: Invalid value: \"\": claim and expression can't both be set, "
            "jwt[0].claimMappings.uid: Invalid value: \"\": claim and expression can't both be set]");
  EXPECT_EQ(Errors(issuer + "  claimMappings:\n    username: {expression: claims.sub, prefix: 'x:'}\n"),
            "jwt[0].claimMappings.username.prefix: Invalid value: \"x:\": prefix can't be set when expression is set");
  EXPECT_EQ(Errors(issuer + "  claimMappings:\n    username: {expression: claims.email}\n"),
            "jwt[0].claimMappings.username.expression: Invalid value: \"claims.email\": claims.email_verified must be used "
            "in claimMappings.username.expression or claimMappings.extra[*].valueExpression or "
            "claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression");
  EXPECT_EQ(Errors(issuer + "  claimValidationRules: [{expression: 'claims.?email_verified.orValue(false) == true'}]\n"
                            "  claimMappings:\n    username: {expression: claims.email}\n"),
            "");
  EXPECT_EQ(Errors(issuer + "  claimMappings:\n    username: {claim: sub, prefix: ''}\n    extra:\n"
                            "    - {key: Example.com/X, valueExpression: claims.x}\n"
                            "    - {key: k8s.io/x, valueExpression: claims.x}\n"
                            "    - {key: nodomain, valueExpression: claims.x}\n"
                            "    - {key: example.com/y}\n"),
            "[jwt[0].claimMappings.extra[0].key: Invalid value: \"Example.com\": a lowercase RFC 1123 subdomain must "
            "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), "
            "jwt[0].claimMappings.extra[0].key: Invalid value: \"Example.com/X\": key must be lowercase, "
            "jwt[0].claimMappings.extra[1].key: Invalid value: \"k8s.io/x\": k8s.io, kubernetes.io and their subdomains "
            "are reserved for Kubernetes use, "
            "jwt[0].claimMappings.extra[2].key: Invalid value: \"nodomain\": must be a domain-prefixed path (such as "
            "\"acme.io/foo\"), "
            "jwt[0].claimMappings.extra[3].valueExpression: Required value: valueExpression is required]");
  EXPECT_EQ(Errors(issuer + "  claimMappings: {username: {claim: sub, prefix: ''}}\n"
                            "  claimValidationRules:\n  - {claim: hd, message: m}\n  - {claim: hd}\n"
                            "  - {expression: 'claims.x', requiredValue: v}\n  - {}\n"
                            "  userValidationRules:\n  - {expression: 'user.username'}\n  - {message: m}\n"),
            "[jwt[0].claimValidationRules[0].message: Invalid value: \"m\": message can't be set when claim is set, "
            "jwt[0].claimValidationRules[1].claim: Duplicate value: \"hd\", "
            "jwt[0].claimValidationRules[2].requiredValue: Invalid value: \"v\": requiredValue can't be set when "
            "expression is set, "
            "jwt[0].claimValidationRules[2].expression: Invalid value: \"claims.x\": must evaluate to bool, "
            "jwt[0].claimValidationRules[3]: Required value: claim or expression is required, "
            "jwt[0].userValidationRules[0].expression: Invalid value: \"user.username\": must evaluate to bool, "
            "jwt[0].userValidationRules[1].expression: Required value: expression is required]");
  EXPECT_EQ(Errors("anonymous: {enabled: false, conditions: [{path: /livez}]}\n"),
            "anonymous.conditions: Invalid value: \"[]apiserver.AnonymousAuthCondition{apiserver.AnonymousAuthCondition"
            "{Path:\\\"/livez\\\"}}\": enabled should be set to true when conditions are defined");
}

}  // namespace
}  // namespace capstan::authn
