// audit/backend.h: where audit events go (kube's audit.Backend), and the audit metrics.
//
// A Backend takes events and says whether it handled them all (kube's ProcessEvents bool). Backends
// compose as kube's do: the log and webhook backends write; BufferedBackend (batch mode) queues for its
// own thread and drops what does not fit; BlockingBackend (blocking, blocking-strict) makes the request
// wait until its events are written, without blocking the request's thread; TruncateBackend trims
// oversized events; UnionBackend fans out. Only blocking-strict passes a write failure back; the
// audit filter then fails a request whose RequestReceived event was not stored.
//
// ProcessEvents may block (a write, a webhook call); ProcessEventsAsync is what the request path calls:
// it never blocks the calling thread and completes when ProcessEvents would have returned. The
// default runs ProcessEvents inline, which is right for backends that never block (buffered).
// Thread-safety: ProcessEvents and ProcessEventsAsync from any thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "audit/event.h"
#include "util/metrics.h"
#include "util/task.h"

namespace capstan::audit {

using EventPtr = std::shared_ptr<const Event>;

class Backend {
 public:
  virtual ~Backend() = default;
  // False when an event was not handled (only backends that pass failures up say so).
  virtual bool ProcessEvents(std::vector<EventPtr> events) = 0;
  virtual Task<bool> ProcessEventsAsync(std::vector<EventPtr> events) { co_return ProcessEvents(std::move(events)); }
  // Sends what is queued (bounded by the backend's own limits), then stops, delegates included. Idempotent.
  virtual void Shutdown() = 0;
  // kube's String(): "buffered<log>", "truncate<webhook>".
  virtual std::string Name() const = 0;
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

// kube's audit.HandlePluginError: counts `impacted` events in apiserver_audit_error_total{plugin} and
// logs the error (at the first failure of a plugin and then once per 1000 events, so a broken disk does
// not flood the log). Metrics may be null.
void HandlePluginError(AuditMetrics* metrics, std::string_view plugin, std::string_view error, size_t impacted);

// Several backends as one (kube's union of the log and webhook backends): every member gets every
// event; the result is true only when every member says so.
class UnionBackend : public Backend {
 public:
  explicit UnionBackend(std::vector<std::unique_ptr<Backend>> members) : members_(std::move(members)) {}
  bool ProcessEvents(std::vector<EventPtr> events) override;
  Task<bool> ProcessEventsAsync(std::vector<EventPtr> events) override;
  void Shutdown() override;
  std::string Name() const override;

 private:
  std::vector<std::unique_ptr<Backend>> members_;
};

}  // namespace capstan::audit
