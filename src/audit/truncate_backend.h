// audit/truncate_backend.h: kube's truncating audit backend (--audit-log-truncate-* and
// --audit-webhook-truncate-*), in front of a backend.
//
// An event's size is the length of its JSON line. An event over max_event_size at level Request or
// RequestResponse loses its requestObject and responseObject and gets the annotation
// audit.k8s.io/truncated: "true"; an event still over the limit (or at Metadata level) is dropped and
// counted in apiserver_audit_error_total{plugin="truncate"}. The events that remain go to the delegate
// in batches of at most max_batch_size bytes (an event alone is never split). The outcome is the
// delegate's; a dropped event does not make it false (as kube).
// Thread-safety: as the delegate.
#pragma once

#include <cstdint>
#include <memory>

#include "audit/backend.h"

namespace capstan::audit {

struct TruncateConfig {
  int64_t max_event_size = 100 * 1024;
  int64_t max_batch_size = 10 * 1024 * 1024;
};

class TruncateBackend : public Backend {
 public:
  TruncateBackend(std::unique_ptr<Backend> delegate, TruncateConfig config, AuditMetrics* metrics)
      : delegate_(std::move(delegate)), config_(config), metrics_(metrics) {}

  bool ProcessEvents(std::vector<EventPtr> events) override;
  Task<bool> ProcessEventsAsync(std::vector<EventPtr> events) override;
  void Shutdown() override { delegate_->Shutdown(); }
  std::string Name() const override { return "truncate<" + delegate_->Name() + ">"; }

  // The batches the delegate gets for `events`, the oversized ones trimmed or left out (and counted).
  std::vector<std::vector<EventPtr>> Batches(std::vector<EventPtr> events);

 private:
  std::unique_ptr<Backend> delegate_;
  const TruncateConfig config_;
  AuditMetrics* metrics_;
};

// kube's truncate(): a copy without the request and response objects, annotated as truncated.
EventPtr TruncatedEvent(const Event& e);

}  // namespace capstan::audit
