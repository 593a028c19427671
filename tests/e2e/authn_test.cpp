// End-to-end authentication: the real build/capstan with every authenticator configured, driven by
// real kubectl 1.31 and 1.33 (and raw HTTPS where kubectl cannot say it): static tokens, x509 client
// certificates, basic auth, service-account tokens (TokenRequest bound tokens with audiences, expiry
// and revocation, legacy secret tokens), bootstrap tokens, the front proxy's request headers, a token
// webhook and an OIDC issuer that the test serves over HTTPS on loopback, impersonation allowed and
// denied, the review APIs, kube's 401 body, and server logs that never show a credential.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "auth/authn/jwt.h"
#include "auth/authn/keys.h"
#include "auth/authn/token_generator.h"
#include "authn_test_util.h"
#include "cmd/pki.h"
#include "e2e_util.h"
#include "util/strings.h"

namespace capstan::e2e {
namespace {

namespace json = boost::json;
using authn::testing::JsonReply;
using authn::testing::PemPair;
using authn::testing::TempDir;
using authn::testing::TestCa;
using authn::testing::TestHttpsServer;

constexpr const char* kOidcClientId = "capstan-e2e";
const std::vector<std::string> kKubectls = {"31", "33"};

// The payload of a compact JWT, decoded without verification (to check what the server issued).
json::object JwtPayload(const std::string& token) {
  auto parsed = authn::ParseJwt(token);
  if (!parsed.ok()) return {};
  return parsed->claims;
}

int64_t Now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string Base64(std::string_view s) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < s.size(); i += 3) {
    uint32_t v = (uint8_t(s[i]) << 16) | (uint8_t(s[i + 1]) << 8) | uint8_t(s[i + 2]);
    for (int k = 3; k >= 0; --k) out.push_back(kAlphabet[(v >> (6 * k)) & 63]);
  }
  if (i + 1 == s.size()) {
    uint32_t v = uint8_t(s[i]) << 16;
    out += {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == s.size()) {
    uint32_t v = (uint8_t(s[i]) << 16) | (uint8_t(s[i + 1]) << 8);
    out += {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63], '='};
  }
  return out;
}

// The JSON body of a raw HTTP response.
json::object BodyJson(const std::string& response) {
  size_t p = response.find("\r\n\r\n");
  if (p == std::string::npos) return {};
  std::string body = response.substr(p + 4);
  // Chunked bodies: take the first JSON object.
  size_t b = body.find('{'), e = body.rfind('}');
  if (b == std::string::npos || e == std::string::npos) return {};
  boost::system::error_code ec;
  auto v = json::parse(body.substr(b, e - b + 1), ec);
  if (ec || !v.is_object()) return {};
  return v.as_object();
}

class AuthnE2e : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    ext_ca_ = new TestCa("authn-e2e-external-ca");
    ext_ca_file_ = dir_->Write("external-ca.crt", ext_ca_->pem());

    // The token webhook: answers TokenReviews for one token and records what it was sent.
    webhook_ = new TestHttpsServer(*ext_ca_, [](const http::HttpRequest& req) {
      boost::system::error_code ec;
      auto v = json::parse(req.body, ec);
      {
        std::lock_guard lock(webhook_mu_);
        webhook_bodies_.push_back(req.body);
      }
      json::object review = (!ec && v.is_object()) ? v.as_object() : json::object{};
      json::object status;
      const json::value* token = review.contains("spec") ? review["spec"].as_object().if_contains("token") : nullptr;
      if (token && token->is_string() && token->as_string() == "webhook-secret-token") {
        status["authenticated"] = true;
        status["user"] = json::object{{"username", "wendy"},
                                      {"uid", "wendy-uid"},
                                      {"groups", json::array{"webhook-group"}},
                                      {"extra", json::object{{"team", json::array{"blue"}}}}};
        if (const auto* auds = review["spec"].as_object().if_contains("audiences")) status["audiences"] = *auds;
      } else {
        status["authenticated"] = false;
        status["error"] = "unknown token";
      }
      review["status"] = std::move(status);
      return JsonReply(200, json::serialize(review));
    });

    // The OIDC issuer: discovery and a key set the tests rotate.
    oidc_key1_ = new authn::JwsKey(authn::testing::NewKey());
    oidc_key2_ = new authn::JwsKey(authn::testing::NewKey(cmd::KeyType::kEcdsaP256));
    oidc_jwks_ = new std::string(json::serialize(authn::JwksDocument({oidc_key1_->PublicOnly()})));
    oidc_ = new TestHttpsServer(*ext_ca_, [](const http::HttpRequest&) { return JsonReply(404, "{}"); });
    const std::string issuer = oidc_->url();
    oidc_->Set([issuer](const http::HttpRequest& req) {
      if (req.path == "/.well-known/openid-configuration") {
        json::object doc{{"issuer", issuer},
                         {"jwks_uri", issuer + "/keys"},
                         {"id_token_signing_alg_values_supported", json::array{"RS256", "ES256"}}};
        return JsonReply(200, json::serialize(doc));
      }
      if (req.path == "/keys") {
        std::lock_guard lock(webhook_mu_);
        return JsonReply(200, *oidc_jwks_);
      }
      return JsonReply(404, "{}");
    });

    // Credential files and the webhook's kubeconfig.
    dir_->Write("tokens.csv",
                "alice-token-0123456789,alice,alice-uid,\"dev,qa\"\n"
                "root-token-0123456789,root,root-uid,system:masters\n");
    dir_->Write("basic.csv", "s3cret-password,bert,bert-uid,\"basic-group\"\n");
    dir_->Write("webhook.kubeconfig",
                "apiVersion: v1\nkind: Config\nclusters:\n- name: webhook\n  cluster:\n    server: " + webhook_->url("/authenticate") +
                    "\n    certificate-authority: " + ext_ca_file_ +
                    "\nusers:\n- name: apiserver\n  user: {}\ncontexts:\n- name: webhook\n  context:\n    cluster: webhook\n"
                    "    user: apiserver\ncurrent-context: webhook\n");
    PemPair fp = ext_ca_->Issue("front-proxy-client", {}, false, true);
    front_proxy_cert_ = dir_->Write("front-proxy.crt", fp.cert);
    front_proxy_key_ = dir_->Write("front-proxy.key", fp.key);
    PemPair other = ext_ca_->Issue("not-the-proxy", {}, false, true);
    other_proxy_cert_ = dir_->Write("other-proxy.crt", other.cert);
    other_proxy_key_ = dir_->Write("other-proxy.key", other.key);

    server_ = new ServerProcess({"-v=10",
                                 "--token-auth-file=" + dir_->path() + "/tokens.csv",
                                 "--basic-auth-file=" + dir_->path() + "/basic.csv",
                                 "--enable-bootstrap-token-auth",
                                 "--service-account-max-token-expiration=2h",
                                 "--requestheader-client-ca-file=" + ext_ca_file_,
                                 "--requestheader-allowed-names=front-proxy-client",
                                 "--requestheader-username-headers=X-Remote-User",
                                 "--requestheader-group-headers=X-Remote-Group",
                                 "--requestheader-extra-headers-prefix=X-Remote-Extra-",
                                 "--authentication-token-webhook-config-file=" + dir_->path() + "/webhook.kubeconfig",
                                 "--authentication-token-webhook-version=v1",
                                 "--oidc-issuer-url=" + issuer,
                                 "--oidc-client-id=" + std::string(kOidcClientId),
                                 "--oidc-ca-file=" + ext_ca_file_,
                                 "--oidc-username-claim=email",
                                 "--oidc-username-prefix=oidc:",
                                 "--oidc-groups-claim=groups",
                                 "--oidc-groups-prefix=oidc:",
                                 "--oidc-signing-algs=RS256,ES256",
                                 "--oidc-required-claim=tier=gold"});
  }

  static void TearDownTestSuite() {
    delete server_;
    delete webhook_;
    delete oidc_;
    delete oidc_key1_;
    delete oidc_key2_;
    delete oidc_jwks_;
    delete ext_ca_;
    delete dir_;
  }

  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error() << "\n" << server_->log(); }

  static std::string ServerUrl() { return "https://127.0.0.1:" + std::to_string(server_->port()); }

  // A kubeconfig for the server with the given user section (YAML lines indented under "user:").
  static std::string Kubeconfig(const std::string& name, const std::string& user_fields) {
    return dir_->Write(name + ".kubeconfig",
                       "apiVersion: v1\nkind: Config\nclusters:\n- name: capstan\n  cluster:\n    server: " + ServerUrl() +
                           "\n    certificate-authority: " + server_->data_dir() + "/pki/ca.crt" +
                           "\nusers:\n- name: u\n  user:\n" + user_fields +
                           "contexts:\n- name: c\n  context:\n    cluster: capstan\n    user: u\ncurrent-context: c\n");
  }
  static std::string TokenKubeconfig(const std::string& name, const std::string& token) {
    return Kubeconfig(name, "    token: " + token + "\n");
  }

  static CommandResult KubectlWith(const std::string& kubeconfig, std::vector<std::string> args,
                                   const std::string& minor = "33", const std::string& input = "") {
    std::vector<std::string> argv = {KubectlPath(minor), "--kubeconfig", kubeconfig};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, input);
  }

  // `kubectl auth whoami -o json` → status.userInfo.
  static json::object WhoAmI(const std::string& kubeconfig, const std::string& minor = "33",
                             std::vector<std::string> extra_args = {}) {
    std::vector<std::string> args = {"auth", "whoami", "-o", "json"};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    auto r = KubectlWith(kubeconfig, args, minor);
    if (r.exit_code != 0) {
      ADD_FAILURE() << "kubectl 1." << minor << " auth whoami failed: " << r.out << r.err;
      return {};
    }
    boost::system::error_code ec;
    auto v = json::parse(r.out, ec);
    if (ec || !v.is_object()) return {};
    auto* st = v.as_object().if_contains("status");
    if (!st || !st->is_object() || !st->as_object().contains("userInfo")) return {};
    return st->as_object().at("userInfo").as_object();
  }

  static std::vector<std::string> Groups(const json::object& user) {
    std::vector<std::string> out;
    if (const auto* g = user.if_contains("groups"); g && g->is_array()) {
      for (const auto& x : g->as_array()) out.emplace_back(x.as_string());
    }
    return out;
  }
  static std::string Str(const json::object& o, const char* key) {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : "";
  }

  // kubectl on a kubeconfig is refused with kube's 401 wording.
  static void ExpectUnauthorized(const std::string& kubeconfig, const std::string& what) {
    auto r = KubectlWith(kubeconfig, {"get", "namespaces"});
    EXPECT_NE(r.exit_code, 0) << what;
    // kubectl's words for a 401: "You must be logged in to the server (Unauthorized)", or with the
    // discovery client's wording in the parentheses.
    EXPECT_NE(r.err.find("You must be logged in to the server"), std::string::npos) << what << ": " << r.out << r.err;
  }

  // A raw request with "Authorization: <auth>" (may be empty) and extra header lines.
  static RawResult Raw(const std::string& method, const std::string& path, const std::string& auth,
                       const std::string& headers = "", const std::string& body = "", const std::string& cert = "",
                       const std::string& key = "") {
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
    if (!auth.empty()) req += "Authorization: " + auth + "\r\n";
    req += headers;
    if (!body.empty()) {
      req += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
    }
    req += "\r\n" + body;
    return RawHttps(server_->port(), {req}, cert, key);
  }

  static std::string SelfSubjectReviewBody() {
    return R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})";
  }

  // A service-account token signed with the server's own key (DATA/pki/sa.key), as the token
  // controller or a TokenRequest would issue it.
  static authn::ServiceAccountTokenGenerator Generator() {
    auto key = authn::LoadPrivateKeyFile(server_->data_dir() + "/pki/sa.key");
    EXPECT_TRUE(key.ok()) << key.status().message();
    return authn::ServiceAccountTokenGenerator("https://kubernetes.default.svc.cluster.local",
                                               key.ok() ? *key : authn::JwsKey());
  }

  static std::string Uid(const std::string& resource, const std::string& ns, const std::string& name) {
    auto r = server_->Kubectl({"get", resource, name, "-n", ns, "-o", "jsonpath={.metadata.uid}"}, "", "31");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }

  static std::string OidcToken(const authn::JwsKey& key, json::object overrides = {}) {
    json::object claims{{"iss", oidc_->url()},
                        {"aud", kOidcClientId},
                        {"sub", "user-7"},
                        {"email", "olga@example.com"},
                        {"email_verified", true},
                        {"groups", json::array{"eng", "ops"}},
                        {"tier", "gold"},
                        {"iat", Now()},
                        {"exp", Now() + 600}};
    for (auto& [k, v] : overrides) claims[k] = v;
    auto t = authn::SignJwt(claims, key);
    EXPECT_TRUE(t.ok()) << t.status().message();
    return t.ok() ? *t : "";
  }

  // Every credential the tests used; none may appear in the server's log.
  static void Remember(const std::string& secret) {
    std::lock_guard lock(webhook_mu_);
    secrets_.push_back(secret);
  }

  static inline TempDir* dir_ = nullptr;
  static inline TestCa* ext_ca_ = nullptr;
  static inline std::string ext_ca_file_;
  static inline std::string front_proxy_cert_, front_proxy_key_, other_proxy_cert_, other_proxy_key_;
  static inline TestHttpsServer* webhook_ = nullptr;
  static inline TestHttpsServer* oidc_ = nullptr;
  static inline authn::JwsKey* oidc_key1_ = nullptr;
  static inline authn::JwsKey* oidc_key2_ = nullptr;
  static inline std::string* oidc_jwks_ = nullptr;
  static inline std::mutex webhook_mu_;
  static inline std::vector<std::string> webhook_bodies_;
  static inline std::vector<std::string> secrets_;
  static inline ServerProcess* server_ = nullptr;
};

TEST_F(AuthnE2e, StaticTokenFileUserWithKubectl131And133) {
  Remember("alice-token-0123456789");
  std::string kc = TokenKubeconfig("alice", "alice-token-0123456789");
  for (const auto& minor : kKubectls) {
    json::object u = WhoAmI(kc, minor);
    EXPECT_EQ(Str(u, "username"), "alice") << minor;
    EXPECT_EQ(Str(u, "uid"), "alice-uid") << minor;
    EXPECT_EQ(Groups(u), (std::vector<std::string>{"dev", "qa", "system:authenticated"})) << minor;
    auto table = KubectlWith(kc, {"auth", "whoami"}, minor);
    EXPECT_NE(table.out.find("alice"), std::string::npos) << table.out << table.err;
  }
  // A token one character off is a 401, never anonymous.
  ExpectUnauthorized(TokenKubeconfig("alice-typo", "alice-token-0123456780"), "near-miss token");
}

TEST_F(AuthnE2e, X509ClientCertificateUser) {
  // A client certificate from the server's CA: CN is the user, O the groups.
  auto certs = cmd::LoadCertificatesFile(server_->data_dir() + "/pki/ca.crt");
  auto key = cmd::LoadPrivateKeyFile(server_->data_dir() + "/pki/ca.key");
  ASSERT_TRUE(certs.ok() && key.ok());
  cmd::CertAndKey ca{std::move((*certs)[0]), std::move(*key)};
  cmd::CertSpec spec;
  spec.common_name = "carol";
  spec.organizations = {"team-a", "team-b"};
  spec.client_auth = true;
  cmd::SetValidity(spec, std::chrono::system_clock::now(), std::chrono::hours(1));
  auto issued = cmd::IssueCertAndKey(spec, ca);
  ASSERT_TRUE(issued.ok());
  std::string cert = dir_->Write("carol.crt", cmd::CertificateToPem(*issued->cert));
  std::string pkey = dir_->Write("carol.key", cmd::PrivateKeyToPem(*issued->key));
  std::string kc = Kubeconfig("carol", "    client-certificate: " + cert + "\n    client-key: " + pkey + "\n");
  for (const auto& minor : kKubectls) {
    json::object u = WhoAmI(kc, minor);
    EXPECT_EQ(Str(u, "username"), "carol") << minor;
    EXPECT_EQ(Groups(u), (std::vector<std::string>{"team-a", "team-b", "system:authenticated"})) << minor;
  }
  // The admin kubeconfig is a system:masters certificate.
  json::object admin = WhoAmI(server_->kubeconfig(), "31");
  EXPECT_EQ(Str(admin, "username"), "kubernetes-admin");
  EXPECT_EQ(Groups(admin), (std::vector<std::string>{"system:masters", "system:authenticated"}));
}

TEST_F(AuthnE2e, BasicAuthFileUser) {
  Remember("s3cret-password");
  // kubectl sends a kubeconfig's username and password as basic auth.
  std::string kc = Kubeconfig("bert", "    username: bert\n    password: s3cret-password\n");
  for (const auto& minor : kKubectls) {
    json::object bert = WhoAmI(kc, minor);
    EXPECT_EQ(Str(bert, "username"), "bert") << minor;
    EXPECT_EQ(Str(bert, "uid"), "bert-uid") << minor;
  }
  ExpectUnauthorized(Kubeconfig("bert-wrong", "    username: bert\n    password: s3cret-passwore\n"), "wrong password");
  auto r = Raw("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "Basic " + Base64("bert:s3cret-password"), "",
               SelfSubjectReviewBody());
  ASSERT_EQ(HttpStatusOf(r.response), 201) << r.response;
  json::object u = BodyJson(r.response)["status"].as_object()["userInfo"].as_object();
  EXPECT_EQ(Str(u, "username"), "bert");
  EXPECT_EQ(Groups(u), (std::vector<std::string>{"basic-group", "system:authenticated"}));
  auto bad = Raw("GET", "/api/v1/namespaces", "Basic " + Base64("bert:wrong"));
  EXPECT_EQ(HttpStatusOf(bad.response), 401) << bad.response;
  EXPECT_NE(server_->log().find("--basic-auth-file is insecure"), std::string::npos);
}

TEST_F(AuthnE2e, CreateTokenThenUseIt) {
  ASSERT_EQ(server_->Kubectl({"create", "namespace", "authn-sa"}, "", "31").exit_code, 0);
  ASSERT_EQ(server_->Kubectl({"create", "serviceaccount", "robot", "-n", "authn-sa"}, "", "31").exit_code, 0);
  for (const auto& minor : kKubectls) {
    auto created = server_->Kubectl({"create", "token", "robot", "-n", "authn-sa", "--duration=20m"}, "", minor);
    ASSERT_EQ(created.exit_code, 0) << created.err;
    std::string token(TrimSpace(created.out));
    Remember(token);
    json::object claims = JwtPayload(token);
    EXPECT_EQ(json::value_to<std::string>(claims["iss"]), "https://kubernetes.default.svc.cluster.local");
    EXPECT_EQ(json::serialize(claims["aud"]), R"(["https://kubernetes.default.svc.cluster.local"])");
    EXPECT_EQ(json::value_to<std::string>(claims["sub"]), "system:serviceaccount:authn-sa:robot");
    EXPECT_EQ(claims["exp"].to_number<int64_t>() - claims["iat"].to_number<int64_t>(), 1200);

    json::object u = WhoAmI(TokenKubeconfig("robot-" + minor, token), minor);
    EXPECT_EQ(Str(u, "username"), "system:serviceaccount:authn-sa:robot") << minor;
    EXPECT_EQ(Str(u, "uid"), Uid("serviceaccount", "authn-sa", "robot"));
    EXPECT_EQ(Groups(u), (std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:authn-sa",
                                                   "system:authenticated"}));
    const auto* extra = u.if_contains("extra");
    ASSERT_TRUE(extra && extra->is_object()) << json::serialize(u);
    EXPECT_EQ(json::serialize(extra->as_object().at("authentication.kubernetes.io/credential-id")),
              "[\"JTI=" + json::value_to<std::string>(claims["jti"]) + "\"]");
  }

  // --service-account-max-token-expiration caps what a TokenRequest asks for.
  auto capped = server_->Kubectl({"create", "token", "robot", "-n", "authn-sa", "--duration=5h"}, "", "31");
  ASSERT_EQ(capped.exit_code, 0) << capped.err;
  Remember(std::string(TrimSpace(capped.out)));
  json::object cc = JwtPayload(std::string(TrimSpace(capped.out)));
  EXPECT_EQ(cc["exp"].to_number<int64_t>() - cc["iat"].to_number<int64_t>(), 7200);
}

TEST_F(AuthnE2e, BoundTokenAudiences) {
  ASSERT_EQ(server_->Kubectl({"create", "namespace", "authn-aud"}, "", "31").exit_code, 0);
  ASSERT_EQ(server_->Kubectl({"create", "serviceaccount", "robot", "-n", "authn-aud"}, "", "31").exit_code, 0);
  auto created = server_->Kubectl({"create", "token", "robot", "-n", "authn-aud", "--audience=vault"}, "", "33");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  std::string token(TrimSpace(created.out));
  Remember(token);
  EXPECT_EQ(json::serialize(JwtPayload(token)["aud"]), R"(["vault"])");
  // Not for the API server's audience: refused by the API.
  ExpectUnauthorized(TokenKubeconfig("vault", token), "token for another audience");

  // A TokenReview for that audience accepts it and says so.
  std::string review = R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":")" + token +
                       R"(","audiences":["vault"]}})";
  auto r = server_->Kubectl({"create", "--validate=false", "-o", "json", "-f", "-"}, review, "31");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::object status = json::parse(r.out).as_object()["status"].as_object();
  EXPECT_EQ(status["authenticated"], json::value(true)) << r.out;
  EXPECT_EQ(json::serialize(status["audiences"]), R"(["vault"])");
  EXPECT_EQ(Str(status["user"].as_object(), "username"), "system:serviceaccount:authn-aud:robot");

  // For the API's own audience: not authenticated, with kube's reason.
  std::string review_api = R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":")" + token +
                           R"("}})";
  auto r2 = server_->Kubectl({"create", "--validate=false", "-o", "json", "-f", "-"}, review_api, "33");
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  json::object status2 = json::parse(r2.out).as_object()["status"].as_object();
  EXPECT_NE(status2["authenticated"], json::value(true)) << r2.out;
  EXPECT_FALSE(Str(status2, "error").empty()) << r2.out;
}

TEST_F(AuthnE2e, BoundTokensExpireAndDieWithTheirObjects) {
  ASSERT_EQ(server_->Kubectl({"create", "namespace", "authn-life"}, "", "31").exit_code, 0);
  ASSERT_EQ(server_->Kubectl({"create", "serviceaccount", "robot", "-n", "authn-life"}, "", "31").exit_code, 0);
  ASSERT_EQ(server_->Kubectl({"create", "serviceaccount", "doomed", "-n", "authn-life"}, "", "31").exit_code, 0);
  ASSERT_EQ(server_->Kubectl({"create", "secret", "generic", "anchor", "-n", "authn-life", "--from-literal=a=b"}, "", "31")
                .exit_code,
            0);
  std::string uid = Uid("serviceaccount", "authn-life", "robot");

  // Hand-signed with the server's key: valid now, expired when issued two hours ago for one hour.
  auto gen = Generator();
  authn::BoundTokenSpec spec;
  spec.namespace_ = "authn-life";
  spec.service_account = {"robot", uid};
  spec.audiences = {"https://kubernetes.default.svc.cluster.local"};
  spec.expiration_seconds = 3600;
  spec.now = std::chrono::system_clock::now();
  auto fresh = gen.GenerateBound(spec);
  spec.now = std::chrono::system_clock::now() - std::chrono::hours(2);
  auto expired = gen.GenerateBound(spec);
  ASSERT_TRUE(fresh.ok() && expired.ok());
  Remember(fresh->token);
  Remember(expired->token);
  EXPECT_EQ(Str(WhoAmI(TokenKubeconfig("fresh", fresh->token)), "username"), "system:serviceaccount:authn-life:robot");
  ExpectUnauthorized(TokenKubeconfig("expired", expired->token), "expired token");

  // Bound to a secret: two tokens, one used while the secret exists, the other after its deletion.
  auto t1 = server_->Kubectl({"create", "token", "robot", "-n", "authn-life", "--bound-object-kind=Secret",
                              "--bound-object-name=anchor"},
                             "", "33");
  auto t2 = server_->Kubectl({"create", "token", "robot", "-n", "authn-life", "--bound-object-kind=Secret",
                              "--bound-object-name=anchor", "--duration=15m"},
                             "", "33");
  ASSERT_EQ(t1.exit_code, 0) << t1.err;
  ASSERT_EQ(t2.exit_code, 0) << t2.err;
  std::string before(TrimSpace(t1.out)), after(TrimSpace(t2.out));
  Remember(before);
  Remember(after);
  EXPECT_NE(json::serialize(JwtPayload(before)["kubernetes.io"]).find("\"secret\""), std::string::npos);
  EXPECT_EQ(Str(WhoAmI(TokenKubeconfig("bound-before", before)), "username"), "system:serviceaccount:authn-life:robot");
  ASSERT_EQ(server_->Kubectl({"delete", "secret", "anchor", "-n", "authn-life"}, "", "31").exit_code, 0);
  ExpectUnauthorized(TokenKubeconfig("bound-after", after), "token bound to a deleted secret");

  // A token of a deleted service account.
  auto t3 = server_->Kubectl({"create", "token", "doomed", "-n", "authn-life"}, "", "31");
  ASSERT_EQ(t3.exit_code, 0) << t3.err;
  Remember(std::string(TrimSpace(t3.out)));
  ASSERT_EQ(server_->Kubectl({"delete", "serviceaccount", "doomed", "-n", "authn-life"}, "", "31").exit_code, 0);
  ExpectUnauthorized(TokenKubeconfig("doomed", std::string(TrimSpace(t3.out))), "token of a deleted service account");

  // Bound to a pod: valid while the pod exists, refused once it is deleted.
  ASSERT_EQ(server_->Kubectl({"run", "holder", "-n", "authn-life", "--image=registry.k8s.io/pause:3.9",
                              R"(--overrides={"spec":{"serviceAccountName":"robot"}})"}, "", "31").exit_code,
            0);
  auto p1 = server_->Kubectl({"create", "token", "robot", "-n", "authn-life", "--bound-object-kind=Pod",
                              "--bound-object-name=holder"},
                             "", "33");
  auto p2 = server_->Kubectl({"create", "token", "robot", "-n", "authn-life", "--bound-object-kind=Pod",
                              "--bound-object-name=holder", "--duration=15m"},
                             "", "31");
  ASSERT_EQ(p1.exit_code, 0) << p1.err;
  ASSERT_EQ(p2.exit_code, 0) << p2.err;
  std::string pod_before(TrimSpace(p1.out)), pod_after(TrimSpace(p2.out));
  Remember(pod_before);
  Remember(pod_after);
  json::object pod_claims = JwtPayload(pod_before)["kubernetes.io"].as_object();
  EXPECT_EQ(Str(pod_claims["pod"].as_object(), "name"), "holder");
  EXPECT_EQ(Str(pod_claims["pod"].as_object(), "uid"), Uid("pod", "authn-life", "holder"));
  json::object pod_user = WhoAmI(TokenKubeconfig("pod-before", pod_before));
  EXPECT_EQ(Str(pod_user, "username"), "system:serviceaccount:authn-life:robot");
  EXPECT_NE(json::serialize(pod_user["extra"]).find(R"("authentication.kubernetes.io/pod-name":["holder"])"),
            std::string::npos)
      << json::serialize(pod_user);
  ASSERT_EQ(server_->Kubectl({"delete", "pod", "holder", "-n", "authn-life", "--grace-period=0", "--force"}, "", "31")
                .exit_code,
            0);
  ExpectUnauthorized(TokenKubeconfig("pod-after", pod_after), "token bound to a deleted pod");

  // A pod that does not exist cannot be bound.
  auto missing = server_->Kubectl({"create", "token", "robot", "-n", "authn-life", "--bound-object-kind=Pod",
                                   "--bound-object-name=nope"},
                                  "", "31");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("pods \"nope\" not found"), std::string::npos) << missing.err;
}

TEST_F(AuthnE2e, LegacyServiceAccountTokenSecret) {
  ASSERT_EQ(server_->Kubectl({"create", "namespace", "authn-legacy"}, "", "31").exit_code, 0);
  ASSERT_EQ(server_->Kubectl({"create", "serviceaccount", "old", "-n", "authn-legacy"}, "", "31").exit_code, 0);
  std::string uid = Uid("serviceaccount", "authn-legacy", "old");
  auto gen = Generator();
  auto token = gen.GenerateLegacy("authn-legacy", {"old", uid}, "old-token");
  auto other = gen.GenerateLegacy("authn-legacy", {"old", uid}, "gone-token");
  ASSERT_TRUE(token.ok() && other.ok());
  Remember(*token);
  Remember(*other);
  EXPECT_EQ(json::value_to<std::string>(JwtPayload(*token)["iss"]), "kubernetes/serviceaccount");
  auto secret = [&](const std::string& name, const std::string& t) {
    return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: " + name +
           "\n  namespace: authn-legacy\n  annotations:\n    kubernetes.io/service-account.name: old\n"
           "    kubernetes.io/service-account.uid: " +
           uid + "\ntype: kubernetes.io/service-account-token\ndata:\n  token: " + Base64(t) + "\n";
  };
  auto c1 = server_->Kubectl({"create", "-f", "-"}, secret("old-token", *token), "31");
  ASSERT_EQ(c1.exit_code, 0) << c1.err;
  for (const auto& minor : kKubectls) {
    json::object u = WhoAmI(TokenKubeconfig("legacy", *token), minor);
    EXPECT_EQ(Str(u, "username"), "system:serviceaccount:authn-legacy:old") << minor;
    EXPECT_EQ(Str(u, "uid"), uid);
  }
  // With --service-account-lookup (the default) the secret must still hold the token.
  auto c2 = server_->Kubectl({"create", "-f", "-"}, secret("gone-token", *other), "31");
  ASSERT_EQ(c2.exit_code, 0) << c2.err;
  ASSERT_EQ(server_->Kubectl({"delete", "secret", "gone-token", "-n", "authn-legacy"}, "", "31").exit_code, 0);
  ExpectUnauthorized(TokenKubeconfig("legacy-gone", *other), "legacy token whose secret is deleted");
}

TEST_F(AuthnE2e, BootstrapToken) {
  Remember("abcdef.0123456789abcdef");
  Remember("0123456789abcdef");
  Remember("zyxwvu.0123456789abcdef");
  std::string exp = "2099-01-01T00:00:00Z";
  auto c = server_->Kubectl({"create", "secret", "generic", "bootstrap-token-abcdef", "-n", "kube-system",
                             "--type=bootstrap.kubernetes.io/token", "--from-literal=token-id=abcdef",
                             "--from-literal=token-secret=0123456789abcdef", "--from-literal=expiration=" + exp,
                             "--from-literal=usage-bootstrap-authentication=true",
                             "--from-literal=auth-extra-groups=system:bootstrappers:worker"},
                            "", "31");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  json::object u = WhoAmI(TokenKubeconfig("bootstrap", "abcdef.0123456789abcdef"), "31");
  EXPECT_EQ(Str(u, "username"), "system:bootstrap:abcdef");
  EXPECT_EQ(Groups(u), (std::vector<std::string>{"system:bootstrappers", "system:bootstrappers:worker",
                                                 "system:authenticated"}));
  auto e = server_->Kubectl({"create", "secret", "generic", "bootstrap-token-zyxwvu", "-n", "kube-system",
                             "--type=bootstrap.kubernetes.io/token", "--from-literal=token-id=zyxwvu",
                             "--from-literal=token-secret=0123456789abcdef", "--from-literal=expiration=2000-01-01T00:00:00Z",
                             "--from-literal=usage-bootstrap-authentication=true"},
                            "", "31");
  ASSERT_EQ(e.exit_code, 0) << e.err;
  ExpectUnauthorized(TokenKubeconfig("bootstrap-expired", "zyxwvu.0123456789abcdef"), "expired bootstrap token");
}

TEST_F(AuthnE2e, ImpersonationWithKubectl) {
  for (const auto& minor : kKubectls) {
    json::object u = WhoAmI(server_->kubeconfig(), minor,
                            {"--as=dave", "--as-group=g1", "--as-group=g2", "--as-uid=dave-uid"});
    EXPECT_EQ(Str(u, "username"), "dave") << minor;
    EXPECT_EQ(Str(u, "uid"), "dave-uid") << minor;
    EXPECT_EQ(Groups(u), (std::vector<std::string>{"g1", "g2", "system:authenticated"})) << minor;
  }
  // A service account: its groups come with it.
  json::object sa = WhoAmI(server_->kubeconfig(), "31", {"--as=system:serviceaccount:kube-system:default"});
  EXPECT_EQ(Str(sa, "username"), "system:serviceaccount:kube-system:default");
  EXPECT_EQ(Groups(sa), (std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:kube-system",
                                                  "system:authenticated"}));
  // Extras, through the kubeconfig's as-user-extra.
  std::string admin_dir = server_->data_dir() + "/pki/";
  std::string kc = Kubeconfig("as-extra", "    client-certificate: " + admin_dir + "admin.crt\n    client-key: " + admin_dir +
                                              "admin.key\n    as: erin\n    as-user-extra:\n      scopes:\n      - view\n"
                                              "      - edit\n");
  json::object ex = WhoAmI(kc, "33");
  EXPECT_EQ(Str(ex, "username"), "erin");
  EXPECT_EQ(json::serialize(ex["extra"]), R"({"scopes":["view","edit"]})");

  // Groups without a user: kube's 400.
  auto r = Raw("GET", "/api/v1/namespaces", "Bearer root-token-0123456789", "Impersonate-Group: g1\r\n");
  EXPECT_EQ(HttpStatusOf(r.response), 400) << r.response;
  EXPECT_EQ(Str(BodyJson(r.response), "message"), "requested [{Group  g1    }] without impersonating a user") << r.response;
}

TEST_F(AuthnE2e, ImpersonationNeedsThePermission) {
  // Today's authorizer (no RBAC yet) lets every authenticated user impersonate and no anonymous one:
  // an anonymous caller is the one without the impersonate permission.
  // (kubectl would prompt for a password for a kubeconfig user without credentials: raw requests.)
  auto user = Raw("GET", "/api/v1/namespaces", "", "Impersonate-User: bob\r\n");
  EXPECT_EQ(HttpStatusOf(user.response), 403) << user.response;
  EXPECT_EQ(Str(BodyJson(user.response), "message"),
            "users \"bob\" is forbidden: User \"system:anonymous\" cannot impersonate resource \"users\" in API group "
            "\"\" at the cluster scope");
  auto sa = Raw("GET", "/api/v1/namespaces", "", "Impersonate-User: system:serviceaccount:kube-system:default\r\n");
  EXPECT_EQ(Str(BodyJson(sa.response), "message"),
            "serviceaccounts \"default\" is forbidden: User \"system:anonymous\" cannot impersonate resource "
            "\"serviceaccounts\" in API group \"\" in the namespace \"kube-system\"")
      << sa.response;
  // Each part is checked: user, groups, uid and extras, with kube's 403 Status.
  auto r = Raw("GET", "/api/v1/namespaces", "", "Impersonate-User: bob\r\n");
  EXPECT_EQ(HttpStatusOf(r.response), 403) << r.response;
  json::object st = BodyJson(r.response);
  EXPECT_EQ(Str(st, "reason"), "Forbidden");
  EXPECT_EQ(json::serialize(st["details"]), R"({"name":"bob","kind":"users"})");
  // A system:masters token user may impersonate (the privileged group is allowed everything).
  json::object u = WhoAmI(TokenKubeconfig("root-as", "root-token-0123456789"), "33", {"--as=bob", "--as-uid=b-1"});
  EXPECT_EQ(Str(u, "username"), "bob");
  EXPECT_EQ(Str(u, "uid"), "b-1");
  EXPECT_EQ(Groups(u), (std::vector<std::string>{"system:authenticated"}));

  // With RBAC (the default authorizer): an ordinary user is refused until a role grants "impersonate".
  if (server_->Kubectl({"get", "clusterroles", "-o", "name"}, "", "31").exit_code != 0) {
    GTEST_SKIP() << "RBAC is not served by this build";
  }
  std::string alice = TokenKubeconfig("alice-as", "alice-token-0123456789");
  for (const auto& minor : kKubectls) {
    auto denied = KubectlWith(alice, {"auth", "whoami", "--as=bob"}, minor);
    EXPECT_NE(denied.exit_code, 0) << denied.out;
  }
  auto denied = Raw("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "Bearer alice-token-0123456789",
                    "Impersonate-User: bob\r\n", SelfSubjectReviewBody());
  EXPECT_EQ(HttpStatusOf(denied.response), 403) << denied.response;
  EXPECT_EQ(Str(BodyJson(denied.response), "message"),
            "users \"bob\" is forbidden: User \"alice\" cannot impersonate resource \"users\" in API group \"\" at the "
            "cluster scope");
  auto role = server_->Kubectl({"create", "-f", "-"},
                               "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: impersonate-bob\n"
                               "rules:\n- apiGroups: [\"\"]\n  resources: [users]\n  verbs: [impersonate]\n  resourceNames: [bob]\n"
                               "- apiGroups: [authentication.k8s.io]\n  resources: [uids]\n  verbs: [impersonate]\n"
                               "  resourceNames: [b-1]\n",
                               "31");
  ASSERT_EQ(role.exit_code, 0) << role.err;
  ASSERT_EQ(server_->Kubectl({"create", "clusterrolebinding", "alice-impersonates-bob", "--clusterrole=impersonate-bob",
                              "--user=alice"},
                             "", "31")
                .exit_code,
            0);
  json::object as_bob;
  for (int i = 0; i < 50 && Str(as_bob, "username").empty(); ++i) {
    auto r = KubectlWith(alice, {"auth", "whoami", "-o", "json", "--as=bob", "--as-uid=b-1"}, "31");
    if (r.exit_code == 0) as_bob = json::parse(r.out).as_object()["status"].as_object()["userInfo"].as_object();
    else std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(Str(as_bob, "username"), "bob");
  EXPECT_EQ(Str(as_bob, "uid"), "b-1");
  // Not someone else, and not a group the role does not name.
  auto carol = KubectlWith(alice, {"auth", "whoami", "--as=carol"}, "33");
  EXPECT_NE(carol.exit_code, 0);
  auto group = Raw("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "Bearer alice-token-0123456789",
                   "Impersonate-User: bob\r\nImpersonate-Group: system:masters\r\n", SelfSubjectReviewBody());
  EXPECT_EQ(HttpStatusOf(group.response), 403) << group.response;
  EXPECT_EQ(Str(BodyJson(group.response), "message"),
            "groups \"system:masters\" is forbidden: User \"alice\" cannot impersonate resource \"groups\" in API group "
            "\"\" at the cluster scope");
}

TEST_F(AuthnE2e, FrontProxyRequestHeaders) {
  const std::string headers = "X-Remote-User: frank\r\nX-Remote-Group: fp-1\r\nX-Remote-Group: fp-2\r\n"
                              "X-Remote-Extra-Scopes: read\r\nX-Remote-Extra-Acme.com%2Fproject: p1\r\n";
  auto r = Raw("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "", headers, SelfSubjectReviewBody(),
               front_proxy_cert_, front_proxy_key_);
  ASSERT_EQ(HttpStatusOf(r.response), 201) << r.response;
  json::object u = BodyJson(r.response)["status"].as_object()["userInfo"].as_object();
  EXPECT_EQ(Str(u, "username"), "frank");
  EXPECT_EQ(Groups(u), (std::vector<std::string>{"fp-1", "fp-2", "system:authenticated"}));
  EXPECT_EQ(json::serialize(u["extra"]), R"({"acme.com/project":["p1"],"scopes":["read"]})");

  // The same headers from a certificate not in --requestheader-allowed-names, or with no certificate:
  // never frank.
  auto wrong = Raw("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "", headers, SelfSubjectReviewBody(),
                   other_proxy_cert_, other_proxy_key_);
  EXPECT_EQ(HttpStatusOf(wrong.response), 401) << wrong.response;
  auto none = Raw("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "", headers, SelfSubjectReviewBody());
  EXPECT_NE(HttpStatusOf(none.response), 201) << none.response;
  EXPECT_EQ(none.response.find("frank"), std::string::npos) << none.response;
}

TEST_F(AuthnE2e, TokenWebhook) {
  Remember("webhook-secret-token");
  for (const auto& minor : kKubectls) {
    json::object u = WhoAmI(TokenKubeconfig("webhook", "webhook-secret-token"), minor);
    EXPECT_EQ(Str(u, "username"), "wendy") << minor;
    EXPECT_EQ(Str(u, "uid"), "wendy-uid");
    EXPECT_EQ(Groups(u), (std::vector<std::string>{"webhook-group", "system:authenticated"}));
    EXPECT_EQ(json::serialize(u["extra"]), R"({"team":["blue"]})");
  }
  ExpectUnauthorized(TokenKubeconfig("webhook-bad", "webhook-wrong-token"), "token the webhook rejects");
  std::lock_guard lock(webhook_mu_);
  ASSERT_FALSE(webhook_bodies_.empty());
  json::object sent = json::parse(webhook_bodies_.front()).as_object();
  EXPECT_EQ(Str(sent, "apiVersion"), "authentication.k8s.io/v1");
  EXPECT_EQ(Str(sent, "kind"), "TokenReview");
  EXPECT_EQ(json::serialize(sent["spec"].as_object()["audiences"]), R"(["https://kubernetes.default.svc.cluster.local"])");
}

TEST_F(AuthnE2e, OidcIssuerAndKeyRotation) {
  // Discovery runs in the background from start-up: wait for the first success.
  std::string token = OidcToken(*oidc_key1_);
  Remember(token);
  std::string kc = TokenKubeconfig("oidc", token);
  json::object u;
  for (int i = 0; i < 60; ++i) {
    auto r = KubectlWith(kc, {"auth", "whoami", "-o", "json"}, "33");
    if (r.exit_code == 0) {
      u = json::parse(r.out).as_object()["status"].as_object()["userInfo"].as_object();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  EXPECT_EQ(Str(u, "username"), "oidc:olga@example.com");
  EXPECT_EQ(Groups(u), (std::vector<std::string>{"oidc:eng", "oidc:ops", "system:authenticated"}));
  EXPECT_EQ(Str(WhoAmI(kc, "31"), "username"), "oidc:olga@example.com");

  // Wrong audience, a missing required claim, expired: 401.
  json::object wrong_aud{{"aud", "someone-else"}};
  std::string t1 = OidcToken(*oidc_key1_, wrong_aud), t2 = OidcToken(*oidc_key1_, {{"tier", "silver"}}),
              t3 = OidcToken(*oidc_key1_, {{"exp", Now() - 3600}});
  for (const auto& t : {t1, t2, t3}) Remember(t);
  ExpectUnauthorized(TokenKubeconfig("oidc-aud", t1), "OIDC token for another client");
  ExpectUnauthorized(TokenKubeconfig("oidc-claim", t2), "OIDC token without the required claim");
  ExpectUnauthorized(TokenKubeconfig("oidc-exp", t3), "expired OIDC token");

  // Key rotation: a token from a key the issuer has not published yet fails; once it is published the
  // server fetches the key set again on the unknown key id and accepts it.
  std::string rotated = OidcToken(*oidc_key2_, {{"email", "rot@example.com"}});
  Remember(rotated);
  std::string rkc = TokenKubeconfig("oidc-rotated", rotated);
  ExpectUnauthorized(rkc, "OIDC token signed by an unpublished key");
  {
    std::lock_guard lock(webhook_mu_);
    *oidc_jwks_ = json::serialize(authn::JwksDocument({oidc_key1_->PublicOnly(), oidc_key2_->PublicOnly()}));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // the refresh rate limit (1 s)
  EXPECT_EQ(Str(WhoAmI(rkc, "33"), "username"), "oidc:rot@example.com");
}

TEST_F(AuthnE2e, BadCredentialsGetKubes401Status) {
  const std::string kBody =
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})";
  std::vector<std::string> bad = {"Bearer not-a-token", "Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln",
                                  "Bearer abcdef.ffffffffffffffff", "Bearer " + std::string(5000, 'x'),
                                  "Basic " + Base64("nobody:nothing")};
  for (const auto& auth : bad) {
    auto r = Raw("GET", "/api/v1/namespaces", auth);
    EXPECT_EQ(HttpStatusOf(r.response), 401) << auth.substr(0, 40) << ": " << r.response;
    EXPECT_NE(r.response.find(kBody), std::string::npos) << r.response;
    EXPECT_NE(r.response.find("Content-Type: application/json"), std::string::npos) << r.response;
  }
  // A TokenReview of a bad token answers 201 with authenticated false.
  auto review = server_->Kubectl(
      {"create", "--validate=false", "-o", "json", "-f", "-"},
      R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"not-a-token"}})", "31");
  ASSERT_EQ(review.exit_code, 0) << review.err;
  EXPECT_NE(json::parse(review.out).as_object()["status"].as_object()["authenticated"], json::value(true));
}

TEST_F(AuthnE2e, IssuerDiscoveryDocuments) {
  // kube binds system:service-account-issuer-discovery to service accounts only: asked as the admin.
  const std::string pki = server_->data_dir() + "/pki/";
  auto conf = Raw("GET", "/.well-known/openid-configuration", "", "", "", pki + "admin.crt", pki + "admin.key");
  ASSERT_EQ(HttpStatusOf(conf.response), 200) << conf.response;
  json::object doc = BodyJson(conf.response);
  EXPECT_EQ(Str(doc, "issuer"), "https://kubernetes.default.svc.cluster.local");
  EXPECT_EQ(Str(doc, "jwks_uri"), ServerUrl() + "/openid/v1/jwks");
  auto jwks = Raw("GET", "/openid/v1/jwks", "", "", "", pki + "admin.crt", pki + "admin.key");
  ASSERT_EQ(HttpStatusOf(jwks.response), 200) << jwks.response;
  json::object set = BodyJson(jwks.response);
  ASSERT_TRUE(set.contains("keys"));
  auto key = Generator().key();
  bool found = false;
  for (const auto& k : set["keys"].as_array()) found = found || Str(k.as_object(), "kid") == key.KeyId();
  EXPECT_TRUE(found) << jwks.response;
}

// Runs last (gtest keeps declaration order): nothing the tests sent as a credential is in the log,
// which ran at -v=10.
TEST_F(AuthnE2e, ZzCredentialsNeverLogged) {
  std::string log = server_->log();
  ASSERT_FALSE(log.empty());
  std::lock_guard lock(webhook_mu_);
  ASSERT_GT(secrets_.size(), 10u);
  for (const auto& s : secrets_) {
    // A JWT's signature is the secret part; the claims are not (kube logs JTIs).
    std::string needle = s;
    if (size_t dot = s.rfind('.'); dot != std::string::npos && std::count(s.begin(), s.end(), '.') == 2) {
      needle = s.substr(dot + 1);
    }
    EXPECT_EQ(log.find(needle), std::string::npos) << "credential in the log: " << needle.substr(0, 12) << "...";
  }
}

}  // namespace
}  // namespace capstan::e2e
