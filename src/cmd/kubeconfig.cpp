#include "cmd/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "cmd/pki.h"
#include "util/strings.h"

namespace capstan::cmd {
namespace {

Status Invalid(std::string msg) { return Status(400, "BadRequest", std::move(msg)); }

// Reads one kubeconfig document; every failure message carries the file name.
class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {
    std::filesystem::path p = path.empty() ? std::filesystem::path(".") : std::filesystem::path(path).parent_path();
    if (p.empty()) p = ".";
    std::error_code ec;
    std::filesystem::path abs = std::filesystem::absolute(p, ec);
    base_ = (ec ? p : abs).lexically_normal();
  }

  Status Error(const std::string& detail) const {
    return Invalid("error loading config file " + GoQuote(path_) + ": " + detail);
  }

  // A scalar field as a string; absent or null is "". `where` is the field path for messages.
  StatusOr<std::string> String(const YAML::Node& parent, const char* key, const std::string& where) const {
    YAML::Node n = parent[key];
    if (!n || n.IsNull()) return std::string();
    if (!n.IsScalar()) return Error(where + "." + key + ": expected a string");
    return n.Scalar();
  }

  StatusOr<bool> Bool(const YAML::Node& parent, const char* key, const std::string& where) const {
    YAML::Node n = parent[key];
    if (!n || n.IsNull()) return false;
    bool v = false;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v)) return Error(where + "." + key + ": expected a boolean");
    return v;
  }

  // A base64 *-data field, decoded.
  StatusOr<std::string> Data(const YAML::Node& parent, const char* key, const std::string& where) const {
    ASSIGN_OR_RETURN(std::string text, String(parent, key, where));
    std::string out;
    if (!text.empty() && !Base64Decode(TrimSpace(text), out)) {
      return Error(where + "." + key + ": illegal base64 data");
    }
    return out;
  }

  // A file path field, made absolute against the kubeconfig's folder (client-go's ResolvePaths).
  StatusOr<std::string> Path(const YAML::Node& parent, const char* key, const std::string& where) const {
    ASSIGN_OR_RETURN(std::string p, String(parent, key, where));
    if (p.empty()) return p;
    std::filesystem::path fp(p);
    if (fp.is_absolute()) return p;
    return (base_ / fp).lexically_normal().string();
  }

  // A named list ("clusters", "users", "contexts"): each item {name, <inner>: {...}}.
  template <class T, class Fill>
  Status List(const YAML::Node& root, const char* key, const char* inner, std::vector<T>& out, Fill fill) const {
    YAML::Node list = root[key];
    if (!list || list.IsNull()) return Status::Ok();
    if (!list.IsSequence()) return Error(std::string(key) + ": expected a list");
    for (size_t i = 0; i < list.size(); ++i) {
      std::string where = std::string(key) + "[" + std::to_string(i) + "]";
      const YAML::Node item = list[i];
      if (!item.IsMap()) return Error(where + ": expected an object");
      T value;
      ASSIGN_OR_RETURN(value.name, String(item, "name", where));
      YAML::Node body = item[inner];
      std::string body_where = where + "." + inner;
      if (body && !body.IsNull() && !body.IsMap()) return Error(body_where + ": expected an object");
      if (body && body.IsMap()) RETURN_IF_ERROR(fill(body, body_where, value));
      out.push_back(std::move(value));
    }
    return Status::Ok();
  }

 private:
  std::string path_;
  std::filesystem::path base_;
};

StatusOr<Kubeconfig> ParseDocument(const YAML::Node& root, const std::string& path) {
  Reader r(path);
  Kubeconfig cfg;
  cfg.path = path;
  if (!root || root.IsNull()) return cfg;  // an empty file is an empty config, as in client-go
  if (!root.IsMap()) return r.Error("expected a kubeconfig object at the top level");
  RETURN_IF_ERROR(r.List(root, "clusters", "cluster", cfg.clusters,
                         [&](const YAML::Node& n, const std::string& w, KubeconfigCluster& c) -> Status {
                           ASSIGN_OR_RETURN(c.server, r.String(n, "server", w));
                           ASSIGN_OR_RETURN(c.certificate_authority, r.Path(n, "certificate-authority", w));
                           ASSIGN_OR_RETURN(c.certificate_authority_data,
                                            r.Data(n, "certificate-authority-data", w));
                           ASSIGN_OR_RETURN(c.insecure_skip_tls_verify, r.Bool(n, "insecure-skip-tls-verify", w));
                           ASSIGN_OR_RETURN(c.tls_server_name, r.String(n, "tls-server-name", w));
                           ASSIGN_OR_RETURN(c.proxy_url, r.String(n, "proxy-url", w));
                           return Status::Ok();
                         }));
  RETURN_IF_ERROR(r.List(root, "users", "user", cfg.users,
                         [&](const YAML::Node& n, const std::string& w, KubeconfigUser& u) -> Status {
                           ASSIGN_OR_RETURN(u.client_certificate, r.Path(n, "client-certificate", w));
                           ASSIGN_OR_RETURN(u.client_certificate_data, r.Data(n, "client-certificate-data", w));
                           ASSIGN_OR_RETURN(u.client_key, r.Path(n, "client-key", w));
                           ASSIGN_OR_RETURN(u.client_key_data, r.Data(n, "client-key-data", w));
                           ASSIGN_OR_RETURN(u.token, r.String(n, "token", w));
                           ASSIGN_OR_RETURN(u.token_file, r.Path(n, "tokenFile", w));
                           ASSIGN_OR_RETURN(u.username, r.String(n, "username", w));
                           ASSIGN_OR_RETURN(u.password, r.String(n, "password", w));
                           return Status::Ok();
                         }));
  RETURN_IF_ERROR(r.List(root, "contexts", "context", cfg.contexts,
                         [&](const YAML::Node& n, const std::string& w, KubeconfigContext& c) -> Status {
                           ASSIGN_OR_RETURN(c.cluster, r.String(n, "cluster", w));
                           ASSIGN_OR_RETURN(c.user, r.String(n, "user", w));
                           ASSIGN_OR_RETURN(c.namespace_, r.String(n, "namespace", w));
                           return Status::Ok();
                         }));
  ASSIGN_OR_RETURN(cfg.current_context, r.String(root, "current-context", "config"));
  return cfg;
}

template <class T>
const T* FindByName(const std::vector<T>& items, std::string_view name) {
  for (const T& item : items) {
    if (item.name == name) return &item;
  }
  return nullptr;
}

}  // namespace

const KubeconfigCluster* Kubeconfig::FindCluster(std::string_view name) const { return FindByName(clusters, name); }
const KubeconfigUser* Kubeconfig::FindUser(std::string_view name) const { return FindByName(users, name); }
const KubeconfigContext* Kubeconfig::FindContext(std::string_view name) const { return FindByName(contexts, name); }

StatusOr<Kubeconfig> ParseKubeconfig(std::string_view text, const std::string& path) {
  try {
    YAML::Node root = YAML::Load(std::string(text));
    return ParseDocument(root, path);
  } catch (const YAML::Exception& e) {
    std::string detail = e.msg;
    if (!e.mark.is_null()) detail = "yaml: line " + std::to_string(e.mark.line + 1) + ": " + e.msg;
    return Reader(path).Error(detail);
  } catch (const std::exception& e) {
    return Reader(path).Error(e.what());
  }
}

StatusOr<Kubeconfig> LoadKubeconfigFile(const std::string& path) {
  StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return Invalid("error loading config file " + GoQuote(path) + ": " + text.status().message());
  return ParseKubeconfig(*text, path);
}

StatusOr<KubeconfigTarget> ResolveCurrentContext(const Kubeconfig& config) {
  auto invalid = [&](const std::string& why) {
    std::string where = config.path.empty() ? "" : GoQuote(config.path) + ": ";
    return Invalid(where + "invalid configuration: " + why);
  };
  if (config.current_context.empty()) return invalid("no configuration has been provided");
  const KubeconfigContext* ctx = config.FindContext(config.current_context);
  if (ctx == nullptr) return invalid("context was not found for specified context: " + config.current_context);
  KubeconfigTarget t;
  t.context = *ctx;
  const KubeconfigCluster* cluster = config.FindCluster(ctx->cluster);
  if (cluster == nullptr || cluster->server.empty()) return invalid("no server found for cluster " + GoQuote(ctx->cluster));
  t.cluster = *cluster;
  if (const KubeconfigUser* user = config.FindUser(ctx->user)) t.user = *user;
  const KubeconfigUser& u = t.user;
  bool has_cert = !u.client_certificate.empty() || !u.client_certificate_data.empty();
  bool has_key = !u.client_key.empty() || !u.client_key_data.empty();
  if (has_cert && !has_key) {
    return invalid("client-key-data or client-key must be specified for " + u.name +
                   " to use the clientCert authentication method.");
  }
  if (has_key && !has_cert) {
    return invalid("client-cert-data or client-cert must be specified for " + u.name +
                   " to use the clientCert authentication method.");
  }
  return t;
}

std::string RenderAdminKubeconfig(const AdminKubeconfig& a) {
  // The layout kubectl itself writes (keys sorted), so `kubectl config view` round-trips it unchanged.
  std::string out;
  out += "apiVersion: v1\n";
  out += "clusters:\n";
  out += "- cluster:\n";
  out += "    certificate-authority-data: " + Base64Encode(a.ca_cert_pem) + "\n";
  out += "    server: " + a.server_url + "\n";
  out += "  name: " + a.name + "\n";
  out += "contexts:\n";
  out += "- context:\n";
  out += "    cluster: " + a.name + "\n";
  out += "    user: " + a.name + "\n";
  out += "  name: " + a.name + "\n";
  out += "current-context: " + a.name + "\n";
  out += "kind: Config\n";
  out += "preferences: {}\n";
  out += "users:\n";
  out += "- name: " + a.name + "\n";
  out += "  user:\n";
  out += "    client-certificate-data: " + Base64Encode(a.client_cert_pem) + "\n";
  out += "    client-key-data: " + Base64Encode(a.client_key_pem) + "\n";
  return out;
}

Status WriteAdminKubeconfig(const std::string& path, const AdminKubeconfig& admin) {
  return WriteFileAtomic(path, RenderAdminKubeconfig(admin), 0600);
}

}  // namespace capstan::cmd
