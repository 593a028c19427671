// api/core/pod_subresources.cpp: pods/binding (assign a node, PodScheduled=True), pods/eviction (delete
// unless a PodDisruptionBudget forbids it), pods/ephemeralcontainers (add ephemeral containers), and
// the streaming subresources pods/log, exec, attach, portforward and proxy. pods/log names the node's
// kubelet (kube's LogLocation: 204 for a pod without a node) and pods/proxy the pod's address (400
// "address not allowed" without a global unicast pod IP); the endpoints layer streams or proxies
// from there (endpoints/connect_proxy.h). exec, attach and portforward validate as kube does (400 "pod
// x does not have a host assigned"; a scheduled pod's missing node: 404) and name the kubelet's
// /exec, /attach or /portForward path with kube's streamParams query, for an upgraded connection
// (endpoints/upgrade_proxy.h).
#include <algorithm>
#include <charconv>

#include "api/core/core_resources.h"
#include "api/core/pod_defaults.h"
#include "api/core/pod_internal.h"
#include "api/core/pod_validation.h"
#include "apimachinery/errors.h"
#include "apimachinery/labels.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/status_json.h"
#include "apimachinery/time_util.h"
#include "registry/ip_range.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

std::string JoinHostPort(const std::string& host, const std::string& port) {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;
}

std::string KubeletEndpoint::Base() const { return "https://" + JoinHostPort(host, std::to_string(port)); }

std::optional<SchemeNamePort> SplitSchemeNamePort(const std::string& id) {
  auto parts = Split(id, ':');
  SchemeNamePort out;
  switch (parts.size()) {
    case 1: out.name = parts[0]; break;
    case 2: out.name = parts[0]; out.port = parts[1]; break;
    case 3: out.scheme = parts[0]; out.name = parts[1]; out.port = parts[2]; break;
    default: return std::nullopt;
  }
  if (out.name.empty() || (out.scheme != "" && out.scheme != "http" && out.scheme != "https")) return std::nullopt;
  return out;
}

bool IsGlobalUnicast(const std::string& ip) {
  auto addr = registry::IpAddress::Parse(ip);
  if (!addr || addr->IsLoopback() || addr->IsUnspecified()) return false;
  if (!addr->v6) return !(addr->bytes[0] >= 224 || (addr->bytes[0] == 169 && addr->bytes[1] == 254)) &&
                        !(addr->bytes[0] == 255 && addr->bytes[1] == 255 && addr->bytes[2] == 255 && addr->bytes[3] == 255);
  return !(addr->bytes[0] == 0xff || (addr->bytes[0] == 0xfe && (addr->bytes[1] & 0xc0) == 0x80));
}

Task<StatusOr<KubeletEndpoint>> FindKubelet(storage::ObjectStore& store, const std::string& prefix,
                                            const registry::KubeletConnection& conn, const std::string& node_name) {
  auto node = co_await store.Get(prefix + "/minions/" + node_name, {});
  if (!node.ok()) {
    if (node.status().IsStorage(StorageCode::kKeyNotFound)) co_return am::NewNotFound({"", "nodes"}, node_name);
    co_return node.TakeStatus();
  }
  const auto* addrs = PathAt(*node, {"status", "addresses"});
  const json::array kNone;
  const json::array& list = addrs && addrs->is_array() ? addrs->get_array() : kNone;
  KubeletEndpoint out;
  for (const auto& type : conn.preferred_address_types) {
    for (const auto& a : list) {
      if (a.is_object() && StrOf(a.get_object().if_contains("type")) == type) {
        out.host = StrOf(a.get_object().if_contains("address"));
        break;
      }
    }
    if (!out.host.empty()) break;
  }
  if (out.host.empty()) {
    // Go's %v of the node's addresses, as kube's NoMatchError prints them.
    std::string known = "[";
    for (size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_object()) continue;
      if (i) known += " ";
      known += "{" + StrOf(list[i].get_object().if_contains("type")) + " " + StrOf(list[i].get_object().if_contains("address")) + "}";
    }
    known += "]";
    // Not an API error in kube: a 500 without a reason.
    co_return Status(500, "", "no preferred addresses found; known addresses: " + known);
  }
  out.port = IntOf(PathAt(*node, {"status", "daemonEndpoints", "kubeletEndpoint", "Port"}), 0);
  if (out.port <= 0) out.port = conn.port;
  co_return out;
}

namespace {

const json::object& SpecOf(const Object& pod) {
  static const json::object kEmpty;
  const auto* s = pod.if_contains("spec");
  return s && s->is_object() ? s->get_object() : kEmpty;
}

registry::ResourceInfo SubInfo(const registry::ResourceInfo& pods, const char* sub, const char* kind,
                               const char* definition, const char* kind_group = "", const char* kind_version = "") {
  registry::ResourceInfo i = pods;
  i.subresource = sub;
  i.kind = kind;
  i.kind_group = kind_group;
  i.kind_version = kind_version;
  i.list_kind.clear();
  i.short_names.clear();
  i.categories.clear();
  i.definition = definition;
  return i;
}

// --- binding

class BindingStore : public registry::Creater {
 public:
  BindingStore(registry::ResourceInfo info, std::shared_ptr<CoreStore> pods) : info_(std::move(info)), pods_(std::move(pods)) {}
  const registry::ResourceInfo& Info() const override { return info_; }

  Task<StatusOr<Object>> Create(const registry::Context& ctx, Object binding, const registry::CreateOptions& opts) override {
    std::string name(am::GetName(binding));
    if (!ctx.name.empty() && name != ctx.name) co_return am::NewBadRequest("name in URL does not match name in Binding object");
    ErrorList errs;
    std::string target_kind = StrOf(PathAt(binding, {"target", "kind"}));
    std::string target = StrOf(PathAt(binding, {"target", "name"}));
    if (!target_kind.empty() && target_kind != "Node") {
      errs.push_back(NotSupportedError(FieldPath("target").Child("kind"), target_kind, {"Node", "<empty>"}));
    }
    if (target.empty()) errs.push_back(RequiredError(FieldPath("target").Child("name"), ""));
    // kube returns these as a plain error: a 500 with the aggregated message and no reason.
    if (!errs.empty()) co_return Status(500, "", AggregateMessage(errs));
    auto key = pods_->KeyFor(ctx, name);
    if (!key.ok()) co_return key.TakeStatus();
    storage::Preconditions pre;
    if (!am::GetUid(binding).empty()) pre.uid = std::string(am::GetUid(binding));
    if (!am::GetResourceVersion(binding).empty()) pre.resource_version = std::string(am::GetResourceVersion(binding));
    am::StringPairs annotations = am::GetAnnotations(binding);
    std::string now = am::FormatRfc3339(am::Timestamp::FromTimePoint(pods_->config().clock->Now()));
    auto conflict = [&](std::string why) { return am::NewConflict({"", "pods/binding"}, name, why); };
    auto assign = [&](const Object* cur) -> Task<StatusOr<storage::UpdateResult>> {
      if (!cur) co_return am::NewNotFound({"", "pods"}, name);
      Object pod = *cur;
      if (am::GetDeletionTimestamp(pod)) co_return conflict("pod " + name + " is being deleted, cannot be assigned to a host");
      std::string node = StrOf(PathAt(pod, {"spec", "nodeName"}));
      if (!node.empty()) co_return conflict("pod " + name + " is already assigned to node " + GoQuote(node));
      if (CountAt(SpecOf(pod), "schedulingGates") > 0) co_return conflict("pod " + name + " has non-empty .spec.schedulingGates");
      ObjectField(pod, "spec")["nodeName"] = target;
      for (const auto& [k, v] : annotations) am::SetAnnotation(pod, k, v);
      json::object& status = ObjectField(pod, "status");
      json::value& conds = status["conditions"];
      if (!conds.is_array()) conds = json::array();
      bool found = false;
      for (auto& c : conds.get_array()) {
        if (!c.is_object() || StrOf(c.get_object().if_contains("type")) != "PodScheduled") continue;
        found = true;
        auto& co = c.get_object();
        if (StrOf(co.if_contains("status")) != "True") {
          co["status"] = "True";
          co["lastTransitionTime"] = now;
          co.erase("reason");
          co.erase("message");
        }
      }
      if (!found) {
        json::object c;
        c["type"] = "PodScheduled";
        c["status"] = "True";
        c["lastProbeTime"] = nullptr;
        c["lastTransitionTime"] = now;
        conds.get_array().push_back(std::move(c));
      }
      co_return storage::UpdateResult{std::move(pod), 0};
    };
    if (ctx.dry_run || opts.dry_run) {
      auto cur = co_await pods_->Get(ctx, name, {});
      if (!cur.ok()) co_return cur.TakeStatus();
      auto r = co_await assign(&*cur);
      if (!r.ok()) co_return r.TakeStatus();
    } else {
      auto r = co_await pods_->config().storage->GuaranteedUpdate(*key, pre, false, assign);
      if (!r.ok()) {
        Status st = r.TakeStatus();
        if (st.storage_code() != StorageCode::kNone) co_return pods_->Translate(st, name, "create");
        co_return st;
      }
    }
    co_return am::SuccessStatusToJson(nullptr, 201);
  }

 private:
  registry::ResourceInfo info_;
  std::shared_ptr<CoreStore> pods_;
};

// --- eviction

class EvictionStore : public registry::Creater {
 public:
  EvictionStore(registry::ResourceInfo info, std::shared_ptr<CoreStore> pods, std::string prefix)
      : info_(std::move(info)), pods_(std::move(pods)), prefix_(std::move(prefix)) {}
  const registry::ResourceInfo& Info() const override { return info_; }

  Task<StatusOr<Object>> Create(const registry::Context& ctx, Object eviction, const registry::CreateOptions& opts) override {
    std::string name(am::GetName(eviction));
    if (!ctx.name.empty() && name != ctx.name) co_return am::NewBadRequest("name in URL does not match name in Eviction object");
    registry::DeleteOptions del;
    del.dry_run = opts.dry_run || ctx.dry_run;
    if (const auto* d = eviction.if_contains("deleteOptions"); d && d->is_object()) {
      const auto& o = d->get_object();
      if (const auto* g = o.if_contains("gracePeriodSeconds"); g && !g->is_null()) del.grace_period_seconds = IntOf(g);
      if (const auto* p = o.if_contains("preconditions"); p && p->is_object()) {
        if (auto u = StrOf(p->get_object().if_contains("uid")); !u.empty()) del.precondition_uid = u;
        if (auto rv = StrOf(p->get_object().if_contains("resourceVersion")); !rv.empty()) del.precondition_resource_version = rv;
      }
      if (auto pp = StrOf(o.if_contains("propagationPolicy")); !pp.empty()) del.propagation_policy = pp;
      if (CountAt(o, "dryRun") > 0) del.dry_run = true;
    }
    auto pod = co_await pods_->Get(ctx, name, {});
    if (!pod.ok()) co_return pod.TakeStatus();
    std::string phase = StrOf(PathAt(*pod, {"status", "phase"}));
    bool ignore_pdb = phase == "Succeeded" || phase == "Failed" || phase == "Pending" || am::GetDeletionTimestamp(*pod);
    if (!ignore_pdb) CO_RETURN_IF_ERROR(co_await CheckBudgets(ctx, *pod, del.dry_run));
    registry::Context dctx = ctx;
    dctx.dry_run = del.dry_run;
    auto r = co_await pods_->Delete(dctx, name, del);
    if (!r.ok()) co_return r.TakeStatus();
    co_return am::SuccessStatusToJson(nullptr, 201);
  }

 private:
  // kube's checkAndDecrement against the one PodDisruptionBudget selecting the pod.
  Task<Status> CheckBudgets(const registry::Context& ctx, const Object& pod, bool dry_run) {
    std::string base = prefix_ + "/poddisruptionbudgets/" + ctx.namespace_;
    auto list = co_await pods_->config().storage->GetList(base, {});
    if (!list.ok()) co_return Status();  // no budgets served: nothing forbids the eviction
    std::vector<std::string> matching;
    for (const auto& pdb : list->items) {
      const auto* sel = PathAt(pdb, {"spec", "selector"});
      if (!sel || sel->is_null()) continue;
      auto s = am::LabelSelectorFromJson(sel);
      if (!s.ok() || !s->MatchesObject(pod)) continue;
      matching.emplace_back(am::GetName(pdb));
    }
    if (matching.empty()) co_return Status();
    if (matching.size() > 1) {
      co_return am::NewInternalError(
          "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.");
    }
    std::string pod_name(am::GetName(pod));
    std::string now = am::FormatRfc3339(am::Timestamp::FromTimePoint(pods_->config().clock->Now()));
    auto decrement = [&](const Object* cur) -> Task<StatusOr<storage::UpdateResult>> {
      if (!cur) co_return am::NewNotFound({"policy", "poddisruptionbudgets"}, matching[0]);
      Object pdb = *cur;
      std::string pdb_name(am::GetName(pdb));
      int64_t observed = IntOf(PathAt(pdb, {"status", "observedGeneration"}));
      if (observed < am::GetGeneration(pdb)) {
        Status st = am::NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0);
        st.mutable_details().causes.push_back(
            {"DisruptionBudget", "The disruption budget " + pdb_name + " is still being processed by the server.", ""});
        co_return st;
      }
      int64_t allowed = IntOf(PathAt(pdb, {"status", "disruptionsAllowed"}));
      if (allowed < 0) {
        co_return am::NewForbidden({"policy", "poddisruptionbudget"}, pdb_name, "pdb disruptions allowed is negative");
      }
      if (allowed == 0) {
        Status st = am::NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0);
        st.mutable_details().causes.push_back(
            {"DisruptionBudget",
             "The disruption budget " + pdb_name + " needs " + std::to_string(IntOf(PathAt(pdb, {"status", "desiredHealthy"}))) +
                 " healthy pods and has " + std::to_string(IntOf(PathAt(pdb, {"status", "currentHealthy"}))) + " currently",
             ""});
        co_return st;
      }
      json::object& status = ObjectField(pdb, "status");
      status["disruptionsAllowed"] = allowed - 1;
      ObjectField(status, "disruptedPods")[pod_name] = now;
      co_return storage::UpdateResult{std::move(pdb), 0};
    };
    if (dry_run) {
      auto cur = co_await pods_->config().storage->Get(base + "/" + matching[0], {});
      if (!cur.ok()) co_return Status();
      auto r = co_await decrement(&*cur);
      co_return r.ok() ? Status() : r.TakeStatus();
    }
    auto r = co_await pods_->config().storage->GuaranteedUpdate(base + "/" + matching[0], {}, false, decrement);
    if (!r.ok()) co_return r.TakeStatus();
    co_return Status();
  }

  registry::ResourceInfo info_;
  std::shared_ptr<CoreStore> pods_;
  std::string prefix_;
};

// --- ephemeralcontainers

class EphemeralContainersStrategy : public registry::Strategy {
 public:
  bool NamespaceScoped() const override { return true; }
  void PrepareForUpdate(const registry::Context&, Object& pod, const Object& old) const override {
    Object next = old;
    json::object spec_copy = SpecOf(pod);
    DefaultPodSpec(spec_copy);
    json::object& spec = ObjectField(next, "spec");
    if (const auto* ec = spec_copy.if_contains("ephemeralContainers")) {
      spec["ephemeralContainers"] = *ec;
    } else {
      spec.erase("ephemeralContainers");
    }
    if (const auto* rv = PathAt(pod, {"metadata", "resourceVersion"})) ObjectField(next, "metadata")["resourceVersion"] = *rv;
    pod = std::move(next);
  }
  ErrorList ValidateUpdate(const registry::Context&, const Object& pod, const Object& old) const override {
    ErrorList errs = ValidatePodSpec(SpecOf(pod), FieldPath("spec"));
    ErrorList more = ValidateEphemeralContainersUpdate(SpecOf(pod), SpecOf(old));
    errs.insert(errs.end(), more.begin(), more.end());
    return errs;
  }
};

// --- log, exec, attach, portforward, proxy

enum class StreamKind { kLog, kExec, kAttach, kPortForward, kProxy };

std::optional<std::string> QueryValue(const registry::ConnectRequest& r, std::string_view key) {
  for (const auto& [k, v] : r.query) {
    if (k == key) return v;
  }
  return std::nullopt;
}

StatusOr<std::optional<int64_t>> QueryInt(const registry::ConnectRequest& r, std::string_view key) {
  auto v = QueryValue(r, key);
  if (!v) return std::optional<int64_t>();
  int64_t n = 0;
  auto res = std::from_chars(v->data(), v->data() + v->size(), n);
  if (v->empty() || res.ec != std::errc() || res.ptr != v->data() + v->size()) {
    return am::NewBadRequest("strconv.ParseInt: parsing " + GoQuote(*v) + ": invalid syntax");
  }
  return std::optional<int64_t>(n);
}

// A boolean query parameter as kube's parameter codec reads it: absent, "0" or "false" is false.
bool QueryBool(const registry::ConnectRequest& r, std::string_view key) {
  auto v = QueryValue(r, key);
  return v && *v != "0" && !EqualsIgnoreCase(*v, "false");
}

// kube's validateContainer: the named container (any kind), or the only one.
StatusOr<std::string> ContainerFor(const Object& pod, const std::string& requested) {
  const json::object& spec = SpecOf(pod);
  std::string name(am::GetName(pod));
  std::vector<std::string> all;
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    if (const auto* arr = spec.if_contains(list); arr && arr->is_array()) {
      for (const auto& c : arr->get_array()) {
        if (c.is_object()) all.push_back(StrOf(c.get_object().if_contains("name")));
      }
    }
  }
  if (requested.empty()) {
    int64_t n = CountAt(spec, "containers");
    if (n == 1) return StrOf(PathAt(spec.at("containers").get_array()[0].get_object(), {"name"}));
    if (n == 0) return am::NewBadRequest("a container name must be specified for pod " + name);
    return am::NewBadRequest("a container name must be specified for pod " + name + ", choose one of: [" + Join(all, " ") + "]");
  }
  if (std::find(all.begin(), all.end(), requested) == all.end()) {
    return am::NewBadRequest("container " + requested + " is not valid for pod " + name);
  }
  return requested;
}

class PodStreamStore : public registry::Connecter {
 public:
  PodStreamStore(registry::ResourceInfo info, std::shared_ptr<CoreStore> pods, StreamKind kind, std::string prefix,
                 registry::KubeletConnection kubelet)
      : info_(std::move(info)), pods_(std::move(pods)), kind_(kind), prefix_(std::move(prefix)), kubelet_(std::move(kubelet)) {}
  const registry::ResourceInfo& Info() const override { return info_; }

  std::vector<std::string> ConnectMethods() const override {
    switch (kind_) {
      case StreamKind::kLog: return {"GET"};
      case StreamKind::kProxy: return {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"};
      default: return {"GET", "POST"};
    }
  }

  Task<StatusOr<registry::ConnectResponse>> Connect(const registry::Context& ctx, const std::string& id,
                                                    const registry::ConnectRequest& req) override {
    std::string name = id;
    std::string id_scheme, id_port;
    if (kind_ == StreamKind::kProxy) {
      auto split = SplitSchemeNamePort(id);
      if (!split) co_return am::NewBadRequest("invalid pod request " + GoQuote(id));
      id_scheme = split->scheme;
      name = split->name;
      id_port = split->port;
    }
    auto pod = co_await pods_->Get(ctx, name, {});
    if (!pod.ok()) co_return pod.TakeStatus();
    std::string node = StrOf(PathAt(*pod, {"spec", "nodeName"}));
    auto no_host = [&]() { return am::NewBadRequest("pod " + name + " does not have a host assigned"); };
    std::string path;
    std::vector<std::pair<std::string, std::string>> query;
    switch (kind_) {
      case StreamKind::kLog: {
        ErrorList errs;
        auto tail = QueryInt(req, "tailLines");
        if (!tail.ok()) co_return tail.TakeStatus();
        auto limit = QueryInt(req, "limitBytes");
        if (!limit.ok()) co_return limit.TakeStatus();
        auto since = QueryInt(req, "sinceSeconds");
        if (!since.ok()) co_return since.TakeStatus();
        auto follow = QueryBool(req, "follow");
        auto previous = QueryBool(req, "previous");
        auto timestamps = QueryBool(req, "timestamps");
        auto skip_verify = QueryBool(req, "insecureSkipTLSVerifyBackend");
        std::optional<am::Timestamp> since_time;
        if (auto v = QueryValue(req, "sinceTime")) {
          auto t = am::ParseRfc3339(*v);
          if (!t.ok()) co_return am::NewBadRequest(t.status().message());
          since_time = *t;
        }
        if (*tail && **tail < 0) errs.push_back(InvalidError(FieldPath("tailLines"), **tail, "must be greater than or equal to 0"));
        if (*limit && **limit < 1) errs.push_back(InvalidError(FieldPath("limitBytes"), **limit, "must be greater than 0"));
        if (*since && QueryValue(req, "sinceTime")) {
          errs.push_back(ForbiddenError(FieldPath(""), "at most one of `sinceTime` or `sinceSeconds` may be specified"));
        }
        if (*since && **since < 1) errs.push_back(InvalidError(FieldPath("sinceSeconds"), **since, "must be greater than 0"));
        if (!errs.empty()) co_return am::NewInvalid({"", "PodLogOptions"}, name, errs);
        auto container = ContainerFor(*pod, QueryValue(req, "container").value_or(""));
        if (!container.ok()) co_return container.TakeStatus();
        // No node: kube streams nothing (204 No Content).
        if (node.empty()) co_return registry::ConnectResponse{204, "", ""};
        auto kubelet = co_await FindKubelet(*pods_->config().storage, prefix_, kubelet_, node);
        if (!kubelet.ok()) co_return kubelet.TakeStatus();
        registry::ConnectLocation loc;
        loc.mode = registry::ConnectLocation::Mode::kStream;
        loc.transport = skip_verify ? registry::ConnectTransport::kKubeletInsecure : registry::ConnectTransport::kKubelet;
        loc.base = kubelet->Base();
        loc.path = "/containerLogs/" + ctx.namespace_ + "/" + name + "/" + *container;
        if (follow) loc.query.emplace_back("follow", "true");
        if (previous) loc.query.emplace_back("previous", "true");
        if (timestamps) loc.query.emplace_back("timestamps", "true");
        if (*since) loc.query.emplace_back("sinceSeconds", std::to_string(**since));
        if (since_time) loc.query.emplace_back("sinceTime", am::FormatRfc3339(*since_time));
        if (*tail) loc.query.emplace_back("tailLines", std::to_string(**tail));
        if (*limit) loc.query.emplace_back("limitBytes", std::to_string(**limit));
        loc.content_type = "text/plain";
        loc.resource = {"", "pods/log"};
        loc.name = name;
        registry::ConnectResponse r;
        r.location = std::move(loc);
        co_return r;
      }
      case StreamKind::kExec:
      case StreamKind::kAttach: {
        auto container = ContainerFor(*pod, QueryValue(req, "container").value_or(""));
        if (!container.ok()) co_return container.TakeStatus();
        if (node.empty()) co_return no_host();
        path = std::string(kind_ == StreamKind::kExec ? "/exec/" : "/attach/") + ctx.namespace_ + "/" + name + "/" + *container;
        // kube's streamParams: the kubelet's names for the streams, as "1", then the command.
        for (auto [option, param] : {std::pair{"stdin", "input"}, {"stdout", "output"}, {"stderr", "error"}, {"tty", "tty"}}) {
          if (QueryBool(req, option)) query.emplace_back(param, "1");
        }
        if (kind_ == StreamKind::kExec) {
          for (const auto& [k, v] : req.query) {
            if (k == "command") query.emplace_back("command", v);
          }
        }
        break;
      }
      case StreamKind::kPortForward: {
        if (node.empty()) co_return no_host();
        path = "/portForward/" + ctx.namespace_ + "/" + name;
        std::vector<std::string> ports;
        for (const auto& [k, v] : req.query) {
          if (k != "ports") continue;
          auto n = QueryInt(registry::ConnectRequest{"", "", {{k, v}}, false}, "ports");
          if (!n.ok()) co_return n.TakeStatus();
          ports.push_back(std::to_string(**n));
        }
        if (!ports.empty()) query.emplace_back("port", Join(ports, ","));
        break;
      }
      case StreamKind::kProxy: {
        // kube's pod ResourceLocation: the first container port when none is named.
        std::string port = id_port;
        if (port.empty()) {
          if (const auto* cs = SpecOf(*pod).if_contains("containers"); cs && cs->is_array()) {
            for (const auto& c : cs->get_array()) {
              const auto* ports = c.is_object() ? c.get_object().if_contains("ports") : nullptr;
              if (ports && ports->is_array() && !ports->get_array().empty() && ports->get_array()[0].is_object()) {
                port = std::to_string(IntOf(ports->get_array()[0].get_object().if_contains("containerPort")));
                break;
              }
            }
          }
        }
        std::string ip;
        if (const auto* ips = PathAt(*pod, {"status", "podIPs"}); ips && ips->is_array() && !ips->get_array().empty() &&
                                                                   ips->get_array()[0].is_object()) {
          ip = StrOf(ips->get_array()[0].get_object().if_contains("ip"));
        }
        if (ip.empty()) ip = StrOf(PathAt(*pod, {"status", "podIP"}));
        if (!IsGlobalUnicast(ip)) co_return am::NewBadRequest("address not allowed");
        registry::ConnectLocation loc;
        loc.transport = registry::ConnectTransport::kProxy;
        std::string host = port.empty() ? (ip.find(':') != std::string::npos ? "[" + ip + "]" : ip) : JoinHostPort(ip, port);
        loc.base = (id_scheme.empty() ? "http" : id_scheme) + "://" + host;
        loc.path = req.path;
        registry::ConnectResponse r;
        r.location = std::move(loc);
        co_return r;
      }
    }
    auto kubelet = co_await FindKubelet(*pods_->config().storage, prefix_, kubelet_, node);
    if (!kubelet.ok()) co_return kubelet.TakeStatus();
    registry::ConnectLocation loc;
    loc.mode = registry::ConnectLocation::Mode::kUpgrade;
    loc.transport = registry::ConnectTransport::kKubelet;
    loc.base = kubelet->Base();
    loc.path = std::move(path);
    loc.query = std::move(query);
    loc.translation = kind_ == StreamKind::kPortForward ? registry::ConnectLocation::Translation::kPortForward
                                                        : registry::ConnectLocation::Translation::kRemoteCommand;
    loc.resource = info_.GroupResource();
    loc.name = name;
    registry::ConnectResponse r;
    r.location = std::move(loc);
    co_return r;
  }

 private:
  registry::ResourceInfo info_;
  std::shared_ptr<CoreStore> pods_;
  StreamKind kind_;
  std::string prefix_;
  registry::KubeletConnection kubelet_;
};

}  // namespace

std::vector<registry::RestResource> PodSubresources(const registry::GroupDeps& deps, std::shared_ptr<CoreStore> pods,
                                                    std::shared_ptr<const registry::Strategy>) {
  const registry::ResourceInfo& pi = pods->Info();
  const apimachinery::Schema* pod_schema = pods->schema();
  auto find = [&](const char* def) { return deps.schemas ? deps.schemas->Find(def) : nullptr; };
  std::vector<registry::RestResource> out;
  auto binding = SubInfo(pi, "binding", "Binding", "io.k8s.api.core.v1.Binding");
  out.push_back({binding, std::make_shared<BindingStore>(binding, pods), find(binding.definition.c_str()), true});
  // kube's top-level "bindings" collection: the same binding, the pod named by the body.
  registry::ResourceInfo bindings =
      MakeInfo({"", "v1", "bindings", "binding", "Binding", true, {}, {}, "io.k8s.api.core.v1.Binding"});
  out.push_back({bindings, std::make_shared<BindingStore>(bindings, pods), find(bindings.definition.c_str()), true});
  auto eviction = SubInfo(pi, "eviction", "Eviction", "io.k8s.api.policy.v1.Eviction", "policy", "v1");
  out.push_back({eviction, std::make_shared<EvictionStore>(eviction, pods, deps.prefix), find(eviction.definition.c_str()), true});
  auto ephemeral = SubInfo(pi, "ephemeralcontainers", "Pod", "io.k8s.api.core.v1.Pod");
  registry::StoreConfig ec = pods->config();
  ec.info = ephemeral;
  ec.strategy = nullptr;
  out.push_back({ephemeral, std::make_shared<CoreSubresourceStore>(ec, std::make_shared<EphemeralContainersStrategy>(), pod_schema),
                 pod_schema, true});
  struct Stream {
    const char* sub;
    const char* kind;
    StreamKind k;
  };
  for (const Stream& s : {Stream{"attach", "PodAttachOptions", StreamKind::kAttach}, Stream{"exec", "PodExecOptions", StreamKind::kExec},
                          Stream{"log", "Pod", StreamKind::kLog},
                          Stream{"portforward", "PodPortForwardOptions", StreamKind::kPortForward},
                          Stream{"proxy", "PodProxyOptions", StreamKind::kProxy}}) {
    std::string def = std::string("io.k8s.api.core.v1.") + s.kind;
    auto info = SubInfo(pi, s.sub, s.kind, def.c_str());
    out.push_back({info, std::make_shared<PodStreamStore>(info, pods, s.k, deps.prefix, deps.kubelet), nullptr, true});
  }
  return out;
}

}  // namespace capstan::api::core
