#include "cmd/authorization/policy_informers.h"

#include "controllers/informer.h"
#include "controllers/run_scope.h"
#include "util/executor.h"
#include "util/log.h"

namespace capstan::authz {

namespace ctl = capstan::controllers;

namespace {

UserInfo ApiServerUser() {
  UserInfo u;
  u.name = "system:apiserver";
  u.groups = {kSystemPrivilegedGroup, kAllAuthenticated};
  return u;
}

ctl::InformerOptions Options(const char* group, const char* resource, const char* kind) {
  ctl::InformerOptions o;
  o.gvr = ctl::Gvr{group, "v1", resource};
  o.api_version = std::string(group).empty() ? "v1" : std::string(group) + "/v1";
  o.kind = kind;
  return o;
}

}  // namespace

struct PolicyInformers::LoopState {
  std::shared_ptr<LocalLoop> loop = std::make_shared<LocalLoop>();
  std::unique_ptr<ctl::ApiClient> client;
  std::unique_ptr<ctl::RunScope> scope;
  std::unique_ptr<ctl::Informer> roles, cluster_roles, role_bindings, cluster_role_bindings, pods, pvcs;
  bool dirty = true;
  bool stopping = false;
};

PolicyInformers::PolicyInformers(const endpoints::ApiRegistry& registry, RbacAuthorizer* rbac, NodeAuthorizer* node)
    : registry_(registry), rbac_(rbac), node_(node), state_(std::make_unique<LoopState>()) {}

PolicyInformers::~PolicyInformers() { Stop(); }

void PolicyInformers::Start() {
  if (started_) return;
  started_ = true;
  thread_ = std::thread([this] { Loop(); });
}

bool PolicyInformers::WaitForSync(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [this] { return synced_; });
}

void PolicyInformers::Stop() {
  if (!started_) return;
  started_ = false;
  LoopState* s = state_.get();
  s->loop->Post([s] {
    s->stopping = true;
    for (auto* inf : {s->roles.get(), s->cluster_roles.get(), s->role_bindings.get(), s->cluster_role_bindings.get(),
                      s->pods.get(), s->pvcs.get()}) {
      if (inf) inf->Stop();
    }
    s->scope->Stop();
  });
  thread_.join();
}

void PolicyInformers::Loop() {
  LoopState& s = *state_;
  ExecutorScope executor(s.loop);
  s.client = std::make_unique<ctl::ApiClient>(registry_, ApiServerUser(), "kube-apiserver");
  s.scope = std::make_unique<ctl::RunScope>(s.loop, [&s] { s.loop->Stop(); });
  std::vector<ctl::Informer*> all;
  auto make = [&](ctl::InformerOptions o) {
    auto inf = std::make_unique<ctl::Informer>(*s.client, *s.scope, std::move(o));
    all.push_back(inf.get());
    return inf;
  };
  if (rbac_) {
    const char* g = "rbac.authorization.k8s.io";
    s.roles = make(Options(g, "roles", "Role"));
    s.cluster_roles = make(Options(g, "clusterroles", "ClusterRole"));
    s.role_bindings = make(Options(g, "rolebindings", "RoleBinding"));
    s.cluster_role_bindings = make(Options(g, "clusterrolebindings", "ClusterRoleBinding"));
    ctl::EventHandler mark;
    mark.on_add = [&s](const ctl::Object&) { s.dirty = true; };
    mark.on_update = [&s](const ctl::Object&, const ctl::Object&) { s.dirty = true; };
    mark.on_delete = [&s](const ctl::Object&) { s.dirty = true; };
    for (auto* inf : {s.roles.get(), s.cluster_roles.get(), s.role_bindings.get(), s.cluster_role_bindings.get()}) {
      inf->AddHandler(mark);
    }
  }
  if (node_) {
    s.pods = make(Options("", "pods", "Pod"));
    s.pvcs = make(Options("", "persistentvolumeclaims", "PersistentVolumeClaim"));
    NodeAuthorizer* node = node_;
    auto ns_name = [](const ctl::Object& o, std::string& ns, std::string& name) {
      if (const auto* md = o.if_contains("metadata"); md && md->is_object()) {
        if (const auto* v = md->get_object().if_contains("namespace"); v && v->is_string()) ns = v->get_string();
        if (const auto* v = md->get_object().if_contains("name"); v && v->is_string()) name = v->get_string();
      }
    };
    ctl::EventHandler pods;
    pods.on_add = [node](const ctl::Object& o) { node->SetPod(o); };
    pods.on_update = [node](const ctl::Object&, const ctl::Object& o) { node->SetPod(o); };
    pods.on_delete = [node, ns_name](const ctl::Object& o) {
      std::string ns, name;
      ns_name(o, ns, name);
      node->DeletePod(ns, name);
    };
    s.pods->AddHandler(std::move(pods));
    ctl::EventHandler pvcs;
    pvcs.on_add = [node](const ctl::Object& o) { node->SetPvc(o); };
    pvcs.on_update = [node](const ctl::Object&, const ctl::Object& o) { node->SetPvc(o); };
    pvcs.on_delete = [node, ns_name](const ctl::Object& o) {
      std::string ns, name;
      ns_name(o, ns, name);
      node->DeletePvc(ns, name);
    };
    s.pvcs->AddHandler(std::move(pvcs));
  }
  for (auto* inf : all) inf->Run();

  // The publisher: waits for every informer's first list, then rebuilds whenever something changed.
  s.scope->Spawn([](PolicyInformers* self, LoopState* st, std::vector<ctl::Informer*> informers) -> Task<void> {
    for (auto* inf : informers) {
      if (!co_await inf->WaitForSync()) co_return;
    }
    auto collect_roles = [](ctl::Informer* inf) {
      std::vector<RoleData> out;
      inf->ForEach([&](const ctl::Object& o) { out.push_back(RoleFromJson(o)); });
      return out;
    };
    auto collect_bindings = [](ctl::Informer* inf) {
      std::vector<BindingData> out;
      inf->ForEach([&](const ctl::Object& o) { out.push_back(BindingFromJson(o)); });
      return out;
    };
    bool first = true;
    do {
      if (self->rbac_ && st->dirty) {
        st->dirty = false;
        self->rbac_->SetPolicy(RbacPolicy::Build(collect_roles(st->roles.get()), collect_roles(st->cluster_roles.get()),
                                                 collect_bindings(st->role_bindings.get()),
                                                 collect_bindings(st->cluster_role_bindings.get())));
        self->rbac_->BumpGeneration();
        self->rebuilds_.fetch_add(1);
      }
      if (first) {
        first = false;
        std::lock_guard lock(self->mu_);
        self->synced_ = true;
        self->cv_.notify_all();
      }
    } while (co_await st->scope->Sleep(std::chrono::milliseconds(20)));
  }(this, &s, all));
  s.loop->Run();
  s.roles.reset();
  s.cluster_roles.reset();
  s.role_bindings.reset();
  s.cluster_role_bindings.reset();
  s.pods.reset();
  s.pvcs.reset();
  s.scope.reset();
  s.client.reset();
}

}  // namespace capstan::authz
