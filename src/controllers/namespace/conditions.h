// controllers/namespace/conditions.h: the status conditions the namespace controller reports while it
// empties a terminating namespace, with kube's types, reasons and messages:
//
//   NamespaceDeletionDiscoveryFailure   DiscoveryFailed / ResourcesDiscovered
//   NamespaceDeletionGroupVersionParsingFailure  GroupVersionParsingFailed / ParsedGroupVersions
//   NamespaceDeletionContentFailure     ContentDeletionFailed / ContentDeleted
//   NamespaceContentRemaining           SomeResourcesRemain / ContentRemoved
//   NamespaceFinalizersRemaining        SomeFinalizersRemain / ContentHasNoFinalizers
//
// A ConditionUpdater collects one pass's findings; Apply() writes all five conditions into a
// namespace's status (True with the failure, or False with the "ok" text), keeping
// lastTransitionTime when a condition's status does not change. Pure values; thread-compatible.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "controllers/api_client.h"

namespace capstan::controllers {

struct NamespaceCondition {
  std::string type;
  std::string status;  // "True" / "False"
  std::string reason;
  std::string message;
};

// What one pass over a namespace's content left behind.
struct ContentTotals {
  std::map<std::string, int> gvr_to_remaining;       // "<resource>.<group>" → items left
  std::map<std::string, int> finalizers_to_remaining;  // finalizer → items carrying it
};

class ConditionUpdater {
 public:
  void DiscoveryFailed(const std::string& message);
  void DeleteContentFailed(const std::string& message);
  void ContentTotals(const controllers::ContentTotals& totals);
  // The conditions of this pass, in kube's order, failures and "ok" variants alike.
  std::vector<NamespaceCondition> Conditions() const;
  // Writes them into ns["status"]["conditions"]; true when something changed. `now` is the
  // lastTransitionTime for conditions that are new or change status.
  bool Apply(Object& ns, const std::string& now) const;

 private:
  std::vector<NamespaceCondition> failures_;
  std::vector<std::string> content_errors_;
};

}  // namespace capstan::controllers
