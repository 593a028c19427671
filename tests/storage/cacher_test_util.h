// tests/storage/cacher_test_util.h: what the watch cache tests share: a Backend decorator that can hold
// the cache's storage watch and list calls (to make changes while the cache cannot see them), a store
// fixture on the embedded backend, and watch helpers that never hang.
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "storage/backend_object_store.h"
#include "storage/cacher/cacher.h"
#include "storage/cacher/cacher_metrics.h"
#include "storage/embedded/embedded_backend.h"

namespace capstan::storage::testing {

// Forwards to `inner`; Watch and Range can be held (the calling thread blocks until released).
class GateBackend : public Backend {
 public:
  explicit GateBackend(Backend& inner) : inner_(inner) {}

  void HoldWatches(bool hold) {
    std::lock_guard lock(mu_);
    hold_watch_ = hold;
    cv_.notify_all();
  }
  void HoldRanges(bool hold) {
    std::lock_guard lock(mu_);
    hold_range_ = hold;
    cv_.notify_all();
  }
  int watch_calls() const {
    std::lock_guard lock(mu_);
    return watch_calls_;
  }
  // Waits until a Watch call is blocked on the gate.
  bool WaitForHeldWatch(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return waiting_watch_ > 0; });
  }

  Task<StatusOr<RangeResponse>> Range(RangeRequest req) override {
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return !hold_range_; });
    }
    co_return co_await inner_.Range(std::move(req));
  }
  Task<StatusOr<TxnResponse>> Txn(TxnRequest req) override { return inner_.Txn(std::move(req)); }
  std::unique_ptr<WatchHandle> Watch(WatchRequest req, WatchCallback cb) override {
    {
      std::unique_lock lock(mu_);
      ++watch_calls_;
      ++waiting_watch_;
      cv_.notify_all();
      cv_.wait(lock, [&] { return !hold_watch_; });
      --waiting_watch_;
    }
    return inner_.Watch(std::move(req), std::move(cb));
  }
  Task<Status> Compact(int64_t revision) override { return inner_.Compact(revision); }
  Task<StatusOr<LeaseGrantResponse>> LeaseGrant(int64_t ttl) override { return inner_.LeaseGrant(ttl); }
  Task<Status> LeaseRevoke(int64_t id) override { return inner_.LeaseRevoke(id); }
  Task<StatusOr<int64_t>> LeaseKeepAlive(int64_t id) override { return inner_.LeaseKeepAlive(id); }
  Task<StatusOr<BackendStatus>> GetStatus() override { return inner_.GetStatus(); }
  Task<Status> Check() override { return inner_.Check(); }

 private:
  Backend& inner_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool hold_watch_ = false;
  bool hold_range_ = false;
  int watch_calls_ = 0;
  int waiting_watch_ = 0;
};

// The next batch of a watch, or nullopt when none came within `timeout` (the watch is then stopped).
inline std::optional<std::vector<ObjectEvent>> NextWithin(ObjectWatch& w,
                                                          std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    std::vector<ObjectEvent> events;
  };
  auto st = std::make_shared<State>();
  std::thread t([&w, st] {
    auto ev = SyncWait(w.Next());
    std::lock_guard lock(st->mu);
    st->events = std::move(ev);
    st->done = true;
    st->cv.notify_all();
  });
  bool got;
  {
    std::unique_lock lock(st->mu);
    got = st->cv.wait_for(lock, timeout, [&] { return st->done; });
  }
  if (!got) w.Stop();
  t.join();
  if (!got) return std::nullopt;
  return std::move(st->events);
}

// Reads events until `n` arrived (or the watch ended / the timeout passed).
inline std::vector<ObjectEvent> CollectEvents(ObjectWatch& w, size_t n,
                                              std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  std::vector<ObjectEvent> out;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (out.size() < n) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    auto batch = NextWithin(w, left);
    if (!batch || batch->empty()) break;
    for (auto& e : *batch) out.push_back(std::move(e));
  }
  return out;
}

// The object an event carries, parsed from its shared JSON when it has one.
inline Object EventObject(const ObjectEvent& e) {
  if (e.serialized) return boost::json::parse(*e.serialized).as_object();
  return e.object;
}

inline std::string TypeName(ObjectEvent::Type t) {
  switch (t) {
    case ObjectEvent::Type::kAdded: return "ADDED";
    case ObjectEvent::Type::kModified: return "MODIFIED";
    case ObjectEvent::Type::kDeleted: return "DELETED";
    case ObjectEvent::Type::kBookmark: return "BOOKMARK";
    case ObjectEvent::Type::kError: return "ERROR";
  }
  return "?";
}

inline std::string NameOf(const Object& o) {
  const auto* md = o.if_contains("metadata");
  if (!md || !md->is_object()) return "";
  const auto* n = md->as_object().if_contains("name");
  return n && n->is_string() ? std::string(n->as_string()) : "";
}

inline std::string RvOf(const Object& o) {
  const auto* md = o.if_contains("metadata");
  if (!md || !md->is_object()) return "";
  const auto* n = md->as_object().if_contains("resourceVersion");
  return n && n->is_string() ? std::string(n->as_string()) : "";
}

// "TYPE name@rv" for each event (bookmarks: "BOOKMARK @rv").
inline std::vector<std::string> Describe(const std::vector<ObjectEvent>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) {
    if (e.type == ObjectEvent::Type::kError) {
      out.push_back("ERROR " + std::to_string(e.error.code()) + " " + e.error.message());
      continue;
    }
    Object o = EventObject(e);
    out.push_back(TypeName(e.type) + " " + NameOf(o) + "@" + RvOf(o));
  }
  return out;
}

inline Object MakeConfigMap(const std::string& ns, const std::string& name, const std::string& value,
                            const std::string& tier = "a") {
  Object o;
  o["apiVersion"] = "v1";
  o["kind"] = "ConfigMap";
  boost::json::object md;
  md["name"] = name;
  md["namespace"] = ns;
  md["uid"] = "uid-" + name;
  boost::json::object labels;
  labels["tier"] = tier;
  md["labels"] = std::move(labels);
  o["metadata"] = std::move(md);
  boost::json::object data;
  data["k"] = value;
  o["data"] = std::move(data);
  return o;
}

// An embedded store in a temp dir, the uncached store over it, and a gate for the cache's reads.
class StoreFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("capstan-cacher-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    EmbeddedOptions opts;
    opts.dir = dir_.string();
    auto b = OpenEmbeddedBackend(opts);
    ASSERT_TRUE(b.ok()) << b.status().message();
    backend_ = std::move(*b);
    store_ = std::make_unique<BackendObjectStore>(*backend_);
    gate_ = std::make_unique<GateBackend>(*backend_);
  }
  void TearDown() override {
    if (gate_) {
      gate_->HoldWatches(false);
      gate_->HoldRanges(false);
    }
    caches_.clear();
    store_.reset();
    gate_.reset();
    backend_.reset();
    std::filesystem::remove_all(dir_);
  }

  CacherConfig Config() {
    CacherConfig c;
    c.resource_prefix = "/registry/configmaps";
    c.resource = "configmaps";
    c.storage = store_.get();
    c.backend = gate_.get();
    c.decode = [s = store_.get()](std::string_view v, const std::string& k, int64_t rev) { return s->Decode(v, k, rev); };
    return c;
  }
  Cacher& MakeCacher(CacherConfig c) {
    caches_.push_back(std::make_unique<Cacher>(std::move(c)));
    EXPECT_TRUE(caches_.back()->WaitReady(std::chrono::seconds(20)));
    return *caches_.back();
  }
  Cacher& MakeCacher() { return MakeCacher(Config()); }

  static std::string Key(const std::string& ns, const std::string& name) {
    return "/registry/configmaps/" + ns + "/" + name;
  }
  Object Create(const std::string& ns, const std::string& name, const std::string& value = "v",
                const std::string& tier = "a") {
    auto r = SyncWait(store_->Create(Key(ns, name), MakeConfigMap(ns, name, value, tier), 0));
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : Object();
  }
  Object Update(const std::string& ns, const std::string& name, const std::string& value,
                std::optional<std::string> tier = std::nullopt) {
    auto r = SyncWait(store_->GuaranteedUpdate(Key(ns, name), {}, false,
                                               [&](const Object* e) -> Task<StatusOr<UpdateResult>> {
                                                 Object n = *e;
                                                 n["data"].as_object()["k"] = value;
                                                 if (tier) n["metadata"].as_object()["labels"].as_object()["tier"] = *tier;
                                                 co_return UpdateResult{n, 0};
                                               }));
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : Object();
  }
  Object Delete(const std::string& ns, const std::string& name) {
    auto r = SyncWait(store_->Delete(Key(ns, name), {}, nullptr));
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : Object();
  }
  int64_t Revision() { return *SyncWait(store_->CurrentRevision()); }

  std::filesystem::path dir_;
  MetricsRegistry registry_;
  CacherMetrics metrics_{registry_};  // outlives the caches (they are cleared in TearDown)
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<BackendObjectStore> store_;
  std::unique_ptr<GateBackend> gate_;
  std::vector<std::unique_ptr<Cacher>> caches_;
};

}  // namespace capstan::storage::testing
