// admission/admission_config.h: --admission-control-config-file, kube's AdmissionConfiguration
// (apiserver.config.k8s.io/v1 or v1alpha1, or the older apiserver.k8s.io/v1alpha1; YAML or JSON,
// decoded strictly): per plugin, a `configuration` given inline or a `path` to a file of its own
// (relative paths are relative to the configuration file's folder). Each plugin is handed its
// configuration when it is built (PluginDeps::config). Read once at start; immutable after, thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::admission {

struct AdmissionPluginConfig {
  std::string name;
  std::optional<boost::json::value> configuration;  // inline, as JSON
  std::string path;                                 // absolute once parsed; "" when inline or absent
};

class AdmissionConfig {
 public:
  std::vector<AdmissionPluginConfig> plugins;

  // The configuration of the first entry for `plugin` (kube: the first wins): the inline value, or
  // the file at its path read as YAML or JSON (an empty file is null); nullopt when there is no
  // entry or the entry gives neither. A path that cannot be read or parsed is an error.
  StatusOr<std::optional<boost::json::value>> ConfigFor(std::string_view plugin) const;
};

// Parses a configuration file's content; base_dir resolves relative plugin paths.
StatusOr<AdmissionConfig> ParseAdmissionConfig(std::string_view data, const std::string& base_dir);

// Reads and parses the file (""=no file: an empty configuration). Errors read as kube-apiserver's
// start-up errors: "failed to read plugin config: unable to read admission control configuration
// from \"<path>\" [...]", or the decoder's text.
StatusOr<AdmissionConfig> ReadAdmissionConfigFile(const std::string& path);

}  // namespace capstan::admission
