// audit/recorder.h: one request's audit events, as kube's audit filter builds them, without HTTP.
//
// A Sink is where a server's events go: the policy that picks each request's level and the backend
// that takes the events (either missing: no events, as kube without --audit-policy-file or a backend).
// A Recorder holds one request's Event and the policy's answer for it; Emit hands the backend a copy at
// a stage unless the policy omits that stage. The HTTP side (server/filters/audit_events.cpp) fills the
// event from the request and the response; the helpers below build the responseStatus values kube
// writes and apply omitManagedFields.
// Thread-safety: a Sink's pointers are shared and thread-safe; a Recorder belongs to one request.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string_view>

#include "audit/backend.h"
#include "audit/event.h"
#include "audit/policy.h"

namespace capstan::audit {

struct Sink {
  const Policy* policy = nullptr;
  Backend* backend = nullptr;
  AuditMetrics* metrics = nullptr;  // none: not counted
  bool enabled() const { return policy && backend; }
  // The policy's answer for a request (level None when disabled), counted in apiserver_audit_level_total.
  RequestAuditConfig Evaluate(const RequestAttributes& attrs) const;
};

class Recorder {
 public:
  Recorder(const Sink& sink, RequestAuditConfig config) : sink_(sink), config_(std::move(config)) {
    event_.level = config_.level;
  }
  Event& event() { return event_; }
  const RequestAuditConfig& config() const { return config_; }
  Level level() const { return config_.level; }
  // A copy of the event at `stage`, stamped now (RequestReceived: with the time the request came), to
  // the backend, unless omitted by the policy; resumes when the backend took it. False only when a
  // blocking-strict backend failed to store it.
  Task<bool> Emit(Stage stage);
  // The same without waiting (from callbacks that cannot wait): the event is queued in order all the
  // same, so no mode loses it.
  void EmitNoWait(Stage stage);

 private:
  std::vector<EventPtr> StageEvent(Stage stage);

  const Sink& sink_;
  RequestAuditConfig config_;
  Event event_;
};

// The responseStatus of an answer: the Status body's status, message, reason, details and code when
// the body is a Status, else only the code.
boost::json::object ResponseStatusOf(int code, const std::optional<boost::json::value>& body);
// {code, message}: what kube records when there is no Status body (ResponseStarted, failed authentication).
boost::json::object CodeStatus(int code, std::string_view message = {});
// kube's "APIServer panic'd: <what>" InternalError.
boost::json::object PanicStatus(std::string_view what);
// A request whose client went before any answer: kube records 200 "Connection closed early".
boost::json::object ConnectionClosedEarlyStatus();
// omitManagedFields: drops metadata.managedFields from an object, a list's items and a Table's rows.
void DropManagedFields(boost::json::value& v);

}  // namespace capstan::audit
