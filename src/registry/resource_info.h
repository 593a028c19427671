// registry/resource_info.h: what discovery, routing and storage know about one served resource.
#pragma once

#include <string>
#include <vector>

#include "apimachinery/gvk.h"

namespace capstan::registry {

struct ResourceInfo {
  std::string group;        // "" for the core group
  std::string version;      // the served version
  std::string resource;     // plural, e.g. "configmaps"
  std::string subresource;  // "", "status", "scale", ...
  std::string kind;         // e.g. "ConfigMap" ("Scale" for scale subresources)
  std::string kind_group;   // the group/version of `kind` when it differs (scale: autoscaling/v1)
  std::string kind_version;
  std::string list_kind;    // e.g. "ConfigMapList"
  std::string singular;     // e.g. "configmap"
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::string definition;   // the kind's schema definition, e.g. "io.k8s.api.core.v1.ConfigMap"

  apimachinery::GroupResource GroupResource() const { return {group, resource}; }
  apimachinery::GroupKind GroupKind() const { return {kind_group.empty() ? group : kind_group, kind}; }
  std::string ApiVersion() const {
    const std::string& g = kind_group.empty() ? group : kind_group;
    const std::string& v = kind_version.empty() ? version : kind_version;
    return g.empty() ? v : g + "/" + v;
  }
};

}  // namespace capstan::registry
