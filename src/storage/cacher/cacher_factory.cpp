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

// Sends reads to the Cacher of the key's resource and writes to the store; the calls that reach the
// store are recorded as kube's etcd3 store records them (a failure is an error of the store itself,
// not a NotFound or a Conflict).
class CacheRouter : public ObjectStore {
 public:
  explicit CacheRouter(CacherFactory& f) : f_(f) {}
  Task<StatusOr<Object>> Create(const std::string& key, Object obj, int64_t ttl) override {
    auto start = std::chrono::steady_clock::now();
    auto r = co_await f_.store_.Create(key, std::move(obj), ttl);
    Record("create", key, start, r);
    co_return r;
  }
  Task<StatusOr<Object>> Get(const std::string& key, const GetOptions& opts) override {
    if (!opts.resource_version.empty()) co_return co_await f_.Route(key, false)->Get(key, opts);
    auto start = std::chrono::steady_clock::now();
    auto r = co_await f_.store_.Get(key, opts);
    Record("get", key, start, r);
    co_return r;
  }
  Task<StatusOr<ListResult>> GetList(const std::string& key, const ListOptions& opts) override {
    ObjectStore* target = f_.Route(key, true);
    if (target != &f_.store_) co_return co_await target->GetList(key, opts);
    auto start = std::chrono::steady_clock::now();
    auto r = co_await f_.store_.GetList(key, opts);
    Record("list", key, start, r);
    if (f_.metrics_ && r.ok()) {
      std::string type = f_.TypeOf(key);
      f_.metrics_->storage_lists.With({type})->Inc();
      f_.metrics_->storage_list_returned.With({type})->Inc(static_cast<double>(r->items.size() + r->serialized.size()));
    }
    co_return r;
  }
  Task<StatusOr<Object>> GuaranteedUpdate(const std::string& key, const Preconditions& pre, bool ignore_not_found,
                                          UpdateFunc try_update) override {
    auto start = std::chrono::steady_clock::now();
    auto r = co_await f_.store_.GuaranteedUpdate(key, pre, ignore_not_found, std::move(try_update));
    Record("update", key, start, r);
    co_return r;
  }
  Task<StatusOr<Object>> Delete(const std::string& key, const Preconditions& pre, ValidateDeleteFunc validate) override {
    auto start = std::chrono::steady_clock::now();
    auto r = co_await f_.store_.Delete(key, pre, std::move(validate));
    Record("delete", key, start, r);
    co_return r;
  }
  StatusOr<std::unique_ptr<ObjectWatch>> Watch(const std::string& key, const WatchOptions& opts) override {
    return f_.Route(key, true)->Watch(key, opts);
  }
  Task<StatusOr<int64_t>> CurrentRevision() override { return f_.store_.CurrentRevision(); }

 private:
  template <class T>
  void Record(const char* op, const std::string& key, std::chrono::steady_clock::time_point start, const StatusOr<T>& r) {
    if (!f_.metrics_) return;
    RecordStorageRequest(f_.metrics_.get(), op, f_.TypeOf(key), start, !r.ok() && r.status().code() >= 500);
  }

  CacherFactory& f_;
};

CacherFactory::CacherFactory(WatchCacheFlags flags, Backend& backend, BackendObjectStore& store, MetricsRegistry* metrics,
                             std::string prefix)
    : flags_(std::move(flags)), backend_(backend), store_(store), prefix_(std::move(prefix)) {
  if (metrics) metrics_ = std::make_unique<CacherMetrics>(*metrics);
  router_ = std::make_unique<CacheRouter>(*this);
}

std::string CacherFactory::TypeOf(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = types_.upper_bound(key);
  while (it != types_.begin()) {
    --it;
    const std::string& root = it->first;
    if (key.compare(0, root.size(), root) == 0 && (key.size() == root.size() || key[root.size()] == '/')) return it->second;
  }
  std::string head = prefix_ + "/";
  if (key.compare(0, head.size(), head) != 0) return "";
  return key.substr(head.size(), key.find('/', head.size()) - head.size());
}

ObjectStore* CacherFactory::Route(const std::string& key, bool create) {
  std::lock_guard lock(mu_);
  // The longest registered root the key is under.
  auto it = by_root_.upper_bound(key);
  while (it != by_root_.begin()) {
    --it;
    const std::string& root = it->first;
    if (key.compare(0, root.size(), root) == 0 && (key.size() == root.size() || key[root.size()] == '/')) {
      return it->second.get();
    }
  }
  std::string head = prefix_ + "/";
  if (!create || key.compare(0, head.size(), head) != 0) return &store_;
  std::string segment = key.substr(head.size(), key.find('/', head.size()) - head.size());
  if (segment.empty()) return &store_;
  std::string root = head + segment;
  if (uncached_roots_.count(root)) return &store_;
  ObjectStore* s = ForLocked(root, "", segment, nullptr, {});
  if (s == &store_) uncached_roots_[root] = true;
  return s;
}

CacherFactory::~CacherFactory() = default;

ObjectStore* CacherFactory::For(const std::string& key_root, const std::string& group, const std::string& resource,
                                FieldsFunc fields, const apimachinery::JsonWriteOptions& json) {
  std::lock_guard lock(mu_);
  return ForLocked(key_root, group, resource, std::move(fields), json);
}

ObjectStore* CacherFactory::ForLocked(const std::string& key_root, const std::string& group, const std::string& resource,
                                      FieldsFunc fields, const apimachinery::JsonWriteOptions& json) {
  if (!resource.empty() && (!group.empty() || !types_.count(key_root))) {
    types_[key_root] = group.empty() ? resource : resource + "." + group;
  }
  if (!flags_.enabled) return &store_;
  int size = flags_.default_size;
  auto it = flags_.sizes.find(group.empty() ? resource : resource + "." + group);
  if (group.empty() && it == flags_.sizes.end()) {
    // A root found by key has no group: any group's entry for the resource counts.
    for (auto s = flags_.sizes.lower_bound(resource + "."); s != flags_.sizes.end() && s->first.rfind(resource + ".", 0) == 0; ++s) {
      it = s;
      break;
    }
  }
  if (it != flags_.sizes.end()) size = it->second;
  if (size <= 0) {
    uncached_roots_[key_root] = true;
    return &store_;
  }
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
    c.progress_reliable = flags_.progress_reliable;
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
