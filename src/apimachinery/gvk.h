// apimachinery/gvk.h: API group, version, kind and resource identifiers, as kube's runtime/schema.
//
// GroupVersion ("apps/v1", or "v1" for the core group), GroupVersionKind, GroupVersionResource,
// GroupResource and GroupKind, with kube's String() forms: GroupResource "configmaps" or
// "deployments.apps", GroupKind "ConfigMap" or "Deployment.apps", GroupVersionKind
// "apps/v1, Kind=Deployment", GroupVersionResource "apps/v1, Resource=deployments". Error messages
// (NotFound, Invalid, Forbidden, ...) print these forms, so they must match kube byte for byte.
// Plain values; thread-compatible.
#pragma once

#include <compare>
#include <string>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::apimachinery {

struct GroupResource {
  std::string group;
  std::string resource;
  bool Empty() const { return group.empty() && resource.empty(); }
  // "configmaps" for the core group, "deployments.apps" otherwise.
  std::string String() const { return group.empty() ? resource : resource + "." + group; }
  auto operator<=>(const GroupResource&) const = default;
};

struct GroupKind {
  std::string group;
  std::string kind;
  bool Empty() const { return group.empty() && kind.empty(); }
  // "ConfigMap" for the core group, "Deployment.apps" otherwise.
  std::string String() const { return group.empty() ? kind : kind + "." + group; }
  auto operator<=>(const GroupKind&) const = default;
};

struct GroupVersionKind;
struct GroupVersionResource;

struct GroupVersion {
  std::string group;
  std::string version;
  bool Empty() const { return group.empty() && version.empty(); }
  // The apiVersion form: "v1" for the core group, "apps/v1" otherwise.
  std::string String() const { return group.empty() ? version : group + "/" + version; }
  GroupVersionKind WithKind(std::string kind) const;
  GroupVersionResource WithResource(std::string resource) const;
  auto operator<=>(const GroupVersion&) const = default;
};

struct GroupVersionKind {
  std::string group;
  std::string version;
  std::string kind;
  bool Empty() const { return group.empty() && version.empty() && kind.empty(); }
  GroupKind GetGroupKind() const { return {group, kind}; }
  GroupVersion GetGroupVersion() const { return {group, version}; }
  // kube's debugging form: "apps/v1, Kind=Deployment" ("/v1, Kind=Pod" for the core group).
  std::string String() const { return group + "/" + version + ", Kind=" + kind; }
  // The apiVersion field value ("v1", "apps/v1"); empty for an empty GVK.
  std::string ApiVersion() const { return Empty() ? std::string() : GetGroupVersion().String(); }
  auto operator<=>(const GroupVersionKind&) const = default;
};

struct GroupVersionResource {
  std::string group;
  std::string version;
  std::string resource;
  bool Empty() const { return group.empty() && version.empty() && resource.empty(); }
  GroupResource GetGroupResource() const { return {group, resource}; }
  GroupVersion GetGroupVersion() const { return {group, version}; }
  // "apps/v1, Resource=deployments" ("/v1, Resource=pods" for the core group).
  std::string String() const { return group + "/" + version + ", Resource=" + resource; }
  auto operator<=>(const GroupVersionResource&) const = default;
};

inline GroupVersionKind GroupVersion::WithKind(std::string kind) const {
  return {group, version, std::move(kind)};
}
inline GroupVersionResource GroupVersion::WithResource(std::string resource) const {
  return {group, version, std::move(resource)};
}

// kube's schema.ParseGroupVersion: "" and "/" give the empty GroupVersion, "v1" the core group,
// "apps/v1" group apps; more than one '/' is an error "unexpected GroupVersion string: a/b/c"
// (a 400 BadRequest Status).
StatusOr<GroupVersion> ParseGroupVersion(std::string_view api_version);

// kube's schema.FromAPIVersionAndKind: an unparsable apiVersion yields just the kind.
GroupVersionKind FromApiVersionAndKind(std::string_view api_version, std::string_view kind);

// kube's schema.ParseGroupResource / ParseGroupKind: split at the first '.'
// ("deployments.apps" -> {apps, deployments}).
GroupResource ParseGroupResource(std::string_view s);
GroupKind ParseGroupKind(std::string_view s);

}  // namespace capstan::apimachinery
