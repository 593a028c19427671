#include "controllers/informer.h"

#include <algorithm>
#include <boost/json.hpp>

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "util/log.h"

namespace capstan::controllers {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {
constexpr auto kInitialBackoff = std::chrono::milliseconds(800);
constexpr auto kMaxBackoff = std::chrono::seconds(30);
}  // namespace

Informer::Informer(ApiClient& client, RunScope& scope, InformerOptions opts)
    : client_(client), scope_(scope), opts_(std::move(opts)) {}

Informer::~Informer() = default;

size_t Informer::AddHandler(EventHandler h) {
  if (synced_ && h.on_add) {
    for (const auto& [key, obj] : cache_) h.on_add(obj);
  }
  handlers_.push_back(std::move(h));
  return handlers_.size() - 1;
}

void Informer::RemoveHandler(size_t id) {
  // Emptied in place (not erased): ids stay valid, and a dispatch in progress skips it.
  if (id < handlers_.size()) handlers_[id] = EventHandler{};
}

void Informer::Run() {
  if (running_) return;
  running_ = true;
  scope_.Spawn(Loop());
}

void Informer::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (watch_) watch_->Stop();
  // Waiters for a sync that will not come are released.
  auto waiters = std::move(sync_waiters_);
  sync_waiters_.clear();
  for (auto& [h, out] : waiters) {
    *out = false;
    scope_.executor().Post([h = h] { h.resume(); });
  }
}

std::string Informer::KeyOf(const Object& obj) {
  std::string_view ns = am::GetNamespace(obj);
  std::string_view name = am::GetName(obj);
  if (ns.empty()) return std::string(name);
  std::string k;
  k.reserve(ns.size() + name.size() + 1);
  k.append(ns).append("/").append(name);
  return k;
}

const Object* Informer::Get(const std::string& ns, const std::string& name) const {
  auto it = cache_.find(ns.empty() ? name : ns + "/" + name);
  return it == cache_.end() ? nullptr : &it->second;
}

Object Informer::Prepare(Object obj) const {
  if (opts_.metadata_only) {
    Object slim;
    if (auto* md = obj.if_contains("metadata"); md && md->is_object()) {
      json::object m = std::move(md->get_object());
      m.erase("managedFields");
      slim["metadata"] = std::move(m);
    }
    obj = std::move(slim);
  }
  if (!opts_.kind.empty()) am::SetApiVersionAndKind(obj, opts_.api_version, opts_.kind);
  return obj;
}

void Informer::NotifySynced() {
  if (synced_) return;
  synced_ = true;
  auto waiters = std::move(sync_waiters_);
  sync_waiters_.clear();
  for (auto& [h, out] : waiters) {
    *out = true;
    scope_.executor().Post([h = h] { h.resume(); });
  }
}

Task<bool> Informer::WaitForSync() {
  if (synced_) co_return true;
  if (stopped_) co_return false;
  struct Awaiter {
    Informer& inf;
    bool result = false;
    bool await_ready() { return false; }
    void await_suspend(std::coroutine_handle<> h) { inf.sync_waiters_.emplace_back(h, &result); }
    bool await_resume() { return result; }
  };
  co_return co_await Awaiter{*this};
}

Task<Status> Informer::ListAndReplace() {
  registry::ListOptions lo;
  lo.field_selector = opts_.field_selector;
  lo.label_selector = opts_.label_selector;
  auto list = co_await client_.ListAll(opts_.gvr, opts_.namespace_, lo);
  if (!list.ok()) co_return list.TakeStatus();
  if (stopped_) co_return Status();
  ++relists_;
  std::map<std::string, Object> next;
  for (auto& item : list->items) {
    Object obj = Prepare(std::move(item));
    std::string key = KeyOf(obj);
    next.emplace(std::move(key), std::move(obj));
  }
  std::map<std::string, Object> previous = std::move(cache_);
  cache_ = std::move(next);
  resource_version_ = list->resource_version;
  // Reconcile: adds and updates in key order, then the deletions of what vanished.
  for (const auto& [key, obj] : cache_) {
    auto old = previous.find(key);
    if (old == previous.end()) {
      for (auto& h : handlers_) {
        if (h.on_add) h.on_add(obj);
      }
    } else {
      if (am::GetResourceVersion(old->second) != am::GetResourceVersion(obj) ||
          am::GetUid(old->second) != am::GetUid(obj)) {
        for (auto& h : handlers_) {
          if (h.on_update) h.on_update(old->second, obj);
        }
      }
      previous.erase(old);
    }
  }
  for (const auto& [key, obj] : previous) {
    for (auto& h : handlers_) {
      if (h.on_delete) h.on_delete(obj);
    }
  }
  NotifySynced();
  co_return Status();
}

bool Informer::Apply(registry::WatchEvent& e, Status* error) {
  if (e.type == "ERROR") {
    int code = static_cast<int>(e.object.contains("code") && e.object["code"].is_int64() ? e.object["code"].get_int64() : 500);
    *error = Status(code, JsonString(e.object, {"reason"}), JsonString(e.object, {"message"}));
    return false;
  }
  if (e.type == "BOOKMARK") {
    std::string rv(am::GetResourceVersion(e.object));
    if (!rv.empty()) resource_version_ = std::move(rv);
    return true;
  }
  Object obj = Prepare(std::move(e.object));
  std::string rv(am::GetResourceVersion(obj));
  std::string key = KeyOf(obj);
  if (e.type == "DELETED") {
    auto it = cache_.find(key);
    if (it != cache_.end()) cache_.erase(it);
    for (auto& h : handlers_) {
      if (h.on_delete) h.on_delete(obj);
    }
  } else {
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      auto [ins, ok] = cache_.emplace(key, std::move(obj));
      for (auto& h : handlers_) {
        if (h.on_add) h.on_add(ins->second);
      }
    } else {
      Object old = std::move(it->second);
      it->second = std::move(obj);
      for (auto& h : handlers_) {
        if (h.on_update) h.on_update(old, it->second);
      }
    }
  }
  if (!rv.empty()) resource_version_ = std::move(rv);
  return true;
}

Task<void> Informer::Loop() {
  auto backoff = std::chrono::duration_cast<std::chrono::steady_clock::duration>(kInitialBackoff);
  auto next_backoff = [&backoff] {
    auto d = backoff;
    backoff = std::min<std::chrono::steady_clock::duration>(backoff * 2, kMaxBackoff);
    return d;
  };
  bool need_list = true;
  int quick_ends = 0;
  while (!stopped_ && !scope_.stopped()) {
    if (need_list) {
      Status st = co_await ListAndReplace();
      if (stopped_ || scope_.stopped()) break;
      if (!st.ok()) {
        LogWarn("informer: list failed", {{"resource", opts_.gvr.String()}, {"error", st.message()}});
        if (!co_await scope_.Sleep(next_backoff())) break;
        continue;
      }
      need_list = false;
    }
    registry::ListOptions wo;
    wo.watch = true;
    wo.allow_watch_bookmarks = true;
    wo.resource_version = resource_version_;
    wo.field_selector = opts_.field_selector;
    wo.label_selector = opts_.label_selector;
    auto w = co_await client_.Watch(opts_.gvr, opts_.namespace_, wo);
    if (stopped_ || scope_.stopped()) break;
    if (!w.ok()) {
      need_list = true;
      if (am::IsGone(w.status()) || am::IsResourceExpired(w.status())) continue;
      LogWarn("informer: watch failed", {{"resource", opts_.gvr.String()}, {"error", w.status().message()}});
      if (!co_await scope_.Sleep(next_backoff())) break;
      continue;
    }
    std::unique_ptr<registry::WatchStream> stream = std::move(*w);
    watch_ = stream.get();
    Status error;
    bool relist = false;
    size_t delivered = 0;
    for (;;) {
      auto events = co_await stream->Next();
      if (events.empty() || stopped_) break;
      for (auto& e : events) {
        ++delivered;
        if (!Apply(e, &error)) {
          relist = true;
          break;
        }
      }
      if (relist) break;
    }
    watch_ = nullptr;
    stream.reset();
    if (stopped_ || scope_.stopped()) break;
    if (relist) {
      need_list = true;
      if (error.code() == 410) continue;  // compacted: re-list at once, as kube's reflector does
      LogWarn("informer: watch error", {{"resource", opts_.gvr.String()}, {"error", error.message()}});
      if (!co_await scope_.Sleep(next_backoff())) break;
      continue;
    }
    // The watch ended cleanly: re-open it from where it stopped, pausing if it keeps ending at once.
    backoff = kInitialBackoff;
    quick_ends = delivered == 0 ? quick_ends + 1 : 0;
    if (quick_ends > 1 && !co_await scope_.Sleep(std::chrono::seconds(1))) break;
  }
  // Anyone still waiting for a sync that never came is released.
  if (!synced_) Stop();
}

}  // namespace capstan::controllers
