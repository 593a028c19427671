// controllers/api_client.h: the in-process API client the control loops use. It calls the REST
// storages of the endpoints ApiRegistry snapshot (the same storages, strategies and admission a
// request reaches after authorization), never the storage layer below them, so every write a loop
// makes goes through the registry's ObjectMeta rules, finalizers and validation.
//
// Each call takes the snapshot current at that moment (resources installed later, custom resources
// included, are found), keeps it alive for the duration of the call (a watch keeps it for the
// watch's life) and runs with a Context whose user is the loops' identity (by default
// system:kube-controller-manager in system:masters). A resource that is not served, or a verb its
// storage does not implement, is a 404 NotFound / 405 MethodNotSupported Status as a client would
// see over HTTP.
//
// Thread-safety: safe from any thread; Tasks resume on the executor that awaited them.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "apimachinery/status.h"
#include "apimachinery/user_info.h"
#include "endpoints/api_registry.h"
#include "registry/rest.h"
#include "util/task.h"

namespace capstan::controllers {

using Object = registry::Object;

struct Gvr {
  std::string group;
  std::string version;
  std::string resource;
  auto operator<=>(const Gvr&) const = default;
  // "configmaps.v1." style, as kube prints a GroupVersionResource key.
  std::string String() const;
};

// The identity the loops act as.
UserInfo ControllerManagerUser();

// Changes an object in place; returns false when nothing needs writing, or an error to abort.
using Mutation = std::function<StatusOr<bool>(Object& obj)>;

class ApiClient {
 public:
  ApiClient(const endpoints::ApiRegistry& registry, UserInfo user, std::string field_manager = "kube-controller-manager");
  ApiClient(const ApiClient&) = delete;
  ApiClient& operator=(const ApiClient&) = delete;

  std::shared_ptr<const endpoints::ApiSnapshot> Snapshot() const { return registry_.Snapshot(); }
  const UserInfo& user() const { return user_; }

  Task<StatusOr<Object>> Get(const Gvr& r, const std::string& ns, const std::string& name,
                             const std::string& subresource = "");
  Task<StatusOr<registry::ObjectList>> List(const Gvr& r, const std::string& ns, const registry::ListOptions& opts);
  // The whole collection in pages of `page_size` (a continue token that expires restarts the list).
  Task<StatusOr<registry::ObjectList>> ListAll(const Gvr& r, const std::string& ns, registry::ListOptions opts,
                                               int64_t page_size = 500);
  Task<StatusOr<std::unique_ptr<registry::WatchStream>>> Watch(const Gvr& r, const std::string& ns,
                                                               const registry::ListOptions& opts);
  // apiVersion and kind are filled in from the resource.
  Task<StatusOr<Object>> Create(const Gvr& r, const std::string& ns, Object obj);
  // PUT: `obj` carries the resourceVersion it was read at (409 Conflict when stale).
  Task<StatusOr<Object>> Update(const Gvr& r, const std::string& ns, Object obj, const std::string& subresource = "");
  // Read-modify-write at the server, as a patch is: `mutate` sees the current object and is applied
  // again if a concurrent write wins the compare-and-swap. Returns the stored object.
  Task<StatusOr<Object>> Mutate(const Gvr& r, const std::string& ns, const std::string& name, Mutation mutate,
                                const std::string& subresource = "");
  Task<StatusOr<registry::DeleteOutcome>> Delete(const Gvr& r, const std::string& ns, const std::string& name,
                                                 const registry::DeleteOptions& opts);
  Task<StatusOr<registry::ObjectList>> DeleteCollection(const Gvr& r, const std::string& ns,
                                                        const registry::DeleteOptions& dopts,
                                                        const registry::ListOptions& lopts);

 private:
  registry::Context MakeContext(const std::string& ns) const;

  const endpoints::ApiRegistry& registry_;
  UserInfo user_;
  std::string field_manager_;
};

// Small JSON helpers the loops share.
const boost::json::value* JsonPath(const Object& o, std::initializer_list<std::string_view> path);
std::string JsonString(const Object& o, std::initializer_list<std::string_view> path);

}  // namespace capstan::controllers
