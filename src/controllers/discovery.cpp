#include "controllers/discovery.h"

#include <algorithm>
#include <set>

namespace capstan::controllers {

std::vector<ServedResource> PreferredResources(const endpoints::ApiSnapshot& snap) {
  std::vector<ServedResource> out;
  for (const auto& g : snap.groups) {
    std::set<std::string> seen;
    for (const auto& v : g.versions) {
      const endpoints::GroupVersionEntry* gv = snap.Find(g.name, v);
      if (!gv) continue;
      for (const auto& [key, e] : gv->resources) {
        if (!e.info.subresource.empty()) continue;
        if (!seen.insert(e.info.resource).second) continue;
        out.push_back({Gvr{g.name, v, e.info.resource}, &e});
      }
    }
  }
  return out;
}

bool SupportsVerbs(const endpoints::ResourceEntry& e, std::initializer_list<std::string_view> verbs) {
  for (auto v : verbs) {
    if (std::find(e.verbs.begin(), e.verbs.end(), v) == e.verbs.end()) return false;
  }
  return true;
}

std::optional<Mapping> MapKind(const endpoints::ApiSnapshot& snap, std::string_view api_version,
                               std::string_view kind) {
  std::string group, version;
  if (auto slash = api_version.find('/'); slash == std::string_view::npos) {
    version = std::string(api_version);
  } else {
    group = std::string(api_version.substr(0, slash));
    version = std::string(api_version.substr(slash + 1));
  }
  const endpoints::GroupVersionEntry* gv = snap.Find(group, version);
  if (!gv) return std::nullopt;
  for (const auto& [key, e] : gv->resources) {
    if (!e.info.subresource.empty() || e.info.kind != kind) continue;
    return Mapping{Gvr{group, version, e.info.resource}, e.info.namespaced};
  }
  return std::nullopt;
}

}  // namespace capstan::controllers
