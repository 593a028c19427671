#include "audit/truncate_backend.h"

namespace capstan::audit {

namespace {

constexpr char kTruncatedAnnotation[] = "audit.k8s.io/truncated";

int64_t SizeOf(const Event& e) { return static_cast<int64_t>(EventToJsonLine(e).size()); }

}  // namespace

EventPtr TruncatedEvent(const Event& e) {
  auto copy = std::make_shared<Event>(e);
  copy->request_object.reset();
  copy->response_object.reset();
  copy->annotations[kTruncatedAnnotation] = "true";
  return copy;
}

std::vector<std::vector<EventPtr>> TruncateBackend::Batches(std::vector<EventPtr> events) {
  std::vector<std::vector<EventPtr>> batches;
  std::vector<EventPtr> batch;
  int64_t batch_size = 0;
  size_t impacted = 0;
  for (auto& event : events) {
    int64_t size = SizeOf(*event);
    if (size > config_.max_event_size && event->level >= Level::kRequest) {
      event = TruncatedEvent(*event);
      size = SizeOf(*event);
    }
    if (size > config_.max_event_size) {
      ++impacted;
      continue;
    }
    if (!batch.empty() && batch_size + size > config_.max_batch_size) {
      batches.push_back(std::move(batch));
      batch.clear();
      batch_size = 0;
    }
    batch_size += size;
    batch.push_back(std::move(event));
  }
  if (!batch.empty()) batches.push_back(std::move(batch));
  if (impacted) HandlePluginError(metrics_, "truncate", "event is too large even after truncating", impacted);
  return batches;
}

bool TruncateBackend::ProcessEvents(std::vector<EventPtr> events) {
  bool ok = true;
  for (auto& b : Batches(std::move(events))) ok = delegate_->ProcessEvents(std::move(b)) && ok;
  return ok;
}

Task<bool> TruncateBackend::ProcessEventsAsync(std::vector<EventPtr> events) {
  bool ok = true;
  for (auto& b : Batches(std::move(events))) ok = co_await delegate_->ProcessEventsAsync(std::move(b)) && ok;
  co_return ok;
}

}  // namespace capstan::audit
