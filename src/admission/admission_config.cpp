#include "admission/admission_config.h"

#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

#include "apimachinery/config_document.h"
#include "apimachinery/yaml.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

constexpr char kSchemeName[] = "k8s.io/apiserver/pkg/server/options/admission.go:51";

Status Bad(std::string msg) { return Status(400, "BadRequest", std::move(msg)); }


bool ReadWholeFile(const std::string& path, std::string& out, std::string& err) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int e = errno == 0 ? ENOENT : errno;
    err = "open " + path + ": " + std::strerror(e);
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    err = "read " + path + ": input/output error";
    return false;
  }
  out = ss.str();
  return true;
}

// Go's os error texts start lowercase ("no such file or directory"); glibc's strerror does too
// except for the first letter of some; lower it.
std::string GoErrno(std::string s) {
  auto colon = s.rfind(": ");
  if (colon != std::string::npos && colon + 2 < s.size()) s[colon + 2] = static_cast<char>(std::tolower(s[colon + 2]));
  return s;
}

}  // namespace

StatusOr<AdmissionConfig> ParseAdmissionConfig(std::string_view data, const std::string& base_dir) {
  static const std::set<std::string> kVersions = {"apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1alpha1",
                                                  "apiserver.k8s.io/v1alpha1"};
  auto doc = am::DecodeConfigDocument(data, "AdmissionConfiguration", kVersions, kSchemeName);
  if (!doc.ok()) return doc.status();
  const json::object& o = doc->object;
  std::vector<std::string> strict = doc->strict_errors;
  std::vector<std::string> unknown;
  for (const auto& [k, x] : o) {
    if (k != "apiVersion" && k != "kind" && k != "plugins") unknown.push_back("unknown field \"" + std::string(k) + "\"");
  }
  AdmissionConfig out;
  if (const json::value* plugins = o.if_contains("plugins"); plugins && !plugins->is_null()) {
    if (!plugins->is_array()) {
      return Bad("json: cannot unmarshal " + am::JsonTypeWord(*plugins) +
                 " into Go struct field AdmissionConfiguration.plugins of type []v1.AdmissionPluginConfiguration");
    }
    size_t i = 0;
    for (const auto& p : plugins->get_array()) {
      if (!p.is_object()) {
        return Bad("json: cannot unmarshal " + am::JsonTypeWord(p) +
                   " into Go struct field AdmissionConfiguration.plugins of type v1.AdmissionPluginConfiguration");
      }
      AdmissionPluginConfig pc;
      for (const auto& [k, x] : p.get_object()) {
        std::string field = "plugins[" + std::to_string(i) + "]." + std::string(k);
        if (k == "name" || k == "path") {
          if (x.is_null()) continue;
          if (!x.is_string()) {
            return Bad("json: cannot unmarshal " + am::JsonTypeWord(x) + " into Go struct field AdmissionPluginConfiguration.plugins." +
                       std::string(k) + " of type string");
          }
          (k == "name" ? pc.name : pc.path) = std::string(x.get_string());
        } else if (k == "configuration") {
          if (!x.is_null()) pc.configuration = x;
        } else {
          unknown.push_back("unknown field \"" + field + "\"");
        }
      }
      if (!pc.path.empty() && pc.path[0] != '/') {
        std::string base = base_dir.empty() || base_dir == "." ? std::string() : base_dir;
        if (base.empty()) {
          char cwd[4096];
          if (getcwd(cwd, sizeof(cwd))) base = cwd;
        }
        if (!base.empty()) pc.path = base + (base.back() == '/' ? "" : "/") + pc.path;
      }
      out.plugins.push_back(std::move(pc));
      ++i;
    }
  }
  if (std::string strict_error = am::StrictDecodingError(unknown, strict); !strict_error.empty()) return Bad(strict_error);
  return out;
}

StatusOr<AdmissionConfig> ReadAdmissionConfigFile(const std::string& path) {
  if (path.empty()) return AdmissionConfig();
  std::string data, err;
  if (!ReadWholeFile(path, data, err)) {
    return Bad("failed to read plugin config: unable to read admission control configuration from \"" + path + "\" [" +
               GoErrno(err) + "]");
  }
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  auto parsed = ParseAdmissionConfig(data, dir);
  if (!parsed.ok()) return Bad("failed to read plugin config: " + parsed.status().message());
  return parsed;
}

StatusOr<std::optional<json::value>> AdmissionConfig::ConfigFor(std::string_view plugin) const {
  for (const auto& p : plugins) {
    if (p.name != plugin) continue;
    if (p.configuration) return std::optional<json::value>(*p.configuration);
    if (p.path.empty()) return std::optional<json::value>();
    std::string data, err;
    if (!ReadWholeFile(p.path, data, err)) {
      return Bad("couldn't open admission plugin configuration " + p.path + ": " + GoErrno(err));
    }
    auto parsed = am::YamlToJson(data);
    if (!parsed.ok()) return Bad("error converting YAML to JSON: " + parsed.status().message());
    return std::optional<json::value>(std::move(parsed->value));
  }
  return std::optional<json::value>();
}

}  // namespace capstan::admission
