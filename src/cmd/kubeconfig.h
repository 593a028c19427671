// cmd/kubeconfig.h: kubeconfig files, written for the admin and read for webhook configurations.
//
// WriteAdminKubeconfig produces DATA/admin.kubeconfig (mode 0600, atomic) with the CA and the admin
// client certificate and key embedded, cluster, user and context all named "capstan", and
// current-context set, so `kubectl --kubeconfig DATA/admin.kubeconfig` works with no other file.
//
// ParseKubeconfig reads the subset of kubeconfig (clientcmd v1 Config) that kube-apiserver's webhook
// and egress configurations use: clusters, users, contexts and current-context. As client-go does,
// relative file paths (certificate-authority, client-certificate, client-key, tokenFile) are resolved
// against the kubeconfig file's folder, and *-data fields are base64-decoded. Malformed input is a
// Status naming the file ("error loading config file ..."), never an exception or a crash.
//
// Thread-safety: pure functions over values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::cmd {

struct KubeconfigCluster {
  std::string name;
  std::string server;
  std::string certificate_authority;       // absolute path, or ""
  std::string certificate_authority_data;  // decoded PEM bytes, or ""
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string proxy_url;
};

struct KubeconfigUser {
  std::string name;
  std::string client_certificate;       // absolute path, or ""
  std::string client_certificate_data;  // decoded PEM bytes
  std::string client_key;               // absolute path, or ""
  std::string client_key_data;          // decoded PEM bytes
  std::string token;
  std::string token_file;  // absolute path, or ""
  std::string username;
  std::string password;
};

struct KubeconfigContext {
  std::string name;
  std::string cluster;
  std::string user;
  std::string namespace_;
};

struct Kubeconfig {
  std::string path;  // the file it came from ("" when parsed from memory without one)
  std::vector<KubeconfigCluster> clusters;
  std::vector<KubeconfigUser> users;
  std::vector<KubeconfigContext> contexts;
  std::string current_context;

  const KubeconfigCluster* FindCluster(std::string_view name) const;
  const KubeconfigUser* FindUser(std::string_view name) const;
  const KubeconfigContext* FindContext(std::string_view name) const;
};

// What a client of this kubeconfig talks to: the current context's cluster and user.
struct KubeconfigTarget {
  KubeconfigContext context;
  KubeconfigCluster cluster;
  KubeconfigUser user;  // empty when the context names no user
};

// Parses kubeconfig text. `path` names the file in errors and is the base for relative paths (the
// current directory when empty).
StatusOr<Kubeconfig> ParseKubeconfig(std::string_view text, const std::string& path);
StatusOr<Kubeconfig> LoadKubeconfigFile(const std::string& path);
// The current context resolved to its cluster and user, or an error naming what is missing. Like
// kube's webhook loader, a file with no current-context but exactly one context uses that one.
StatusOr<KubeconfigTarget> ResolveCurrentContext(const Kubeconfig& config);

struct AdminKubeconfig {
  std::string server_url;  // e.g. https://127.0.0.1:6443
  std::string ca_cert_pem;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string name = "capstan";  // cluster, user and context name
};

std::string RenderAdminKubeconfig(const AdminKubeconfig& admin);
Status WriteAdminKubeconfig(const std::string& path, const AdminKubeconfig& admin);

}  // namespace capstan::cmd
