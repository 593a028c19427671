#include "flowcontrol/watch_tracker.h"

#include "apimachinery/fields.h"

namespace capstan::flowcontrol {

std::optional<WatchKey> WatchTracker::Register(WatchKey key, const std::string& field_selector) {
  if (key.resource == "pods" && !field_selector.empty()) {
    auto selector = apimachinery::ParseFieldSelector(field_selector);
    if (selector.ok()) {
      auto node = selector->RequiresExactMatch("spec.nodeName");
      if (node && !node->empty()) return std::nullopt;
    }
  }
  std::lock_guard lock(mu_);
  counts_[key]++;
  return key;
}

void WatchTracker::Forget(const WatchKey& key) {
  std::lock_guard lock(mu_);
  auto it = counts_.find(key);
  if (it == counts_.end()) return;
  if (--it->second <= 0) counts_.erase(it);
}

int WatchTracker::InterestedCount(const WorkRequest& r) const {
  if (r.verb == "get" || r.verb == "list" || r.verb == "watch" || r.verb == "proxy") return 0;
  std::lock_guard lock(mu_);
  auto count = [&](const WatchKey& k) {
    auto it = counts_.find(k);
    return it == counts_.end() ? 0 : it->second;
  };
  WatchKey k{r.api_group, r.resource, "", ""};
  int total = count(k);
  if (!r.namespace_.empty()) {
    k.namespace_ = r.namespace_;
    total += count(k);
  }
  if (!r.name.empty()) {
    k.name = r.name;
    total += count(k);
  }
  return total;
}

}  // namespace capstan::flowcontrol
