// A randomized run of the watch cache: concurrent writers, watchers with different selectors and
// clients that list and watch again and again, while the cache's storage watch fails and resumes.
// Every watcher must see exactly the events its selector implies from the store's own history (one
// per change, in order, none lost or repeated), and every list must equal the store's state at its
// resourceVersion.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "storage/cacher_test_util.h"

namespace capstan::storage {
namespace {

namespace json = boost::json;
using testing::Describe;
using testing::EventObject;
using testing::NameOf;
using testing::NextWithin;
using testing::RvOf;

// One change from the store's history.
struct Change {
  int64_t revision = 0;
  std::string ns, name;
  bool deleted = false;
  std::optional<std::string> tier;       // after (null when deleted)
  std::optional<std::string> prev_tier;  // before (null when it did not exist)
};

// What a watcher selects, evaluated on the history.
struct Filter {
  std::string ns;                 // "" all
  std::optional<std::string> tier_eq, tier_ne, name;
  std::shared_ptr<const Selection> Selection_() const {
    auto s = std::make_shared<Selection>();
    std::vector<std::string> l, f;
    if (tier_eq) l.push_back("tier=" + *tier_eq);
    if (tier_ne) l.push_back("tier!=" + *tier_ne);
    if (name) f.push_back("metadata.name=" + *name);
    std::string ls, fs;
    for (auto& x : l) ls += (ls.empty() ? "" : ",") + x;
    for (auto& x : f) fs += (fs.empty() ? "" : ",") + x;
    s->labels = *apimachinery::ParseLabelSelector(ls);
    s->fields = *apimachinery::ParseFieldSelector(fs);
    return s;
  }
  bool Matches(const std::string& obj_ns, const std::string& obj_name, const std::string& tier) const {
    if (!ns.empty() && obj_ns != ns) return false;
    if (tier_eq && tier != *tier_eq) return false;
    if (tier_ne && tier == *tier_ne) return false;
    if (name && obj_name != *name) return false;
    return true;
  }
  std::string Key() const { return ns.empty() ? "/registry/configmaps" : "/registry/configmaps/" + ns; }
};

std::vector<std::string> Expected(const std::vector<Change>& history, const Filter& f, int64_t after, int64_t upto) {
  std::vector<std::string> out;
  for (const auto& c : history) {
    if (c.revision <= after || c.revision > upto) continue;
    bool old = c.prev_tier && f.Matches(c.ns, c.name, *c.prev_tier);
    bool cur = !c.deleted && f.Matches(c.ns, c.name, *c.tier);
    if (!old && !cur) continue;
    std::string type = cur ? (old ? "MODIFIED" : "ADDED") : "DELETED";
    out.push_back(type + " " + c.name + "@" + std::to_string(c.revision));
  }
  return out;
}

std::string TierOf(const std::string& value) {
  auto v = json::parse(value);
  return std::string(v.at("metadata").at("labels").at("tier").as_string());
}

class CacherRandomTest : public testing::StoreFixture {};

TEST_F(CacherRandomTest, EveryWatcherSeesExactlyWhatItsSelectorImplies) {
  // The store's own history, from a raw watch with previous values.
  std::mutex hist_mu;
  std::vector<Change> history;
  WatchRequest raw;
  raw.key = "/registry/configmaps/";
  raw.range_end = PrefixEnd(raw.key);
  raw.start_revision = Revision() + 1;
  raw.prev_kv = true;
  auto recorder = backend_->Watch(raw, [&](WatchResponse r) {
    std::lock_guard lock(hist_mu);
    for (auto& e : r.events) {
      Change c;
      c.revision = e.kv.mod_revision;
      std::string rest = e.kv.key.substr(raw.key.size());
      c.ns = rest.substr(0, rest.find('/'));
      c.name = rest.substr(rest.find('/') + 1);
      c.deleted = e.type == WatchEvent::Type::kDelete;
      if (!c.deleted) c.tier = TierOf(e.kv.value);
      if (e.prev_kv) c.prev_tier = TierOf(e.prev_kv->value);
      history.push_back(std::move(c));
    }
  });

  CacherConfig cfg = Config();
  cfg.max_pending_events = 1 << 20;
  cfg.capacity = 4096;
  Cacher& cache = MakeCacher(std::move(cfg));
  const int64_t start = Revision();

  std::vector<Filter> filters(6);
  filters[1].tier_eq = "a";
  filters[2].tier_ne = "b";
  filters[3].ns = "ns0";
  filters[4].name = "o3";
  filters[5].ns = "ns1";
  filters[5].tier_eq = "c";

  std::atomic<bool> writers_done{false};
  std::atomic<int64_t> final_rev{0};
  std::mutex seen_mu;
  std::vector<std::vector<std::string>> seen(filters.size());
  std::vector<std::unique_ptr<ObjectWatch>> watches;
  for (size_t i = 0; i < filters.size(); ++i) {
    WatchOptions wo;
    wo.resource_version = std::to_string(start);
    wo.selection = filters[i].Selection_();
    wo.accept_serialized = i % 2 == 0;
    auto w = cache.Watch(filters[i].Key(), wo);
    ASSERT_TRUE(w.ok());
    watches.push_back(std::move(*w));
  }
  std::vector<std::thread> threads;
  for (size_t i = 0; i < filters.size(); ++i) {
    threads.emplace_back([&, i] {
      while (true) {
        auto batch = SyncWait(watches[i]->Next());
        if (batch.empty()) break;
        auto d = Describe(batch);
        std::lock_guard lock(seen_mu);
        seen[i].insert(seen[i].end(), d.begin(), d.end());
      }
    });
  }

  // Clients that list, watch a while, and list again.
  std::atomic<int> cycles{0};
  std::vector<std::string> relist_failures;
  std::mutex fail_mu;
  for (int c = 0; c < 2; ++c) {
    threads.emplace_back([&, c] {
      std::mt19937 rng(1000 + c);
      Filter f;
      if (c == 1) f.tier_eq = "a";
      while (!writers_done) {
        ListOptions lo;
        lo.selection = f.Selection_();
        lo.predicate = [f](const Object& o) {
          return f.Matches("", NameOf(o), std::string(o.at("metadata").at("labels").at("tier").as_string()));
        };
        lo.predicate_empty = !f.tier_eq;
        auto list = SyncWait(cache.GetList(f.Key(), lo));
        if (!list.ok()) {
          std::lock_guard lock(fail_mu);
          relist_failures.push_back("list: " + list.status().message());
          return;
        }
        WatchOptions wo;
        wo.resource_version = std::to_string(list->revision);
        wo.selection = lo.selection;
        auto w = cache.Watch(f.Key(), wo);
        std::vector<std::string> got;
        int batches = std::uniform_int_distribution<int>(1, 5)(rng);
        for (int b = 0; b < batches; ++b) {
          auto batch = NextWithin(**w, std::chrono::milliseconds(300));
          if (!batch) break;
          for (auto& d : Describe(*batch)) got.push_back(d);
        }
        (*w)->Stop();
        // The list is the state at its revision; the events follow it exactly.
        int64_t upto = list->revision;
        for (const auto& d : got) upto = std::max<int64_t>(upto, std::stoll(d.substr(d.rfind('@') + 1)));
        std::map<std::string, std::pair<std::string, int64_t>> state;  // ns/name -> tier, rev
        std::vector<Change> hist;
        for (int tries = 0; tries < 2000; ++tries) {
          {
            std::lock_guard lock(hist_mu);
            if (upto <= start || (!history.empty() && history.back().revision >= upto)) {
              hist = history;
              break;
            }
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        for (const auto& ch : hist) {
          if (ch.revision > list->revision) break;
          if (ch.deleted) {
            state.erase(ch.ns + "/" + ch.name);
          } else {
            state[ch.ns + "/" + ch.name] = {*ch.tier, ch.revision};
          }
        }
        std::vector<std::string> want_list, got_list;
        for (const auto& [k, v] : state) {
          if (f.Matches(k.substr(0, k.find('/')), k.substr(k.find('/') + 1), v.first)) {
            want_list.push_back(k.substr(k.find('/') + 1) + "@" + std::to_string(v.second));
          }
        }
        for (const auto& item : list->items) got_list.push_back(NameOf(item) + "@" + RvOf(item));
        std::sort(want_list.begin(), want_list.end());
        std::sort(got_list.begin(), got_list.end());
        auto want_events = Expected(hist, f, list->revision, INT64_MAX);
        if (got.size() <= want_events.size()) want_events.resize(got.size());
        if (want_list != got_list || want_events != got) {
          std::lock_guard lock(fail_mu);
          relist_failures.push_back("cycle at " + std::to_string(list->revision));
        }
        ++cycles;
      }
    });
  }

  // Writers.
  std::vector<std::thread> writers;
  for (int wi = 0; wi < 4; ++wi) {
    writers.emplace_back([&, wi] {
      std::mt19937 rng(wi);
      const char* tiers[] = {"a", "b", "c"};
      for (int op = 0; op < 150; ++op) {
        std::string ns = "ns" + std::to_string(rng() % 2);
        std::string name = "o" + std::to_string(rng() % 12);
        std::string tier = tiers[rng() % 3];
        int what = static_cast<int>(rng() % 4);
        std::string key = Key(ns, name);
        if (what == 0) {
          (void)SyncWait(store_->Delete(key, {}, nullptr));
        } else {
          auto r = SyncWait(store_->GuaranteedUpdate(key, {}, true,
                                                     [&](const Object* e) -> Task<StatusOr<UpdateResult>> {
                                                       Object n = e ? *e : testing::MakeConfigMap(ns, name, "v", tier);
                                                       n["data"].as_object()["k"] = std::to_string(op);
                                                       if (what == 1) {
                                                         n["metadata"].as_object()["labels"].as_object()["tier"] = tier;
                                                       }
                                                       co_return UpdateResult{n, 0};
                                                     }));
          EXPECT_TRUE(r.ok()) << r.status().message();
        }
        if (wi == 0 && op % 50 == 25) {
          cache.FailStorageWatchForTest(Status::Storage(StorageCode::kUnavailable, "injected"));
        }
      }
    });
  }
  for (auto& t : writers) t.join();
  final_rev = Revision();
  // Wait until the recorder has the whole history, then let the watchers drain.
  for (int i = 0; i < 2000; ++i) {
    {
      std::lock_guard lock(hist_mu);
      if (!history.empty() && history.back().revision >= final_rev) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(SyncWait(cache.GetList("/registry/configmaps", {})).ok());  // the cache has caught up
  writers_done = true;
  std::vector<std::vector<std::string>> want(filters.size());
  {
    std::lock_guard lock(hist_mu);
    for (size_t i = 0; i < filters.size(); ++i) want[i] = Expected(history, filters[i], start, final_rev);
  }
  // Each watcher gets everything (or the test gives up after a while), then stops.
  for (int i = 0; i < 4000; ++i) {
    bool all = true;
    {
      std::lock_guard lock(seen_mu);
      for (size_t j = 0; j < filters.size(); ++j) all = all && seen[j].size() >= want[j].size();
    }
    if (all) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // anything extra would show up now
  for (auto& w : watches) w->Stop();
  for (auto& t : threads) t.join();
  recorder.reset();

  std::lock_guard lock(hist_mu);
  ASSERT_FALSE(history.empty());
  for (size_t i = 0; i < filters.size(); ++i) {
    EXPECT_EQ(seen[i], want[i]) << "watcher " << i;
    EXPECT_FALSE(want[i].empty()) << "watcher " << i << " had nothing to check";
  }
  EXPECT_TRUE(relist_failures.empty()) << relist_failures.front();
  EXPECT_GT(cycles.load(), 0);
  EXPECT_EQ(cache.GetStats().lists, 1) << "resumed, never re-listed";
}

}  // namespace
}  // namespace capstan::storage
