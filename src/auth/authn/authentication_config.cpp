#include "auth/authn/authentication_config.h"

#include <boost/json.hpp>
#include <algorithm>
#include <cctype>
#include <set>

#include "apimachinery/config_document.h"
#include "apimachinery/object_meta_validation.h"
#include "auth/authn/x509.h"
#include "cel/admission_expressions.h"
#include "cel/authentication_expressions.h"
#include "util/strings.h"

namespace capstan::authn {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

constexpr char kSchemeName[] = "k8s.io/kubernetes/pkg/kubeapiserver/options/authentication.go:853";
constexpr size_t kMaxAuthenticators = 64;

// --- decoding ---------------------------------------------------------------------------------

PrefixedClaimOrExpression DecodePrefixed(am::ConfigDecoder& d, const json::object& o, const std::string& prefix,
                                         const std::string& go_type) {
  PrefixedClaimOrExpression m;
  d.Unknown(o, prefix, {"claim", "prefix", "expression"});
  const std::string go = go_type + "." + prefix;
  d.String(o, "claim", go + "claim", m.claim);
  d.OptionalString(o, "prefix", go + "prefix", m.prefix);
  d.String(o, "expression", go + "expression", m.expression);
  return m;
}

JwtAuthenticatorConfig DecodeJwt(am::ConfigDecoder& d, const json::object& o, const std::string& prefix) {
  JwtAuthenticatorConfig j;
  d.Unknown(o, prefix, {"issuer", "claimValidationRules", "claimMappings", "userValidationRules"});
  if (const json::object* iss = d.Object(o, "issuer", "JWTAuthenticator.jwt.issuer", "v1beta1.Issuer")) {
    const std::string p = prefix + "issuer.";
    const std::string go = "Issuer.jwt.issuer.";
    d.Unknown(*iss, p, {"url", "discoveryURL", "certificateAuthority", "audiences", "audienceMatchPolicy"});
    d.String(*iss, "url", go + "url", j.url);
    d.String(*iss, "discoveryURL", go + "discoveryURL", j.discovery_url);
    d.String(*iss, "certificateAuthority", go + "certificateAuthority", j.certificate_authority);
    d.StringList(*iss, "audiences", go + "audiences", j.audiences);
    d.String(*iss, "audienceMatchPolicy", go + "audienceMatchPolicy", j.audience_match_policy,
             "v1beta1.AudienceMatchPolicyType");
  }
  if (const json::array* rules = d.Array(o, "claimValidationRules", "JWTAuthenticator.jwt.claimValidationRules",
                                         "[]v1beta1.ClaimValidationRule")) {
    for (size_t i = 0; i < rules->size(); ++i) {
      const json::value& r = (*rules)[i];
      if (!r.is_object()) {
        d.TypeError(r, "JWTAuthenticator.jwt.claimValidationRules", "v1beta1.ClaimValidationRule");
        continue;
      }
      const json::object& ro = r.get_object();
      const std::string go = "ClaimValidationRule.jwt.claimValidationRules.";
      d.Unknown(ro, prefix + "claimValidationRules[" + std::to_string(i) + "].",
                {"claim", "requiredValue", "expression", "message"});
      ClaimValidationRule rule;
      d.String(ro, "claim", go + "claim", rule.claim);
      d.String(ro, "requiredValue", go + "requiredValue", rule.required_value);
      d.String(ro, "expression", go + "expression", rule.expression);
      d.String(ro, "message", go + "message", rule.message);
      j.claim_validation_rules.push_back(std::move(rule));
    }
  }
  if (const json::object* cm = d.Object(o, "claimMappings", "JWTAuthenticator.jwt.claimMappings", "v1beta1.ClaimMappings")) {
    const std::string p = prefix + "claimMappings.";
    d.Unknown(*cm, p, {"username", "groups", "uid", "extra"});
    const std::string go = "ClaimMappings.jwt.claimMappings.";
    if (const json::object* u = d.Object(*cm, "username", go + "username", "v1beta1.PrefixedClaimOrExpression")) {
      j.username = DecodePrefixed(d, *u, p + "username.", "PrefixedClaimOrExpression.jwt.claimMappings");
    }
    if (const json::object* g = d.Object(*cm, "groups", go + "groups", "v1beta1.PrefixedClaimOrExpression")) {
      j.groups = DecodePrefixed(d, *g, p + "groups.", "PrefixedClaimOrExpression.jwt.claimMappings");
    }
    if (const json::object* u = d.Object(*cm, "uid", go + "uid", "v1beta1.ClaimOrExpression")) {
      d.Unknown(*u, p + "uid.", {"claim", "expression"});
      d.String(*u, "claim", "ClaimOrExpression.jwt.claimMappings.uid.claim", j.uid_claim);
      d.String(*u, "expression", "ClaimOrExpression.jwt.claimMappings.uid.expression", j.uid_expression);
    }
    if (const json::array* ex = d.Array(*cm, "extra", go + "extra", "[]v1beta1.ExtraMapping")) {
      for (size_t i = 0; i < ex->size(); ++i) {
        const json::value& e = (*ex)[i];
        if (!e.is_object()) {
          d.TypeError(e, go + "extra", "v1beta1.ExtraMapping");
          continue;
        }
        d.Unknown(e.get_object(), p + "extra[" + std::to_string(i) + "].", {"key", "valueExpression"});
        ExtraMapping m;
        d.String(e.get_object(), "key", "ExtraMapping.jwt.claimMappings.extra.key", m.key);
        d.String(e.get_object(), "valueExpression", "ExtraMapping.jwt.claimMappings.extra.valueExpression",
                 m.value_expression);
        j.extra.push_back(std::move(m));
      }
    }
  }
  if (const json::array* rules = d.Array(o, "userValidationRules", "JWTAuthenticator.jwt.userValidationRules",
                                         "[]v1beta1.UserValidationRule")) {
    for (size_t i = 0; i < rules->size(); ++i) {
      const json::value& r = (*rules)[i];
      if (!r.is_object()) {
        d.TypeError(r, "JWTAuthenticator.jwt.userValidationRules", "v1beta1.UserValidationRule");
        continue;
      }
      d.Unknown(r.get_object(), prefix + "userValidationRules[" + std::to_string(i) + "].", {"expression", "message"});
      UserValidationRule rule;
      d.String(r.get_object(), "expression", "UserValidationRule.jwt.userValidationRules.expression", rule.expression);
      d.String(r.get_object(), "message", "UserValidationRule.jwt.userValidationRules.message", rule.message);
      j.user_validation_rules.push_back(std::move(rule));
    }
  }
  return j;
}

// --- validation -------------------------------------------------------------------------------

std::string SortedList(const std::vector<std::string>& v) {
  std::set<std::string> s(v.begin(), v.end());
  return "[" + Join(std::vector<std::string>(s.begin(), s.end()), " ") + "]";
}

// kube's validateURL over what net/url.Parse tells about the URL.
void ValidateUrl(const std::string& url, const std::vector<std::string>& disallowed, const FieldPath& p, ErrorList& errs) {
  if (std::find(disallowed.begin(), disallowed.end(), url) != disallowed.end()) {
    errs.push_back(InvalidError(p, url, "URL must not overlap with disallowed issuers: " + SortedList(disallowed)));
  }
  std::string scheme;
  std::string rest = url;
  if (size_t colon = url.find("://"); colon != std::string::npos) {
    scheme = url.substr(0, colon);
    for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    rest = url.substr(colon + 3);
  }
  std::string authority = rest.substr(0, rest.find_first_of("/?#"));
  if (scheme != "https") errs.push_back(InvalidError(p, url, "URL scheme must be https"));
  if (!scheme.empty() && authority.find('@') != std::string::npos) {
    errs.push_back(InvalidError(p, url, "URL must not contain a username or password"));
  }
  size_t hash = url.find('#');
  std::string before_fragment = url.substr(0, hash);
  if (size_t q = before_fragment.find('?'); q != std::string::npos && q + 1 < before_fragment.size()) {
    errs.push_back(InvalidError(p, url, "URL must not contain a query"));
  }
  if (hash != std::string::npos && hash + 1 < url.size()) {
    errs.push_back(InvalidError(p, url, "URL must not contain a fragment"));
  }
}

std::string TrimRightSlashes(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

void ValidateIssuer(const JwtAuthenticatorConfig& c, const std::vector<std::string>& disallowed, const FieldPath& path,
                    ErrorList& errs) {
  if (c.url.empty()) {
    errs.push_back(RequiredError(path.Child("url"), "URL is required"));
  } else {
    ValidateUrl(c.url, disallowed, path.Child("url"), errs);
  }
  if (!c.discovery_url.empty()) {
    const FieldPath p = path.Child("discoveryURL");
    if (!c.url.empty() && TrimRightSlashes(c.url) == TrimRightSlashes(c.discovery_url)) {
      errs.push_back(InvalidError(p, c.discovery_url, "discoveryURL must be different from URL"));
    }
    ValidateUrl(c.discovery_url, {}, p, errs);
  }
  const FieldPath auds = path.Child("audiences");
  if (c.audiences.empty()) {
    errs.push_back(RequiredError(auds, "at least one " + auds.str() + " is required"));
  } else {
    std::set<std::string> seen;
    for (size_t i = 0; i < c.audiences.size(); ++i) {
      if (c.audiences[i].empty()) errs.push_back(RequiredError(auds.Index(i), "audience can't be empty"));
      if (!seen.insert(c.audiences[i]).second) errs.push_back(DuplicateError(auds.Index(i), c.audiences[i]));
    }
    const FieldPath policy = path.Child("audienceMatchPolicy");
    if (c.audiences.size() > 1 && c.audience_match_policy != "MatchAny") {
      errs.push_back(InvalidError(policy, c.audience_match_policy, "audienceMatchPolicy must be MatchAny for multiple audiences"));
    }
    if (c.audiences.size() == 1 && !c.audience_match_policy.empty() && c.audience_match_policy != "MatchAny") {
      errs.push_back(InvalidError(policy, c.audience_match_policy, "audienceMatchPolicy must be empty or MatchAny for single audience"));
    }
  }
  if (!c.certificate_authority.empty() && !X509Authenticator::FromPem(c.certificate_authority).ok()) {
    errs.push_back(InvalidError(path.Child("certificateAuthority"), "<omitted>",
                                "data does not contain any valid RSA or ECDSA certificates"));
  }
}

// kube's compileClaimsCELExpression / compileUserCELExpression.
ClaimMappingPrograms::ProgramPtr CompileExpression(const std::string& e, bool user, cel::ResultType want,
                                                   const FieldPath& p, ErrorList& errs) {
  auto env = user ? cel::UserEnv() : cel::ClaimsEnv();
  auto r = cel::CompileAdmissionExpression(e, *env, want);
  if (!r.program) {
    // kube's authentication compiler names only the type it wants.
    std::string detail = r.error;
    if (StartsWith(detail, "must evaluate to ")) detail = detail.substr(0, detail.find(" but got "));
    errs.push_back(InvalidError(p, e, detail));
  }
  return r.program;
}

struct EmailUse {
  bool email = false;
  bool email_verified = false;
  void Note(const ClaimMappingPrograms::ProgramPtr& p, bool count_email) {
    if (!p) return;
    if (count_email) email = email || cel::SelectsField(p->expr(), "claims", "email");
    email_verified = email_verified || cel::SelectsField(p->expr(), "claims", "email_verified");
  }
};

void ValidateClaimValidationRules(const JwtAuthenticatorConfig& c, const FieldPath& path, ClaimMappingPrograms& out,
                                  EmailUse& email, ErrorList& errs) {
  std::set<std::string> claims, expressions;
  for (size_t i = 0; i < c.claim_validation_rules.size(); ++i) {
    const ClaimValidationRule& r = c.claim_validation_rules[i];
    const FieldPath p = path.Index(i);
    if (!r.claim.empty() && !r.expression.empty()) {
      errs.push_back(InvalidError(p, r.claim, "claim and expression can't both be set"));
    } else if (r.claim.empty() && r.expression.empty()) {
      errs.push_back(RequiredError(p, "claim or expression is required"));
    } else if (!r.claim.empty()) {
      if (!r.message.empty()) errs.push_back(InvalidError(p.Child("message"), r.message, "message can't be set when claim is set"));
      if (!claims.insert(r.claim).second) errs.push_back(DuplicateError(p.Child("claim"), r.claim));
    } else {
      if (!r.required_value.empty()) {
        errs.push_back(InvalidError(p.Child("requiredValue"), r.required_value, "requiredValue can't be set when expression is set"));
      }
      if (!expressions.insert(r.expression).second) {
        errs.push_back(DuplicateError(p.Child("expression"), r.expression));
        continue;
      }
      if (auto prog = CompileExpression(r.expression, false, cel::ResultType::kBool, p.Child("expression"), errs)) {
        email.Note(prog, false);
        out.claim_validation.emplace_back(std::move(prog), r.message);
      }
    }
  }
}

ClaimMappingPrograms::ProgramPtr ValidatePrefixed(const PrefixedClaimOrExpression& m, const FieldPath& p, bool required,
                                                  ErrorList& errs) {
  if (!m.expression.empty() && !m.claim.empty()) {
    errs.push_back(InvalidError(p, "", "claim and expression can't both be set"));
  } else if (m.expression.empty() && m.claim.empty() && required) {
    errs.push_back(RequiredError(p, "claim or expression is required"));
  } else if (!m.expression.empty()) {
    if (m.prefix) errs.push_back(InvalidError(p.Child("prefix"), *m.prefix, "prefix can't be set when expression is set"));
    return CompileExpression(m.expression, false, cel::ResultType::kAny, p.Child("expression"), errs);
  } else if (!m.claim.empty() && !m.prefix) {
    errs.push_back(RequiredError(p.Child("prefix"),
                                 "prefix is required when claim is set. It can be set to an empty string to disable prefixing"));
  }
  return nullptr;
}

bool IsKubernetesDomainPrefix(const std::string& key) {
  size_t slash = key.find('/');
  if (slash == std::string::npos) return false;
  std::string domain = key.substr(0, slash);
  auto is = [&](const std::string& d) { return domain == d || EndsWith(domain, "." + d); };
  return is("kubernetes.io") || is("k8s.io");
}

void ValidateClaimMappings(const JwtAuthenticatorConfig& c, const FieldPath& path, ClaimMappingPrograms& out,
                           EmailUse& email, ErrorList& errs) {
  out.username = ValidatePrefixed(c.username, path.Child("username"), true, errs);
  email.Note(out.username, true);
  out.groups = ValidatePrefixed(c.groups, path.Child("groups"), false, errs);
  if (!c.uid_claim.empty() && !c.uid_expression.empty()) {
    errs.push_back(InvalidError(path.Child("uid"), "", "claim and expression can't both be set"));
  } else if (!c.uid_expression.empty()) {
    out.uid = CompileExpression(c.uid_expression, false, cel::ResultType::kAny, path.Child("uid").Child("expression"), errs);
  }
  std::set<std::string> keys;
  for (size_t i = 0; i < c.extra.size(); ++i) {
    const ExtraMapping& m = c.extra[i];
    const FieldPath p = path.Child("extra").Index(i);
    for (auto& e : am::ValidateDomainPrefixedPath(m.key, p.Child("key"))) errs.push_back(std::move(e));
    std::string lower = m.key;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower != m.key) errs.push_back(InvalidError(p.Child("key"), m.key, "key must be lowercase"));
    if (IsKubernetesDomainPrefix(m.key)) {
      errs.push_back(InvalidError(p.Child("key"), m.key, "k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use"));
    }
    if (!keys.insert(m.key).second) {
      errs.push_back(DuplicateError(p.Child("key"), m.key));
      continue;
    }
    if (m.value_expression.empty()) {
      errs.push_back(RequiredError(p.Child("valueExpression"), "valueExpression is required"));
      continue;
    }
    if (auto prog = CompileExpression(m.value_expression, false, cel::ResultType::kAny, p.Child("valueExpression"), errs)) {
      email.Note(prog, false);
      out.extra.emplace_back(m.key, std::move(prog));
    }
  }
  if (email.email && !email.email_verified) {
    errs.push_back(InvalidError(path.Child("username").Child("expression"), c.username.expression,
                                "claims.email_verified must be used in claimMappings.username.expression or "
                                "claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when "
                                "claims.email is used in claimMappings.username.expression"));
  }
}

void ValidateUserValidationRules(const JwtAuthenticatorConfig& c, const FieldPath& path, ClaimMappingPrograms& out,
                                 ErrorList& errs) {
  std::set<std::string> seen;
  for (size_t i = 0; i < c.user_validation_rules.size(); ++i) {
    const UserValidationRule& r = c.user_validation_rules[i];
    const FieldPath p = path.Index(i);
    if (r.expression.empty()) {
      errs.push_back(RequiredError(p.Child("expression"), "expression is required"));
      continue;
    }
    if (!seen.insert(r.expression).second) {
      errs.push_back(DuplicateError(p.Child("expression"), r.expression));
      continue;
    }
    if (auto prog = CompileExpression(r.expression, true, cel::ResultType::kBool, p.Child("expression"), errs)) {
      out.user_validation.emplace_back(std::move(prog), r.message);
    }
  }
}

CompiledJwtAuthenticator ValidateJwt(const JwtAuthenticatorConfig& c, const std::vector<std::string>& disallowed,
                                     const FieldPath& path) {
  CompiledJwtAuthenticator out;
  EmailUse email;
  ValidateIssuer(c, disallowed, path.Child("issuer"), out.errors);
  // Claim validation rules come first, as kube's, so that their email_verified counts.
  ValidateClaimValidationRules(c, path.Child("claimValidationRules"), out.programs, email, out.errors);
  ValidateClaimMappings(c, path.Child("claimMappings"), out.programs, email, out.errors);
  ValidateUserValidationRules(c, path.Child("userValidationRules"), out.programs, out.errors);
  return out;
}

}  // namespace

StatusOr<AuthenticationConfiguration> DecodeAuthenticationConfiguration(std::string_view data) {
  static const std::set<std::string> kVersions = {"apiserver.config.k8s.io/v1beta1", "apiserver.config.k8s.io/v1alpha1"};
  auto bad = [](const std::string& m) { return Status(400, "BadRequest", m); };
  if (data.empty()) return bad("empty config data");
  auto doc = am::DecodeConfigDocument(data, "AuthenticationConfiguration", kVersions, kSchemeName);
  if (!doc.ok()) return doc.TakeStatus();
  const json::object& o = doc->object;
  am::ConfigDecoder d;
  d.Unknown(o, "", {"apiVersion", "kind", "jwt", "anonymous"});
  AuthenticationConfiguration c;
  if (const json::array* list = d.Array(o, "jwt", "AuthenticationConfiguration.jwt", "[]v1beta1.JWTAuthenticator")) {
    for (size_t i = 0; i < list->size(); ++i) {
      const json::value& x = (*list)[i];
      if (!x.is_object()) {
        d.TypeError(x, "AuthenticationConfiguration.jwt", "v1beta1.JWTAuthenticator");
        continue;
      }
      c.jwt.push_back(DecodeJwt(d, x.get_object(), "jwt[" + std::to_string(i) + "]."));
    }
  }
  if (const json::object* an = d.Object(o, "anonymous", "AuthenticationConfiguration.anonymous", "v1beta1.AnonymousAuthConfig")) {
    AnonymousAuthConfig a;
    d.Unknown(*an, "anonymous.", {"enabled", "conditions"});
    d.Bool(*an, "enabled", "AnonymousAuthConfig.anonymous.enabled", a.enabled);
    if (const json::array* conds = d.Array(*an, "conditions", "AnonymousAuthConfig.anonymous.conditions",
                                           "[]v1beta1.AnonymousAuthCondition")) {
      for (size_t i = 0; i < conds->size(); ++i) {
        const json::value& x = (*conds)[i];
        if (!x.is_object()) {
          d.TypeError(x, "AnonymousAuthConfig.anonymous.conditions", "v1beta1.AnonymousAuthCondition");
          continue;
        }
        d.Unknown(x.get_object(), "anonymous.conditions[" + std::to_string(i) + "].", {"path"});
        std::string path;
        d.String(x.get_object(), "path", "AnonymousAuthCondition.anonymous.conditions.path", path);
        a.condition_paths.push_back(std::move(path));
      }
    }
    c.anonymous = std::move(a);
  }
  if (!d.type_error.empty()) return bad(d.type_error);
  if (std::string strict = am::StrictDecodingError(d.unknown, doc->strict_errors); !strict.empty()) return bad(strict);
  return c;
}

ErrorList ValidateAuthenticationConfiguration(const AuthenticationConfiguration& c,
                                              const std::vector<std::string>& disallowed_issuers) {
  ErrorList errs;
  const FieldPath root("jwt");
  if (c.jwt.size() > kMaxAuthenticators) {
    errs.push_back(TooManyError(root, static_cast<int>(c.jwt.size()), static_cast<int>(kMaxAuthenticators)));
    return errs;
  }
  std::set<std::string> issuers, discovery_urls;
  for (size_t i = 0; i < c.jwt.size(); ++i) {
    const JwtAuthenticatorConfig& a = c.jwt[i];
    const FieldPath p = root.Index(i);
    for (auto& e : ValidateJwt(a, disallowed_issuers, p).errors) errs.push_back(std::move(e));
    if (!issuers.insert(a.url).second) errs.push_back(DuplicateError(p.Child("issuer").Child("url"), a.url));
    if (!a.discovery_url.empty() && !discovery_urls.insert(a.discovery_url).second) {
      errs.push_back(DuplicateError(p.Child("issuer").Child("discoveryURL"), a.discovery_url));
    }
  }
  if (c.anonymous && !c.anonymous->enabled && !c.anonymous->condition_paths.empty()) {
    std::string conditions;
    for (const auto& path : c.anonymous->condition_paths) {
      conditions += std::string(conditions.empty() ? "" : ", ") + "apiserver.AnonymousAuthCondition{Path:" + GoQuote(path) + "}";
    }
    errs.push_back(InvalidError(FieldPath("anonymous").Child("conditions"),
                                "[]apiserver.AnonymousAuthCondition{" + conditions + "}",
                                "enabled should be set to true when conditions are defined"));
  }
  return errs;
}

CompiledJwtAuthenticator CompileJwtAuthenticator(const JwtAuthenticatorConfig& c,
                                                 const std::vector<std::string>& disallowed_issuers) {
  return ValidateJwt(c, disallowed_issuers, FieldPath());
}

}  // namespace capstan::authn
