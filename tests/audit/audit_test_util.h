// tests/audit/audit_test_util.h: a temp dir, events and a recording backend for the audit backend tests.
#pragma once

#include <stdlib.h>

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "audit/backend.h"

namespace capstan::audit::testing {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/capstan-audit-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::vector<std::string> Files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

inline EventPtr MakeEvent(const std::string& id, Level level = Level::kMetadata) {
  auto e = std::make_shared<Event>();
  e->level = level;
  e->audit_id = id;
  e->stage = Stage::kResponseComplete;
  e->verb = "get";
  return e;
}

// Records what it is given; can be made to fail, or to hold every call until released.
class RecordingBackend : public Backend {
 public:
  bool ProcessEvents(std::vector<EventPtr> events) override {
    std::unique_lock lock(mu);
    ++calls;
    cv.notify_all();
    cv.wait(lock, [&] { return !hold; });
    batches.push_back(events);
    for (auto& e : events) ids.push_back(e->audit_id);
    return !fail;
  }
  void Shutdown() override {
    std::lock_guard lock(mu);
    shut_down = true;
  }
  std::string Name() const override { return "recording"; }
  void Release() {
    std::lock_guard lock(mu);
    hold = false;
    cv.notify_all();
  }
  void WaitCalls(int n) {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return calls >= n; });
  }
  std::vector<std::string> Ids() {
    std::lock_guard lock(mu);
    return ids;
  }

  std::mutex mu;
  std::condition_variable cv;
  bool hold = false;
  bool fail = false;
  bool shut_down = false;
  int calls = 0;
  std::vector<std::vector<EventPtr>> batches;
  std::vector<std::string> ids;
};

}  // namespace capstan::audit::testing
