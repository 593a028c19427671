#include "endpoints/api_registry.h"

#include <algorithm>

#include "apimachinery/version_priority.h"
#include "endpoints/discovery.h"

namespace capstan::endpoints {

const ResourceEntry* ApiSnapshot::FindResource(const std::string& group, const std::string& version,
                                               const std::string& resource, const std::string& subresource) const {
  const GroupVersionEntry* gv = Find(group, version);
  if (!gv) return nullptr;
  std::string key = subresource.empty() ? resource : resource + "/" + subresource;
  auto it = gv->resources.find(key);
  return it == gv->resources.end() ? nullptr : &it->second;
}

void ProbeCapabilities(ResourceEntry& e) {
  registry::Storage* s = e.storage.get();
  e.getter = dynamic_cast<registry::Getter*>(s);
  e.lister = dynamic_cast<registry::Lister*>(s);
  e.watcher = dynamic_cast<registry::Watcher*>(s);
  e.creater = dynamic_cast<registry::Creater*>(s);
  e.updater = dynamic_cast<registry::Updater*>(s);
  e.patcher = dynamic_cast<registry::Patcher*>(s);
  e.deleter = dynamic_cast<registry::GracefulDeleter*>(s);
  e.collection_deleter = registry::AsCollectionDeleter(s);
  e.connecter = dynamic_cast<registry::Connecter*>(s);
  e.table = dynamic_cast<registry::TableConvertor*>(s);
  e.verbs = VerbsOf(e);
  e.storage_version_hash.clear();
  if (const auto* p = dynamic_cast<const registry::StorageVersionProvider*>(s)) {
    if (auto gvk = p->StorageVersion()) e.storage_version_hash = StorageVersionHash(gvk->group, gvk->version, gvk->kind);
  }
}

std::vector<std::string> VerbsOf(const ResourceEntry& e) {
  // kube lists them in this order in discovery.
  std::vector<std::string> v;
  // A connecter's methods are listed as the verbs they map to (POST: create, GET: get, ...).
  auto connects = [&](const char* method) {
    if (!e.connecter) return false;
    for (const auto& m : e.connecter->ConnectMethods()) {
      if (m == method) return true;
    }
    return false;
  };
  if (e.creater || connects("POST")) v.push_back("create");
  if (e.deleter || connects("DELETE")) v.push_back("delete");
  if (e.collection_deleter) v.push_back("deletecollection");
  if (e.getter || connects("GET")) v.push_back("get");
  if (e.lister) v.push_back("list");
  if (e.patcher || connects("PATCH")) v.push_back("patch");
  if (e.updater || connects("PUT")) v.push_back("update");
  if (e.watcher) v.push_back("watch");
  return v;
}

void ApiRegistry::Install(ResourceEntry entry) {
  std::lock_guard lock(write_mu_);
  auto next = std::make_shared<ApiSnapshot>(*std::atomic_load(&snapshot_));
  const std::string group = entry.info.group;
  const std::string version = entry.info.version;
  auto& gv = next->versions[{group, version}];
  gv.group = group;
  gv.version = version;
  std::string key = entry.info.subresource.empty() ? entry.info.resource : entry.info.resource + "/" + entry.info.subresource;
  gv.resources[key] = std::move(entry);
  auto g = std::find_if(next->groups.begin(), next->groups.end(), [&](const GroupEntry& x) { return x.name == group; });
  if (g == next->groups.end()) {
    GroupEntry ge;
    ge.name = group;
    g = group.empty() ? next->groups.insert(next->groups.begin(), std::move(ge))
                      : next->groups.insert(next->groups.end(), std::move(ge));
  }
  if (std::find(g->versions.begin(), g->versions.end(), version) == g->versions.end()) {
    // kube lists a group's versions by version priority, so the preferred version comes first.
    g->versions.insert(std::upper_bound(g->versions.begin(), g->versions.end(), version,
                                        [](const std::string& a, const std::string& b) {
                                          return apimachinery::KubeAwareVersionLess(a, b);
                                        }),
                       version);
  }
  std::atomic_store(&snapshot_, std::shared_ptr<const ApiSnapshot>(std::move(next)));
}

void ApiRegistry::Remove(const std::string& group, const std::string& version, const std::string& resource) {
  std::lock_guard lock(write_mu_);
  auto next = std::make_shared<ApiSnapshot>(*std::atomic_load(&snapshot_));
  auto it = next->versions.find({group, version});
  if (it == next->versions.end()) return;
  auto& res = it->second.resources;
  for (auto r = res.begin(); r != res.end();) {
    if (r->first == resource || r->first.rfind(resource + "/", 0) == 0) {
      r = res.erase(r);
    } else {
      ++r;
    }
  }
  if (res.empty()) {
    next->versions.erase(it);
    auto g = std::find_if(next->groups.begin(), next->groups.end(), [&](const GroupEntry& x) { return x.name == group; });
    if (g != next->groups.end()) {
      g->versions.erase(std::remove(g->versions.begin(), g->versions.end(), version), g->versions.end());
      if (g->versions.empty()) next->groups.erase(g);
    }
  }
  std::atomic_store(&snapshot_, std::shared_ptr<const ApiSnapshot>(std::move(next)));
}

}  // namespace capstan::endpoints
