#include "auth/authn/x509.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <unordered_map>
#include <sstream>

#include "auth/authn/digest.h"
#include "util/log.h"

namespace capstan::authn {

// The CA store, and the chains it has verified. A client keeps its connection and sends one chain with
// every request: verifying it each time (X509_verify_cert, ~0.35 ms) would dominate a GET. A verified
// chain is remembered by the SHA-256 of its DER certificates until a minute has passed or its leaf
// expires, whichever is first; failures are not remembered.
struct X509Authenticator::Store {
  X509_STORE* store = nullptr;
  struct Verified {
    VerifiedChain chain;
    std::chrono::system_clock::time_point expires;
  };
  std::mutex mu;
  std::unordered_map<std::string, Verified> verified;  // guarded by mu
  ~Store() {
    if (store) X509_STORE_free(store);
  }
};

namespace {

constexpr size_t kMaxVerifiedChains = 4096;

std::string ChainKey(const std::vector<std::string>& chain_der) {
  std::string all;
  for (const auto& der : chain_der) {
    uint64_t n = der.size();
    all.append(reinterpret_cast<const char*>(&n), sizeof n);
    all += der;
  }
  return Sha256Digest(all);
}

}  // namespace

X509Authenticator::~X509Authenticator() = default;

StatusOr<std::unique_ptr<X509Authenticator>> X509Authenticator::FromFile(const std::string& ca_file) {
  std::ifstream in(ca_file, std::ios::binary);
  if (!in) return Status(500, "InternalError", "cannot read --client-ca-file " + ca_file);
  std::stringstream ss;
  ss << in.rdbuf();
  return FromPem(ss.str());
}

StatusOr<std::shared_ptr<X509Authenticator::Store>> X509Authenticator::NewStore(const std::string& pem) {
  auto store = std::make_shared<Store>();
  store->store = X509_STORE_new();
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  int loaded = 0;
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    X509_STORE_add_cert(store->store, cert);
    X509_free(cert);
    ++loaded;
  }
  BIO_free(bio);
  ERR_clear_error();  // the end of the bundle reads as a PEM "no start line"
  if (loaded == 0) return Status(500, "InternalError", "the client CA bundle holds no PEM certificate");
  return store;
}

StatusOr<std::unique_ptr<X509Authenticator>> X509Authenticator::FromPem(const std::string& pem) {
  std::unique_ptr<X509Authenticator> a(new X509Authenticator());
  ASSIGN_OR_RETURN(a->store_, NewStore(pem));
  return a;
}

Status X509Authenticator::ReplaceCaBundle(const std::string& pem) {
  ASSIGN_OR_RETURN(auto store, NewStore(pem));
  std::lock_guard lock(mu_);
  store_ = std::move(store);
  return Status();
}

std::shared_ptr<X509Authenticator::Store> X509Authenticator::CurrentStore() const {
  std::lock_guard lock(mu_);
  return store_;
}

namespace {

// Go crypto/x509's wording for the failures clients see most.
std::string GoVerifyError(int err) {
  switch (err) {
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
      return "x509: certificate signed by unknown authority";
    case X509_V_ERR_CERT_HAS_EXPIRED:
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return "x509: certificate has expired or is not yet valid";
    case X509_V_ERR_INVALID_PURPOSE:
      return "x509: certificate specifies an incompatible key usage";
    default:
      return std::string("x509: ") + X509_verify_cert_error_string(err);
  }
}

}  // namespace

StatusOr<std::optional<VerifiedChain>> X509Authenticator::VerifyChain(const std::vector<std::string>& chain_der) const {
  if (chain_der.empty()) return std::optional<VerifiedChain>();
  const std::shared_ptr<Store> store = CurrentStore();  // this verification's CAs, whatever replaces them meanwhile
  const std::string key = ChainKey(chain_der);
  const auto now = std::chrono::system_clock::now();
  {
    std::lock_guard lock(store->mu);
    auto it = store->verified.find(key);
    if (it != store->verified.end()) {
      if (it->second.expires > now) return std::optional<VerifiedChain>(it->second.chain);
      store->verified.erase(it);
    }
  }
  std::vector<X509*> certs;
  for (const auto& der : chain_der) {
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    X509* c = d2i_X509(nullptr, &p, static_cast<long>(der.size()));
    if (!c) {
      for (auto* x : certs) X509_free(x);
      return AuthError("verifying certificate failed: x509: malformed certificate");
    }
    certs.push_back(c);
  }
  STACK_OF(X509)* intermediates = sk_X509_new_null();
  for (size_t i = 1; i < certs.size(); ++i) sk_X509_push(intermediates, certs[i]);
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store->store, certs[0], intermediates);
  X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_CLIENT);
  int ok = X509_verify_cert(ctx);
  int err = X509_STORE_CTX_get_error(ctx);
  X509_STORE_CTX_free(ctx);
  sk_X509_free(intermediates);

  StatusOr<std::optional<VerifiedChain>> result = std::optional<VerifiedChain>();
  if (ok == 1) {
    VerifiedChain v;
    X509_NAME* subject = X509_get_subject_name(certs[0]);
    for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
      X509_NAME_ENTRY* e = X509_NAME_get_entry(subject, i);
      int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
      unsigned char* utf8 = nullptr;
      int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(e));
      if (len < 0) continue;
      std::string value(reinterpret_cast<char*>(utf8), static_cast<size_t>(len));
      OPENSSL_free(utf8);
      if (nid == NID_commonName) v.common_name = value;
      if (nid == NID_organizationName) v.organizations.push_back(value);
    }
    auto expires = now + std::chrono::minutes(1);
    int days = 0, secs = 0;
    if (ASN1_TIME_diff(&days, &secs, nullptr, X509_get0_notAfter(certs[0]))) {
      auto left = std::chrono::seconds(static_cast<int64_t>(days) * 86400 + secs);
      if (now + left < expires) expires = now + left;
    }
    {
      std::lock_guard lock(store->mu);
      if (store->verified.size() >= kMaxVerifiedChains) store->verified.clear();
      store->verified[key] = Store::Verified{v, expires};
    }
    result = std::optional<VerifiedChain>(std::move(v));
  } else {
    std::string why = GoVerifyError(err);
    LogDebug("client certificate rejected", {{"reason", why}});
    result = AuthError("verifying certificate failed: " + why);
  }
  for (auto* x : certs) X509_free(x);
  return result;
}

StatusOr<std::optional<UserInfo>> X509Authenticator::Verify(const std::vector<std::string>& chain_der) const {
  auto chain = VerifyChain(chain_der);
  if (!chain.ok()) return chain.TakeStatus();
  if (!chain->has_value()) return std::optional<UserInfo>();
  // kube's CommonNameUserConversion: a certificate without a CN names no user (no opinion).
  if ((*chain)->common_name.empty()) return std::optional<UserInfo>();
  UserInfo u;
  u.name = std::move((*chain)->common_name);
  u.groups = std::move((*chain)->organizations);
  return std::optional<UserInfo>(std::move(u));
}

Task<AuthResult> X509Authenticator::AuthenticateRequest(const http::HttpRequest& req, const Audiences&) {
  auto u = Verify(req.peer_certs_der);
  if (!u.ok()) co_return u.TakeStatus();
  if (!u->has_value()) co_return std::optional<Response>();
  Response r;
  r.user = std::move(**u);
  co_return std::optional<Response>(std::move(r));
}

}  // namespace capstan::authn
