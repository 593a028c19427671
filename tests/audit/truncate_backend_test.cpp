#include "audit/truncate_backend.h"

#include <gtest/gtest.h>

#include "audit_test_util.h"

namespace capstan::audit {
namespace {

using testing::MakeEvent;
using testing::RecordingBackend;

EventPtr WithObjects(const std::string& id, Level level, size_t bytes) {
  auto e = std::make_shared<Event>(*MakeEvent(id, level));
  e->request_object = boost::json::object{{"data", std::string(bytes, 'r')}};
  e->response_object = boost::json::object{{"data", std::string(bytes, 's')}};
  return e;
}

int64_t Size(const EventPtr& e) { return static_cast<int64_t>(EventToJsonLine(*e).size()); }

TEST(TruncateBackendTest, SmallEventsPassUnchanged) {
  auto rec = std::make_unique<RecordingBackend>();
  RecordingBackend* r = rec.get();
  TruncateBackend b(std::move(rec), TruncateConfig{1000, 10000}, nullptr);
  auto e = WithObjects("a", Level::kRequestResponse, 10);
  EXPECT_TRUE(b.ProcessEvents({e}));
  ASSERT_EQ(r->batches.size(), 1u);
  EXPECT_EQ(r->batches[0][0], e);
  EXPECT_EQ(b.Name(), "truncate<recording>");
}

TEST(TruncateBackendTest, AnOversizedEventLosesItsObjectsAndIsAnnotated) {
  auto rec = std::make_unique<RecordingBackend>();
  RecordingBackend* r = rec.get();
  TruncateBackend b(std::move(rec), TruncateConfig{1000, 10000}, nullptr);
  auto e = WithObjects("a", Level::kRequest, 2000);
  ASSERT_GT(Size(e), 1000);
  EXPECT_TRUE(b.ProcessEvents({e}));
  ASSERT_EQ(r->batches.size(), 1u);
  const Event& got = *r->batches[0][0];
  EXPECT_FALSE(got.request_object.has_value());
  EXPECT_FALSE(got.response_object.has_value());
  EXPECT_EQ(got.annotations.at("audit.k8s.io/truncated"), "true");
  EXPECT_EQ(got.audit_id, "a");
  EXPECT_TRUE(e->request_object.has_value());  // the caller's event is not changed
}

TEST(TruncateBackendTest, TooLargeEvenWithoutObjectsOrAtMetadataLevelIsDroppedAndCounted) {
  MetricsRegistry reg;
  AuditMetrics metrics(reg);
  auto rec = std::make_unique<RecordingBackend>();
  RecordingBackend* r = rec.get();
  TruncateBackend b(std::move(rec), TruncateConfig{300, 10000}, &metrics);
  auto huge_uri = std::make_shared<Event>(*MakeEvent("uri", Level::kRequest));
  huge_uri->request_uri = "/" + std::string(400, 'u');
  auto metadata = std::make_shared<Event>(*MakeEvent("meta", Level::kMetadata));
  metadata->annotations["k"] = std::string(400, 'v');
  EXPECT_TRUE(b.ProcessEvents({huge_uri, MakeEvent("small"), metadata}));
  EXPECT_EQ(r->Ids(), (std::vector<std::string>{"small"}));
  EXPECT_EQ(metrics.errors.Find({"truncate"})->Value(), 2.0);
}

TEST(TruncateBackendTest, BatchesAreSplitAtMaxBatchSizeBytes) {
  auto rec = std::make_unique<RecordingBackend>();
  RecordingBackend* r = rec.get();
  int64_t one = Size(MakeEvent("0"));
  TruncateBackend b(std::move(rec), TruncateConfig{one, 2 * one}, nullptr);
  EXPECT_TRUE(b.ProcessEvents({MakeEvent("0"), MakeEvent("1"), MakeEvent("2"), MakeEvent("3"), MakeEvent("4")}));
  ASSERT_EQ(r->batches.size(), 3u);
  EXPECT_EQ(r->batches[0].size(), 2u);
  EXPECT_EQ(r->batches[1].size(), 2u);
  EXPECT_EQ(r->batches[2].size(), 1u);
}

TEST(TruncateBackendTest, TheDelegatesFailureIsTheOutcome) {
  auto rec = std::make_unique<RecordingBackend>();
  rec->fail = true;
  TruncateBackend b(std::move(rec), TruncateConfig{1000, 10000}, nullptr);
  EXPECT_FALSE(b.ProcessEvents({MakeEvent("a")}));
  EXPECT_FALSE(SyncWait(b.ProcessEventsAsync({MakeEvent("b")})));
}

}  // namespace
}  // namespace capstan::audit
