// registry/rest.h: the capability interfaces a REST storage implements, with kube's names.
//
// A storage class inherits exactly the verbs it supports (Getter, Lister, Watcher, Creater, Updater,
// Patcher, GracefulDeleter, CollectionDeleter, Connecter, TableConvertor); the endpoints installer asks each
// storage once, at install time, which of them it is (dynamic_cast), registers those routes and lists
// those verbs in discovery. Objects are JSON documents. Implementations are thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "apimachinery/request_scope.h"
#include "apimachinery/status.h"
#include "apimachinery/user_info.h"
#include "registry/resource_info.h"
#include "util/task.h"

namespace capstan::storage {
class EncodingMemo;
}

namespace capstan::registry {

using Object = boost::json::object;

// What a request carries down to storage: who, where, and how.
struct Context {
  std::string namespace_;  // from the URL; "" for cluster-scoped resources and all-namespace lists
  const UserInfo* user = nullptr;
  bool dry_run = false;
  std::string field_manager;
  std::string subresource;  // set by subresource storages for admission
  std::string name;         // the name in the URL (for a create on a subresource: the parent's)
  // The request's warnings and audit annotations (apimachinery/request_scope.h); null for in-process
  // callers, whose warnings are dropped.
  RequestScope* scope = nullptr;
  void Warn(std::string w) const {
    if (scope) scope->AddWarning(std::move(w));
  }
};

struct GetOptions {
  std::string resource_version;
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;
  std::string resource_version_match;  // "", "NotOlderThan", "Exact"
  int64_t limit = 0;
  std::string continue_token;
  bool watch = false;
  bool allow_watch_bookmarks = false;
  std::optional<int64_t> timeout_seconds;
  std::optional<bool> send_initial_events;
  // Set by endpoints when the response is plain JSON: storage may then hand back objects already
  // serialized (ObjectList::serialized_items, WatchEvent::json), which are written as they are.
  bool accept_serialized = false;
};

struct ObjectList {
  std::vector<Object> items;
  // Instead of items (only with accept_serialized): each item's JSON, shared with the watch cache.
  std::vector<std::shared_ptr<const std::string>> serialized_items;
  std::string resource_version;
  std::string continue_token;
  std::optional<int64_t> remaining_item_count;
};

struct WriteOptions {
  bool dry_run = false;
  std::string field_manager;
  std::string field_validation;  // "Ignore", "Warn", "Strict"
};
using CreateOptions = WriteOptions;
using UpdateOptions = WriteOptions;

struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  std::optional<std::string> propagation_policy;  // Orphan, Background, Foreground
  std::optional<bool> orphan_dependents;
  bool dry_run = false;
};

// Computes the object an update writes from the current one (kube's rest.UpdatedObjectInfo): a PUT
// returns its body, a PATCH applies itself to `current`. `current` is null when the object does not
// exist (create-on-update).
using ObjectTransform = std::function<Task<StatusOr<Object>>(const Object* current)>;

struct UpdateOutcome {
  Object object;
  bool created = false;
};

struct DeleteOutcome {
  Object object;
  bool deleted = false;  // false: deletion is pending (finalizers, grace period)
};

struct WatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  Object object;     // for ERROR: a metav1.Status
  // With accept_serialized, ADDED/MODIFIED/DELETED may carry the object's JSON here instead (object
  // is then empty).
  std::shared_ptr<const std::string> json;
  // With json, when the storage keeps other encodings of the object (the watch cache): protobuf
  // watchers take the object's protobuf form from here, made once for all of them.
  std::shared_ptr<const storage::EncodingMemo> encodings;
};

class WatchStream {
 public:
  virtual ~WatchStream() = default;
  // The next events; empty when the watch has ended.
  virtual Task<std::vector<WatchEvent>> Next() = 0;
  virtual void Stop() = 0;
};

class Storage {
 public:
  virtual ~Storage() = default;
  virtual const ResourceInfo& Info() const = 0;
};

class Getter : public virtual Storage {
 public:
  virtual Task<StatusOr<Object>> Get(const Context& ctx, const std::string& name, const GetOptions& opts) = 0;
};

class Lister : public virtual Storage {
 public:
  virtual Task<StatusOr<ObjectList>> List(const Context& ctx, const ListOptions& opts) = 0;
};

class Watcher : public virtual Storage {
 public:
  virtual Task<StatusOr<std::unique_ptr<WatchStream>>> Watch(const Context& ctx, const ListOptions& opts) = 0;
};

class Creater : public virtual Storage {
 public:
  virtual Task<StatusOr<Object>> Create(const Context& ctx, Object obj, const CreateOptions& opts) = 0;
};

class Updater : public virtual Storage {
 public:
  virtual Task<StatusOr<UpdateOutcome>> Update(const Context& ctx, const std::string& name, ObjectTransform transform,
                                               const UpdateOptions& opts) = 0;
};

// PATCH needs the current object and an update: kube's Patcher is a Getter and an Updater.
class Patcher : public virtual Getter, public virtual Updater {};

class GracefulDeleter : public virtual Storage {
 public:
  virtual Task<StatusOr<DeleteOutcome>> Delete(const Context& ctx, const std::string& name,
                                               const DeleteOptions& opts) = 0;
};

class CollectionDeleter : public virtual Storage {
 public:
  virtual Task<StatusOr<ObjectList>> DeleteCollection(const Context& ctx, const DeleteOptions& dopts,
                                                      const ListOptions& lopts) = 0;
  // False for a storage built on the generic store that does not offer deletecollection (kube's
  // namespaces): the installer then routes no DELETE on the collection and discovery omits the verb.
  virtual bool OffersDeleteCollection() const { return true; }
};

// The storage's CollectionDeleter if it offers deletecollection, else nullptr.
inline CollectionDeleter* AsCollectionDeleter(Storage* s) {
  auto* d = dynamic_cast<CollectionDeleter*>(s);
  return d && d->OffersDeleteCollection() ? d : nullptr;
}

// A subresource that streams or proxies to something else (pods/log, exec, attach, portforward,
// proxy): kube's rest.Connecter. The endpoints layer routes every method it lists to Connect.
struct ConnectRequest {
  std::string method;  // GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS
  std::string path;    // what follows the subresource in the URL ("" or "/a/b")
  std::vector<std::pair<std::string, std::string>> query;
  bool upgrade = false;  // the client asked for a connection upgrade (SPDY, WebSocket)
};

// Where a Connecter sends the request when the answer comes from another server (a kubelet, a pod, a
// service endpoint): kube's Connect returning a proxy handler or a LocationStreamer. The endpoints
// layer (endpoints/connect_proxy.h) dials it through the named transport.
enum class ConnectTransport {
  kKubelet,          // the kubelet client (--kubelet-client-certificate, --kubelet-certificate-authority)
  kKubeletInsecure,  // the same without verifying the kubelet's certificate (insecureSkipTLSVerifyBackend)
  kProxy,            // kube's proxy transport for pods and services (no certificate verification)
};

struct ConnectLocation {
  enum class Mode {
    kStream,  // GET url and stream its body as the response (kube's LocationStreamer: pods/log)
    kProxy,   // the client's method, headers, query and body go to url (kube's UpgradeAwareHandler)
    kUpgrade, // an upgrade request goes to url with `query` (exec, attach, port-forward); nothing else
  };
  Mode mode = Mode::kProxy;
  ConnectTransport transport = ConnectTransport::kProxy;
  std::string base;  // scheme://host[:port]
  std::string path;  // decoded ("/containerLogs/ns/pod/c"; kProxy: what followed the subresource)
  std::vector<std::pair<std::string, std::string>> query;  // kStream, kUpgrade (kProxy passes the client's query)
  // kStream: the response's Content-Type; an upstream error status becomes an API error naming
  // resource and name (kube's GenericHttpResponseChecker).
  std::string content_type;
  // kUpgrade: the WebSocket requests Capstan answers itself rather than relays (kube's
  // TranslatingHandler): v5.channel.k8s.io for exec and attach, SPDY tunnelling for port-forward.
  enum class Translation { kNone, kRemoteCommand, kPortForward };
  Translation translation = Translation::kNone;
  apimachinery::GroupResource resource;
  std::string name;
};

struct ConnectResponse {
  int code = 200;  // 204: no body
  std::string content_type;
  std::string body;
  std::optional<ConnectLocation> location;  // set: answered by the server there (code and body unused)
};

class Connecter : public virtual Storage {
 public:
  // The HTTP methods served, e.g. {"GET", "POST"}; discovery lists them as verbs.
  virtual std::vector<std::string> ConnectMethods() const = 0;
  virtual Task<StatusOr<ConnectResponse>> Connect(const Context& ctx, const std::string& name,
                                                  const ConnectRequest& req) = 0;
};

// kube's rest.StorageVersionProvider: a resource whose objects are persisted names the
// group/version/kind they are stored as (a version served through a conversion names the storage
// version's). Discovery publishes its hash as the APIResource's storageVersionHash. nullopt: none
// (a subresource, or nothing is stored).
class StorageVersionProvider : public virtual Storage {
 public:
  virtual std::optional<apimachinery::GroupVersionKind> StorageVersion() const = 0;
};

struct TableColumn {
  std::string name;
  std::string type;    // string, integer, number, boolean, date
  std::string format;  // name, ...
  std::string description;
  int priority = 0;    // 0: always shown; 1: with -o wide
};

class TableConvertor : public virtual Storage {
 public:
  virtual std::vector<TableColumn> TableColumns() const = 0;
  // One row's cells for the object, in column order.
  virtual boost::json::array TableCells(const Object& obj) const = 0;
};

}  // namespace capstan::registry
