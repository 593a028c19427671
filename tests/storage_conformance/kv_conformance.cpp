// Revisions, versions, ranges and transactions.
#include <thread>

#include "storage_conformance/backend_conformance.h"

namespace capstan::storage::conformance {
namespace {

std::vector<std::string> Keys(const RangeResponse& r) {
  std::vector<std::string> out;
  for (const auto& kv : r.kvs) out.push_back(kv.key);
  return out;
}

Compare Cmp(std::string key, Compare::Target t, Compare::Result r, int64_t n, std::string v = "") {
  Compare c;
  c.key = std::move(key);
  c.target = t;
  c.result = r;
  c.number = n;
  c.value = std::move(v);
  return c;
}

TEST_P(BackendConformance, FreshStoreStartsAtRevisionOne) {
  if (factory().shared) GTEST_SKIP() << "shared store";
  // As etcd: an empty store is at revision 1 and the first write makes revision 2.
  EXPECT_EQ(CurrentRevision(), 1);
  EXPECT_EQ(Put(K("a"), "1"), 2);
  EXPECT_EQ(Prefix(prefix(), 1).kvs.size(), 0u);
}

TEST_P(BackendConformance, PutBumpsRevisionByOneAndSetsKeyRevisions) {
  int64_t r0 = CurrentRevision();
  int64_t r1 = Put(K("a"), "1");
  EXPECT_EQ(r1, r0 + 1);
  auto kv = Get(K("a"));
  ASSERT_TRUE(kv);
  EXPECT_EQ(kv->value, "1");
  EXPECT_EQ(kv->create_revision, r1);
  EXPECT_EQ(kv->mod_revision, r1);
  EXPECT_EQ(kv->version, 1);
  EXPECT_EQ(kv->lease, 0);
  int64_t r2 = Put(K("a"), "2");
  EXPECT_EQ(r2, r1 + 1);
  kv = Get(K("a"));
  ASSERT_TRUE(kv);
  EXPECT_EQ(kv->create_revision, r1);
  EXPECT_EQ(kv->mod_revision, r2);
  EXPECT_EQ(kv->version, 2);
  EXPECT_EQ(CurrentRevision(), r2);
}

TEST_P(BackendConformance, PutOfIdenticalValueStillBumpsRevisionAndVersion) {
  int64_t r1 = Put(K("a"), "same");
  int64_t r2 = Put(K("a"), "same");
  EXPECT_EQ(r2, r1 + 1);
  auto kv = Get(K("a"));
  ASSERT_TRUE(kv);
  EXPECT_EQ(kv->version, 2);
  EXPECT_EQ(kv->mod_revision, r2);
}

TEST_P(BackendConformance, DeleteEndsTheGenerationAndALaterPutStartsANewOne) {
  int64_t r1 = Put(K("a"), "1");
  Put(K("a"), "2");
  int64_t rd = Delete(K("a"));
  EXPECT_FALSE(Get(K("a")));
  int64_t r3 = Put(K("a"), "3");
  EXPECT_EQ(r3, rd + 1);
  auto kv = Get(K("a"));
  ASSERT_TRUE(kv);
  EXPECT_EQ(kv->version, 1);
  EXPECT_EQ(kv->create_revision, r3);
  EXPECT_NE(kv->create_revision, r1);
}

TEST_P(BackendConformance, DeleteOfMissingKeyDoesNotBumpRevision) {
  Put(K("x"), "1");
  int64_t r0 = CurrentRevision();
  auto r = Txn([&] {
    TxnRequest t;
    t.success.push_back(RequestOp::Delete(K("missing"), true));
    return t;
  }());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->responses.at(0).delete_range.deleted, 0);
  EXPECT_TRUE(r->responses.at(0).delete_range.prev_kvs.empty());
  EXPECT_EQ(r->revision, r0);
  EXPECT_EQ(CurrentRevision(), r0);
}

TEST_P(BackendConformance, ReadOnlyAndFailedTxnsDoNotBumpRevision) {
  Put(K("a"), "1");
  int64_t r0 = CurrentRevision();
  TxnRequest ro;
  ro.success.push_back(RequestOp::Get(K("a")));
  auto r = Txn(ro);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->succeeded);
  EXPECT_EQ(r->revision, r0);
  TxnRequest failed;
  failed.compare.push_back(Cmp(K("a"), Compare::Target::kValue, Compare::Result::kEqual, 0, "nope"));
  failed.success.push_back(RequestOp::Put(K("a"), "2"));
  r = Txn(failed);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->succeeded);
  EXPECT_EQ(r->revision, r0);
  EXPECT_EQ(CurrentRevision(), r0);
  EXPECT_EQ(Get(K("a"))->value, "1");
}

TEST_P(BackendConformance, WritesOfOneTxnShareOneRevision) {
  int64_t r0 = CurrentRevision();
  TxnRequest t;
  t.success.push_back(RequestOp::Put(K("a"), "1"));
  t.success.push_back(RequestOp::Put(K("b"), "2"));
  t.success.push_back(RequestOp::Put(K("c"), "3"));
  auto r = Txn(t);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->revision, r0 + 1);
  auto all = Prefix(prefix());
  ASSERT_EQ(all.kvs.size(), 3u);
  for (const auto& kv : all.kvs) EXPECT_EQ(kv.mod_revision, r0 + 1);
  // A prefix delete of several keys is one revision too.
  TxnRequest del;
  RequestOp op = RequestOp::Delete(prefix());
  op.delete_range.range_end = PrefixEnd(prefix());
  del.success.push_back(op);
  r = Txn(del);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->responses.at(0).delete_range.deleted, 3);
  EXPECT_EQ(r->revision, r0 + 2);
}

TEST_P(BackendConformance, RangeAtPastRevisions) {
  int64_t r1 = Put(K("a"), "v1");
  int64_t r2 = Put(K("a"), "v2");
  int64_t r3 = Put(K("b"), "b1");
  int64_t r4 = Delete(K("a"));
  EXPECT_EQ(Get(K("a"), r1)->value, "v1");
  EXPECT_EQ(Get(K("a"), r2)->value, "v2");
  EXPECT_EQ(Get(K("a"), r3)->value, "v2");
  EXPECT_FALSE(Get(K("a"), r4));
  EXPECT_FALSE(Get(K("b"), r2));
  auto at2 = Prefix(prefix(), r2);
  EXPECT_EQ(Keys(at2), std::vector<std::string>{K("a")});
  EXPECT_EQ(at2.count, 1);
  auto at3 = Prefix(prefix(), r3);
  EXPECT_EQ(Keys(at3), (std::vector<std::string>{K("a"), K("b")}));
  EXPECT_EQ(at3.kvs[0].version, 2);
  EXPECT_EQ(at3.kvs[0].mod_revision, r2);
  EXPECT_EQ(Keys(Prefix(prefix(), r4)), std::vector<std::string>{K("b")});
  // The header revision is the store's current revision, not the one asked for.
  EXPECT_EQ(at2.revision, r4);
}

TEST_P(BackendConformance, RangeAtFutureRevisionFails) {
  int64_t r = Put(K("a"), "1");
  RangeRequest req;
  req.key = K("a");
  req.revision = r + 1000;
  auto resp = Range(req);
  ASSERT_FALSE(resp.ok());
  EXPECT_TRUE(resp.status().IsStorage(StorageCode::kFutureRevision)) << resp.status().ToString();
}

TEST_P(BackendConformance, RangeLimitCountAndMore) {
  for (int i = 0; i < 5; ++i) Put(K("k" + std::to_string(i)), std::to_string(i));
  auto r = Prefix(prefix(), 0, 2);
  EXPECT_EQ(Keys(r), (std::vector<std::string>{K("k0"), K("k1")}));
  EXPECT_EQ(r.count, 5);
  EXPECT_TRUE(r.more);
  r = Prefix(prefix(), 0, 5);
  EXPECT_EQ(r.kvs.size(), 5u);
  EXPECT_FALSE(r.more);
  r = Prefix(prefix(), 0, 10);
  EXPECT_EQ(r.kvs.size(), 5u);
  EXPECT_FALSE(r.more);
  r = Prefix(prefix());
  EXPECT_EQ(r.kvs.size(), 5u);
  EXPECT_EQ(r.count, 5);
  EXPECT_FALSE(r.more);
}

TEST_P(BackendConformance, KeysOnlyAndCountOnly) {
  int64_t r1 = Put(K("a"), "value-a");
  Put(K("b"), "value-b");
  RangeRequest req;
  req.key = prefix();
  req.range_end = PrefixEnd(prefix());
  req.keys_only = true;
  auto r = Range(req);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->kvs.size(), 2u);
  EXPECT_EQ(r->kvs[0].key, K("a"));
  EXPECT_EQ(r->kvs[0].value, "");
  EXPECT_EQ(r->kvs[0].mod_revision, r1);
  EXPECT_EQ(r->kvs[0].version, 1);
  req.keys_only = false;
  req.count_only = true;
  r = Range(req);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->kvs.empty());
  EXPECT_EQ(r->count, 2);
  EXPECT_FALSE(r->more);
}

TEST_P(BackendConformance, RangeEndForms) {
  Put(K("a"), "1");
  Put(K("b"), "2");
  Put(K("c"), "3");
  RangeRequest req;
  req.key = K("a");
  req.range_end = K("c");  // [a, c)
  auto r = Range(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Keys(*r), (std::vector<std::string>{K("a"), K("b")}));
  req.range_end = "";  // only the key
  r = Range(req);
  EXPECT_EQ(Keys(*r), std::vector<std::string>{K("a")});
  req.key = K("b");
  req.range_end = std::string(1, '\0');  // every key >= key
  r = Range(req);
  ASSERT_TRUE(r.ok());
  auto keys = Keys(*r);
  ASSERT_GE(keys.size(), 2u);
  EXPECT_EQ(keys[0], K("b"));
  EXPECT_EQ(keys[1], K("c"));
  if (!factory().shared) EXPECT_EQ(keys.size(), 2u);
  req.key = K("c");
  req.range_end = K("a");  // end before key: nothing
  r = Range(req);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->kvs.empty());
  EXPECT_EQ(r->count, 0);
}

TEST_P(BackendConformance, EmptyKeyIsInvalid) {
  RangeRequest req;
  auto r = Range(req);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsStorage(StorageCode::kInvalidArgument)) << r.status().ToString();
  auto t = SyncWait(db().Put("", "x"));
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(t.status().IsStorage(StorageCode::kInvalidArgument));
}

TEST_P(BackendConformance, CompareEveryTargetAndResult) {
  int64_t r1 = Put(K("a"), "m");
  int64_t r2 = Put(K("a"), "m");  // version 2, create r1, mod r2
  struct Case {
    Compare::Target target;
    int64_t actual;
  };
  const Case cases[] = {{Compare::Target::kVersion, 2},
                        {Compare::Target::kCreateRevision, r1},
                        {Compare::Target::kModRevision, r2},
                        {Compare::Target::kLease, 0}};
  for (const Case& c : cases) {
    for (int64_t delta : {-1, 0, 1}) {
      int64_t n = c.actual + delta;
      for (auto result : {Compare::Result::kEqual, Compare::Result::kGreater, Compare::Result::kLess,
                          Compare::Result::kNotEqual}) {
        bool want = result == Compare::Result::kEqual     ? c.actual == n
                    : result == Compare::Result::kGreater ? c.actual > n
                    : result == Compare::Result::kLess    ? c.actual < n
                                                          : c.actual != n;
        TxnRequest t;
        t.compare.push_back(Cmp(K("a"), c.target, result, n));
        auto r = Txn(t);
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(r->succeeded, want) << "target " << static_cast<int>(c.target) << " result "
                                      << static_cast<int>(result) << " number " << n;
      }
    }
  }
  for (std::string v : {"l", "m", "n"}) {
    for (auto result : {Compare::Result::kEqual, Compare::Result::kGreater, Compare::Result::kLess,
                        Compare::Result::kNotEqual}) {
      int cmp = std::string("m").compare(v);
      bool want = result == Compare::Result::kEqual     ? cmp == 0
                  : result == Compare::Result::kGreater ? cmp > 0
                  : result == Compare::Result::kLess    ? cmp < 0
                                                        : cmp != 0;
      TxnRequest t;
      t.compare.push_back(Cmp(K("a"), Compare::Target::kValue, result, 0, v));
      auto r = Txn(t);
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(r->succeeded, want) << "value result " << static_cast<int>(result) << " against " << v;
    }
  }
}

TEST_P(BackendConformance, CompareOnMissingKey) {
  auto check = [&](Compare c, bool want) {
    TxnRequest t;
    t.compare.push_back(std::move(c));
    auto r = Txn(t);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->succeeded, want);
  };
  // A missing key has 0 for every number; kube's "create if absent" is mod_revision == 0.
  check(Cmp(K("none"), Compare::Target::kModRevision, Compare::Result::kEqual, 0), true);
  check(Cmp(K("none"), Compare::Target::kCreateRevision, Compare::Result::kEqual, 0), true);
  check(Cmp(K("none"), Compare::Target::kVersion, Compare::Result::kEqual, 0), true);
  check(Cmp(K("none"), Compare::Target::kVersion, Compare::Result::kGreater, 0), false);
  // A compare on the value of a missing key is false, whatever the result.
  check(Cmp(K("none"), Compare::Target::kValue, Compare::Result::kEqual, 0, ""), false);
  check(Cmp(K("none"), Compare::Target::kValue, Compare::Result::kNotEqual, 0, "x"), false);
}

TEST_P(BackendConformance, TxnRunsSuccessOrFailureBranch) {
  int64_t r1 = Put(K("a"), "1");
  auto make = [&](int64_t expect_mod) {
    TxnRequest t;
    t.compare.push_back(Cmp(K("a"), Compare::Target::kModRevision, Compare::Result::kEqual, expect_mod));
    t.success.push_back(RequestOp::Put(K("a"), "updated"));
    t.success.push_back(RequestOp::Get(K("a")));
    t.failure.push_back(RequestOp::Get(K("a")));
    return t;
  };
  auto fail = Txn(make(r1 + 100));
  ASSERT_TRUE(fail.ok());
  EXPECT_FALSE(fail->succeeded);
  ASSERT_EQ(fail->responses.size(), 1u);
  EXPECT_EQ(fail->responses[0].type, RequestOp::Type::kRange);
  ASSERT_EQ(fail->responses[0].range.kvs.size(), 1u);
  EXPECT_EQ(fail->responses[0].range.kvs[0].value, "1");
  auto ok = Txn(make(r1));
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->succeeded);
  EXPECT_EQ(ok->revision, r1 + 1);
  ASSERT_EQ(ok->responses.size(), 2u);
  EXPECT_EQ(ok->responses[0].type, RequestOp::Type::kPut);
  // A range after a put in the same txn sees the put.
  ASSERT_EQ(ok->responses[1].range.kvs.size(), 1u);
  EXPECT_EQ(ok->responses[1].range.kvs[0].value, "updated");
  EXPECT_EQ(ok->responses[1].range.kvs[0].mod_revision, r1 + 1);
}

TEST_P(BackendConformance, TxnRangeAtPastRevisionAndRejectedFutureRevision) {
  int64_t r1 = Put(K("a"), "1");
  Put(K("a"), "2");
  TxnRequest t;
  RequestOp get = RequestOp::Get(K("a"));
  get.range.revision = r1;
  t.success.push_back(get);
  auto r = Txn(t);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->responses.at(0).range.kvs.size(), 1u);
  EXPECT_EQ(r->responses[0].range.kvs[0].value, "1");
  // A range at a future revision rejects the whole txn before anything is written.
  TxnRequest bad;
  bad.success.push_back(RequestOp::Put(K("b"), "x"));
  RequestOp future = RequestOp::Get(K("a"));
  future.range.revision = r1 + 1000;
  bad.success.push_back(future);
  int64_t before = CurrentRevision();
  r = Txn(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsStorage(StorageCode::kFutureRevision)) << r.status().ToString();
  EXPECT_FALSE(Get(K("b")));
  EXPECT_EQ(CurrentRevision(), before);
}

TEST_P(BackendConformance, DuplicateKeysInOneTxnAreInvalid) {
  TxnRequest t;
  t.success.push_back(RequestOp::Put(K("a"), "1"));
  t.success.push_back(RequestOp::Put(K("a"), "2"));
  auto r = Txn(t);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsStorage(StorageCode::kInvalidArgument)) << r.status().ToString();
  TxnRequest t2;
  t2.success.push_back(RequestOp::Put(K("a"), "1"));
  t2.success.push_back(RequestOp::Delete(K("a")));
  r = Txn(t2);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsStorage(StorageCode::kInvalidArgument));
  EXPECT_FALSE(Get(K("a")));
}

TEST_P(BackendConformance, PrevKvOnPutAndDelete) {
  int64_t r1 = Put(K("a"), "old");
  TxnRequest t;
  RequestOp put = RequestOp::Put(K("a"), "new");
  put.put.prev_kv = true;
  t.success.push_back(put);
  auto r = Txn(t);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->responses[0].put.prev_kv);
  EXPECT_EQ(r->responses[0].put.prev_kv->value, "old");
  EXPECT_EQ(r->responses[0].put.prev_kv->mod_revision, r1);
  TxnRequest first;
  RequestOp put2 = RequestOp::Put(K("fresh"), "x");
  put2.put.prev_kv = true;
  first.success.push_back(put2);
  r = Txn(first);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->responses[0].put.prev_kv);
  TxnRequest del;
  del.success.push_back(RequestOp::Delete(K("a"), true));
  r = Txn(del);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->responses[0].delete_range.deleted, 1);
  ASSERT_EQ(r->responses[0].delete_range.prev_kvs.size(), 1u);
  EXPECT_EQ(r->responses[0].delete_range.prev_kvs[0].value, "new");
  EXPECT_EQ(r->responses[0].delete_range.prev_kvs[0].version, 2);
}

TEST_P(BackendConformance, ConcurrentCompareAndSwapHasExactlyOneWinner) {
  int64_t r1 = Put(K("lock"), "free");
  constexpr int kRacers = 16;
  std::atomic<int> winners{0}, losers{0}, errors{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kRacers; ++i) {
    threads.emplace_back([&, i] {
      TxnRequest t;
      t.compare.push_back(Cmp(K("lock"), Compare::Target::kModRevision, Compare::Result::kEqual, r1));
      t.success.push_back(RequestOp::Put(K("lock"), "owner-" + std::to_string(i)));
      auto r = SyncWait(db().Txn(std::move(t)));
      if (!r.ok()) {
        ++errors;
      } else if (r->succeeded) {
        ++winners;
      } else {
        ++losers;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(winners.load(), 1);
  EXPECT_EQ(losers.load(), kRacers - 1);
  auto kv = Get(K("lock"));
  ASSERT_TRUE(kv);
  EXPECT_EQ(kv->version, 2);
  EXPECT_EQ(kv->mod_revision, r1 + 1);
}

TEST_P(BackendConformance, ConcurrentReadModifyWriteLosesNoUpdate) {
  Put(K("counter"), "0");
  constexpr int kThreads = 8, kIncrements = 25;
  std::vector<std::thread> threads;
  std::atomic<int> errors{0};
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&] {
      for (int n = 0; n < kIncrements;) {
        auto cur = SyncWait(db().Get(K("counter")));
        if (!cur.ok() || !*cur) {
          ++errors;
          return;
        }
        TxnRequest t;
        t.compare.push_back(
            Cmp(K("counter"), Compare::Target::kModRevision, Compare::Result::kEqual, (*cur)->mod_revision));
        t.success.push_back(RequestOp::Put(K("counter"), std::to_string(std::stoi((*cur)->value) + 1)));
        auto r = SyncWait(db().Txn(std::move(t)));
        if (!r.ok()) {
          ++errors;
          return;
        }
        if (r->succeeded) ++n;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(Get(K("counter"))->value, std::to_string(kThreads * kIncrements));
  EXPECT_EQ(Get(K("counter"))->version, kThreads * kIncrements + 1);
}

TEST_P(BackendConformance, StatusAndCheck) {
  int64_t r = Put(K("a"), std::string(4096, 'x'));
  auto st = SyncWait(db().GetStatus());
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_GE(st->revision, r);
  EXPECT_GT(st->db_size, 0);
  EXPECT_GT(st->db_size_in_use, 0);
  EXPECT_LE(st->db_size_in_use, st->db_size);
  EXPECT_FALSE(st->version.empty());
  Status check = SyncWait(db().Check());
  EXPECT_TRUE(check.ok()) << check.ToString();
}

}  // namespace
}  // namespace capstan::storage::conformance
