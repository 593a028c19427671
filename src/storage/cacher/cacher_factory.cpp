#include "storage/cacher/cacher_factory.h"

#include "util/strings.h"

namespace capstan::storage {

StatusOr<std::map<std::string, int>> ParseWatchCacheSizes(const std::vector<std::string>& values) {
  std::map<std::string, int> out;
  for (const auto& v : values) {
    auto tokens = Split(v, '#');
    if (tokens.size() != 2) return Status(400, "BadRequest", "invalid value of watch cache size: " + v);
    const std::string& n = tokens[1];
    size_t i = (!n.empty() && (n[0] == '-' || n[0] == '+')) ? 1 : 0;
    bool digits = i < n.size() && n.size() - i <= 9;
    for (size_t j = i; j < n.size() && digits; ++j) digits = n[j] >= '0' && n[j] <= '9';
    if (!digits) return Status(400, "BadRequest", "invalid size of watch cache size: " + v);
    int size = std::stoi(n);
    if (size < 0) return Status(400, "BadRequest", "watch cache size cannot be negative: " + v);
    out[tokens[0]] = size;
  }
  return out;
}

CacherFactory::CacherFactory(WatchCacheFlags flags, Backend& backend, BackendObjectStore& store, MetricsRegistry* metrics)
    : flags_(std::move(flags)), backend_(backend), store_(store) {
  if (metrics) metrics_ = std::make_unique<CacherMetrics>(*metrics);
}

CacherFactory::~CacherFactory() = default;

ObjectStore* CacherFactory::For(const std::string& key_root, const std::string& group, const std::string& resource,
                                FieldsFunc fields, const apimachinery::JsonWriteOptions& json) {
  if (!flags_.enabled) return &store_;
  int size = flags_.default_size;
  auto it = flags_.sizes.find(group.empty() ? resource : resource + "." + group);
  if (it != flags_.sizes.end()) size = it->second;
  if (size <= 0) return &store_;
  std::lock_guard lock(mu_);
  auto& slot = by_root_[key_root];
  if (!slot) {
    CacherConfig c;
    c.resource_prefix = key_root;
    c.group = group;
    c.resource = resource;
    c.storage = &store_;
    c.backend = &backend_;
    c.decode = [s = &store_](std::string_view stored, const std::string& key, int64_t rev) {
      return s->Decode(stored, key, rev);
    };
    c.fields = std::move(fields);
    c.json = json;
    c.capacity = static_cast<size_t>(size);
    c.metrics = metrics_.get();
    slot = std::make_unique<Cacher>(std::move(c));
  }
  return slot.get();
}

Status CacherFactory::Ready() const {
  std::vector<std::string> waiting;
  {
    std::lock_guard lock(mu_);
    for (const auto& [root, c] : by_root_) {
      if (!c->Ready()) waiting.push_back(root);
    }
  }
  if (waiting.empty()) return Status();
  return Status(503, "ServiceUnavailable", "watch caches still initializing: " + Join(waiting, ", "));
}

std::vector<Cacher*> CacherFactory::cachers() const {
  std::lock_guard lock(mu_);
  std::vector<Cacher*> out;
  for (const auto& [root, c] : by_root_) out.push_back(c.get());
  return out;
}

}  // namespace capstan::storage
