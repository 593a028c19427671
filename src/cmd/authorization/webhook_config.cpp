#include "cmd/authorization/webhook_config.h"

#include <boost/json.hpp>
#include <filesystem>

#include "apimachinery/config_document.h"
#include "apimachinery/yaml.h"
#include "util/strings.h"

namespace capstan::authz {

namespace json = boost::json;

namespace {

std::string Str(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// The entry of `list` (clusters, users, contexts) named `name` (or the first when name is empty).
const json::object* Named(const json::object& kc, std::string_view list, std::string_view field, const std::string& name) {
  const auto* l = kc.if_contains(list);
  if (!l || !l->is_array()) return nullptr;
  for (const auto& e : l->get_array()) {
    if (!e.is_object()) continue;
    if (!name.empty() && Str(e.get_object(), "name") != name) continue;
    const auto* inner = e.get_object().if_contains(field);
    if (inner && inner->is_object()) return &inner->get_object();
  }
  return nullptr;
}

// A *-data field (base64) or a file path relative to the kubeconfig's folder.
StatusOr<std::string> FileOrData(const json::object& o, std::string_view file_key, std::string_view data_key,
                                 const std::filesystem::path& base) {
  std::string data = Str(o, data_key);
  if (!data.empty()) {
    std::string out;
    if (!Base64Decode(data, out)) return Status(400, "BadRequest", std::string(data_key) + " is not valid base64");
    return out;
  }
  std::string file = Str(o, file_key);
  if (file.empty()) return std::string();
  std::filesystem::path p(file);
  if (p.is_relative()) p = base / p;
  return ReadAuthzFile(p.string());
}

}  // namespace

StatusOr<std::string> ReadAuthzFile(const std::string& path) { return apimachinery::ReadConfigFile(path); }

StatusOr<WebhookTarget> LoadWebhookKubeconfig(const std::string& path) {
  auto text = ReadAuthzFile(path);
  if (!text.ok()) return text.status();
  auto parsed = apimachinery::YamlToJson(*text);
  if (!parsed.ok()) return Status(400, "BadRequest", "invalid webhook config file " + path + ": " + parsed.status().message());
  if (!parsed->value.is_object()) return Status(400, "BadRequest", "invalid webhook config file " + path + ": not a kubeconfig");
  const json::object& kc = parsed->value.get_object();
  std::string cluster_name, user_name;
  std::string current = Str(kc, "current-context");
  if (const json::object* ctx = Named(kc, "contexts", "context", current)) {
    cluster_name = Str(*ctx, "cluster");
    user_name = Str(*ctx, "user");
  }
  const json::object* cluster = Named(kc, "clusters", "cluster", cluster_name);
  if (!cluster) return Status(400, "BadRequest", "invalid webhook config file " + path + ": no cluster");
  const std::filesystem::path base = std::filesystem::path(path).parent_path();
  WebhookTarget t;
  t.server = Str(*cluster, "server");
  if (t.server.empty()) return Status(400, "BadRequest", "invalid webhook config file " + path + ": the cluster has no server");
  auto ca = FileOrData(*cluster, "certificate-authority", "certificate-authority-data", base);
  if (!ca.ok()) return ca.status();
  t.tls.ca_pem = std::move(*ca);
  t.tls.server_name = Str(*cluster, "tls-server-name");
  if (const auto* skip = cluster->if_contains("insecure-skip-tls-verify"); skip && skip->is_bool()) {
    t.tls.insecure_skip_verify = skip->get_bool();
  }
  if (const json::object* user = Named(kc, "users", "user", user_name)) {
    auto cert = FileOrData(*user, "client-certificate", "client-certificate-data", base);
    if (!cert.ok()) return cert.status();
    auto key = FileOrData(*user, "client-key", "client-key-data", base);
    if (!key.ok()) return key.status();
    t.tls.client_cert_pem = std::move(*cert);
    t.tls.client_key_pem = std::move(*key);
    t.bearer_token = Str(*user, "token");
  }
  return t;
}

}  // namespace capstan::authz
