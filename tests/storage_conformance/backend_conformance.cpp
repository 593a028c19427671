#include "storage_conformance/backend_conformance.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <random>

namespace capstan::storage::conformance {

std::string BackendFactoryName(const ::testing::TestParamInfo<BackendFactory>& info) { return info.param.name; }

WatchCallback WatchCollector::Callback() {
  auto state = state_;
  return [state](WatchResponse resp) {
    std::lock_guard lock(state->mu);
    state->responses.push_back(std::move(resp));
    state->cv.notify_all();
  };
}

bool WatchCollector::WaitFor(const std::function<bool(const std::vector<WatchResponse>&)>& pred,
                             std::chrono::milliseconds timeout) {
  std::unique_lock lock(state_->mu);
  return state_->cv.wait_for(lock, timeout, [&] { return pred(state_->responses); });
}

bool WatchCollector::WaitForEvents(size_t n, std::chrono::milliseconds timeout) {
  bool ended = false;
  bool ok = WaitFor(
      [&](const std::vector<WatchResponse>& rs) {
        size_t count = 0;
        for (const auto& r : rs) {
          count += r.events.size();
          if (!r.error.ok()) ended = true;
        }
        return count >= n || ended;
      },
      timeout);
  return ok && !ended;
}

bool WatchCollector::WaitForError(std::chrono::milliseconds timeout) {
  return WaitFor(
      [](const std::vector<WatchResponse>& rs) {
        for (const auto& r : rs) {
          if (!r.error.ok()) return true;
        }
        return false;
      },
      timeout);
}

std::vector<WatchEvent> WatchCollector::Events() const {
  std::lock_guard lock(state_->mu);
  std::vector<WatchEvent> out;
  for (const auto& r : state_->responses) out.insert(out.end(), r.events.begin(), r.events.end());
  return out;
}

std::vector<WatchResponse> WatchCollector::Responses() const {
  std::lock_guard lock(state_->mu);
  return state_->responses;
}

Status WatchCollector::Error() const {
  std::lock_guard lock(state_->mu);
  for (const auto& r : state_->responses) {
    if (!r.error.ok()) return r.error;
  }
  return Status::Ok();
}

void BackendConformance::SetUp() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string base = tmp ? tmp : std::filesystem::temp_directory_path().string();
  std::string tmpl = base + "/capstan-conformance-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  ASSERT_NE(mkdtemp(buf.data()), nullptr);
  dir_ = buf.data();
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::random_device rd;
  prefix_ = "/conformance/" + std::string(info->name()) + "/" + std::to_string(rd() % 1000000) + "/";
  auto b = factory().open(dir_);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  backend_ = std::move(*b);
}

void BackendConformance::TearDown() {
  backend_.reset();
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

void BackendConformance::Restart() {
  if (!factory().can_restart) GTEST_SKIP() << factory().name << " cannot be restarted by the suite";
  backend_.reset();
  auto b = factory().open(dir_);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  backend_ = std::move(*b);
}

int64_t BackendConformance::CurrentRevision() {
  auto st = SyncWait(db().GetStatus());
  EXPECT_TRUE(st.ok()) << st.status().ToString();
  return st.ok() ? st->revision : -1;
}

int64_t BackendConformance::Put(const std::string& key, const std::string& value, int64_t lease) {
  auto r = SyncWait(db().Put(key, value, lease));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->revision : -1;
}

int64_t BackendConformance::Delete(const std::string& key) {
  auto r = SyncWait(db().Delete(key));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->revision : -1;
}

std::optional<KeyValue> BackendConformance::Get(const std::string& key, int64_t revision) {
  auto r = SyncWait(db().Get(key, revision));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::nullopt;
}

RangeResponse BackendConformance::Prefix(const std::string& p, int64_t revision, int64_t limit) {
  RangeRequest req;
  req.key = p;
  req.range_end = PrefixEnd(p);
  req.revision = revision;
  req.limit = limit;
  auto r = Range(req);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : RangeResponse{};
}

}  // namespace capstan::storage::conformance
