// cel/crd_rules.h: a CRD version's x-kubernetes-validations rules, compiled once and run on every
// write of its custom resources, as kube-apiserver 1.32's apiextensions schema/cel Validator.
//
// CheckCrdRules is the CRD's own validation: each rule's fields (rule, message, messageExpression,
// reason, fieldPath, optionalOldSelf), the compilation of rule and messageExpression against the
// types derived from the structural schema, and their estimated cost against kube's budgets
// (per expression, times how often the node can occur; per CRD), with kube's field paths and texts:
//   spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule:
//     Invalid value: apiextensions.ValidationRule{Rule:"self.x >", ...}: compilation failed: ERROR: ...
// CrdRules::Build compiles the programs of a tree (null when the tree has no rules); Validate runs
// them on an object at each rule's schema node with `self` (and `oldSelf` on updates, for transition
// rules, correlating old and new values through properties, granular maps and list-type=map items
// as kube does), with kube's per-call cost limit and per-object budget, and turns failures into
// field errors ("Invalid value: \"object\": <message>"). Errors of rules that do not use oldSelf, at
// a node whose value the update left unchanged, are ratcheted: reported as warnings instead
// (CRDValidationRatcheting, on by default in 1.32).
//
// A CrdRules is immutable once built; Validate may run concurrently from any thread.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "apimachinery/field_errors.h"
#include "apimachinery/schema.h"

namespace capstan::cel {

// kube's limits (apiserver/pkg/apis/cel/config.go).
inline constexpr uint64_t kPerCallLimit = 1000000;
inline constexpr int64_t kRuntimeCostBudget = 10000000;
// apiextensions validation: the largest static cost estimate per expression and per CRD schema.
inline constexpr uint64_t kStaticEstimatedCostLimit = 10000000;
inline constexpr uint64_t kStaticEstimatedCrdCostLimit = 100000000;

// Appends the CRD validation errors of every rule in the tree rooted at `root`, whose path in the
// CRD is `schema_path` (…openAPIV3Schema). `compile`: the schema is structural, so rules compile.
void CheckCrdRules(const apimachinery::Schema& root, const FieldPath& schema_path, bool compile, ErrorList& errs);

class CrdRules {
 public:
  struct Node;
  static std::shared_ptr<const CrdRules> Build(const apimachinery::Schema* root);
  ~CrdRules();

  // `old` is the stored object on updates, null on create. Warnings collect ratcheted errors.
  void Validate(const boost::json::value& obj, const boost::json::value* old, ErrorList& errs,
                std::vector<std::string>* warnings) const;

  explicit CrdRules(std::unique_ptr<Node> root);

 private:
  std::unique_ptr<Node> root_;
};

}  // namespace capstan::cel
