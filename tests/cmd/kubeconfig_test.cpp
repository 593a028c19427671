#include "cmd/kubeconfig.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "cmd/pki.h"
#include "cmd/temp_dir.h"
#include "util/strings.h"

namespace capstan::cmd {
namespace {

using testing::FileMode;
using testing::TempDir;

AdminKubeconfig SampleAdmin() {
  AdminKubeconfig a;
  a.server_url = "https://127.0.0.1:6443";
  a.ca_cert_pem = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
  a.client_cert_pem = "-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n";
  a.client_key_pem = "-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n";
  return a;
}

Status WriteText(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  return WriteFileAtomic(path, text, 0644);
}

TEST(Kubeconfig, AdminFileIsWrittenPrivatelyAndParsesBack) {
  TempDir tmp;
  std::string path = tmp.Sub("admin.kubeconfig");
  AdminKubeconfig admin = SampleAdmin();
  ASSERT_TRUE(WriteAdminKubeconfig(path, admin).ok());
  EXPECT_EQ(FileMode(path), 0600u);

  StatusOr<Kubeconfig> cfg = LoadKubeconfigFile(path);
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->current_context, "capstan");
  StatusOr<KubeconfigTarget> t = ResolveCurrentContext(*cfg);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->context.name, "capstan");
  EXPECT_EQ(t->cluster.name, "capstan");
  EXPECT_EQ(t->user.name, "capstan");
  EXPECT_EQ(t->cluster.server, "https://127.0.0.1:6443");
  EXPECT_EQ(t->cluster.certificate_authority_data, admin.ca_cert_pem);
  EXPECT_EQ(t->user.client_certificate_data, admin.client_cert_pem);
  EXPECT_EQ(t->user.client_key_data, admin.client_key_pem);
}

TEST(Kubeconfig, RelativePathsResolveAgainstTheFilesFolder) {
  TempDir tmp;
  std::string path = tmp.Sub("conf/webhook.yaml");
  ASSERT_TRUE(WriteText(path, R"(apiVersion: v1
kind: Config
clusters:
- name: hook
  cluster:
    server: https://hook.example.com:8443/authorize
    certificate-authority: certs/ca.crt
    tls-server-name: hook.internal
- name: abs
  cluster:
    server: https://abs
    certificate-authority: /etc/abs/ca.crt
    insecure-skip-tls-verify: true
users:
- name: apiserver
  user:
    client-certificate: ../client/c.crt
    client-key: client.key
    tokenFile: ./token
contexts:
- name: webhook
  context:
    cluster: hook
    user: apiserver
    namespace: ns1
current-context: webhook
)")
                  .ok());
  StatusOr<Kubeconfig> cfg = LoadKubeconfigFile(path);
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  std::string dir = std::filesystem::path(tmp.path()).lexically_normal().string();
  StatusOr<KubeconfigTarget> t = ResolveCurrentContext(*cfg);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->cluster.certificate_authority, dir + "/conf/certs/ca.crt");
  EXPECT_EQ(t->cluster.tls_server_name, "hook.internal");
  EXPECT_FALSE(t->cluster.insecure_skip_tls_verify);
  EXPECT_EQ(t->user.client_certificate, dir + "/client/c.crt");
  EXPECT_EQ(t->user.client_key, dir + "/conf/client.key");
  EXPECT_EQ(t->user.token_file, dir + "/conf/token");
  EXPECT_EQ(t->context.namespace_, "ns1");
  const KubeconfigCluster* abs = cfg->FindCluster("abs");
  ASSERT_NE(abs, nullptr);
  EXPECT_EQ(abs->certificate_authority, "/etc/abs/ca.crt");
  EXPECT_TRUE(abs->insecure_skip_tls_verify);
}

TEST(Kubeconfig, RelativeFileNameInTheWorkingDirectory) {
  StatusOr<Kubeconfig> cfg = ParseKubeconfig("clusters:\n- name: c\n  cluster:\n    certificate-authority: ca.pem\n",
                                             "hook.yaml");
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  std::string cwd = std::filesystem::current_path().lexically_normal().string();
  EXPECT_EQ(cfg->clusters[0].certificate_authority, (std::filesystem::path(cwd) / "ca.pem").string());
}

TEST(Kubeconfig, TokensAndBasicAuth) {
  StatusOr<Kubeconfig> cfg = ParseKubeconfig(R"({"clusters":[{"name":"c","cluster":{"server":"https://x"}}],
    "users":[{"name":"u","user":{"token":"abc","username":"admin","password":"pw"}}],
    "contexts":[{"name":"x","context":{"cluster":"c","user":"u"}}],"current-context":"x"})",
                                             "/etc/hook.json");
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  StatusOr<KubeconfigTarget> t = ResolveCurrentContext(*cfg);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->user.token, "abc");
  EXPECT_EQ(t->user.username, "admin");
  EXPECT_EQ(t->user.password, "pw");
}

TEST(Kubeconfig, MalformedInputNamesTheFile) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {"clusters: [\n  - name: a\n  cluster: {", "yaml: line"},
      {"clusters: hello\n", "clusters: expected a list"},
      {"- a\n- b\n", "expected a kubeconfig object"},
      {"clusters:\n- name: a\n  cluster: [1]\n", "clusters[0].cluster: expected an object"},
      {"clusters:\n- name: a\n  cluster:\n    server: {x: 1}\n", "clusters[0].cluster.server: expected a string"},
      {"clusters:\n- name: a\n  cluster:\n    certificate-authority-data: '!!notbase64'\n",
       "clusters[0].cluster.certificate-authority-data: illegal base64 data"},
      {"clusters:\n- name: a\n  cluster:\n    insecure-skip-tls-verify: maybe\n",
       "clusters[0].cluster.insecure-skip-tls-verify: expected a boolean"},
      {"users: [1, 2]\n", "users[0]: expected an object"},
  };
  for (const Case& c : cases) {
    StatusOr<Kubeconfig> cfg = ParseKubeconfig(c.text, "/srv/webhook.kubeconfig");
    ASSERT_FALSE(cfg.ok()) << c.text;
    const std::string& msg = cfg.status().message();
    EXPECT_TRUE(msg.starts_with("error loading config file \"/srv/webhook.kubeconfig\": ")) << msg;
    EXPECT_NE(msg.find(c.want), std::string::npos) << msg;
  }
}

TEST(Kubeconfig, MissingFileIsAnError) {
  StatusOr<Kubeconfig> cfg = LoadKubeconfigFile("/nonexistent/dir/hook.yaml");
  ASSERT_FALSE(cfg.ok());
  EXPECT_NE(cfg.status().message().find("/nonexistent/dir/hook.yaml"), std::string::npos);
}

TEST(Kubeconfig, EmptyFileIsAnEmptyConfig) {
  StatusOr<Kubeconfig> cfg = ParseKubeconfig("", "empty.yaml");
  ASSERT_TRUE(cfg.ok());
  EXPECT_TRUE(cfg->clusters.empty());
  StatusOr<KubeconfigTarget> t = ResolveCurrentContext(*cfg);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("invalid configuration: no configuration has been provided"), std::string::npos);
}

TEST(Kubeconfig, ResolveErrors) {
  auto resolve = [](const char* text) {
    StatusOr<Kubeconfig> cfg = ParseKubeconfig(text, "k.yaml");
    EXPECT_TRUE(cfg.ok()) << cfg.status().message();
    return ResolveCurrentContext(*cfg).status().message();
  };
  EXPECT_NE(resolve("current-context: nope\n").find("context was not found for specified context: nope"),
            std::string::npos);
  EXPECT_NE(resolve("contexts:\n- name: a\n  context: {cluster: c}\ncurrent-context: a\n")
                .find("no server found for cluster \"c\""),
            std::string::npos);
  EXPECT_NE(resolve("clusters:\n- name: c\n  cluster: {server: 'https://x'}\n"
                    "users:\n- name: u\n  user: {client-certificate: a.crt}\n"
                    "contexts:\n- name: a\n  context: {cluster: c, user: u}\ncurrent-context: a\n")
                .find("client-key-data or client-key must be specified for u"),
            std::string::npos);
}

// The real kubectl must read the file we write (skipped where kubectl is not installed).
TEST(Kubeconfig, KubectlReadsTheAdminFile) {
  const char* kubectl = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32";
  if (access(kubectl, X_OK) != 0) GTEST_SKIP() << kubectl << " not installed";
  TempDir tmp;
  std::string path = tmp.Sub("admin.kubeconfig");
  ASSERT_TRUE(WriteAdminKubeconfig(path, SampleAdmin()).ok());
  std::string cmd = std::string(kubectl) + " config view --raw --kubeconfig " + path +
                    " -o jsonpath='{.current-context} {.clusters[0].cluster.server} {.users[0].name} "
                    "{.users[0].user.client-key-data}' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(out, "capstan https://127.0.0.1:6443 capstan " + Base64Encode(SampleAdmin().client_key_pem));
}

}  // namespace
}  // namespace capstan::cmd
