#include "storage/transformers/resource_transformers.h"

#include <mutex>

#include "apimachinery/errors.h"
#include "storage/transformers/prefix_transformer.h"
#include "util/strings.h"

namespace capstan::storage::transformers {

ResourceTransformers::ResourceTransformers(ByResource by_resource, std::string prefix) : prefix_(std::move(prefix)) {
  while (!prefix_.empty() && prefix_.back() == '/') prefix_.pop_back();
  std::unique_lock lock(mu_);
  AddGroupRootsLocked(by_resource);
  by_resource_ = std::make_shared<const ByResource>(std::move(by_resource));
}

// Built-in resources of named groups live under <prefix>/<resource> (kube's layout): known before the
// API is wired, so reads at start-up already find their providers. Roots the API registered win.
void ResourceTransformers::AddGroupRootsLocked(const ByResource& by_resource) {
  for (const auto& [gr, t] : by_resource) {
    if (!gr.group.empty() && gr.group != "*" && gr.resource != "*") roots_.emplace(prefix_ + "/" + gr.resource, gr);
  }
}

void ResourceTransformers::Set(ByResource by_resource) {
  auto next = std::make_shared<const ByResource>(std::move(by_resource));
  std::unique_lock lock(mu_);
  AddGroupRootsLocked(*next);
  by_resource_ = std::move(next);
}

void ResourceTransformers::RegisterResource(const std::string& key_root, const std::string& group,
                                            const std::string& resource) {
  std::string root = key_root;
  while (!root.empty() && root.back() == '/') root.pop_back();
  std::unique_lock lock(mu_);
  roots_[root] = GroupResource{group, resource};
}

GroupResource ResourceTransformers::ResourceOf(std::string_view key) const {
  {
    // The longest registered root the key lies under: try each "/"-boundary from the longest.
    std::shared_lock lock(mu_);
    if (!roots_.empty()) {
      for (size_t end = key.size(); end != std::string_view::npos && end > 0; end = key.rfind('/', end - 1)) {
        auto it = roots_.find(key.substr(0, end));
        if (it != roots_.end()) return it->second;
        if (end == 0) break;
      }
    }
  }
  std::string_view rest = key;
  if (StartsWith(rest, prefix_)) rest.remove_prefix(prefix_.size());
  while (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
  size_t slash = rest.find('/');
  return GroupResource{"", std::string(rest.substr(0, slash))};
}

std::shared_ptr<const Transformer> ResourceTransformers::Configured(const GroupResource& gr) const {
  std::shared_ptr<const ByResource> current;
  {
    std::shared_lock lock(mu_);
    current = by_resource_;
  }
  for (const GroupResource& candidate : {gr, GroupResource{gr.group, "*"}, GroupResource{"*", "*"}}) {
    auto it = current->find(candidate);
    if (it != current->end()) return it->second;
  }
  return nullptr;
}

std::shared_ptr<const Transformer> ResourceTransformers::For(const GroupResource& gr) const {
  auto t = Configured(gr);
  return t ? t : EncryptCheckIdentity();
}

namespace {

std::string ResourceLabel(const GroupResource& gr) {
  return gr.group.empty() ? gr.resource : gr.resource + "." + gr.group;
}

const PrefixTransformers* Providers(const std::shared_ptr<const Transformer>& t) {
  return dynamic_cast<const PrefixTransformers*>(t.get());
}

}  // namespace

StatusOr<std::string> ResourceTransformers::ToStorage(std::string_view data, std::string_view key) const {
  const GroupResource gr = ResourceOf(key);
  auto t = Configured(gr);
  if (!t) return EncryptCheckIdentity()->ToStorage(data, key);
  const auto start = std::chrono::steady_clock::now();
  auto out = t->ToStorage(data, key);
  if (const auto* providers = Providers(t); metrics_ && providers) {
    metrics_->Record(ResourceLabel(gr), "to_storage", providers->WriteLabel(), std::chrono::steady_clock::now() - start,
                     out.status());
  }
  if (!out.ok()) return apimachinery::NewInternalError(out.status().message());
  return out;
}

StatusOr<std::string> ResourceTransformers::FromStorage(std::string_view stored, std::string_view key,
                                                        bool* stale) const {
  const GroupResource gr = ResourceOf(key);
  auto t = Configured(gr);
  if (!t) t = EncryptCheckIdentity();
  const auto start = std::chrono::steady_clock::now();
  auto out = t->FromStorage(stored, key, stale);
  if (const auto* providers = Providers(t); metrics_ && providers) {
    metrics_->Record(ResourceLabel(gr), "from_storage", providers->ReadLabel(stored),
                     std::chrono::steady_clock::now() - start, out.status());
  }
  if (!out.ok()) return apimachinery::NewInternalError(out.status().message());
  return out;
}

bool ResourceTransformers::UsesPlugin(std::string_view key) const { return For(ResourceOf(key))->UsesPlugin(key); }

bool ResourceTransformers::MayBlock(std::string_view key, Direction d, std::string_view stored) const {
  return For(ResourceOf(key))->MayBlock(key, d, stored);
}

StatusOr<std::unique_ptr<ResourceTransformers>> LoadResourceTransformers(const std::string& path,
                                                                         const std::string& prefix) {
  auto config = LoadEncryptionConfig(path);
  if (!config.ok()) return config.TakeStatus();
  auto built = BuildTransformers(*config);
  if (!built.ok()) return built.TakeStatus();
  return std::make_unique<ResourceTransformers>(std::move(*built), prefix);
}

}  // namespace capstan::storage::transformers
