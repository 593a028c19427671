// endpoints/api_registry.h: what the server serves: groups, versions and resources with the verbs each
// storage implements, as an immutable snapshot swapped atomically when the set changes (CRDs come and
// go), so request handling never takes a lock.
//
// The installer (installer.h) probes each storage's capabilities once and records them here; the
// REST handlers and discovery read the same entries, so routes and discovery cannot drift apart.
// Thread-safety: Snapshot() from any thread; Install/Remove serialize among themselves.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "apimachinery/schema.h"
#include "registry/rest.h"

namespace capstan::endpoints {

struct ResourceEntry {
  registry::ResourceInfo info;
  std::shared_ptr<registry::Storage> storage;  // keeps the storage alive while a snapshot uses it
  registry::Getter* getter = nullptr;
  registry::Lister* lister = nullptr;
  registry::Watcher* watcher = nullptr;
  registry::Creater* creater = nullptr;
  registry::Updater* updater = nullptr;
  registry::Patcher* patcher = nullptr;
  registry::GracefulDeleter* deleter = nullptr;
  registry::CollectionDeleter* collection_deleter = nullptr;
  registry::Connecter* connecter = nullptr;      // log, exec, attach, portforward, proxy
  registry::TableConvertor* table = nullptr;  // a status subresource's: its parent's
  std::shared_ptr<registry::Storage> table_owner;  // keeps a borrowed `table` alive
  std::vector<std::string> verbs;                // discovery, in kube's order
  std::string storage_version_hash;              // discovery; "" unless the storage names a storage version
  const apimachinery::Schema* schema = nullptr;  // the kind's schema (validation, pruning, patches)
  bool protobuf = false;                         // built-in kinds also speak protobuf
  bool custom = false;                           // a custom resource (CRD)
};

struct GroupVersionEntry {
  std::string group;
  std::string version;
  std::map<std::string, ResourceEntry> resources;  // "configmaps", "pods/status", ...
};

struct GroupEntry {
  std::string name;
  std::vector<std::string> versions;  // by version priority: the preferred one first
};

struct ApiSnapshot {
  std::map<std::pair<std::string, std::string>, GroupVersionEntry> versions;
  std::vector<GroupEntry> groups;  // in serving order; "" (the core group) first

  const GroupVersionEntry* Find(const std::string& group, const std::string& version) const {
    auto it = versions.find({group, version});
    return it == versions.end() ? nullptr : &it->second;
  }
  const ResourceEntry* FindResource(const std::string& group, const std::string& version,
                                    const std::string& resource, const std::string& subresource) const;
};

class ApiRegistry {
 public:
  ApiRegistry() : snapshot_(std::make_shared<const ApiSnapshot>()) {}
  std::shared_ptr<const ApiSnapshot> Snapshot() const { return std::atomic_load(&snapshot_); }

  // Adds (or replaces) one resource of group/version; groups and versions appear as needed, a
  // group's versions in kube's version priority (apimachinery/version_priority.h).
  void Install(ResourceEntry entry);
  // Removes a resource (and its subresources); empty versions and groups disappear.
  void Remove(const std::string& group, const std::string& version, const std::string& resource);

 private:
  std::mutex write_mu_;
  std::shared_ptr<const ApiSnapshot> snapshot_;  // read with atomic_load, written under write_mu_
};

// The discovery verbs of a storage, from its capabilities (kube's order).
std::vector<std::string> VerbsOf(const ResourceEntry& e);
// Fills the capability pointers of `e` from e.storage (dynamic_cast, once) and its verbs.
void ProbeCapabilities(ResourceEntry& e);

}  // namespace capstan::endpoints
