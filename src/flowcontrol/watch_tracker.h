// flowcontrol/watch_tracker.h: the watches open on the server, counted by what they watch (kube's
// flowcontrol WatchTracker), so the mutating work estimate knows how many watchers a write wakes.
//
// A watch is counted under (group, resource, namespace, name); a pods watch that selects one node
// (spec.nodeName=<node>, a kubelet's) is not counted, as kube's built-in index leaves it out. A
// write's interested watches are those of its resource across all namespaces, plus those of its
// namespace, plus those of its object's name; read-only verbs have none.
// Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include "flowcontrol/work_estimator.h"

namespace capstan::flowcontrol {

struct WatchKey {
  std::string api_group;
  std::string resource;
  std::string namespace_;
  std::string name;
  auto operator<=>(const WatchKey&) const = default;
};

class WatchTracker {
 public:
  // `field_selector` is the watch's raw fieldSelector. Returns the key to Forget, or nullopt when the
  // watch is not counted.
  std::optional<WatchKey> Register(WatchKey key, const std::string& field_selector);
  void Forget(const WatchKey& key);
  int InterestedCount(const WorkRequest& r) const;

 private:
  mutable std::mutex mu_;
  std::map<WatchKey, int> counts_;  // guarded by mu_
};

}  // namespace capstan::flowcontrol
