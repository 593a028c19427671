// apimachinery/request_scope.h: what one request gathers on its way through the server and hands back
// to the client and the audit log: warnings (kube's warning.AddWarning, written as `Warning: 299 - "..."`
// response headers) and audit annotations (kube's admission.Attributes.AddAnnotation[WithLevel]).
//
// The server owns one RequestScope per request (http::RequestContext::scope); it travels down as a
// pointer in registry::Context and registry::AdmissionAttributes, so the REST handlers, the registry and
// admission plugins add to the request's own scope. The warning-recorder filter writes the warnings as
// headers when the response starts; the audit filter copies the annotations into the request's event.
// In-process callers (the control loops) pass no scope, and what would be added is dropped.
// Thread-safety: safe from any thread (validating webhooks run in parallel for one request).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace capstan {

// audit.k8s.io's levels; audit::Level is this type.
enum class AuditLevel { kNone = 0, kMetadata = 1, kRequest = 2, kRequestResponse = 3 };

class RequestScope {
 public:
  struct Annotation {
    std::string value;
    AuditLevel level = AuditLevel::kMetadata;  // the least event level that records it
  };
  // kube keeps the first value of a key; a later different value is refused (returns false).
  bool AddAnnotation(const std::string& key, std::string value, AuditLevel level = AuditLevel::kMetadata);
  // Duplicates are kept once, in the order first added.
  void AddWarning(std::string text);
  std::map<std::string, Annotation> annotations() const;
  std::vector<std::string> warnings() const;
  // Time spent waiting for what the request SLI leaves out (admission webhooks, the APF queue), as
  // kube's latency trackers: apiserver_request_sli_duration_seconds is the latency minus this.
  void AddSliExcludedLatency(std::chrono::nanoseconds d) { sli_excluded_ns_.fetch_add(d.count(), std::memory_order_relaxed); }
  std::chrono::nanoseconds sli_excluded_latency() const {
    return std::chrono::nanoseconds(sli_excluded_ns_.load(std::memory_order_relaxed));
  }

 private:
  std::atomic<int64_t> sli_excluded_ns_{0};
  mutable std::mutex mu_;
  std::map<std::string, Annotation> annotations_;  // guarded by mu_
  std::vector<std::string> warnings_;               // guarded by mu_
};

}  // namespace capstan
