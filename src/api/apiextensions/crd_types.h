// api/apiextensions/crd_types.h: a read-only view of a CustomResourceDefinition (apiextensions.k8s.io/v1)
// parsed out of its JSON: names, scope, versions with their schema, subresources, printer columns and
// selectable fields, and the conversion strategy; plus the status condition helpers kube's
// apihelpers provide (find, set with lastTransitionTime kept when the status does not change).
// Pure data and functions; thread-compatible.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "registry/rest.h"

namespace capstan::api::apiextensions {

using registry::Object;

inline constexpr const char* kGroup = "apiextensions.k8s.io";
inline constexpr const char* kCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";

struct CrdNames {
  std::string plural, singular, kind, list_kind;
  std::vector<std::string> short_names, categories;
};

struct PrinterColumn {
  std::string name, type, format, description, json_path;
  int priority = 0;
};

struct ScaleSubresource {
  std::string spec_replicas_path, status_replicas_path, label_selector_path;
};

struct CrdVersion {
  std::string name;
  bool served = false;
  bool storage = false;
  bool deprecated = false;
  std::optional<std::string> deprecation_warning;
  const boost::json::value* schema = nullptr;  // openAPIV3Schema, points into the CRD object
  bool has_status = false;
  std::optional<ScaleSubresource> scale;
  std::vector<PrinterColumn> columns;
  std::vector<std::string> selectable_fields;  // jsonPaths
};

struct Crd {
  std::string name;
  std::string group;
  CrdNames names;
  std::string scope;  // Namespaced | Cluster
  std::vector<CrdVersion> versions;
  std::string conversion_strategy = "None";
  bool preserve_unknown_fields = false;
  std::vector<std::string> stored_versions;  // status.storedVersions: versions objects may be stored in

  const CrdVersion* Version(std::string_view v) const;
  const CrdVersion* StorageVersion() const;
  bool Namespaced() const { return scope == "Namespaced"; }
};

// Parses the fields above; missing fields stay empty. The Crd points into `obj`, which must outlive it.
Crd ParseCrd(const Object& obj);
CrdNames ParseNames(const boost::json::object* names);
boost::json::object NamesToJson(const CrdNames& n);

// Conditions (status.conditions).
const boost::json::object* FindCondition(const Object& crd, std::string_view type);
bool IsConditionTrue(const Object& crd, std::string_view type);
// Sets a condition; lastTransitionTime changes only when the status changes (kube's SetCRDCondition).
void SetCondition(Object& crd, std::string_view type, std::string_view status, std::string_view reason,
                  std::string_view message, std::string_view now);
void RemoveCondition(Object& crd, std::string_view type);

// "2006-01-02T15:04:05Z" for now.
std::string NowRfc3339();

}  // namespace capstan::api::apiextensions
