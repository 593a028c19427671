// api/core/pod.cpp: core/v1 Pods: kube's defaulting and validation, status Pending with the QoS class
// on create, the spec/status split, the update rule, graceful deletion of scheduled pods, the pod
// printer (NAME READY STATUS RESTARTS AGE; IP NODE NOMINATED NODE READINESS GATES), kube's pod field
// selectors, and the subresources (pod_subresources.cpp).
#include <map>
#include <set>

#include "api/core/core.h"
#include "api/core/core_descriptions.h"
#include "api/core/core_helpers.h"
#include "api/core/core_resources.h"
#include "api/core/pod_defaults.h"
#include "api/core/pod_internal.h"
#include "api/core/pod_validation.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/quantity.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

std::string PodQosClass(const json::object& spec) {
  std::map<std::string, int64_t> requests, limits;
  bool guaranteed = true;
  for (const char* list : {"containers", "initContainers"}) {
    const auto* arr = spec.if_contains(list);
    if (!arr || !arr->is_array()) continue;
    for (const auto& c : arr->get_array()) {
      if (!c.is_object()) continue;
      const json::value* res = c.get_object().if_contains("resources");
      const json::object* r = res && res->is_object() ? &res->get_object() : nullptr;
      auto add = [&](const char* which, std::map<std::string, int64_t>& into) {
        std::set<std::string> found;
        const json::value* m = r ? r->if_contains(which) : nullptr;
        if (!m || !m->is_object()) return found;
        for (const auto& kv : m->get_object()) {
          std::string name(kv.key());
          if (name != "cpu" && name != "memory") continue;
          auto q = am::ParseQuantityJson(kv.value());
          if (!q.ok() || q->Sign() <= 0) continue;
          into[name] += q->MilliValue();
          found.insert(name);
        }
        return found;
      };
      add("requests", requests);
      auto lim_found = add("limits", limits);
      if (!lim_found.count("cpu") || !lim_found.count("memory")) guaranteed = false;
    }
  }
  if (requests.empty() && limits.empty()) return "BestEffort";
  if (guaranteed) {
    for (const auto& [name, req] : requests) {
      auto it = limits.find(name);
      if (it == limits.end() || it->second != req) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size() == limits.size() ? "Guaranteed" : "Burstable";
}

namespace {

const json::object& SpecOf(const Object& pod) {
  static const json::object kEmpty;
  const auto* s = pod.if_contains("spec");
  return s && s->is_object() ? s->get_object() : kEmpty;
}

std::string PodStatusField(const Object& pod, std::string_view key) { return StrOf(PathAt(pod, {"status", key})); }

class PodStrategy : public registry::DefaultStrategy {
 public:
  PodStrategy() : DefaultStrategy(Options{}) {}

  bool AllowCreateOnUpdate() const override { return false; }

  void PrepareForCreate(const registry::Context&, Object& pod) const override {
    DefaultPod(pod);
    json::object status;
    status["phase"] = "Pending";
    status["qosClass"] = PodQosClass(SpecOf(pod));
    if (CountAt(SpecOf(pod), "schedulingGates") > 0) {
      json::object cond;
      cond["type"] = "PodScheduled";
      cond["status"] = "False";
      cond["lastProbeTime"] = nullptr;
      cond["lastTransitionTime"] = nullptr;
      cond["reason"] = "SchedulingGated";
      cond["message"] = "Scheduling is blocked due to non-empty scheduling gates";
      status["conditions"] = json::array{std::move(cond)};
    }
    pod["status"] = std::move(status);
  }

  void PrepareForUpdate(const registry::Context&, Object& pod, const Object& old) const override {
    DefaultPod(pod);
    if (const auto* s = old.if_contains("status")) {
      pod["status"] = *s;
    } else {
      pod.erase("status");
    }
    // Ephemeral containers change only through pods/ephemeralcontainers.
    json::object& spec = ObjectField(pod, "spec");
    if (const auto* ec = SpecOf(old).if_contains("ephemeralContainers")) {
      spec["ephemeralContainers"] = *ec;
    } else {
      spec.erase("ephemeralContainers");
    }
  }

  ErrorList Validate(const registry::Context&, const Object& pod) const override {
    ErrorList errs = ValidatePodSpec(SpecOf(pod), FieldPath("spec"));
    if (CountAt(SpecOf(pod), "ephemeralContainers") > 0) {
      errs.push_back(ForbiddenError(FieldPath("spec").Child("ephemeralContainers"), "cannot be set on create"));
    }
    return errs;
  }

  std::vector<std::string> WarningsOnCreate(const registry::Context&, const Object& pod) const override {
    std::vector<std::string> out;
    auto problems = am::IsDNS1123Label(am::GetName(pod));
    if (!problems.empty()) {
      out.push_back("metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a "
                    "DNS label is recommended: [" + Join(problems, " ") + "]");
    }
    return out;
  }

  ErrorList ValidateUpdate(const registry::Context&, const Object& pod, const Object& old) const override {
    ErrorList errs = ValidatePodSpec(SpecOf(pod), FieldPath("spec"));
    ErrorList upd = ValidatePodSpecUpdate(SpecOf(pod), SpecOf(old));
    errs.insert(errs.end(), upd.begin(), upd.end());
    return errs;
  }

  // kube: the pod's terminationGracePeriodSeconds unless the request says otherwise; immediate for
  // pods never scheduled or already finished.
  bool CheckGracefulDelete(const Object& pod, registry::DeleteOptions& opts) const override {
    int64_t period = 0;
    if (opts.grace_period_seconds) {
      period = *opts.grace_period_seconds;
    } else if (const auto* g = SpecOf(pod).if_contains("terminationGracePeriodSeconds"); g && !g->is_null()) {
      period = IntOf(g);
    }
    if (StrOf(SpecOf(pod).if_contains("nodeName")).empty()) period = 0;
    std::string phase = PodStatusField(pod, "phase");
    if (phase == "Failed" || phase == "Succeeded") period = 0;
    if (period < 0) period = 1;
    opts.grace_period_seconds = period;
    // A zero grace period deletes at once, as kube's store does for it.
    return period > 0;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.", 0},
            {"Status", "string", "", "The aggregate status of the containers in this pod.", 0},
            {"Restarts", "string", "",
             "The number of times the containers in this pod have been restarted and when the last container in this "
             "pod has restarted.",
             0},
            registry::AgeColumn(),
            {"IP", "string", "", kPodStatusPodIP, 1},
            {"Node", "string", "", kPodSpecNodeName, 1},
            {"Nominated Node", "string", "", kPodStatusNominatedNodeName, 1},
            {"Readiness Gates", "string", "", kPodSpecReadinessGates, 1}};
  }

  json::array TableCells(const Object& pod) const override;

  std::string UnsupportedFieldLabelMessage(std::string_view f) const override { return am::FieldLabelNotSupportedError(f); }
  std::vector<std::string> SelectableFieldNames() const override {
    return {"metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
            "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"};
  }
  am::FieldSet SelectableFields(const Object& pod) const override {
    am::FieldSet f = DefaultStrategy::SelectableFields(pod);
    const json::object& spec = SpecOf(pod);
    f["spec.nodeName"] = StrOf(spec.if_contains("nodeName"));
    f["spec.restartPolicy"] = StrOf(spec.if_contains("restartPolicy"));
    f["spec.schedulerName"] = StrOf(spec.if_contains("schedulerName"));
    f["spec.serviceAccountName"] = StrOf(spec.if_contains("serviceAccountName"));
    const auto* hn = spec.if_contains("hostNetwork");
    f["spec.hostNetwork"] = hn && hn->is_bool() && hn->get_bool() ? "true" : "false";
    f["status.phase"] = PodStatusField(pod, "phase");
    std::string ip;
    if (const auto* ips = PathAt(pod, {"status", "podIPs"}); ips && ips->is_array() && !ips->get_array().empty()) {
      const auto& first = ips->get_array()[0];
      if (first.is_object()) ip = StrOf(first.get_object().if_contains("ip"));
    }
    f["status.podIP"] = ip;
    f["status.nominatedNodeName"] = PodStatusField(pod, "nominatedNodeName");
    return f;
  }
};

// kube's printPod.
json::array PodStrategy::TableCells(const Object& pod) const {
  const json::object& spec = SpecOf(pod);
  const json::value* status_v = pod.if_contains("status");
  static const json::object kEmpty;
  const json::object& status = status_v && status_v->is_object() ? status_v->get_object() : kEmpty;
  auto arr = [](const json::object& o, std::string_view k) -> const json::array* {
    const auto* v = o.if_contains(k);
    return v && v->is_array() ? &v->get_array() : nullptr;
  };
  auto obj = [](const json::value& v) -> const json::object& { return v.is_object() ? v.get_object() : kEmpty; };
  auto sub = [&](const json::object& o, std::string_view k) -> const json::object* {
    const auto* v = o.if_contains(k);
    return v && v->is_object() ? &v->get_object() : nullptr;
  };

  int64_t restarts = 0, sidecar_restarts = 0;
  int64_t total = static_cast<int64_t>(CountAt(spec, "containers"));
  int64_t ready = 0;
  std::string last_restart, last_sidecar_restart;  // RFC 3339; compare as strings (same format)
  std::string phase = StrOf(status.if_contains("phase"));
  std::string reason = phase;
  if (!StrOf(status.if_contains("reason")).empty()) reason = StrOf(status.if_contains("reason"));
  if (const auto* conds = arr(status, "conditions")) {
    for (const auto& c : *conds) {
      if (StrOf(obj(c).if_contains("type")) == "PodScheduled" && StrOf(obj(c).if_contains("reason")) == "SchedulingGated") {
        reason = "SchedulingGated";
      }
    }
  }
  std::map<std::string, bool> restartable;
  size_t n_init = 0;
  if (const auto* inits = arr(spec, "initContainers")) {
    n_init = inits->size();
    for (const auto& c : *inits) {
      bool r = StrOf(obj(c).if_contains("restartPolicy")) == "Always";
      restartable[StrOf(obj(c).if_contains("name"))] = r;
      if (r) ++total;
    }
  }
  auto finished_at = [&](const json::object& cs) -> std::string {
    const auto* lts = sub(cs, "lastTerminationState");
    const auto* term = lts ? sub(*lts, "terminated") : nullptr;
    return term ? StrOf(term->if_contains("finishedAt")) : std::string();
  };
  bool initializing = false;
  if (const auto* ics = arr(status, "initContainerStatuses")) {
    for (size_t i = 0; i < ics->size(); ++i) {
      const json::object& cs = obj((*ics)[i]);
      int64_t rc = IntOf(cs.if_contains("restartCount"));
      restarts += rc;
      std::string fin = finished_at(cs);
      if (!fin.empty() && fin > last_restart) last_restart = fin;
      bool is_sidecar = restartable[StrOf(cs.if_contains("name"))];
      if (is_sidecar) {
        sidecar_restarts += rc;
        if (!fin.empty() && fin > last_sidecar_restart) last_sidecar_restart = fin;
      }
      const json::object* state = sub(cs, "state");
      const json::object* term = state ? sub(*state, "terminated") : nullptr;
      const json::object* wait = state ? sub(*state, "waiting") : nullptr;
      const auto* started = cs.if_contains("started");
      if (term && IntOf(term->if_contains("exitCode")) == 0) continue;
      if (is_sidecar && started && started->is_bool() && started->get_bool()) {
        const auto* rd = cs.if_contains("ready");
        if (rd && rd->is_bool() && rd->get_bool()) ++ready;
        continue;
      }
      if (term) {
        std::string r = StrOf(term->if_contains("reason"));
        if (r.empty()) {
          int64_t sig = IntOf(term->if_contains("signal"));
          reason = sig != 0 ? "Init:Signal:" + std::to_string(sig) : "Init:ExitCode:" + std::to_string(IntOf(term->if_contains("exitCode")));
        } else {
          reason = "Init:" + r;
        }
      } else if (wait && !StrOf(wait->if_contains("reason")).empty() && StrOf(wait->if_contains("reason")) != "PodInitializing") {
        reason = "Init:" + StrOf(wait->if_contains("reason"));
      } else {
        reason = "Init:" + std::to_string(i) + "/" + std::to_string(n_init);
      }
      initializing = true;
      break;
    }
  }
  bool initialized = false;
  if (const auto* conds = arr(status, "conditions")) {
    for (const auto& c : *conds) {
      if (StrOf(obj(c).if_contains("type")) == "Initialized" && StrOf(obj(c).if_contains("status")) == "True") initialized = true;
    }
  }
  if (!initializing || initialized) {
    restarts = sidecar_restarts;
    last_restart = last_sidecar_restart;
    bool has_running = false;
    if (const auto* css = arr(status, "containerStatuses")) {
      for (size_t k = css->size(); k-- > 0;) {
        const json::object& cs = obj((*css)[k]);
        restarts += IntOf(cs.if_contains("restartCount"));
        std::string fin = finished_at(cs);
        if (!fin.empty() && fin > last_restart) last_restart = fin;
        const json::object* state = sub(cs, "state");
        const json::object* term = state ? sub(*state, "terminated") : nullptr;
        const json::object* wait = state ? sub(*state, "waiting") : nullptr;
        const json::object* running = state ? sub(*state, "running") : nullptr;
        const auto* rd = cs.if_contains("ready");
        bool is_ready = rd && rd->is_bool() && rd->get_bool();
        if (wait && !StrOf(wait->if_contains("reason")).empty()) {
          reason = StrOf(wait->if_contains("reason"));
        } else if (term && !StrOf(term->if_contains("reason")).empty()) {
          reason = StrOf(term->if_contains("reason"));
        } else if (term) {
          int64_t sig = IntOf(term->if_contains("signal"));
          reason = sig != 0 ? "Signal:" + std::to_string(sig) : "ExitCode:" + std::to_string(IntOf(term->if_contains("exitCode")));
        } else if (is_ready && running) {
          has_running = true;
          ++ready;
        }
      }
    }
    if (reason == "Completed" && has_running) {
      bool pod_ready = false;
      if (const auto* conds = arr(status, "conditions")) {
        for (const auto& c : *conds) {
          if (StrOf(obj(c).if_contains("type")) == "Ready" && StrOf(obj(c).if_contains("status")) == "True") pod_ready = true;
        }
      }
      reason = pod_ready ? "Running" : "NotReady";
    }
  }
  if (am::GetDeletionTimestamp(pod) && StrOf(status.if_contains("reason")) == "NodeLost") {
    reason = "Unknown";
  } else if (am::GetDeletionTimestamp(pod) && phase != "Succeeded" && phase != "Failed") {
    reason = "Terminating";
  }
  std::string restarts_cell = std::to_string(restarts);
  if (restarts != 0 && !last_restart.empty()) {
    restarts_cell += " (" + registry::TranslateTimestampSince(last_restart) + " ago)";
  }
  std::string ip;
  if (const auto* ips = arr(status, "podIPs"); ips && !ips->empty()) ip = StrOf(obj((*ips)[0]).if_contains("ip"));
  if (ip.empty()) ip = "<none>";
  std::string node = StrOf(spec.if_contains("nodeName"));
  if (node.empty()) node = "<none>";
  std::string nominated = StrOf(status.if_contains("nominatedNodeName"));
  if (nominated.empty()) nominated = "<none>";
  std::string gates = "<none>";
  if (const auto* rg = arr(spec, "readinessGates"); rg && !rg->empty()) {
    int true_conditions = 0;
    for (const auto& g : *rg) {
      std::string type = StrOf(obj(g).if_contains("conditionType"));
      if (const auto* conds = arr(status, "conditions")) {
        for (const auto& c : *conds) {
          if (StrOf(obj(c).if_contains("type")) == type) {
            if (StrOf(obj(c).if_contains("status")) == "True") ++true_conditions;
            break;
          }
        }
      }
    }
    gates = std::to_string(true_conditions) + "/" + std::to_string(rg->size());
  }
  return {json::value(am::GetName(pod)),
          json::value(std::to_string(ready) + "/" + std::to_string(total)),
          json::value(reason),
          json::value(restarts_cell),
          json::value(AgeCell(pod)),
          json::value(ip),
          json::value(node),
          json::value(nominated),
          json::value(gates)};
}

// pods/status: status (and metadata other than deletionTimestamp and ownerReferences) changes; the
// spec stays; the QoS class set at creation is kept when a writer drops it.
class PodStatusStrategy : public registry::Strategy {
 public:
  explicit PodStatusStrategy(std::shared_ptr<const registry::Strategy> main) : main_(std::move(main)) {}
  bool NamespaceScoped() const override { return true; }
  void PrepareForUpdate(const registry::Context&, Object& pod, const Object& old) const override {
    if (const auto* s = old.if_contains("spec")) {
      pod["spec"] = *s;
    } else {
      pod.erase("spec");
    }
    auto& md = ObjectField(pod, "metadata");
    const json::object* old_md = am::GetMetadata(old);
    for (const char* k : {"deletionTimestamp", "ownerReferences"}) {
      if (old_md && old_md->contains(k)) {
        md[k] = old_md->at(k);
      } else {
        md.erase(k);
      }
    }
    if (StrOf(PathAt(pod, {"status", "qosClass"})).empty()) {
      if (const auto* q = PathAt(old, {"status", "qosClass"}); q && q->is_string()) ObjectField(pod, "status")["qosClass"] = *q;
    }
  }
  ErrorList ValidateUpdate(const registry::Context&, const Object& pod, const Object&) const override {
    ErrorList errs;
    std::string nominated = StrOf(PathAt(pod, {"status", "nominatedNodeName"}));
    if (!nominated.empty()) {
      auto more = ProblemsAt(am::IsDNS1123Subdomain(nominated), FieldPath("status").Child("nominatedNodeName"), nominated);
      errs.insert(errs.end(), more.begin(), more.end());
    }
    return errs;
  }
  bool ShouldDeleteDuringUpdate(const Object& obj) const override { return main_->ShouldDeleteDuringUpdate(obj); }

 private:
  std::shared_ptr<const registry::Strategy> main_;
};

}  // namespace

std::vector<registry::RestResource> Pods(const registry::GroupDeps& deps) {
  auto info = MakeInfo({"", "v1", "pods", "pod", "Pod", true, {"po"}, {"all"}, "io.k8s.api.core.v1.Pod"});
  auto strategy = std::make_shared<PodStrategy>();
  const apimachinery::Schema* schema = SchemaFor(deps, info);
  registry::StoreConfig c = CoreStoreConfig(deps, info);
  c.return_deleted_object = true;
  auto store = std::make_shared<CoreStore>(c, strategy, schema);
  std::vector<registry::RestResource> out;
  out.push_back({info, store, schema, true});
  registry::StoreConfig sc = c;
  sc.info.subresource = "status";
  out.push_back({sc.info, std::make_shared<CoreSubresourceStore>(sc, std::make_shared<PodStatusStrategy>(strategy), schema),
                 schema, true});
  auto subs = PodSubresources(deps, store, strategy);
  out.insert(out.end(), std::make_move_iterator(subs.begin()), std::make_move_iterator(subs.end()));
  return out;
}

}  // namespace capstan::api::core
