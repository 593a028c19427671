// tests/auth/authn/authn_test_util.h: what the authenticator tests share: a temporary folder, a test CA
// issuing server and client certificates, signing keys, fake object lookups, and a small HTTPS server
// on loopback (Capstan's own server::HttpServer with a test handler) for the OIDC issuer, token
// webhook and HTTP client tests.
#pragma once

#include <openssl/x509.h>
#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "auth/authn/keys.h"
#include "auth/authn/object_getter.h"
#include "cmd/pki.h"
#include "server/http_server.h"

namespace capstan::authn::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "capstan-authn-XXXXXX").string();
    path_ = mkdtemp(tmpl.data()) ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  std::string Write(const std::string& name, const std::string& content) const {
    std::string p = path_ + "/" + name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct PemPair {
  std::string cert;
  std::string key;
};

// A CA that issues certificates for tests.
class TestCa {
 public:
  explicit TestCa(const std::string& name = "test-ca") {
    auto now = std::chrono::system_clock::now();
    auto ca = cmd::CreateSelfSignedCa(name, now);
    ca_ = std::move(*ca);
    pem_ = cmd::CertificateToPem(*ca_.cert);
  }
  const std::string& pem() const { return pem_; }

  PemPair Issue(const std::string& cn, std::vector<std::string> orgs, bool server, bool client,
                std::chrono::seconds lifetime = std::chrono::hours(24), int64_t start_offset_s = 0) const {
    cmd::CertSpec spec;
    spec.common_name = cn;
    spec.organizations = std::move(orgs);
    if (server) spec.ip_addresses = {"127.0.0.1"};
    if (server) spec.dns_names = {"localhost"};
    spec.server_auth = server;
    spec.client_auth = client;
    auto now = std::chrono::system_clock::now() + std::chrono::seconds(start_offset_s);
    cmd::SetValidity(spec, now, lifetime);
    auto c = cmd::IssueCertAndKey(spec, ca_);
    return {cmd::CertificateToPem(*c->cert), cmd::PrivateKeyToPem(*c->key)};
  }
  // DER of a PEM certificate (what the server hands the authenticators).
  static std::string Der(const std::string& pem) {
    auto certs = cmd::ParseCertificatesPem(pem, "test");
    X509* x = (*certs)[0].get();
    int len = i2d_X509(x, nullptr);
    std::string der(static_cast<size_t>(len), '\0');
    auto* p = reinterpret_cast<unsigned char*>(der.data());
    i2d_X509(x, &p);
    return der;
  }

 private:
  cmd::CertAndKey ca_;
  std::string pem_;
};

inline JwsKey NewKey(cmd::KeyType type = cmd::KeyType::kRsa2048) {
  auto k = cmd::GenerateKey(type);
  auto pem = cmd::PrivateKeyToPem(**k);
  return *ParsePrivateKeyPem(pem, "test");
}

inline std::string KeyPem(cmd::KeyType type = cmd::KeyType::kRsa2048) {
  auto k = cmd::GenerateKey(type);
  return cmd::PrivateKeyToPem(**k);
}

// Objects by (resource, namespace, name), answered as the REST getters would.
class FakeObjects {
 public:
  void Put(const std::string& resource, const std::string& ns, const std::string& name, boost::json::object obj) {
    std::lock_guard lock(mu_);
    objects_[{resource, ns, name}] = std::move(obj);
  }
  void Remove(const std::string& resource, const std::string& ns, const std::string& name) {
    std::lock_guard lock(mu_);
    objects_.erase({resource, ns, name});
  }
  int calls() const { return calls_; }
  ObjectGetter Getter() {
    return [this](const std::string& resource, const std::string& ns, const std::string& name) -> Task<StatusOr<boost::json::object>> {
      std::lock_guard lock(mu_);
      ++calls_;
      auto it = objects_.find({resource, ns, name});
      if (it == objects_.end()) co_return Status(404, "NotFound", resource + " \"" + name + "\" not found");
      co_return it->second;
    };
  }

 private:
  std::mutex mu_;
  int calls_ = 0;
  std::map<std::tuple<std::string, std::string, std::string>, boost::json::object> objects_;
};

inline boost::json::object Meta(const std::string& name, const std::string& uid, const std::string& deletion = "") {
  boost::json::object md;
  md["name"] = name;
  md["uid"] = uid;
  if (!deletion.empty()) md["deletionTimestamp"] = deletion;
  boost::json::object o;
  o["metadata"] = std::move(md);
  return o;
}

// An HTTPS server on 127.0.0.1 (port 0) whose handler is a plain function of the request.
class TestHttpsServer {
 public:
  using Fn = std::function<http::HttpResponse(const http::HttpRequest&)>;
  TestHttpsServer(const TestCa& ca, Fn fn) : fn_(std::make_shared<Fn>(std::move(fn))) {
    auto pair = ca.Issue("localhost", {}, true, false);
    cert_ = dir_.Write("server.crt", pair.cert);
    key_ = dir_.Write("server.key", pair.key);
    server::HttpServerOptions o;
    o.port = 0;
    o.tls_cert_file = cert_;
    o.tls_private_key_file = key_;
    o.io_threads = 1;
    auto fn_ptr = fn_;
    server_ = std::make_unique<server::HttpServer>(o, [fn_ptr](http::RequestContext& ctx) -> Task<void> {
      http::HttpResponse resp = (*fn_ptr)(ctx.request);
      co_await ctx.writer->Respond(std::move(resp));
    });
    Status st = server_->Start();
    ok_ = st.ok();
  }
  ~TestHttpsServer() { server_->Shutdown(std::chrono::milliseconds(2000)); }
  bool ok() const { return ok_; }
  int port() const { return server_->port(); }
  std::string url(const std::string& path = "") const { return "https://127.0.0.1:" + std::to_string(port()) + path; }
  void Set(Fn fn) { *fn_ = std::move(fn); }

 private:
  TempDir dir_;
  std::string cert_, key_;
  std::shared_ptr<Fn> fn_;
  std::unique_ptr<server::HttpServer> server_;
  bool ok_ = false;
};

inline http::HttpResponse JsonReply(int status, const std::string& body) {
  http::HttpResponse r;
  r.status = status;
  r.headers.Set("Content-Type", "application/json");
  r.body = body;
  return r;
}

}  // namespace capstan::authn::testing
