// registry/rest_resource.h: one served resource as an API group hands it to the endpoints installer:
// its ResourceInfo, its REST storage and its schema. Group install functions (src/api/<group>/
// install.cpp) return lists of these; cmd/ passes them to the installer.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "apimachinery/schema.h"
#include "apimachinery/schema_registry.h"
#include "registry/admission_hook.h"
#include "registry/rest.h"
#include "registry/store.h"
#include "storage/object_store.h"
#include "util/clock.h"

namespace capstan::registry {

struct RestResource {
  ResourceInfo info;
  std::shared_ptr<Storage> storage;
  const apimachinery::Schema* schema = nullptr;
  bool protobuf = true;    // built-in kinds also speak protobuf
};

// How the storages that reach kubelets (pods/log, exec, attach, portforward, nodes/proxy) find a
// node's kubelet: its first address of these types (--kubelet-preferred-address-types) and the port
// it reports, else --kubelet-port.
struct KubeletConnection {
  std::vector<std::string> preferred_address_types = {"Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"};
  int64_t port = 10250;
};

// What a group's install function needs to build its storages.
struct GroupDeps {
  storage::ObjectStore* store = nullptr;
  const apimachinery::SchemaRegistry* schemas = nullptr;
  AdmissionHook* admission = nullptr;
  const Clock* clock = &RealClock::Get();
  std::string prefix = "/registry";  // --etcd-prefix
  int64_t event_ttl_seconds = 3600;  // --event-ttl: how long events (core/v1 and events.k8s.io) are kept
  KubeletConnection kubelet;
  // The ObjectStore of one resource's keys (cmd/ puts the watch cache in front of `store` here); it
  // gets the key root ("/registry/configmaps"), the resource and its strategy (selectable fields).
  // Null: every resource uses `store`.
  std::function<storage::ObjectStore*(const std::string& key_root, const ResourceInfo& info,
                                      const std::shared_ptr<const Strategy>& strategy)>
      store_for;
};

// A Store that owns its strategy.
class OwningStore : public Store {
 public:
  OwningStore(StoreConfig c, std::shared_ptr<const Strategy> strategy) : Store(Prepare(std::move(c), *strategy)), strategy_(std::move(strategy)) {}
  const Strategy& strategy() const { return *strategy_; }

 private:
  static StoreConfig Prepare(StoreConfig c, const Strategy& s) {
    c.strategy = &s;
    return c;
  }
  std::shared_ptr<const Strategy> strategy_;
};

// A subresource that reads and writes the parent's objects with its own strategy (status): only
// get, update and patch.
class SubresourceStore : public Patcher {
 public:
  SubresourceStore(StoreConfig c, std::shared_ptr<const Strategy> strategy)
      : inner_(std::move(c), std::move(strategy)) {}
  const ResourceInfo& Info() const override { return inner_.Info(); }
  Task<StatusOr<Object>> Get(const Context& ctx, const std::string& name, const GetOptions& opts) override {
    return inner_.Get(ctx, name, opts);
  }
  Task<StatusOr<UpdateOutcome>> Update(const Context& ctx, const std::string& name, ObjectTransform transform,
                                       const UpdateOptions& opts) override {
    return inner_.Update(ctx, name, std::move(transform), opts);
  }

 private:
  OwningStore inner_;
};

// The description of one resource for MakeResource.
struct ResourceSpec {
  ResourceInfo info;
  std::shared_ptr<const Strategy> strategy;
  std::string storage_resource;  // the key under the prefix; default: the resource name
  bool has_status = false;       // also serve <resource>/status
  bool return_deleted_object = false;
};

// Builds the Store (and status subresource) of a resource. Looks the schema up by info.definition.
std::vector<RestResource> MakeResource(const GroupDeps& deps, ResourceSpec spec);

}  // namespace capstan::registry
