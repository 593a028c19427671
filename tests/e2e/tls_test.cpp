// End-to-end: the TLS policy of the secure port as kube-apiserver 1.32 applies it (issue 25):
// --tls-min-version (VersionTLS13 refuses TLS 1.2 clients), --tls-cipher-suites with Go's names (an
// allowed suite connects, one left out is refused, insecure ones are accepted as kube accepts them,
// TLS 1.3 suites are not configurable, an unknown name stops the start with kube's error) and
// --strict-transport-security-directives; --tls-sni-cert-key (a certificate chosen by the name the
// client asks for, with kube's precedence: explicit names over the certificate's, earlier flags over
// later ones, exact names over wildcards, the default certificate otherwise); and kube's dynamic
// certificates: the serving and SNI pairs and the client CA bundle replaced on disk are what the next
// connection gets, without a restart, and a broken file keeps the previous material. Driven by the
// real binary, openssl s_client and curl.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

// `openssl s_client` with the given options: 0 when the handshake succeeded.
int HandshakeWith(int port, std::vector<std::string> options) {
  std::vector<std::string> argv = {"openssl", "s_client", "-connect", "127.0.0.1:" + std::to_string(port), "-brief"};
  argv.insert(argv.end(), options.begin(), options.end());
  return RunCommand(argv, "", std::chrono::seconds(20)).exit_code;
}

TEST(TlsMinVersionTest, VersionTLS13RefusesTls12Clients) {
  ServerProcess tls13({"--tls-min-version=VersionTLS13", "--strict-transport-security-directives=max-age=31536000,includeSubDomains,preload"});
  ASSERT_TRUE(tls13.ok()) << tls13.error();
  EXPECT_EQ(HandshakeWith(tls13.port(), {"-tls1_3"}), 0);
  EXPECT_NE(HandshakeWith(tls13.port(), {"-tls1_2"}), 0);
  ServerProcess defaults;
  ASSERT_TRUE(defaults.ok()) << defaults.error();
  EXPECT_EQ(HandshakeWith(defaults.port(), {"-tls1_2"}), 0) << "kube's default minimum is TLS 1.2";
  EXPECT_EQ(HandshakeWith(defaults.port(), {"-tls1_3"}), 0);
  EXPECT_NE(HandshakeWith(defaults.port(), {"-tls1_1"}), 0);
  // --strict-transport-security-directives: kube's HSTS header on every answer, none by default.
  auto headers = [](const ServerProcess& s) {
    std::string out =
        RunCommand({"curl", "-sk", "-o", "/dev/null", "-D", "-", "https://127.0.0.1:" + std::to_string(s.port()) + "/healthz"})
            .out;
    for (auto& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));  // h2 or HTTP/1.1
    return out;
  };
  EXPECT_TRUE(Contains(headers(tls13), "strict-transport-security: max-age=31536000; includesubdomains; preload\r\n"))
      << headers(tls13);
  EXPECT_FALSE(Contains(headers(defaults), "strict-transport-security")) << headers(defaults);
}

TEST(TlsCipherSuitesTest, OnlyTheNamedTls12SuitesConnect) {
  // The generated serving certificate is ECDSA P-256, so the ECDHE-ECDSA suites are the ones that can
  // be negotiated. One secure suite, one insecure one (CBC-SHA256: kube accepts it), one the TLS
  // library does not have (3DES: named at start) and a TLS 1.3 suite (not configurable, as in Go).
  ServerProcess s({"--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
                   "--tls-cipher-suites=TLS_RSA_WITH_3DES_EDE_CBC_SHA,TLS_AES_128_GCM_SHA256"});
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(HandshakeWith(s.port(), {"-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"}), 0);
  EXPECT_EQ(HandshakeWith(s.port(), {"-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA256"}), 0);
  EXPECT_NE(HandshakeWith(s.port(), {"-tls1_2", "-cipher", "ECDHE-ECDSA-AES256-GCM-SHA384"}), 0);
  EXPECT_NE(HandshakeWith(s.port(), {"-tls1_2", "-cipher", "ECDHE-ECDSA-CHACHA20-POLY1305"}), 0);
  // TLS 1.3 keeps its own suites whatever the flag says.
  EXPECT_EQ(HandshakeWith(s.port(), {"-tls1_3", "-ciphersuites", "TLS_AES_256_GCM_SHA384"}), 0);
  EXPECT_TRUE(Contains(s.log(), "the TLS library does not have these suites")) << s.log();
  EXPECT_TRUE(Contains(s.log(), "TLS_RSA_WITH_3DES_EDE_CBC_SHA")) << s.log();
  EXPECT_FALSE(Contains(s.log(), "not acted on yet")) << s.log();

  // Without the flag: Go's defaults, which leave out CBC-SHA256 (and RSA key exchange, 3DES, RC4).
  ServerProcess defaults;
  ASSERT_TRUE(defaults.ok()) << defaults.error();
  EXPECT_EQ(HandshakeWith(defaults.port(), {"-tls1_2", "-cipher", "ECDHE-ECDSA-AES256-GCM-SHA384"}), 0);
  EXPECT_EQ(HandshakeWith(defaults.port(), {"-tls1_2", "-cipher", "ECDHE-ECDSA-CHACHA20-POLY1305"}), 0);
  EXPECT_EQ(HandshakeWith(defaults.port(), {"-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA"}), 0);
  EXPECT_NE(HandshakeWith(defaults.port(), {"-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA256"}), 0);

  // Only TLS 1.3 names: TLS 1.2 has nothing to negotiate.
  ServerProcess only13({"--tls-cipher-suites=TLS_AES_128_GCM_SHA256"});
  ASSERT_TRUE(only13.ok()) << only13.error();
  EXPECT_EQ(HandshakeWith(only13.port(), {"-tls1_3"}), 0);
  EXPECT_NE(HandshakeWith(only13.port(), {"-tls1_2"}), 0);
}

TEST(TlsCipherSuitesTest, AnUnknownNameStopsTheStartWithKubesError) {
  std::string dir = MakeTempDir("capstan-ciphers");
  auto r = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0",
                       "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,ECDHE-RSA-AES128-GCM-SHA256"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "Error: Cipher suite ECDHE-RSA-AES128-GCM-SHA256 not supported or doesn't exist\n"))
      << r.err;
}

// --- certificates made with the openssl command line

// A self-signed P-256 certificate: CN `cn`, subjectAltName `san` (e.g. "DNS:a.example.com"), written to
// <dir>/<file>.crt and .key.
void SelfSigned(const std::string& dir, const std::string& file, const std::string& cn, const std::string& san = "") {
  std::vector<std::string> argv = {"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                   "-nodes", "-days", "2", "-subj", "/CN=" + cn, "-keyout", dir + "/" + file + ".key",
                                   "-out", dir + "/" + file + ".crt"};
  if (!san.empty()) {
    argv.push_back("-addext");
    argv.push_back("subjectAltName=" + san);
  }
  auto r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

// A client certificate for `user` signed by <dir>/<ca>.crt, written to <dir>/<file>.crt and .key.
void ClientCert(const std::string& dir, const std::string& ca, const std::string& file, const std::string& user) {
  auto csr = RunCommand({"openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                         "-subj", "/CN=" + user, "-keyout", dir + "/" + file + ".key", "-out", dir + "/" + file + ".csr"});
  ASSERT_EQ(csr.exit_code, 0) << csr.err;
  auto sign = RunCommand({"openssl", "x509", "-req", "-in", dir + "/" + file + ".csr", "-CA", dir + "/" + ca + ".crt",
                          "-CAkey", dir + "/" + ca + ".key", "-CAcreateserial", "-days", "2", "-out",
                          dir + "/" + file + ".crt"});
  ASSERT_EQ(sign.exit_code, 0) << sign.err;
}

// The subject the server presents for `server_name` ("": no SNI), as s_client prints it ("CN = x").
std::string ServedSubject(int port, const std::string& server_name) {
  std::vector<std::string> argv = {"openssl", "s_client", "-connect", "127.0.0.1:" + std::to_string(port)};
  if (server_name.empty()) {
    argv.push_back("-noservername");
  } else {
    argv.push_back("-servername");
    argv.push_back(server_name);
  }
  auto r = RunCommand(argv, "", std::chrono::seconds(20));
  size_t at = r.out.find("\nsubject=");
  if (at == std::string::npos) return "(no certificate) " + r.err;
  size_t end = r.out.find('\n', at + 1);
  return r.out.substr(at + 9, end - at - 9);
}

void Replace(const std::string& from, const std::string& to) {
  ASSERT_EQ(std::rename(from.c_str(), to.c_str()), 0) << from << " -> " << to;
}

// Polls until the server presents `want` for `server_name`, for at most 20 s (the server re-reads
// its files every second).
std::string WaitForSubject(int port, const std::string& server_name, const std::string& want) {
  std::string got;
  for (int i = 0; i < 40; ++i) {
    got = ServedSubject(port, server_name);
    if (got == want) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return got;
}

TEST(TlsSniCertKeyTest, TheCertificateFollowsTheNameAsKubeChoosesIt) {
  std::string dir = MakeTempDir("capstan-sni");
  SelfSigned(dir, "a", "a.example.com", "DNS:a.example.com,DNS:*.wild.example.com");
  SelfSigned(dir, "b", "b.example.com", "DNS:b.example.com");
  SelfSigned(dir, "c", "c.example.com", "DNS:c.example.com,DNS:shared.example.com");
  SelfSigned(dir, "d", "d.example.com", "DNS:d.example.com,DNS:shared.example.com,DNS:exact.wild.example.com");
  ServerProcess s({"--tls-sni-cert-key=" + dir + "/a.crt," + dir + "/a.key",
                   // explicit names: a.example.com is b's, although a's certificate names it
                   "--tls-sni-cert-key", dir + "/b.crt," + dir + "/b.key:b.example.com,a.example.com",
                   "--tls-sni-cert-key", " " + dir + "/c.crt , " + dir + "/c.key ",
                   "--tls-sni-cert-key", dir + "/d.crt," + dir + "/d.key"});
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(ServedSubject(s.port(), "a.example.com"), "CN = b.example.com");
  EXPECT_EQ(ServedSubject(s.port(), "B.Example.COM"), "CN = b.example.com");
  EXPECT_EQ(ServedSubject(s.port(), "x.wild.example.com"), "CN = a.example.com");
  EXPECT_EQ(ServedSubject(s.port(), "exact.wild.example.com"), "CN = d.example.com") << "exact before wildcard";
  EXPECT_EQ(ServedSubject(s.port(), "shared.example.com"), "CN = c.example.com") << "the earlier flag wins";
  EXPECT_EQ(ServedSubject(s.port(), "d.example.com"), "CN = d.example.com");
  // No name, or a name nobody serves: the default serving certificate (the generated one).
  std::string by_default = ServedSubject(s.port(), "");
  EXPECT_TRUE(Contains(by_default, "CN = ")) << by_default;
  for (const char* cn : {"a.example.com", "b.example.com", "c.example.com", "d.example.com"}) {
    EXPECT_FALSE(Contains(by_default, cn)) << by_default;
  }
  EXPECT_EQ(ServedSubject(s.port(), "elsewhere.example.org"), by_default);
  EXPECT_FALSE(Contains(s.log(), "not acted on yet")) << s.log();
  // kubectl (no SNI for an IP) still gets the certificate its kubeconfig trusts.
  auto k = s.Kubectl({"get", "namespaces"});
  EXPECT_EQ(k.exit_code, 0) << k.err;
}

TEST(TlsSniCertKeyTest, AnUnreadablePairStopsTheStart) {
  std::string dir = MakeTempDir("capstan-sni-bad");
  auto r = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--tls-sni-cert-key",
                       dir + "/missing.crt," + dir + "/missing.key"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "failed to load SNI cert and key: open " + dir + "/missing.crt: no such file or directory"))
      << r.err;
  SelfSigned(dir, "x", "x.example.com");
  SelfSigned(dir, "y", "y.example.com");
  auto mismatch = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--tls-sni-cert-key",
                              dir + "/x.crt," + dir + "/y.key"});
  EXPECT_EQ(mismatch.exit_code, 1);
  EXPECT_TRUE(Contains(mismatch.err, "failed to load SNI cert and key: tls: private key does not match public key"))
      << mismatch.err;
}

TEST(DynamicCertificatesTest, FilesReplacedOnDiskServeTheNextConnection) {
  std::string dir = MakeTempDir("capstan-reload");
  SelfSigned(dir, "serving", "serving-one", "IP:127.0.0.1,DNS:localhost");
  SelfSigned(dir, "sni", "sni-one", "DNS:sni.example.com");
  SelfSigned(dir, "ca", "client-ca-one");
  SelfSigned(dir, "ca2", "client-ca-two");
  ClientCert(dir, "ca", "one", "user-one");
  ClientCert(dir, "ca2", "two", "user-two");
  ServerProcess s({"--tls-cert-file=" + dir + "/serving.crt", "--tls-private-key-file=" + dir + "/serving.key",
                   "--tls-sni-cert-key=" + dir + "/sni.crt," + dir + "/sni.key:sni.example.com",
                   "--client-ca-file=" + dir + "/ca.crt"});
  ASSERT_TRUE(s.ok()) << s.error();
  auto whoami = [&](const std::string& user) {
    auto r = RunCommand({"curl", "-sk", "--cert", dir + "/" + user + ".crt", "--key", dir + "/" + user + ".key", "-o",
                         "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:" + std::to_string(s.port()) + "/api"});
    return r.out;
  };
  EXPECT_EQ(ServedSubject(s.port(), ""), "CN = serving-one");
  EXPECT_EQ(ServedSubject(s.port(), "sni.example.com"), "CN = sni-one");
  EXPECT_EQ(whoami("one"), "200");
  EXPECT_EQ(whoami("two"), "401");

  // New pairs, written beside and renamed into place (as a Secret volume or cert-manager does).
  SelfSigned(dir, "serving-new", "serving-two", "IP:127.0.0.1");
  SelfSigned(dir, "sni-new", "sni-two", "DNS:sni.example.com");
  Replace(dir + "/serving-new.key", dir + "/serving.key");
  Replace(dir + "/serving-new.crt", dir + "/serving.crt");
  Replace(dir + "/sni-new.key", dir + "/sni.key");
  Replace(dir + "/sni-new.crt", dir + "/sni.crt");
  std::ifstream ca2(dir + "/ca2.crt");
  std::string ca2_pem((std::istreambuf_iterator<char>(ca2)), std::istreambuf_iterator<char>());
  std::ofstream(dir + "/ca.crt.new") << ca2_pem;
  Replace(dir + "/ca.crt.new", dir + "/ca.crt");
  EXPECT_EQ(WaitForSubject(s.port(), "", "CN = serving-two"), "CN = serving-two") << s.log();
  EXPECT_EQ(WaitForSubject(s.port(), "sni.example.com", "CN = sni-two"), "CN = sni-two") << s.log();
  // The client CA: the handshake names the new CA and the x509 authenticator verifies with it.
  auto names = RunCommand({"openssl", "s_client", "-connect", "127.0.0.1:" + std::to_string(s.port())}, "",
                          std::chrono::seconds(20));
  EXPECT_TRUE(Contains(names.out, "CN = client-ca-two")) << names.out;
  EXPECT_EQ(whoami("two"), "200");
  EXPECT_EQ(whoami("one"), "401");
  EXPECT_TRUE(Contains(s.log(), "Loaded a new cert/key pair")) << s.log();

  // A broken file: the previous material stays, and the reason is logged.
  std::ofstream(dir + "/serving.crt.new") << "not a certificate\n";
  Replace(dir + "/serving.crt.new", dir + "/serving.crt");
  std::ofstream(dir + "/ca.crt.new") << "";
  Replace(dir + "/ca.crt.new", dir + "/ca.crt");
  for (int i = 0; i < 40 && !Contains(s.log(), "missing content for CA bundle"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  EXPECT_TRUE(Contains(s.log(), "tls: failed to find any PEM data in certificate input")) << s.log();
  EXPECT_TRUE(Contains(s.log(), "missing content for CA bundle")) << s.log();
  EXPECT_EQ(ServedSubject(s.port(), ""), "CN = serving-two");
  EXPECT_EQ(whoami("two"), "200");
}

// A port nobody listens on now.
int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

TEST(PermitPortSharingTest, TwoServersShareTheSecurePortOnlyWithTheFlag) {
  int port = FreePort();
  ASSERT_GT(port, 0);
  ServerProcess first({"--secure-port", std::to_string(port), "--permit-port-sharing"});
  ASSERT_TRUE(first.ok()) << first.error();
  std::string dir = MakeTempDir("capstan-port-sharing");
  auto refused = RunCommand({Binary(), "--data-dir", dir, "--secure-port", std::to_string(port)});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_TRUE(Contains(refused.err, "address already in use") || Contains(refused.err, "Address already in use"))
      << refused.err;
  ServerProcess second({"--secure-port", std::to_string(port), "--permit-port-sharing"});
  ASSERT_TRUE(second.ok()) << second.error();
  EXPECT_EQ(second.port(), port);
  EXPECT_FALSE(Contains(second.log(), "not acted on yet")) << second.log();
}

}  // namespace
}  // namespace capstan::e2e
