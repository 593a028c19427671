// audit/backend.h: where audit events go (kube's audit.Backend), and the audit metrics.
//
// The filter hands each stage's event to a Backend, on the request's thread; a Backend never blocks
// the request: the buffered backend queues events for its own thread and drops (and counts) what
// does not fit. An EventSink is the slow part behind a buffered backend (a file, a webhook): it is
// called on the backend's thread only, one batch at a time.
// Thread-safety: Backend::ProcessEvents from any thread; EventSink from the backend's thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "apimachinery/status.h"
#include "audit/event.h"
#include "util/metrics.h"

namespace capstan::audit {

using EventPtr = std::shared_ptr<const Event>;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual void ProcessEvents(std::vector<EventPtr> events) = 0;
  // Sends what is queued (bounded by the backend's own limits), then stops. Idempotent.
  virtual void Shutdown() = 0;
  virtual std::string Name() const = 0;
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  // One batch; an error means the batch was not (fully) delivered and is counted as dropped.
  virtual Status Write(const std::vector<EventPtr>& batch) = 0;
};

// kube-apiserver's audit metrics.
struct AuditMetrics {
  explicit AuditMetrics(MetricsRegistry& reg)
      : events(reg.NewCounter("apiserver_audit_event_total",
                              "Counter of audit events generated and sent to the audit backend.")),
        errors(reg.NewCounterVec("apiserver_audit_error_total",
                                 "Counter of audit events that failed to be audited properly. Plugin identifies the "
                                 "plugin affected by the error.",
                                 {"plugin"})),
        levels(reg.NewCounterVec("apiserver_audit_level_total",
                                 "Counter of policy levels for audit events (1 per request).", {"level"})),
        rejected(reg.NewCounter("apiserver_audit_requests_rejected_total",
                                "Counter of apiserver requests rejected due to an error in audit logging backend.")) {}
  Counter& events;
  CounterVec& errors;
  CounterVec& levels;
  Counter& rejected;
};

// Several backends as one (kube's union of the log and webhook backends).
class UnionBackend : public Backend {
 public:
  explicit UnionBackend(std::vector<std::unique_ptr<Backend>> members) : members_(std::move(members)) {}
  void ProcessEvents(std::vector<EventPtr> events) override {
    for (size_t i = 0; i < members_.size(); ++i) {
      if (i + 1 == members_.size()) {
        members_[i]->ProcessEvents(std::move(events));
      } else {
        members_[i]->ProcessEvents(events);
      }
    }
  }
  void Shutdown() override {
    for (auto& m : members_) m->Shutdown();
  }
  std::string Name() const override { return "union"; }

 private:
  std::vector<std::unique_ptr<Backend>> members_;
};

}  // namespace capstan::audit
