// registry/store.cpp: the generic Store's reads and creates, and what every verb shares (keys,
// predicates, error translation, admission). Updates and deletes are in store_write.cpp.
#include "registry/store.h"

#include <boost/json.hpp>

#include "apimachinery/errors.h"
#include "apimachinery/go_normalize.h"
#include "apimachinery/labels.h"
#include "apimachinery/names.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/status_json.h"
#include "apimachinery/time_util.h"
#include "registry/field_tracking.h"
#include "util/strings.h"

namespace capstan::registry {

namespace am = capstan::apimachinery;
namespace json = boost::json;

void Store::Normalize(Object& obj) const {
  if (!c_.normalize_as_go || !c_.schema) return;
  json::value v(std::move(obj));
  am::NormalizeAsGo(v, c_.schema);
  obj = std::move(v.get_object());
}

std::string Store::Now() const { return am::FormatRfc3339(am::Timestamp::FromTimePoint(c_.clock->Now())); }

StatusOr<std::string> Store::KeyFor(const Context& ctx, const std::string& name) const {
  if (name.empty()) return am::NewBadRequest("Name parameter required.");
  if (auto problems = am::IsPathSegmentName(name); !problems.empty()) {
    return am::NewBadRequest("Name parameter invalid: " + GoQuote(name) + ": " + Join(problems, ";"));
  }
  if (c_.strategy->NamespaceScoped()) {
    if (ctx.namespace_.empty()) return am::NewBadRequest("Namespace parameter required.");
    if (auto problems = am::IsPathSegmentName(ctx.namespace_); !problems.empty()) {
      return am::NewBadRequest("Namespace parameter invalid: " + GoQuote(ctx.namespace_) + ": " + Join(problems, ";"));
    }
    return c_.key_root + "/" + ctx.namespace_ + "/" + name;
  }
  return c_.key_root + "/" + name;
}

std::optional<am::GroupVersionKind> Store::StorageVersion() const {
  if (!c_.info.subresource.empty()) return std::nullopt;
  return am::GroupVersionKind{c_.info.group, c_.info.version, c_.info.kind};
}

std::string Store::ListKey(const Context& ctx) const {
  if (c_.strategy->NamespaceScoped() && !ctx.namespace_.empty()) return c_.key_root + "/" + ctx.namespace_;
  return c_.key_root;
}

StatusOr<storage::Predicate> Store::PredicateFor(const ListOptions& opts, bool* empty,
                                                 std::shared_ptr<const storage::Selection>* selection) const {
  auto labels = am::ParseLabelSelector(opts.label_selector);
  if (!labels.ok()) return labels.TakeStatus();
  auto fields = am::ParseFieldSelector(opts.field_selector);
  if (!fields.ok()) return fields.TakeStatus();
  std::vector<std::string> supported = c_.strategy->SelectableFieldNames();
  const Strategy* st = c_.strategy;
  if (Status bad = am::CheckFieldSelectorFields(*fields, supported,
                                                [st](std::string_view f) { return st->UnsupportedFieldLabelMessage(f); });
      !bad.ok()) {
    return bad;
  }
  *empty = labels->Empty() && fields->Empty();
  if (*empty) return storage::Predicate();
  if (selection) *selection = std::make_shared<const storage::Selection>(storage::Selection{*labels, *fields});
  const Strategy* strategy = c_.strategy;
  return storage::Predicate([l = std::move(*labels), f = std::move(*fields), strategy](const Object& obj) {
    if (!l.MatchesObject(obj)) return false;
    if (f.Empty()) return true;
    return f.Matches(strategy->SelectableFields(obj));
  });
}

Status Store::Translate(const Status& st, const std::string& name, const char* verb) const {
  const am::GroupResource gr = c_.info.GroupResource();
  switch (st.storage_code()) {
    case StorageCode::kNone:
      return st;
    case StorageCode::kKeyNotFound:
      return am::NewNotFound(gr, name);
    case StorageCode::kKeyExists:
      return am::NewAlreadyExists(gr, name);
    case StorageCode::kConflict:
      return am::NewConflict(gr, name, st.message());
    case StorageCode::kUnavailable:
      return am::NewServerTimeout(gr, verb, 2);
    case StorageCode::kTooLarge:
      return Status(413, "RequestEntityTooLarge", "etcdserver: request is too large");
    case StorageCode::kCompacted:
      return am::NewResourceExpired("The resourceVersion for the provided request is too old.");
    case StorageCode::kQuotaExceeded:
      return am::NewInternalError("etcdserver: mvcc: database space exceeded");
    default:
      return am::NewInternalError(st.message());
  }
}

Task<Status> Store::AdmitMutating(const Context& ctx, const std::string& op, Object& obj, const Object* old,
                                  const std::string& name) const {
  if (!c_.admission) co_return Status();
  AdmissionAttributes a = AttributesFor(ctx, op, c_.info, name);
  a.object = &obj;
  a.old_object = old;
  co_return co_await c_.admission->Admit(a);
}

Task<Status> Store::AdmitValidating(const Context& ctx, const std::string& op, Object& obj, const Object* old,
                                    const std::string& name) const {
  if (!c_.admission) co_return Status();
  AdmissionAttributes a = AttributesFor(ctx, op, c_.info, name);
  a.object = &obj;
  a.old_object = old;
  co_return co_await c_.admission->Validate(a);
}

Status Store::BeforeCreate(const Context& ctx, Object& obj) const {
  const Strategy& s = *c_.strategy;
  if (s.NamespaceScoped()) {
    std::string_view ns = am::GetNamespace(obj);
    if (ns.empty()) {
      am::SetNamespace(obj, ctx.namespace_);
    } else if (ns != ctx.namespace_) {
      return am::NewBadRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
  } else if (!am::GetNamespace(obj).empty()) {
    am::SetNamespace(obj, "");
  }
  am::SetDeletionTimestamp(obj, std::nullopt);
  am::SetDeletionGracePeriodSeconds(obj, std::nullopt);
  s.PrepareForCreate(ctx, obj);
  if (am::GetName(obj).empty() && !am::GetGenerateName(obj).empty()) {
    am::SetName(obj, am::GenerateName(am::GetGenerateName(obj)));
  }
  am::SetUid(obj, am::NewUid());
  am::SetCreationTimestamp(obj, Now());
  ErrorList errs = am::ValidateObjectMeta(obj, s.NamespaceScoped(), s.NameValidator());
  ErrorList more = s.Validate(ctx, obj);
  errs.insert(errs.end(), more.begin(), more.end());
  if (!errs.empty()) return am::NewInvalid(c_.info.GroupKind(), am::GetName(obj), errs);
  for (auto& w : s.WarningsOnCreate(ctx, obj)) ctx.Warn(std::move(w));
  s.Canonicalize(obj);
  Normalize(obj);
  return Status();
}

Task<StatusOr<Object>> Store::Get(const Context& ctx, const std::string& name, const GetOptions& opts) {
  auto key = KeyFor(ctx, name);
  if (!key.ok()) co_return key.TakeStatus();
  storage::GetOptions g;
  g.resource_version = opts.resource_version;
  auto r = co_await c_.storage->Get(*key, g);
  if (!r.ok()) co_return Translate(r.status(), name, "get");
  co_return r;
}

Task<StatusOr<ObjectList>> Store::List(const Context& ctx, const ListOptions& opts) {
  bool empty = true;
  std::shared_ptr<const storage::Selection> selection;
  auto pred = PredicateFor(opts, &empty, &selection);
  if (!pred.ok()) co_return pred.TakeStatus();
  storage::ListOptions lo;
  lo.selection = std::move(selection);
  lo.accept_serialized = opts.accept_serialized;
  lo.resource_version = opts.resource_version;
  if (opts.resource_version_match == "NotOlderThan") lo.match = storage::ResourceVersionMatch::kNotOlderThan;
  if (opts.resource_version_match == "Exact") lo.match = storage::ResourceVersionMatch::kExact;
  lo.predicate = std::move(*pred);
  lo.predicate_empty = empty;
  lo.limit = opts.limit;
  lo.continue_token = opts.continue_token;
  auto r = co_await c_.storage->GetList(ListKey(ctx), lo);
  if (!r.ok()) co_return Translate(r.status(), "", "list");
  ObjectList out;
  out.items = std::move(r->items);
  out.serialized_items = std::move(r->serialized);
  out.resource_version = std::to_string(r->revision);
  out.continue_token = std::move(r->continue_token);
  out.remaining_item_count = r->remaining_item_count;
  co_return out;
}

namespace {

// Registry watch events from storage events: kind/apiVersion on bookmarks, Status objects on errors.
class StoreWatch : public WatchStream {
 public:
  StoreWatch(std::unique_ptr<storage::ObjectWatch> w, const ResourceInfo& info) : w_(std::move(w)), info_(info) {}
  ~StoreWatch() override { w_->Stop(); }

  Task<std::vector<WatchEvent>> Next() override {
    auto batch = co_await w_->Next();
    std::vector<WatchEvent> out;
    out.reserve(batch.size());
    for (auto& e : batch) {
      WatchEvent we;
      switch (e.type) {
        case storage::ObjectEvent::Type::kAdded: we.type = "ADDED"; break;
        case storage::ObjectEvent::Type::kModified: we.type = "MODIFIED"; break;
        case storage::ObjectEvent::Type::kDeleted: we.type = "DELETED"; break;
        case storage::ObjectEvent::Type::kBookmark: we.type = "BOOKMARK"; break;
        case storage::ObjectEvent::Type::kError: we.type = "ERROR"; break;
      }
      if (e.type == storage::ObjectEvent::Type::kError) {
        we.object = am::StatusToJson(e.error);
      } else if (e.type == storage::ObjectEvent::Type::kBookmark) {
        we.object["kind"] = info_.kind;
        we.object["apiVersion"] = info_.ApiVersion();
        we.object["metadata"] = std::move(e.object["metadata"]);
      } else if (e.serialized) {
        we.json = std::move(e.serialized);
        we.encodings = std::move(e.encodings);
      } else {
        we.object = std::move(e.object);
      }
      out.push_back(std::move(we));
    }
    co_return out;
  }
  void Stop() override { w_->Stop(); }

 private:
  std::unique_ptr<storage::ObjectWatch> w_;
  const ResourceInfo& info_;
};

}  // namespace

Task<StatusOr<std::unique_ptr<WatchStream>>> Store::Watch(const Context& ctx, const ListOptions& opts) {
  bool empty = true;
  std::shared_ptr<const storage::Selection> selection;
  auto pred = PredicateFor(opts, &empty, &selection);
  if (!pred.ok()) co_return pred.TakeStatus();
  storage::WatchOptions wo;
  wo.resource_version = opts.resource_version;
  wo.predicate = std::move(*pred);
  wo.progress_notify = opts.allow_watch_bookmarks;
  wo.selection = std::move(selection);
  wo.accept_serialized = opts.accept_serialized;
  wo.send_initial_events = opts.send_initial_events;
  if (opts.timeout_seconds && *opts.timeout_seconds > 0) wo.timeout = std::chrono::seconds(*opts.timeout_seconds);
  auto w = c_.storage->Watch(ListKey(ctx), wo);
  if (!w.ok()) co_return Translate(w.status(), "", "watch");
  co_return std::unique_ptr<WatchStream>(std::make_unique<StoreWatch>(std::move(*w), c_.info));
}

Task<StatusOr<Object>> Store::Create(const Context& ctx, Object obj, const CreateOptions& opts) {
  std::string requested_name(am::GetName(obj));
  CO_RETURN_IF_ERROR(co_await AdmitMutating(ctx, "CREATE", obj, nullptr, requested_name));
  const bool generated = requested_name.empty() && !am::GetGenerateName(obj).empty();
  // A generated name that collides is retried with a fresh suffix, as kube does.
  constexpr int kGenerateNameAttempts = 8;
  for (int attempt = 0;; ++attempt) {
    Object candidate = obj;
    CO_RETURN_IF_ERROR(BeforeCreate(ctx, candidate));
    TrackManagedFields(c_, ctx, nullptr, candidate, Now());
    std::string name(am::GetName(candidate));
    auto key = KeyFor(ctx, name);
    if (!key.ok()) co_return key.TakeStatus();
    CO_RETURN_IF_ERROR(co_await AdmitValidating(ctx, "CREATE", candidate, nullptr, name));
    if (ctx.dry_run || opts.dry_run) {
      // Nothing is written; a dry-run create of an existing name still conflicts.
      storage::GetOptions g;
      g.ignore_not_found = true;
      auto existing = co_await c_.storage->Get(*key, g);
      if (existing.ok() && !existing->empty()) co_return am::NewAlreadyExists(c_.info.GroupResource(), name);
      co_return candidate;
    }
    auto r = co_await c_.storage->Create(*key, std::move(candidate), c_.strategy->TTLSeconds(obj));
    if (r.ok()) co_return r;
    if (generated && r.status().IsStorage(StorageCode::kKeyExists) && attempt + 1 < kGenerateNameAttempts) continue;
    if (generated && r.status().IsStorage(StorageCode::kKeyExists)) {
      co_return am::NewGenerateNameConflict(c_.info.GroupResource(), name, 1);
    }
    co_return Translate(r.status(), name, "create");
  }
}

}  // namespace capstan::registry
