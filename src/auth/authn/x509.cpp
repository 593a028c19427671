#include "auth/authn/x509.h"

#include <openssl/pem.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <fstream>
#include <sstream>

#include "util/log.h"

namespace capstan::authn {

struct X509Authenticator::Store {
  X509_STORE* store = nullptr;
  ~Store() {
    if (store) X509_STORE_free(store);
  }
};

X509Authenticator::~X509Authenticator() = default;

StatusOr<std::unique_ptr<X509Authenticator>> X509Authenticator::FromFile(const std::string& ca_file) {
  std::ifstream in(ca_file, std::ios::binary);
  if (!in) return Status(500, "InternalError", "cannot read --client-ca-file " + ca_file);
  std::stringstream ss;
  ss << in.rdbuf();
  return FromPem(ss.str());
}

StatusOr<std::unique_ptr<X509Authenticator>> X509Authenticator::FromPem(const std::string& pem) {
  std::unique_ptr<X509Authenticator> a(new X509Authenticator());
  a->store_ = std::make_unique<Store>();
  a->store_->store = X509_STORE_new();
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  int loaded = 0;
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    X509_STORE_add_cert(a->store_->store, cert);
    X509_free(cert);
    ++loaded;
  }
  BIO_free(bio);
  if (loaded == 0) return Status(500, "InternalError", "the client CA bundle holds no PEM certificate");
  return a;
}

StatusOr<std::optional<UserInfo>> X509Authenticator::Verify(const std::vector<std::string>& chain_der) const {
  if (chain_der.empty()) return std::optional<UserInfo>();
  std::vector<X509*> certs;
  for (const auto& der : chain_der) {
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    X509* c = d2i_X509(nullptr, &p, static_cast<long>(der.size()));
    if (!c) {
      for (auto* x : certs) X509_free(x);
      return UnauthorizedStatus();
    }
    certs.push_back(c);
  }
  STACK_OF(X509)* intermediates = sk_X509_new_null();
  for (size_t i = 1; i < certs.size(); ++i) sk_X509_push(intermediates, certs[i]);
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store_->store, certs[0], intermediates);
  X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_CLIENT);
  int ok = X509_verify_cert(ctx);
  int err = X509_STORE_CTX_get_error(ctx);
  X509_STORE_CTX_free(ctx);
  sk_X509_free(intermediates);

  std::optional<UserInfo> user;
  if (ok == 1) {
    UserInfo u;
    X509_NAME* subject = X509_get_subject_name(certs[0]);
    for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
      X509_NAME_ENTRY* e = X509_NAME_get_entry(subject, i);
      int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
      unsigned char* utf8 = nullptr;
      int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(e));
      if (len < 0) continue;
      std::string value(reinterpret_cast<char*>(utf8), static_cast<size_t>(len));
      OPENSSL_free(utf8);
      if (nid == NID_commonName) u.name = value;
      if (nid == NID_organizationName) u.groups.push_back(value);
    }
    if (!u.name.empty()) user = std::move(u);
  } else {
    LogDebug("client certificate rejected", {{"reason", X509_verify_cert_error_string(err)}});
  }
  for (auto* x : certs) X509_free(x);
  if (!user) return UnauthorizedStatus();
  return user;
}

Task<StatusOr<std::optional<UserInfo>>> X509Authenticator::Authenticate(const http::HttpRequest& req) {
  if (req.peer_certs_der.empty()) co_return std::optional<UserInfo>();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_len = 0;
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  EVP_DigestInit_ex(md, EVP_sha256(), nullptr);
  for (const auto& der : req.peer_certs_der) {
    uint64_t n = der.size();
    EVP_DigestUpdate(md, &n, sizeof n);
    EVP_DigestUpdate(md, der.data(), der.size());
  }
  EVP_DigestFinal_ex(md, digest, &digest_len);
  EVP_MD_CTX_free(md);
  std::string key(reinterpret_cast<char*>(digest), digest_len);
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(cache_mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) {
      if (it->second.expires > now) co_return std::optional<UserInfo>(it->second.user);
      cache_.erase(it);
    }
  }
  auto r = Verify(req.peer_certs_der);
  if (r.ok() && r->has_value()) {
    // Cache until a minute from now, or the leaf's expiry if sooner.
    auto expires = now + std::chrono::minutes(1);
    const auto* p = reinterpret_cast<const unsigned char*>(req.peer_certs_der[0].data());
    if (X509* leaf = d2i_X509(nullptr, &p, static_cast<long>(req.peer_certs_der[0].size()))) {
      int days = 0, secs = 0;
      if (ASN1_TIME_diff(&days, &secs, nullptr, X509_get0_notAfter(leaf))) {
        auto left = std::chrono::seconds(static_cast<int64_t>(days) * 86400 + secs);
        if (now + left < expires) expires = now + left;
      }
      X509_free(leaf);
    }
    std::lock_guard lock(cache_mu_);
    if (cache_.size() > 4096) cache_.clear();
    cache_[key] = CachedUser{**r, expires};
  }
  co_return r;
}

}  // namespace capstan::authn
