// storage/embedded/key_index.h: the in-memory key index of the embedded store (etcd's treeIndex).
//
// For every key it keeps the ordered list of that key's changes still in history: the revision of
// each put or delete with the key's create_revision, version and lease at that point. A read at
// revision R takes, per key, the last change at or below R; a delete (tombstone) there means the key
// did not exist at R. The values live in LMDB's history table, fetched by revision. The index is
// rebuilt from history when the store opens (see MvccStore::Open).
//
// KeyRange turns etcd's (key, range_end) pair into a range: an empty range_end is the one key, "\0"
// is every key >= key, anything else is [key, range_end).
//
// Thread-safety: none inside. MvccStore guards it with a shared mutex: readers share it, and only the
// writer thread takes it exclusively to append or compact.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "storage/embedded/record.h"

namespace capstan::storage::embedded {

struct IndexEntry {
  Revision rev;
  int64_t create_revision = 0;
  int64_t version = 0;
  int64_t lease = 0;
  bool tombstone = false;
};

struct KeyRange {
  std::string begin;
  std::string end;         // exclusive; unused when single or unbounded
  bool single = false;     // exactly `begin`
  bool unbounded = false;  // every key >= begin

  static KeyRange From(const std::string& key, const std::string& range_end);
  bool Contains(std::string_view key) const;
  // True when the range can hold no key (range_end at or below key).
  bool Empty() const { return !single && !unbounded && end <= begin; }
};

class KeyIndex {
 public:
  // The last change of `key` at or below `rev`, or null. A tombstone means deleted at that point.
  const IndexEntry* Latest(std::string_view key, int64_t rev) const;
  // Like Latest, but null when the key does not exist at `rev`.
  const IndexEntry* Live(std::string_view key, int64_t rev) const;

  // Calls f(key, entry) in key order for every key of `range` that exists at `rev`; f returns false
  // to stop early.
  template <class F>
  void ForEachLive(const KeyRange& range, int64_t rev, F&& f) const {
    if (range.single) {
      auto it = keys_.find(range.begin);
      if (it == keys_.end()) return;
      if (const IndexEntry* e = LatestIn(it->second, rev); e && !e->tombstone) f(it->first, *e);
      return;
    }
    if (range.Empty()) return;
    for (auto it = keys_.lower_bound(range.begin); it != keys_.end(); ++it) {
      if (!range.unbounded && it->first >= range.end) break;
      const IndexEntry* e = LatestIn(it->second, rev);
      if (e && !e->tombstone && !f(it->first, *e)) return;
    }
  }

  // Calls f(key, entries) for every key (start-up and compaction bookkeeping).
  template <class F>
  void ForEachKey(F&& f) const {
    for (const auto& [k, v] : keys_) f(k, v);
  }

  // Appends a change; its revision must be above every revision already held for the key.
  void Append(std::string_view key, const IndexEntry& e);

  // The changes that compaction at `compact_rev` drops: every change below it except, per key, the
  // last put at or below it (a read at compact_rev still needs that one). Changes at compact_rev
  // itself are kept, so a watch from compact_rev sees them.
  std::vector<Revision> CompactedRevisions(int64_t compact_rev) const;
  // Drops those changes (and keys left with none).
  void Compact(int64_t compact_rev);

  const std::vector<IndexEntry>* Entries(std::string_view key) const;
  size_t key_count() const { return keys_.size(); }
  size_t entry_count() const { return entries_; }
  void Clear() {
    keys_.clear();
    entries_ = 0;
  }

 private:
  static const IndexEntry* LatestIn(const std::vector<IndexEntry>& entries, int64_t rev);
  // Index of the first entry compaction keeps.
  static size_t FirstKept(const std::vector<IndexEntry>& entries, int64_t compact_rev);

  std::map<std::string, std::vector<IndexEntry>, std::less<>> keys_;
  size_t entries_ = 0;
};

}  // namespace capstan::storage::embedded
