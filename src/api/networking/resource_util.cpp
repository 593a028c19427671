#include "api/networking/resource_util.h"

#include "apimachinery/object_meta.h"

namespace capstan::api::catalog {

namespace am = capstan::apimachinery;

Task<StatusOr<Object>> SubresourceStorage::Get(const registry::Context& ctx, const std::string& name,
                                               const registry::GetOptions& opts) {
  return inner_.Get(ctx, name, opts);
}

Task<StatusOr<registry::UpdateOutcome>> SubresourceStorage::Update(const registry::Context& ctx,
                                                                   const std::string& name,
                                                                   registry::ObjectTransform transform,
                                                                   const registry::UpdateOptions& opts) {
  registry::Context sub = ctx;
  sub.subresource = inner_.Info().subresource;
  co_return co_await inner_.Update(sub, name, std::move(transform), opts);
}

std::vector<registry::RestResource> MakeResourceWith(
    const registry::GroupDeps& deps, registry::ResourceSpec spec,
    std::vector<std::pair<std::string, std::shared_ptr<const registry::Strategy>>> subresources) {
  spec.has_status = false;
  std::vector<registry::RestResource> out = registry::MakeResource(deps, std::move(spec));
  const registry::RestResource& main = out.front();
  auto* store = dynamic_cast<registry::Store*>(main.storage.get());
  if (!store) return out;
  for (auto& [name, strategy] : subresources) {
    registry::StoreConfig c = store->config();
    c.info.subresource = name;
    registry::RestResource r;
    r.info = c.info;
    r.storage = std::make_shared<SubresourceStorage>(std::move(c), std::move(strategy));
    r.schema = main.schema;
    r.protobuf = main.protobuf;
    out.push_back(std::move(r));
  }
  return out;
}

void StatusOnlyStrategy::PrepareForUpdate(const registry::Context&, Object& obj, const Object& old) const {
  Object next = old;
  if (const auto* s = obj.if_contains("status")) {
    next["status"] = *s;
  } else {
    next.erase("status");
  }
  boost::json::object md = am::GetMetadata(obj) ? *am::GetMetadata(obj) : boost::json::object();
  if (const auto* old_md = am::GetMetadata(old)) {
    for (const auto& key : reset_metadata_) {
      if (const auto* v = old_md->if_contains(key)) {
        md[key] = *v;
      } else {
        md.erase(key);
      }
    }
  }
  next["metadata"] = std::move(md);
  obj = std::move(next);
}

ErrorList StatusOnlyStrategy::ValidateUpdate(const registry::Context&, const Object& obj, const Object& old) const {
  return validate_ ? validate_(obj, old) : ErrorList{};
}

}  // namespace capstan::api::catalog
