#include "registry/converting_store.h"

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/status_json.h"
#include "registry/table.h"

namespace capstan::registry {

namespace am = capstan::apimachinery;

namespace {

class FunctionConverter : public VersionConverter {
 public:
  FunctionConverter(ConvertFn to, ConvertFn from) : to_(std::move(to)), from_(std::move(from)) {}
  Task<StatusOr<Object>> ToStorage(Object obj) const override { co_return to_(std::move(obj)); }
  Task<StatusOr<Object>> FromStorage(Object obj) const override { co_return from_(std::move(obj)); }
  std::optional<Object> ToStorageNow(const Object& obj) const override {
    auto r = to_(obj);
    if (!r.ok()) return std::nullopt;
    return std::move(*r);
  }

 private:
  ConvertFn to_;
  ConvertFn from_;
};

bool IsStatusObject(const Object& obj) { return am::GetKind(obj) == "Status" && am::GetApiVersion(obj) == "v1"; }

// Watch events of the wrapped storage, converted one by one. An object that does not convert ends the
// watch with an ERROR event (the client re-lists and sees the error there).
class ConvertingWatch : public WatchStream {
 public:
  ConvertingWatch(std::unique_ptr<WatchStream> inner, std::shared_ptr<const VersionConverter> conv,
                  std::string api_version)
      : inner_(std::move(inner)), conv_(std::move(conv)), api_version_(std::move(api_version)) {}

  Task<std::vector<WatchEvent>> Next() override {
    if (ended_) co_return std::vector<WatchEvent>{};
    std::vector<WatchEvent> batch = co_await inner_->Next();
    std::vector<WatchEvent> out;
    out.reserve(batch.size());
    for (auto& e : batch) {
      if (e.type == "ERROR") {
        out.push_back(std::move(e));
        continue;
      }
      if (e.type == "BOOKMARK") {
        e.object["apiVersion"] = api_version_;
        out.push_back(std::move(e));
        continue;
      }
      auto converted = co_await conv_->FromStorage(std::move(e.object));
      if (!converted.ok()) {
        out.push_back(WatchEvent{"ERROR", am::StatusToJson(am::NewInternalError(converted.status().message()))});
        ended_ = true;
        inner_->Stop();
        break;
      }
      out.push_back(WatchEvent{std::move(e.type), std::move(*converted)});
    }
    co_return out;
  }
  void Stop() override { inner_->Stop(); }

 private:
  std::unique_ptr<WatchStream> inner_;
  std::shared_ptr<const VersionConverter> conv_;
  std::string api_version_;
  bool ended_ = false;
};

Task<StatusOr<UpdateOutcome>> ConvertOutcome(const VersionConverter& conv, StatusOr<UpdateOutcome> r) {
  if (!r.ok()) co_return r.TakeStatus();
  auto obj = co_await conv.FromStorage(std::move(r->object));
  if (!obj.ok()) co_return obj.TakeStatus();
  co_return UpdateOutcome{std::move(*obj), r->created};
}

}  // namespace

Task<StatusOr<std::vector<Object>>> VersionConverter::FromStorageList(std::vector<Object> items) const {
  for (auto& item : items) {
    auto c = co_await FromStorage(std::move(item));
    if (!c.ok()) co_return c.TakeStatus();
    item = std::move(*c);
  }
  co_return items;
}

std::shared_ptr<const VersionConverter> MakeFunctionConverter(ConvertFn to_storage, ConvertFn from_storage) {
  return std::make_shared<FunctionConverter>(std::move(to_storage), std::move(from_storage));
}

ObjectTransform ConvertTransform(ObjectTransform transform, std::shared_ptr<const VersionConverter> conv) {
  return [transform = std::move(transform), conv = std::move(conv)](const Object* current) -> Task<StatusOr<Object>> {
    std::optional<Object> served;
    if (current) {
      auto c = co_await conv->FromStorage(*current);
      if (!c.ok()) co_return c.TakeStatus();
      served = std::move(*c);
    }
    auto next = co_await transform(served ? &*served : nullptr);
    if (!next.ok()) co_return next.TakeStatus();
    co_return co_await conv->ToStorage(std::move(*next));
  };
}

Task<StatusOr<Object>> FromStorageUnlessStatus(const VersionConverter& conv, Object obj) {
  if (IsStatusObject(obj)) co_return obj;
  co_return co_await conv.FromStorage(std::move(obj));
}

ConvertingStore::ConvertingStore(ResourceInfo info, std::shared_ptr<Storage> inner,
                                 std::shared_ptr<const VersionConverter> conv)
    : info_(std::move(info)), inner_(std::move(inner)), conv_(std::move(conv)) {
  Storage* s = inner_.get();
  getter_ = dynamic_cast<Getter*>(s);
  lister_ = dynamic_cast<Lister*>(s);
  watcher_ = dynamic_cast<Watcher*>(s);
  creater_ = dynamic_cast<Creater*>(s);
  updater_ = dynamic_cast<Updater*>(s);
  deleter_ = dynamic_cast<GracefulDeleter*>(s);
  collection_deleter_ = AsCollectionDeleter(s);
  table_ = dynamic_cast<TableConvertor*>(s);
}

Status ConvertingStore::NotSupported(std::string_view verb) const {
  return am::NewMethodNotSupported(info_.GroupResource(), verb);
}

Task<StatusOr<Object>> ConvertingStore::Get(const Context& ctx, const std::string& name, const GetOptions& opts) {
  if (!getter_) co_return NotSupported("get");
  auto r = co_await getter_->Get(ctx, name, opts);
  if (!r.ok()) co_return r.TakeStatus();
  co_return co_await conv_->FromStorage(std::move(*r));
}

Task<StatusOr<ObjectList>> ConvertingStore::List(const Context& ctx, const ListOptions& opts) {
  if (!lister_) co_return NotSupported("list");
  // Items are converted one by one, so they are asked for as objects (not the cache's stored JSON).
  ListOptions inner_opts = opts;
  inner_opts.accept_serialized = false;
  auto r = co_await lister_->List(ctx, inner_opts);
  if (!r.ok()) co_return r.TakeStatus();
  auto items = co_await conv_->FromStorageList(std::move(r->items));
  if (!items.ok()) co_return items.TakeStatus();
  r->items = std::move(*items);
  co_return r;
}

Task<StatusOr<std::unique_ptr<WatchStream>>> ConvertingStore::Watch(const Context& ctx, const ListOptions& opts) {
  if (!watcher_) co_return NotSupported("watch");
  ListOptions inner_opts = opts;
  inner_opts.accept_serialized = false;  // events are converted one by one (see List)
  auto w = co_await watcher_->Watch(ctx, inner_opts);
  if (!w.ok()) co_return w.TakeStatus();
  co_return std::unique_ptr<WatchStream>(std::make_unique<ConvertingWatch>(std::move(*w), conv_, info_.ApiVersion()));
}

Task<StatusOr<Object>> ConvertingStore::Create(const Context& ctx, Object obj, const CreateOptions& opts) {
  if (!creater_) co_return NotSupported("create");
  auto stored = co_await conv_->ToStorage(std::move(obj));
  if (!stored.ok()) co_return stored.TakeStatus();
  auto r = co_await creater_->Create(ctx, std::move(*stored), opts);
  if (!r.ok()) co_return r.TakeStatus();
  co_return co_await conv_->FromStorage(std::move(*r));
}

Task<StatusOr<UpdateOutcome>> ConvertingStore::Update(const Context& ctx, const std::string& name,
                                                      ObjectTransform transform, const UpdateOptions& opts) {
  if (!updater_) co_return NotSupported("update");
  auto r = co_await updater_->Update(ctx, name, ConvertTransform(std::move(transform), conv_), opts);
  co_return co_await ConvertOutcome(*conv_, std::move(r));
}

Task<StatusOr<DeleteOutcome>> ConvertingStore::Delete(const Context& ctx, const std::string& name,
                                                      const DeleteOptions& opts) {
  if (!deleter_) co_return NotSupported("delete");
  auto r = co_await deleter_->Delete(ctx, name, opts);
  if (!r.ok()) co_return r.TakeStatus();
  auto obj = co_await FromStorageUnlessStatus(*conv_, std::move(r->object));
  if (!obj.ok()) co_return obj.TakeStatus();
  co_return DeleteOutcome{std::move(*obj), r->deleted};
}

Task<StatusOr<ObjectList>> ConvertingStore::DeleteCollection(const Context& ctx, const DeleteOptions& dopts,
                                                             const ListOptions& lopts) {
  if (!collection_deleter_) co_return NotSupported("deletecollection");
  auto r = co_await collection_deleter_->DeleteCollection(ctx, dopts, lopts);
  if (!r.ok()) co_return r.TakeStatus();
  for (auto& item : r->items) {
    auto c = co_await FromStorageUnlessStatus(*conv_, std::move(item));
    if (!c.ok()) co_return c.TakeStatus();
    item = std::move(*c);
  }
  co_return r;
}

std::vector<TableColumn> ConvertingStore::TableColumns() const {
  return table_ ? table_->TableColumns() : DefaultTableColumns();
}

boost::json::array ConvertingStore::TableCells(const Object& obj) const {
  // The columns are the wrapped storage's, so the cells come from it too: on the storage form when
  // the converter gives it at once, else (best effort) on the served object.
  if (!table_) return DefaultTableCells(obj);
  if (auto stored = conv_->ToStorageNow(obj)) return table_->TableCells(*stored);
  return table_->TableCells(obj);
}

std::optional<am::GroupVersionKind> ConvertingStore::StorageVersion() const {
  const auto* provider = dynamic_cast<const StorageVersionProvider*>(inner_.get());
  return provider ? provider->StorageVersion() : std::nullopt;
}

ConvertingSubresource::ConvertingSubresource(ResourceInfo info, std::shared_ptr<Storage> inner,
                                             std::shared_ptr<const VersionConverter> conv)
    : info_(std::move(info)), inner_(std::move(inner)), conv_(std::move(conv)) {
  getter_ = dynamic_cast<Getter*>(inner_.get());
  updater_ = dynamic_cast<Updater*>(inner_.get());
}

Task<StatusOr<Object>> ConvertingSubresource::Get(const Context& ctx, const std::string& name,
                                                  const GetOptions& opts) {
  if (!getter_) co_return am::NewMethodNotSupported(info_.GroupResource(), "get");
  auto r = co_await getter_->Get(ctx, name, opts);
  if (!r.ok()) co_return r.TakeStatus();
  co_return co_await conv_->FromStorage(std::move(*r));
}

Task<StatusOr<UpdateOutcome>> ConvertingSubresource::Update(const Context& ctx, const std::string& name,
                                                            ObjectTransform transform, const UpdateOptions& opts) {
  if (!updater_) co_return am::NewMethodNotSupported(info_.GroupResource(), "update");
  auto r = co_await updater_->Update(ctx, name, ConvertTransform(std::move(transform), conv_), opts);
  co_return co_await ConvertOutcome(*conv_, std::move(r));
}

std::shared_ptr<Storage> WrapConverting(ResourceInfo info, std::shared_ptr<Storage> inner,
                                        std::shared_ptr<const VersionConverter> conv) {
  if (dynamic_cast<Lister*>(inner.get()) || dynamic_cast<Creater*>(inner.get())) {
    return std::make_shared<ConvertingStore>(std::move(info), std::move(inner), std::move(conv));
  }
  return std::make_shared<ConvertingSubresource>(std::move(info), std::move(inner), std::move(conv));
}

}  // namespace capstan::registry
