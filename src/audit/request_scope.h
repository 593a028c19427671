// audit/request_scope.h: what admission adds to one request on its way back: audit annotations and
// warnings (kube's admission.Attributes.AddAnnotation and warning.AddWarning).
//
// The audit filter opens a RequestScope per request and registers it in RequestScopes under the
// address of the request's authenticated user (RequestContext::user, the object the registry passes to
// admission as AdmissionAttributes::user), for the request's lifetime; admission plugins find it with
// that pointer. The filter writes the warnings as Warning headers and the annotations into the audit
// event. In-process callers (the control loops) have no scope; Find returns null and what they would
// add is dropped.
// TODO: carry a RequestScope* in registry::AdmissionAttributes once that header changes for other
// reasons, and drop the registry keyed by user address.
// Thread-safety: everything here is safe from any thread (validating webhooks run in parallel).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "audit/policy.h"

namespace capstan::audit {

class RequestScope {
 public:
  struct Annotation {
    std::string value;
    Level level = Level::kMetadata;  // the least event level that records it
  };
  // kube keeps the first value of a key; a later different value is refused (returns false).
  bool AddAnnotation(const std::string& key, std::string value, Level level = Level::kMetadata);
  void AddWarning(std::string text);
  std::map<std::string, Annotation> annotations() const;
  std::vector<std::string> warnings() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, Annotation> annotations_;  // guarded by mu_
  std::vector<std::string> warnings_;               // guarded by mu_
};

class RequestScopes {
 public:
  void Register(const void* key, RequestScope* scope);
  void Unregister(const void* key);
  // The scope of the request whose user object is at `key`, or null.
  RequestScope* Find(const void* key) const;
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<const void*, RequestScope*> scopes_;  // guarded by mu_
};

}  // namespace capstan::audit
