#include "controllers/api_client.h"

#include <boost/json.hpp>

#include "apimachinery/errors.h"
#include "apimachinery/json_path.h"
#include "apimachinery/object_meta.h"

namespace capstan::controllers {

namespace am = capstan::apimachinery;
namespace json = boost::json;

std::string Gvr::String() const { return resource + "." + version + "." + group; }

UserInfo ControllerManagerUser() {
  UserInfo u;
  u.name = "system:kube-controller-manager";
  u.groups = {kSystemPrivilegedGroup, kAllAuthenticated};
  return u;
}

ApiClient::ApiClient(const endpoints::ApiRegistry& registry, UserInfo user, std::string field_manager)
    : registry_(registry), user_(std::move(user)), field_manager_(std::move(field_manager)) {}

registry::Context ApiClient::MakeContext(const std::string& ns) const {
  registry::Context ctx;
  ctx.namespace_ = ns;
  ctx.user = &user_;
  ctx.field_manager = field_manager_;
  return ctx;
}

namespace {

Status NotServed() { return Status(404, "NotFound", "the server could not find the requested resource"); }

// The entry of r (or its subresource) in snap, or the 404 a client would get.
StatusOr<const endpoints::ResourceEntry*> Find(const endpoints::ApiSnapshot& snap, const Gvr& r,
                                               const std::string& subresource) {
  const endpoints::ResourceEntry* e = snap.FindResource(r.group, r.version, r.resource, subresource);
  if (!e) return NotServed();
  return e;
}

Status NotSupported(const endpoints::ResourceEntry& e, std::string_view action) {
  return am::NewMethodNotSupported(e.info.GroupResource(), action);
}

// A watch that keeps the snapshot (and so the storage) alive while it runs.
class SnapshotWatch : public registry::WatchStream {
 public:
  SnapshotWatch(std::shared_ptr<const endpoints::ApiSnapshot> snap, std::unique_ptr<registry::WatchStream> inner)
      : snap_(std::move(snap)), inner_(std::move(inner)) {}
  ~SnapshotWatch() override { inner_.reset(); }
  Task<std::vector<registry::WatchEvent>> Next() override { return inner_->Next(); }
  void Stop() override { inner_->Stop(); }

 private:
  std::shared_ptr<const endpoints::ApiSnapshot> snap_;
  std::unique_ptr<registry::WatchStream> inner_;
};

}  // namespace

Task<StatusOr<Object>> ApiClient::Get(const Gvr& r, const std::string& ns, const std::string& name,
                                      const std::string& subresource) {
  auto snap = Snapshot();
  CO_ASSIGN_OR_RETURN(const endpoints::ResourceEntry* e, Find(*snap, r, subresource));
  if (!e->getter) co_return NotSupported(*e, "get");
  registry::Context ctx = MakeContext(ns);
  co_return co_await e->getter->Get(ctx, name, {});
}

Task<StatusOr<registry::ObjectList>> ApiClient::List(const Gvr& r, const std::string& ns,
                                                     const registry::ListOptions& opts) {
  auto snap = Snapshot();
  CO_ASSIGN_OR_RETURN(const endpoints::ResourceEntry* e, Find(*snap, r, ""));
  if (!e->lister) co_return NotSupported(*e, "list");
  registry::Context ctx = MakeContext(ns);
  co_return co_await e->lister->List(ctx, opts);
}

Task<StatusOr<registry::ObjectList>> ApiClient::ListAll(const Gvr& r, const std::string& ns,
                                                        registry::ListOptions opts, int64_t page_size) {
  constexpr int kRestarts = 3;
  for (int attempt = 0;; ++attempt) {
    registry::ObjectList all;
    registry::ListOptions page = opts;
    page.limit = page_size;
    page.continue_token.clear();
    bool restart = false;
    for (;;) {
      auto list = co_await List(r, ns, page);
      if (!list.ok()) {
        // The continue token outlived the compaction window: start again from the top.
        if (!page.continue_token.empty() && am::IsResourceExpired(list.status()) && attempt + 1 < kRestarts) {
          restart = true;
          break;
        }
        co_return list.TakeStatus();
      }
      if (all.resource_version.empty()) all.resource_version = list->resource_version;
      for (auto& item : list->items) all.items.push_back(std::move(item));
      if (list->continue_token.empty()) break;
      page.continue_token = std::move(list->continue_token);
      page.resource_version.clear();
    }
    if (!restart) co_return all;
  }
}

Task<StatusOr<std::unique_ptr<registry::WatchStream>>> ApiClient::Watch(const Gvr& r, const std::string& ns,
                                                                        const registry::ListOptions& opts) {
  auto snap = Snapshot();
  CO_ASSIGN_OR_RETURN(const endpoints::ResourceEntry* e, Find(*snap, r, ""));
  if (!e->watcher) co_return NotSupported(*e, "watch");
  registry::Context ctx = MakeContext(ns);
  auto w = co_await e->watcher->Watch(ctx, opts);
  if (!w.ok()) co_return w.TakeStatus();
  co_return std::unique_ptr<registry::WatchStream>(std::make_unique<SnapshotWatch>(snap, std::move(*w)));
}

Task<StatusOr<Object>> ApiClient::Create(const Gvr& r, const std::string& ns, Object obj) {
  auto snap = Snapshot();
  CO_ASSIGN_OR_RETURN(const endpoints::ResourceEntry* e, Find(*snap, r, ""));
  if (!e->creater) co_return NotSupported(*e, "create");
  am::SetApiVersionAndKind(obj, e->info.ApiVersion(), e->info.kind);
  if (e->info.namespaced && am::GetNamespace(obj).empty()) am::SetNamespace(obj, ns);
  registry::Context ctx = MakeContext(ns);
  registry::CreateOptions o;
  o.field_manager = field_manager_;
  co_return co_await e->creater->Create(ctx, std::move(obj), o);
}

Task<StatusOr<Object>> ApiClient::Update(const Gvr& r, const std::string& ns, Object obj,
                                         const std::string& subresource) {
  auto snap = Snapshot();
  CO_ASSIGN_OR_RETURN(const endpoints::ResourceEntry* e, Find(*snap, r, subresource));
  if (!e->updater) co_return NotSupported(*e, "update");
  std::string name(am::GetName(obj));
  registry::Context ctx = MakeContext(ns);
  ctx.subresource = subresource;
  registry::UpdateOptions o;
  o.field_manager = field_manager_;
  auto shared = std::make_shared<Object>(std::move(obj));
  registry::ObjectTransform t = [shared](const Object* current) -> Task<StatusOr<Object>> {
    (void)current;
    co_return *shared;
  };
  auto r2 = co_await e->updater->Update(ctx, name, std::move(t), o);
  if (!r2.ok()) co_return r2.TakeStatus();
  co_return std::move(r2->object);
}

Task<StatusOr<Object>> ApiClient::Mutate(const Gvr& r, const std::string& ns, const std::string& name,
                                         Mutation mutate, const std::string& subresource) {
  auto snap = Snapshot();
  CO_ASSIGN_OR_RETURN(const endpoints::ResourceEntry* e, Find(*snap, r, subresource));
  if (!e->updater) co_return NotSupported(*e, "patch");
  registry::Context ctx = MakeContext(ns);
  ctx.subresource = subresource;
  registry::UpdateOptions o;
  o.field_manager = field_manager_;
  const am::GroupResource gr = e->info.GroupResource();
  registry::ObjectTransform t = [&mutate, gr, name](const Object* current) -> Task<StatusOr<Object>> {
    if (!current) co_return am::NewNotFound(gr, name);
    Object next = *current;
    auto changed = mutate(next);
    if (!changed.ok()) co_return changed.TakeStatus();
    if (!*changed) co_return *current;
    // The write is conditional on what was read, like a patch.
    am::SetResourceVersion(next, am::GetResourceVersion(*current));
    co_return next;
  };
  auto out = co_await e->updater->Update(ctx, name, std::move(t), o);
  if (!out.ok()) co_return out.TakeStatus();
  co_return std::move(out->object);
}

Task<StatusOr<registry::DeleteOutcome>> ApiClient::Delete(const Gvr& r, const std::string& ns,
                                                          const std::string& name,
                                                          const registry::DeleteOptions& opts) {
  auto snap = Snapshot();
  CO_ASSIGN_OR_RETURN(const endpoints::ResourceEntry* e, Find(*snap, r, ""));
  if (!e->deleter) co_return NotSupported(*e, "delete");
  registry::Context ctx = MakeContext(ns);
  co_return co_await e->deleter->Delete(ctx, name, opts);
}

Task<StatusOr<registry::ObjectList>> ApiClient::DeleteCollection(const Gvr& r, const std::string& ns,
                                                                 const registry::DeleteOptions& dopts,
                                                                 const registry::ListOptions& lopts) {
  auto snap = Snapshot();
  CO_ASSIGN_OR_RETURN(const endpoints::ResourceEntry* e, Find(*snap, r, ""));
  if (!e->collection_deleter) co_return NotSupported(*e, "deletecollection");
  registry::Context ctx = MakeContext(ns);
  co_return co_await e->collection_deleter->DeleteCollection(ctx, dopts, lopts);
}

const json::value* JsonPath(const Object& o, std::initializer_list<std::string_view> path) {
  return apimachinery::GetPath(o, path);
}

std::string JsonString(const Object& o, std::initializer_list<std::string_view> path) {
  const json::value* v = JsonPath(o, path);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

}  // namespace capstan::controllers
