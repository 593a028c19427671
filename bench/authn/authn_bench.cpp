// authn_bench: nanoseconds per authentication for the authenticators a request meets most often.
// See README.md. Prints one line per case: name, iterations, ns/op.
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <openssl/x509.h>

#include "auth/authn/build.h"
#include "auth/authn/jwt.h"
#include "auth/authn/keys.h"
#include "auth/authn/token_generator.h"
#include "auth/authn/x509.h"
#include "authn_test_util.h"
#include "cmd/pki.h"
#include "server/http_client.h"
#include "util/task.h"

using namespace capstan;

namespace {

constexpr const char* kIssuer = "https://kubernetes.default.svc.cluster.local";
constexpr const char* kSaUid = "0b0e7ab8-3a04-4a53-9a57-0d7a1c5e4f11";

std::string Write(const std::string& dir, const std::string& name, const std::string& content) {
  std::string p = dir + "/" + name;
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

Task<int> Loop(const std::function<Task<bool>()>& body, int n) {
  int ok = 0;
  for (int i = 0; i < n; ++i) ok += (co_await body()) ? 1 : 0;
  co_return ok;
}

// This thread's CPU time: on a shared machine the wall clock also counts time spent descheduled.
double ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

void Report(const char* name, int n, const std::function<Task<bool>()>& body) {
  (void)SyncWait(Loop(body, std::max(1, n / 100)));  // warm up (fills caches)
  auto start = std::chrono::steady_clock::now();
  double cpu_start = ThreadCpuNs();
  int ok = SyncWait(Loop(body, n));
  double cpu = (ThreadCpuNs() - cpu_start) / n;
  double wall = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / n;
  std::printf("%-52s %8d  %10.0f  %10.0f%s\n", name, n, cpu, wall, ok == n ? "" : "  (FAILED AUTHENTICATIONS)");
}

void ReportSync(const char* name, int n, const std::function<bool()>& body) {
  Report(name, n, [&]() -> Task<bool> { co_return body(); });
}

std::unique_ptr<authn::Authentication> Build(const std::string& dir, bool cached, const std::string& jwt_config = "",
                                             http::HttpClientFactory* http = nullptr) {
  authn::AuthenticationConfig c;
  c.authentication_config_file = jwt_config;
  c.anonymous = false;
  c.token_auth_file = dir + "/tokens.csv";
  c.service_account_issuers = {kIssuer};
  c.service_account_signing_key_file = dir + "/sa.key";
  c.service_account_key_files = {dir + "/sa.key", dir + "/sa-ec.key"};
  if (!cached) c.token_success_cache_ttl = std::chrono::nanoseconds(0);
  authn::AuthenticationDeps deps;
  deps.http = http;
  deps.getter = [](const std::string& resource, const std::string& ns,
                   const std::string& name) -> Task<StatusOr<boost::json::object>> {
    boost::json::object md{{"name", name}, {"namespace", ns}, {"uid", kSaUid}};
    co_return boost::json::object{{"metadata", std::move(md)}};
  };
  auto a = authn::BuildAuthentication(c, std::move(deps));
  if (!a.ok()) {
    std::fprintf(stderr, "build: %s\n", a.status().message().c_str());
    std::exit(1);
  }
  return std::move(*a);
}

}  // namespace

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  std::string tmpl = (std::filesystem::temp_directory_path() / "capstan-authn-bench-XXXXXX").string();
  std::string dir = mkdtemp(tmpl.data());

  auto rsa = cmd::GenerateKey(cmd::KeyType::kRsa2048);
  auto ec = cmd::GenerateKey(cmd::KeyType::kEcdsaP256);
  Write(dir, "sa.key", cmd::PrivateKeyToPem(**rsa));
  Write(dir, "sa-ec.key", cmd::PrivateKeyToPem(**ec));
  // A file of 1000 tokens, as a mid-sized cluster's might be.
  std::string csv;
  for (int i = 0; i < 1000; ++i) csv += "token-" + std::to_string(i) + "-f3a9c1d2e4b5,user" + std::to_string(i) + ",uid" + std::to_string(i) + ",\"dev,qa\"\n";
  Write(dir, "tokens.csv", csv);

  auto cached = Build(dir, true);
  auto uncached = Build(dir, false);

  auto rsa_key = *authn::ParsePrivateKeyPem(cmd::PrivateKeyToPem(**rsa), "bench");
  auto ec_key = *authn::ParsePrivateKeyPem(cmd::PrivateKeyToPem(**ec), "bench");
  authn::BoundTokenSpec spec;
  spec.namespace_ = "default";
  spec.service_account = {"robot", kSaUid};
  spec.audiences = {kIssuer};
  spec.expiration_seconds = 3600;
  spec.now = std::chrono::system_clock::now();
  std::string rs_token = authn::ServiceAccountTokenGenerator(kIssuer, rsa_key).GenerateBound(spec)->token;
  std::string es_token = authn::ServiceAccountTokenGenerator(kIssuer, ec_key).GenerateBound(spec)->token;

  auto request = [](const std::string& token) {
    http::HttpRequest req;
    req.method = "GET";
    req.path = "/api/v1/namespaces/default/pods";
    req.headers.Add("Authorization", "Bearer " + token);
    return req;
  };
  const http::HttpRequest static_req = request("token-500-f3a9c1d2e4b5");
  const http::HttpRequest rs_req = request(rs_token);
  const http::HttpRequest es_req = request(es_token);
  auto through = [](authn::Authentication& a, const http::HttpRequest& req) {
    return [&a, &req]() -> Task<bool> {
      auto r = co_await a.authenticator().AuthenticateRequest(req, {});
      co_return r.ok() && r->has_value();
    };
  };

  std::printf("%-52s %8s  %10s  %10s\n", "case", "iters", "cpu ns/op", "wall ns/op");
  Report("static token, cached (whole authenticator)", n, through(*cached, static_req));
  Report("static token, uncached (whole authenticator)", n, through(*uncached, static_req));
  Report("SA bound JWT RS256, cached (whole authenticator)", n, through(*cached, rs_req));
  Report("SA bound JWT RS256, uncached (whole authenticator)", n / 4, through(*uncached, rs_req));
  Report("SA bound JWT ES256, cached (whole authenticator)", n, through(*cached, es_req));
  Report("SA bound JWT ES256, uncached (whole authenticator)", n / 4, through(*uncached, es_req));

  auto rs_pub = rsa_key.PublicOnly();
  auto es_pub = ec_key.PublicOnly();
  ReportSync("JWT parse + verify RS256 (2048-bit)", n / 4, [&] {
    auto j = authn::ParseJwt(rs_token);
    return j.ok() && authn::VerifyJwt(*j, rs_pub).ok();
  });
  ReportSync("JWT parse + verify ES256 (P-256)", n / 4, [&] {
    auto j = authn::ParseJwt(es_token);
    return j.ok() && authn::VerifyJwt(*j, es_pub).ok();
  });
  ReportSync("JWT parse only", n, [&] { return authn::ParseJwt(rs_token).ok(); });

  // JWT authenticators (--authentication-config) against an issuer on loopback: the same user made by
  // claim mappings (what --oidc-* flags translate to) and by CEL expressions, with a CEL claim rule.
  authn::testing::TestCa issuer_ca("bench-issuer-ca");
  auto issuer_key = authn::testing::NewKey();
  authn::testing::TestHttpsServer issuer(issuer_ca, [](const http::HttpRequest&) { return authn::testing::JsonReply(404, "{}"); });
  const std::string iss = issuer.url();
  const std::string jwks = boost::json::serialize(authn::JwksDocument({issuer_key.PublicOnly()}));
  issuer.Set([iss, jwks](const http::HttpRequest& r) {
    if (r.path == "/keys") return authn::testing::JsonReply(200, jwks);
    return authn::testing::JsonReply(200, boost::json::serialize(boost::json::object{{"issuer", iss}, {"jwks_uri", iss + "/keys"}}));
  });
  std::string ca_block;
  for (char ch : issuer_ca.pem()) {
    ca_block += ch;
    if (ch == '\n') ca_block += "      ";
  }
  auto jwt_file = [&](const std::string& name, const std::string& mappings) {
    return Write(dir, name,
                 "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n"
                 "    url: " + iss + "\n    audiences: [bench]\n    certificateAuthority: |\n      " + ca_block + "\n" + mappings);
  };
  std::string claims_file = jwt_file("claims.yaml",
                                     "  claimMappings:\n    username: {claim: email, prefix: 'oidc:'}\n"
                                     "    groups: {claim: groups, prefix: 'oidc:'}\n");
  std::string cel_file = jwt_file("cel.yaml",
                                  "  claimValidationRules:\n  - expression: \"claims.email_verified == true\"\n"
                                  "  claimMappings:\n    username: {expression: \"'oidc:' + claims.email\"}\n"
                                  "    groups: {expression: \"claims.groups.map(g, 'oidc:' + g)\"}\n"
                                  "    uid: {expression: claims.sub}\n"
                                  "    extra:\n    - key: example.com/tenant\n      valueExpression: claims.tenant\n");
  server::HttpClientEngine engine;
  auto claims_cached = Build(dir, true, claims_file, &engine);
  auto claims_uncached = Build(dir, false, claims_file, &engine);
  auto cel_cached = Build(dir, true, cel_file, &engine);
  auto cel_uncached = Build(dir, false, cel_file, &engine);
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  boost::json::object id_claims{{"iss", iss}, {"aud", "bench"}, {"sub", "u-1"}, {"email", "olga@example.com"},
                                {"email_verified", true}, {"groups", boost::json::array{"eng", "ops"}},
                                {"tenant", "acme"}, {"iat", now}, {"exp", now + 3600}};
  const http::HttpRequest id_req = request(*authn::SignJwt(id_claims, issuer_key));
  for (auto* a : {claims_cached.get(), claims_uncached.get(), cel_cached.get(), cel_uncached.get()}) {
    // The issuer's keys are fetched in the background: wait for the first success.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!SyncWait(through(*a, id_req)()) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  Report("JWT RS256, claim mappings, cached", n, through(*claims_cached, id_req));
  Report("JWT RS256, CEL mappings + rule, cached", n, through(*cel_cached, id_req));
  Report("JWT RS256, claim mappings, uncached", n / 4, through(*claims_uncached, id_req));
  Report("JWT RS256, CEL mappings + rule, uncached", n / 4, through(*cel_uncached, id_req));

  // x509: a client certificate from a CA, verified as a TLS handshake's chain would be.
  auto ca = cmd::CreateSelfSignedCa("bench-ca", std::chrono::system_clock::now());
  cmd::CertSpec cs;
  cs.common_name = "carol";
  cs.organizations = {"team-a"};
  cs.client_auth = true;
  cmd::SetValidity(cs, std::chrono::system_clock::now(), std::chrono::hours(1));
  auto leaf = cmd::IssueCertAndKey(cs, *ca);
  int len = i2d_X509(leaf->cert.get(), nullptr);
  std::string der(static_cast<size_t>(len), '\0');
  auto* p = reinterpret_cast<unsigned char*>(der.data());
  i2d_X509(leaf->cert.get(), &p);
  auto x509 = authn::X509Authenticator::FromPem(cmd::CertificateToPem(*ca->cert));
  std::vector<std::string> chain = {der};
  ReportSync("x509 client chain verify (per new chain)", n / 4, [&] {
    auto r = (*x509)->Verify(chain);
    return r.ok() && r->has_value();
  });

  std::filesystem::remove_all(dir);
  return 0;
}
