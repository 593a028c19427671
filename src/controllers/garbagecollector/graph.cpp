#include "controllers/garbagecollector/graph.h"

#include <algorithm>

namespace capstan::controllers::gc {

namespace am = capstan::apimachinery;

std::string ObjectReference::String() const {
  return "[" + api_version + "/" + kind + ", namespace: " + namespace_ + ", name: " + name + ", uid: " + uid + "]";
}

ObjectReference CoordinatesOf(const OwnerReference& ref, std::string namespace_) {
  return ObjectReference{ref.api_version, ref.kind, ref.name, ref.uid, std::move(namespace_)};
}

bool MatchesCoordinates(const OwnerReference& ref, const ObjectReference& id) {
  return ref.uid == id.uid && ref.name == id.name && ref.kind == id.kind && ref.api_version == id.api_version;
}

bool ObjectState::HasFinalizer(std::string_view f) const {
  return std::find(finalizers.begin(), finalizers.end(), f) != finalizers.end();
}

ObjectState StateOf(const registry::Object& obj, const std::string& api_version, const std::string& kind) {
  ObjectState s;
  s.identity.api_version = api_version;
  s.identity.kind = kind;
  s.identity.name = std::string(am::GetName(obj));
  s.identity.uid = std::string(am::GetUid(obj));
  s.identity.namespace_ = std::string(am::GetNamespace(obj));
  s.owners = am::GetOwnerReferences(obj);
  s.being_deleted = am::GetDeletionTimestamp(obj).has_value();
  s.finalizers = am::GetFinalizers(obj);
  return s;
}

namespace {

bool Blocks(const OwnerReference& r) { return r.block_owner_deletion.value_or(false); }

bool SameRef(const OwnerReference& a, const OwnerReference& b) {
  return a.api_version == b.api_version && a.kind == b.kind && a.name == b.name && a.uid == b.uid &&
         a.controller == b.controller && a.block_owner_deletion == b.block_owner_deletion;
}

// kube's referencesDiffs.
void ReferencesDiffs(const std::vector<OwnerReference>& old_refs, const std::vector<OwnerReference>& new_refs,
                     std::vector<OwnerReference>& added, std::vector<OwnerReference>& removed,
                     std::vector<std::pair<OwnerReference, OwnerReference>>& changed) {
  std::map<std::string, OwnerReference> old_by_uid;
  for (const auto& r : old_refs) old_by_uid[r.uid] = r;
  for (const auto& r : new_refs) {
    auto it = old_by_uid.find(r.uid);
    if (it != old_by_uid.end()) {
      if (!SameRef(it->second, r)) changed.emplace_back(it->second, r);
      old_by_uid.erase(it);
    } else {
      added.push_back(r);
    }
  }
  for (auto& [uid, r] : old_by_uid) removed.push_back(r);
}

// kube's deletionStartsWithFinalizer.
bool DeletionStartsWithFinalizer(const ObjectState* old, const ObjectState& cur, std::string_view f) {
  if (!cur.being_deleted || !cur.HasFinalizer(f)) return false;
  if (!old) return true;
  return !old->being_deleted || !old->HasFinalizer(f);
}

// kube's referenceLessThan.
bool ReferenceLess(const ObjectReference& a, const ObjectReference& b) {
  if (a.kind != b.kind) return a.kind < b.kind;
  if (a.api_version != b.api_version) return a.api_version < b.api_version;
  if (a.namespace_ != b.namespace_) return a.namespace_ < b.namespace_;
  if (a.name != b.name) return a.name < b.name;
  return a.uid < b.uid;
}

}  // namespace

void AbsentOwnerCache::Add(const ObjectReference& ref) {
  if (auto it = index_.find(ref); it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    return;
  }
  lru_.push_front(ref);
  index_[ref] = lru_.begin();
  if (index_.size() > capacity_) {
    index_.erase(lru_.back());
    lru_.pop_back();
  }
}

bool AbsentOwnerCache::Has(const ObjectReference& ref) {
  auto it = index_.find(ref);
  if (it == index_.end()) return false;
  lru_.splice(lru_.begin(), lru_, it->second);
  return true;
}

Node* Graph::Find(const std::string& uid) {
  auto it = nodes_.find(uid);
  return it == nodes_.end() ? nullptr : it->second.get();
}

const Node* Graph::Find(const std::string& uid) const {
  auto it = nodes_.find(uid);
  return it == nodes_.end() ? nullptr : it->second.get();
}

std::vector<Node*> Graph::Dependents(const Node& n) {
  std::vector<Node*> out;
  for (const auto& uid : n.dependents) {
    if (Node* d = Find(uid)) out.push_back(d);
  }
  return out;
}

std::vector<Node*> Graph::BlockingDependents(const Node& n) {
  std::vector<Node*> out;
  for (Node* d : Dependents(n)) {
    for (const auto& r : d->owners) {
      if (r.uid == n.identity.uid && Blocks(r)) {
        out.push_back(d);
        break;
      }
    }
  }
  return out;
}

void Graph::InsertNode(std::unique_ptr<Node> n) {
  Node& ref = *n;
  nodes_[n->identity.uid] = std::move(n);
  AddDependentToOwners(ref, ref.owners);
}

void Graph::AddDependentToOwners(Node& n, const std::vector<OwnerReference>& owners) {
  // Whether an owner already in the graph disagrees with the reference's coordinates.
  bool potentially_invalid = false;
  for (const auto& owner : owners) {
    Node* owner_node = Find(owner.uid);
    bool existed = owner_node != nullptr;
    if (!owner_node) {
      // A virtual node for an owner not observed yet; the collector checks it against the API.
      auto v = std::make_unique<Node>();
      v->identity = CoordinatesOf(owner, n.identity.namespace_);
      v->virtual_ = true;
      owner_node = v.get();
      nodes_[owner.uid] = std::move(v);
    }
    owner_node->dependents.insert(n.identity.uid);
    if (!existed) {
      sink_.AttemptToDelete(owner.uid);
    } else if (!potentially_invalid) {
      bool owner_namespaced = !owner_node->identity.namespace_.empty();
      if (owner_namespaced && owner_node->identity.namespace_ != n.identity.namespace_) {
        // A namespaced owner can only own objects of its own namespace.
        if (!owner_node->virtual_) ReportInvalidNamespaceOwnerRef(n, owner.uid);
        potentially_invalid = true;
      } else if (!MatchesCoordinates(owner, owner_node->identity)) {
        potentially_invalid = true;
      } else if (!owner_namespaced && owner_node->identity.namespace_ != n.identity.namespace_ &&
                 owner_node->virtual_) {
        // A cluster-scoped virtual owner seen from another namespace: it may be a namespaced
        // owner wrongly referenced from a cluster-scoped object; verify.
        potentially_invalid = true;
      }
    }
  }
  if (potentially_invalid) sink_.AttemptToDelete(n.identity.uid);
}

void Graph::RemoveDependentFromOwners(const Node& n, const std::vector<OwnerReference>& owners) {
  for (const auto& owner : owners) {
    if (Node* o = Find(owner.uid)) o->dependents.erase(n.identity.uid);
  }
}

void Graph::ReportInvalidNamespaceOwnerRef(const Node& dependent, const std::string& invalid_owner_uid) {
  for (const auto& r : dependent.owners) {
    if (r.uid != invalid_owner_uid) continue;
    sink_.InvalidNamespaceOwnerRef(dependent.identity, CoordinatesOf(r, dependent.identity.namespace_));
    return;
  }
}

void Graph::ProcessTransitions(const ObjectState* old, const ObjectState& obj, Node& n) {
  if (DeletionStartsWithFinalizer(old, obj, kFinalizerOrphan)) {
    sink_.AttemptToOrphan(n.identity.uid);
    return;
  }
  if (DeletionStartsWithFinalizer(old, obj, kFinalizerDeleteDependents)) {
    n.deleting_dependents = true;
    n.being_deleted = true;
    for (const auto& dep : n.dependents) sink_.AttemptToDelete(dep);
    sink_.AttemptToDelete(n.identity.uid);
  }
}

void Graph::AddUnblockedOwnersToDeleteQueue(const std::vector<OwnerReference>& removed,
                                            const std::vector<std::pair<OwnerReference, OwnerReference>>& changed) {
  for (const auto& r : removed) {
    if (Blocks(r) && Find(r.uid)) sink_.AttemptToDelete(r.uid);
  }
  for (const auto& [was, now] : changed) {
    if (Blocks(was) && !Blocks(now) && Find(now.uid)) sink_.AttemptToDelete(now.uid);
  }
}

std::pair<std::vector<Node*>, std::vector<Node*>> Graph::PartitionDependents(const std::vector<Node*>& deps,
                                                                            const ObjectReference& owner) {
  std::vector<Node*> matching, nonmatching;
  bool owner_namespaced = !owner.namespace_.empty();
  for (Node* dep : deps) {
    bool match = false, mismatch = false;
    if (owner_namespaced && owner.namespace_ != dep->identity.namespace_) {
      mismatch = true;
    } else {
      for (const auto& r : dep->owners) {
        if (r.uid != owner.uid) continue;
        if (MatchesCoordinates(r, owner)) {
          match = true;
        } else {
          mismatch = true;
        }
      }
    }
    if (match) matching.push_back(dep);
    if (mismatch) nonmatching.push_back(dep);
  }
  return {matching, nonmatching};
}

std::optional<ObjectReference> Graph::AlternateOwnerIdentity(const std::vector<Node*>& deps,
                                                             const ObjectReference& absent) {
  bool absent_cluster_scoped = absent.namespace_.empty();
  std::set<ObjectReference> seen{absent};
  std::optional<ObjectReference> first, first_following;
  for (Node* dep : deps) {
    for (const auto& r : dep->owners) {
      if (r.uid != absent.uid) continue;
      if (MatchesCoordinates(r, absent) && (absent_cluster_scoped || absent.namespace_ == dep->identity.namespace_)) {
        continue;
      }
      ObjectReference ref = CoordinatesOf(r, dep->identity.namespace_);
      if (absent_cluster_scoped && ref.api_version == absent.api_version && ref.kind == absent.kind) {
        ref.namespace_.clear();
      }
      if (!seen.insert(ref).second) continue;
      if (!first || ReferenceLess(ref, *first)) first = ref;
      if (ReferenceLess(absent, ref) && (!first_following || ReferenceLess(ref, *first_following))) {
        first_following = ref;
      }
    }
  }
  return first_following ? first_following : first;
}

void Graph::Process(EventType type, const ObjectState& obj, const ObjectState* old) {
  ProcessEvent(type, obj, old, false);
}

void Graph::VirtualDelete(const ObjectReference& identity) {
  ObjectState s;
  s.identity = identity;
  ProcessEvent(EventType::kDelete, s, nullptr, true);
}

void Graph::ProcessEvent(EventType type, const ObjectState& obj, const ObjectState* old, bool virtual_event) {
  const std::string& uid = obj.identity.uid;
  Node* existing = Find(uid);
  if (existing && !virtual_event && existing->virtual_) {
    // First observation of a node that was virtual: its real coordinates replace the guessed ones.
    const ObjectReference& observed = obj.identity;
    if (observed != existing->identity) {
      auto [matching, nonmatching] = PartitionDependents(Dependents(*existing), observed);
      for (Node* dep : nonmatching) {
        if (!observed.namespace_.empty() && dep->identity.namespace_ != observed.namespace_) {
          ReportInvalidNamespaceOwnerRef(*dep, observed.uid);
        }
        sink_.AttemptToDelete(dep->identity.uid);
      }
      existing->identity = observed;
    }
    existing->virtual_ = false;
  }

  if (type != EventType::kDelete && !existing) {
    auto n = std::make_unique<Node>();
    n->identity = obj.identity;
    n->owners = obj.owners;
    n->being_deleted = obj.being_deleted;
    n->deleting_dependents = obj.being_deleted && obj.HasFinalizer(kFinalizerDeleteDependents);
    Node& ref = *n;
    InsertNode(std::move(n));
    ProcessTransitions(old, obj, ref);
    return;
  }
  if (type != EventType::kDelete) {
    std::vector<OwnerReference> added, removed;
    std::vector<std::pair<OwnerReference, OwnerReference>> changed;
    ReferencesDiffs(existing->owners, obj.owners, added, removed, changed);
    if (!added.empty() || !removed.empty() || !changed.empty()) {
      AddUnblockedOwnersToDeleteQueue(removed, changed);
      existing->owners = obj.owners;
      AddDependentToOwners(*existing, added);
      RemoveDependentFromOwners(*existing, removed);
    }
    if (obj.being_deleted) existing->being_deleted = true;
    ProcessTransitions(old, obj, *existing);
    return;
  }

  // Delete.
  if (!existing) return;
  bool remove = true;
  if (virtual_event) {
    const ObjectReference& deleted = obj.identity;
    if (existing->virtual_) {
      // Not sure of its coordinates: dependents that name it otherwise keep the virtual node alive.
      auto [matching, nonmatching] = PartitionDependents(Dependents(*existing), deleted);
      if (!nonmatching.empty()) {
        remove = false;
        if (!matching.empty()) {
          absent_.Add(deleted);
          for (Node* dep : matching) sink_.AttemptToDelete(dep->identity.uid);
        }
        if (existing->identity == deleted) {
          if (auto alt = AlternateOwnerIdentity(nonmatching, deleted)) {
            existing->identity = *alt;
            sink_.AttemptToDeleteRateLimited(existing->identity.uid);
          }
        }
      }
    } else if (existing->identity != deleted) {
      // The observed object disagrees with the coordinates found absent: keep it.
      remove = false;
      auto [matching, nonmatching] = PartitionDependents(Dependents(*existing), deleted);
      if (!matching.empty()) {
        absent_.Add(deleted);
        for (Node* dep : matching) sink_.AttemptToDelete(dep->identity.uid);
      }
    }
  }
  if (!remove) return;

  std::unique_ptr<Node> gone = std::move(nodes_[uid]);
  nodes_.erase(uid);
  RemoveDependentFromOwners(*gone, gone->owners);
  if (!gone->dependents.empty()) absent_.Add(obj.identity);
  for (const auto& dep : gone->dependents) {
    if (Find(dep)) sink_.AttemptToDelete(dep);
  }
  for (const auto& owner : gone->owners) {
    Node* o = Find(owner.uid);
    if (o && o->deleting_dependents) sink_.AttemptToDelete(owner.uid);
  }
}

}  // namespace capstan::controllers::gc
