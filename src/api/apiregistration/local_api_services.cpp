// api/apiregistration/local_api_services.cpp: the APIServices kube-apiserver registers for the group
// versions it serves (kube's apiServicesToRegister with the autoregister controller's "onstart"
// handling), with kube's group and version priorities.
#include <map>
#include <set>

#include "api/apiregistration/apiregistration.h"
#include "api/common.h"
#include "api/networking/validators.h"
#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"

namespace capstan::api::apiregistration {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

constexpr std::string_view kManagedLabel = "kube-aggregator.kubernetes.io/automanaged";

struct Priority {
  int64_t group;
  int64_t version;
};

const std::map<std::pair<std::string, std::string>, Priority>& Priorities() {
  static const std::map<std::pair<std::string, std::string>, Priority> table = {
      {{"", "v1"}, {18000, 1}},
      {{"apps", "v1"}, {17800, 15}},
      {{"events.k8s.io", "v1"}, {17750, 15}},
      {{"events.k8s.io", "v1beta1"}, {17750, 5}},
      {{"authentication.k8s.io", "v1"}, {17700, 15}},
      {{"authentication.k8s.io", "v1beta1"}, {17700, 9}},
      {{"authentication.k8s.io", "v1alpha1"}, {17700, 1}},
      {{"authorization.k8s.io", "v1"}, {17600, 15}},
      {{"autoscaling", "v1"}, {17500, 15}},
      {{"autoscaling", "v2"}, {17500, 30}},
      {{"autoscaling", "v2beta1"}, {17500, 9}},
      {{"autoscaling", "v2beta2"}, {17500, 1}},
      {{"batch", "v1"}, {17400, 15}},
      {{"batch", "v1beta1"}, {17400, 9}},
      {{"batch", "v2alpha1"}, {17400, 9}},
      {{"certificates.k8s.io", "v1"}, {17300, 15}},
      {{"certificates.k8s.io", "v1alpha1"}, {17300, 1}},
      {{"networking.k8s.io", "v1"}, {17200, 15}},
      {{"networking.k8s.io", "v1beta1"}, {17200, 9}},
      {{"networking.k8s.io", "v1alpha1"}, {17200, 1}},
      {{"policy", "v1"}, {17100, 15}},
      {{"policy", "v1beta1"}, {17100, 9}},
      {{"rbac.authorization.k8s.io", "v1"}, {17000, 15}},
      {{"storage.k8s.io", "v1"}, {16800, 15}},
      {{"storage.k8s.io", "v1beta1"}, {16800, 9}},
      {{"storage.k8s.io", "v1alpha1"}, {16800, 1}},
      {{"apiextensions.k8s.io", "v1"}, {16700, 15}},
      {{"admissionregistration.k8s.io", "v1"}, {16700, 15}},
      {{"admissionregistration.k8s.io", "v1beta1"}, {16700, 12}},
      {{"admissionregistration.k8s.io", "v1alpha1"}, {16700, 9}},
      {{"scheduling.k8s.io", "v1"}, {16600, 15}},
      {{"coordination.k8s.io", "v1"}, {16500, 15}},
      {{"coordination.k8s.io", "v1alpha2"}, {16500, 12}},
      {{"node.k8s.io", "v1"}, {16300, 15}},
      {{"node.k8s.io", "v1alpha1"}, {16300, 1}},
      {{"node.k8s.io", "v1beta1"}, {16300, 9}},
      {{"discovery.k8s.io", "v1"}, {16200, 15}},
      {{"discovery.k8s.io", "v1beta1"}, {16200, 12}},
      {{"flowcontrol.apiserver.k8s.io", "v1"}, {16100, 21}},
      {{"flowcontrol.apiserver.k8s.io", "v1beta3"}, {16100, 18}},
      {{"flowcontrol.apiserver.k8s.io", "v1beta2"}, {16100, 15}},
      {{"flowcontrol.apiserver.k8s.io", "v1beta1"}, {16100, 12}},
      {{"flowcontrol.apiserver.k8s.io", "v1alpha1"}, {16100, 9}},
      {{"internal.apiserver.k8s.io", "v1alpha1"}, {16000, 9}},
      {{"storagemigration.k8s.io", "v1alpha1"}, {15500, 9}},
  };
  return table;
}

std::string NameOf(const GroupVersion& gv) { return gv.version + "." + gv.group; }

Object Desired(const GroupVersion& gv, const Priority& p) {
  Object svc;
  svc["apiVersion"] = "apiregistration.k8s.io/v1";
  svc["kind"] = "APIService";
  svc["metadata"] = json::object{{"name", NameOf(gv)}, {"labels", json::object{{kManagedLabel, "onstart"}}}};
  svc["spec"] = json::object{{"group", gv.group},
                             {"version", gv.version},
                             {"groupPriorityMinimum", p.group},
                             {"versionPriority", p.version}};
  return svc;
}

bool Automanaged(const Object& svc) {
  auto v = am::GetLabel(svc, kManagedLabel);
  return v && (*v == "onstart" || *v == "true");
}

}  // namespace

bool BuiltinPriority(const GroupVersion& gv, int64_t* group_priority, int64_t* version_priority) {
  auto it = Priorities().find({gv.group, gv.version});
  if (it == Priorities().end()) return false;
  *group_priority = it->second.group;
  *version_priority = it->second.version;
  return true;
}

Task<Status> EnsureLocalApiServices(registry::Storage& apiservices, std::vector<GroupVersion> served) {
  auto* getter = dynamic_cast<registry::Getter*>(&apiservices);
  auto* lister = dynamic_cast<registry::Lister*>(&apiservices);
  auto* creater = dynamic_cast<registry::Creater*>(&apiservices);
  auto* updater = dynamic_cast<registry::Updater*>(&apiservices);
  auto* deleter = dynamic_cast<registry::GracefulDeleter*>(&apiservices);
  if (!getter || !lister || !creater || !updater || !deleter) co_return am::NewInternalError("apiservices are not served");
  registry::Context ctx;
  std::set<std::string> wanted;
  for (const auto& gv : served) {
    auto it = Priorities().find({gv.group, gv.version});
    if (it == Priorities().end()) continue;  // kube skips what it has no priority for
    Object want = Desired(gv, it->second);
    std::string name = NameOf(gv);
    wanted.insert(name);
    auto current = co_await getter->Get(ctx, name, {});
    if (!current.ok()) {
      if (!am::IsNotFound(current.status())) co_return current.TakeStatus();
      auto created = co_await creater->Create(ctx, std::move(want), {});
      if (!created.ok() && !am::IsAlreadyExists(created.status())) co_return created.TakeStatus();
      continue;
    }
    if (!Automanaged(*current) || catalog::SameValue(current->if_contains("spec"), want.if_contains("spec"))) continue;
    auto updated = co_await updater->Update(
        ctx, name,
        [want](const Object* cur) -> Task<StatusOr<Object>> {
          if (!cur) co_return am::NewNotFound({"apiregistration.k8s.io", "apiservices"}, std::string(am::GetName(want)));
          Object next = *cur;
          next["spec"] = want.at("spec");
          co_return next;
        },
        {});
    if (!updated.ok() && !am::IsNotFound(updated.status()) && !am::IsConflict(updated.status())) {
      co_return updated.TakeStatus();
    }
  }
  // APIServices registered at an earlier start for group/versions no longer served.
  auto all = co_await lister->List(ctx, {});
  if (!all.ok()) co_return all.TakeStatus();
  for (const auto& svc : all->items) {
    std::string name(am::GetName(svc));
    if (wanted.count(name) || am::GetLabel(svc, kManagedLabel) != std::optional<std::string_view>("onstart")) continue;
    registry::DeleteOptions opts;
    opts.precondition_uid = std::string(am::GetUid(svc));
    auto deleted = co_await deleter->Delete(ctx, name, opts);
    if (!deleted.ok() && !am::IsNotFound(deleted.status()) && !am::IsConflict(deleted.status())) {
      co_return deleted.TakeStatus();
    }
  }
  co_return Status();
}

}  // namespace capstan::api::apiregistration
