// controllers/garbagecollector/graph.h: the garbage collector's dependency graph (kube's
// GraphBuilder.uidToNode and processGraphChanges).
//
// One node per object UID observed by the collector's informers, with the owner references the
// object carries and the UIDs of the objects that name it as an owner (its dependents). An owner
// that is referenced but not observed yet gets a "virtual" node whose coordinates come from the
// reference; it is queued for a check against the API and removed by a virtual delete event when
// the owner does not exist. Events change the graph and put work on the collector's queues through
// GraphSink, exactly where kube's graph builder does:
//   - a node whose deletion starts with the `orphan` finalizer → attemptToOrphan;
//   - a node whose deletion starts with `foregroundDeletion` → marked deletingDependents, it and its
//     dependents → attemptToDelete;
//   - a deleted node → its dependents (whose owner may now be dangling) and its owners that wait for
//     their dependents → attemptToDelete;
//   - a removed or unblocked blocking owner reference → that owner → attemptToDelete;
//   - a new virtual owner, or a dependent whose reference does not match the observed owner's
//     coordinates or namespace → attemptToDelete (with an OwnerRefInvalidNamespace report when a
//     namespaced owner is referenced from another namespace).
// Pure data structure, no I/O. Thread-compatible: the collector uses it from the loop thread only.
#pragma once

#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "apimachinery/object_meta.h"
#include "registry/rest.h"

namespace capstan::controllers::gc {

using apimachinery::OwnerReference;

// kube's objectReference: an owner reference's coordinates plus a namespace.
struct ObjectReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::string namespace_;
  auto operator<=>(const ObjectReference&) const = default;
  // "[v1/ConfigMap, namespace: ns, name: n, uid: u]", as kube prints it in events and logs.
  std::string String() const;
};

ObjectReference CoordinatesOf(const OwnerReference& ref, std::string namespace_ = "");
// kube's ownerReferenceMatchesCoordinates: uid, name, kind and apiVersion all equal.
bool MatchesCoordinates(const OwnerReference& ref, const ObjectReference& id);

struct Node {
  ObjectReference identity;
  std::set<std::string> dependents;  // UIDs of the nodes that list this one as an owner
  std::vector<OwnerReference> owners;
  bool being_deleted = false;
  bool deleting_dependents = false;
  bool virtual_ = false;  // not yet observed through an informer
};

// What the graph reads of an object in an event.
struct ObjectState {
  ObjectReference identity;  // apiVersion/kind of the informer's resource
  std::vector<OwnerReference> owners;
  bool being_deleted = false;
  std::vector<std::string> finalizers;
  bool HasFinalizer(std::string_view f) const;
};
ObjectState StateOf(const registry::Object& obj, const std::string& api_version, const std::string& kind);

inline constexpr std::string_view kFinalizerOrphan = "orphan";
inline constexpr std::string_view kFinalizerDeleteDependents = "foregroundDeletion";

class GraphSink {
 public:
  virtual ~GraphSink() = default;
  virtual void AttemptToDelete(const std::string& uid) = 0;
  virtual void AttemptToDeleteRateLimited(const std::string& uid) = 0;
  virtual void AttemptToOrphan(const std::string& uid) = 0;
  // A dependent names a namespaced owner that lives in another namespace (kube's
  // OwnerRefInvalidNamespace warning event).
  virtual void InvalidNamespaceOwnerRef(const ObjectReference& dependent, const ObjectReference& invalid_owner) = 0;
};

// kube's ReferenceCache: the owners the API said do not exist, least recently used dropped first.
class AbsentOwnerCache {
 public:
  explicit AbsentOwnerCache(size_t capacity = 500) : capacity_(capacity) {}
  void Add(const ObjectReference& ref);
  bool Has(const ObjectReference& ref);
  size_t size() const { return index_.size(); }

 private:
  size_t capacity_;
  std::list<ObjectReference> lru_;  // most recent first
  std::map<ObjectReference, std::list<ObjectReference>::iterator> index_;
};

class Graph {
 public:
  enum class EventType { kAdd, kUpdate, kDelete };

  Graph(GraphSink& sink, AbsentOwnerCache& absent) : sink_(sink), absent_(absent) {}

  // An informer event. `old` is the previous state on updates (null otherwise).
  void Process(EventType type, const ObjectState& obj, const ObjectState* old);
  // The collector verified that `identity` does not exist (kube's enqueueVirtualDeleteEvent).
  void VirtualDelete(const ObjectReference& identity);

  Node* Find(const std::string& uid);
  const Node* Find(const std::string& uid) const;
  // The dependents of n that still are in the graph.
  std::vector<Node*> Dependents(const Node& n);
  // Those whose reference to n has blockOwnerDeletion=true.
  std::vector<Node*> BlockingDependents(const Node& n);
  size_t size() const { return nodes_.size(); }

 private:
  void ProcessEvent(EventType type, const ObjectState& obj, const ObjectState* old, bool virtual_event);
  void InsertNode(std::unique_ptr<Node> n);
  void AddDependentToOwners(Node& n, const std::vector<OwnerReference>& owners);
  void RemoveDependentFromOwners(const Node& n, const std::vector<OwnerReference>& owners);
  void ProcessTransitions(const ObjectState* old, const ObjectState& obj, Node& n);
  void AddUnblockedOwnersToDeleteQueue(const std::vector<OwnerReference>& removed,
                                       const std::vector<std::pair<OwnerReference, OwnerReference>>& changed);
  void ReportInvalidNamespaceOwnerRef(const Node& dependent, const std::string& invalid_owner_uid);
  std::pair<std::vector<Node*>, std::vector<Node*>> PartitionDependents(const std::vector<Node*>& deps,
                                                                       const ObjectReference& owner);
  std::optional<ObjectReference> AlternateOwnerIdentity(const std::vector<Node*>& deps,
                                                        const ObjectReference& verified_absent);

  GraphSink& sink_;
  AbsentOwnerCache& absent_;
  std::unordered_map<std::string, std::unique_ptr<Node>> nodes_;
};

}  // namespace capstan::controllers::gc
