// The WATCH body writer: each batch of pending events goes out in one write, in order, with kube's
// framing (a {"type":..,"object":..} line per event, shared JSON copied as is); large batches are split
// at event boundaries; an ERROR event ends the stream.
#include "endpoints/watch_writer.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <deque>
#include <memory>

#include "util/task.h"

namespace capstan::endpoints {
namespace {

namespace json = boost::json;

// Hands out prepared batches, then ends.
class FakeStream : public registry::WatchStream {
 public:
  std::deque<std::vector<registry::WatchEvent>> batches;
  int nexts = 0;
  Task<std::vector<registry::WatchEvent>> Next() override {
    ++nexts;
    if (batches.empty()) co_return std::vector<registry::WatchEvent>{};
    auto b = std::move(batches.front());
    batches.pop_front();
    co_return b;
  }
  void Stop() override {}
};

// Records every chunk written.
class RecordingWriter : public http::ResponseWriter {
 public:
  std::vector<std::string> chunks;
  bool fail = false;
  Task<bool> Respond(http::HttpResponse) override { co_return false; }
  Task<bool> StartStream(int, http::Headers) override { co_return true; }
  Task<bool> WriteChunk(std::string data) override {
    chunks.push_back(std::move(data));
    co_return !fail;
  }
  Task<bool> EndStream() override { co_return true; }
  bool started() const override { return true; }
  int status() const override { return 200; }
};

registry::WatchEvent Shared(const std::string& type, const std::string& name, int rv, size_t pad = 0) {
  registry::WatchEvent e;
  e.type = type;
  e.json = std::make_shared<const std::string>(R"({"kind":"ConfigMap","metadata":{"name":")" + name +
                                               R"(","resourceVersion":")" + std::to_string(rv) +
                                               R"("},"data":{"v":")" + std::string(pad, 'x') + R"("}})");
  return e;
}

// Splits a body into lines; each must be a complete JSON watch event.
std::vector<json::object> Lines(const std::string& body) {
  std::vector<json::object> out;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t nl = body.find('\n', pos);
    EXPECT_NE(nl, std::string::npos) << "an event without its newline";
    if (nl == std::string::npos) break;
    out.push_back(json::parse(body.substr(pos, nl - pos)).as_object());
    pos = nl + 1;
  }
  return out;
}

WatchEventEncoder JsonEncoder() {
  return [](registry::WatchEvent& e, std::string& out) { AppendJsonWatchEvent(e, out); };
}

TEST(WatchWriterTest, SeveralPendingEventsGoOutInOneWriteInOrderWithKubesFraming) {
  FakeStream s;
  s.batches.push_back({Shared("ADDED", "a", 5), Shared("MODIFIED", "a", 6), Shared("DELETED", "a", 7)});
  registry::WatchEvent bookmark;
  bookmark.type = "BOOKMARK";
  bookmark.object["kind"] = "ConfigMap";
  bookmark.object["metadata"] = json::object{{"resourceVersion", "9"}};
  s.batches.push_back({Shared("ADDED", "b", 8), std::move(bookmark)});
  RecordingWriter w;
  auto stats = SyncWait(PumpWatch(s, w, JsonEncoder()));

  ASSERT_EQ(w.chunks.size(), 2u);  // one write per batch, not one per event
  EXPECT_EQ(stats.batches, 2u);
  EXPECT_EQ(stats.writes, 2u);
  EXPECT_EQ(stats.events, 5u);
  // The shared bytes are written as they are.
  EXPECT_EQ(w.chunks[0].substr(0, 27), R"({"type":"ADDED","object":{")");
  EXPECT_NE(w.chunks[0].find(R"({"type":"MODIFIED","object":{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"6"},"data":{"v":""}}})"
                             "\n"),
            std::string::npos);
  auto first = Lines(w.chunks[0]);
  ASSERT_EQ(first.size(), 3u);
  const char* types[] = {"ADDED", "MODIFIED", "DELETED"};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(first[i].size(), 2u);  // exactly "type" and "object"
    EXPECT_EQ(first[i].at("type"), types[i]);
    EXPECT_EQ(first[i].at("object").at("metadata").at("resourceVersion").as_string(), std::to_string(5 + i));
  }
  auto second = Lines(w.chunks[1]);
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[0].at("type"), "ADDED");
  EXPECT_EQ(second[1].at("type"), "BOOKMARK");
  EXPECT_EQ(second[1].at("object").at("metadata").at("resourceVersion"), "9");
}

TEST(WatchWriterTest, ALargeBatchIsSplitAtEventBoundariesIntoWritesOfAboutTheWriteSize) {
  FakeStream s;
  std::vector<registry::WatchEvent> big;
  const size_t n = 40;
  for (size_t i = 0; i < n; ++i) big.push_back(Shared("MODIFIED", "o" + std::to_string(i), static_cast<int>(i + 1), 4096));
  s.batches.push_back(std::move(big));
  RecordingWriter w;
  auto stats = SyncWait(PumpWatch(s, w, JsonEncoder()));
  // 40 events of ~4.2 KiB: about 160 KiB, so three writes, each whole events only.
  ASSERT_EQ(w.chunks.size(), 3u);
  EXPECT_EQ(stats.writes, 3u);
  size_t seen = 0;
  for (size_t c = 0; c < w.chunks.size(); ++c) {
    if (c + 1 < w.chunks.size()) {
      EXPECT_GE(w.chunks[c].size(), kWatchWriteBytes);
      EXPECT_LT(w.chunks[c].size(), kWatchWriteBytes + 5000);
    }
    for (const auto& line : Lines(w.chunks[c])) {
      EXPECT_EQ(line.at("object").at("metadata").at("name").as_string(), "o" + std::to_string(seen));
      ++seen;
    }
  }
  EXPECT_EQ(seen, n);
}

TEST(WatchWriterTest, AnErrorEventEndsTheStreamAfterItIsWritten) {
  FakeStream s;
  registry::WatchEvent err;
  err.type = "ERROR";
  err.object["kind"] = "Status";
  err.object["code"] = 410;
  s.batches.push_back({Shared("ADDED", "a", 1), std::move(err), Shared("ADDED", "late", 2)});
  s.batches.push_back({Shared("ADDED", "never", 3)});
  RecordingWriter w;
  SyncWait(PumpWatch(s, w, JsonEncoder()));
  ASSERT_EQ(w.chunks.size(), 1u);
  auto lines = Lines(w.chunks[0]);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].at("type"), "ERROR");
  EXPECT_EQ(lines[1].at("object").at("code"), 410);
  EXPECT_EQ(s.nexts, 1);
}

TEST(WatchWriterTest, AFailedWriteStopsReadingTheStream) {
  FakeStream s;
  s.batches.push_back({Shared("ADDED", "a", 1)});
  s.batches.push_back({Shared("ADDED", "b", 2)});
  RecordingWriter w;
  w.fail = true;
  SyncWait(PumpWatch(s, w, JsonEncoder()));
  EXPECT_EQ(w.chunks.size(), 1u);
  EXPECT_EQ(s.nexts, 1);
}

}  // namespace
}  // namespace capstan::endpoints
