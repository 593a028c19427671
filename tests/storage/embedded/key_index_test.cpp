#include "storage/embedded/key_index.h"

#include <gtest/gtest.h>

namespace capstan::storage::embedded {
namespace {

IndexEntry Put(int64_t rev, int64_t create, int64_t version) {
  IndexEntry e;
  e.rev = {rev, 0};
  e.create_revision = create;
  e.version = version;
  return e;
}
IndexEntry Tomb(int64_t rev) {
  IndexEntry e;
  e.rev = {rev, 0};
  e.tombstone = true;
  return e;
}

std::vector<std::string> LiveKeys(const KeyIndex& idx, const KeyRange& r, int64_t rev) {
  std::vector<std::string> out;
  idx.ForEachLive(r, rev, [&](const std::string& k, const IndexEntry&) {
    out.push_back(k);
    return true;
  });
  return out;
}

TEST(KeyIndexTest, LatestAtRevision) {
  KeyIndex idx;
  idx.Append("a", Put(2, 2, 1));
  idx.Append("a", Put(4, 2, 2));
  idx.Append("a", Tomb(6));
  idx.Append("a", Put(8, 8, 1));
  EXPECT_EQ(idx.Latest("a", 1), nullptr);
  EXPECT_EQ(idx.Live("a", 3)->rev.main, 2);
  EXPECT_EQ(idx.Live("a", 5)->version, 2);
  EXPECT_EQ(idx.Live("a", 6), nullptr);
  EXPECT_EQ(idx.Live("a", 7), nullptr);
  EXPECT_EQ(idx.Live("a", 9)->create_revision, 8);
  EXPECT_EQ(idx.Live("b", 9), nullptr);
}

TEST(KeyIndexTest, RangeForms) {
  KeyIndex idx;
  idx.Append("a", Put(2, 2, 1));
  idx.Append("b", Put(3, 3, 1));
  idx.Append("c", Put(4, 4, 1));
  idx.Append("b", Tomb(5));
  EXPECT_EQ(LiveKeys(idx, KeyRange::From("a", "c"), 4), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(LiveKeys(idx, KeyRange::From("a", "c"), 5), (std::vector<std::string>{"a"}));
  EXPECT_EQ(LiveKeys(idx, KeyRange::From("b", std::string(1, '\0')), 4), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(LiveKeys(idx, KeyRange::From("b", ""), 4), (std::vector<std::string>{"b"}));
  EXPECT_TRUE(LiveKeys(idx, KeyRange::From("c", "a"), 4).empty());
}

TEST(KeyIndexTest, CompactionKeepsWhatReadsAtAndAboveNeed) {
  KeyIndex idx;
  idx.Append("a", Put(2, 2, 1));
  idx.Append("a", Put(3, 2, 2));   // last put below 5: kept
  idx.Append("b", Put(2, 2, 1));
  idx.Append("b", Tomb(4));        // deleted below 5: dropped with its generation
  idx.Append("c", Put(3, 3, 1));
  idx.Append("c", Put(5, 3, 2));   // at 5: replaces 3
  idx.Append("d", Put(4, 4, 1));
  idx.Append("d", Tomb(5));        // a delete at the compact revision stays for watchers
  auto dropped = idx.CompactedRevisions(5);
  EXPECT_EQ(dropped.size(), 5u);  // a@2, b@2, b@4, c@3, d@4
  idx.Compact(5);
  EXPECT_EQ(idx.Entries("a")->size(), 1u);
  EXPECT_EQ(idx.Live("a", 5)->rev.main, 3);
  EXPECT_EQ(idx.Entries("b"), nullptr);
  EXPECT_EQ(idx.Entries("c")->size(), 1u);
  EXPECT_EQ(idx.Entries("d")->size(), 1u);
  EXPECT_EQ(idx.Live("d", 5), nullptr);
  EXPECT_EQ(idx.entry_count(), 3u);
}

}  // namespace
}  // namespace capstan::storage::embedded
