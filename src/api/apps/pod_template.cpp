#include "api/apps/pod_template.h"

#include <set>

#include "api/apps/workload_util.h"
#include "api/common.h"
#include "api/core/capabilities.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::apps {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

constexpr int kDefaultTerminationGracePeriodSeconds = 30;
constexpr int kDefaultVolumeMode = 0644;  // 420: secret, configMap, downwardAPI, projected

void SetIfAbsent(json::object& o, std::string_view key, json::value v) {
  const auto* cur = o.if_contains(key);
  if (!cur || cur->is_null() || (cur->is_string() && cur->get_string().empty())) o[key] = std::move(v);
}

void SetIfZero(json::object& o, std::string_view key, int64_t v) {
  const auto* cur = o.if_contains(key);
  if (!cur || cur->is_null() || (cur->is_int64() && cur->get_int64() == 0)) o[key] = v;
}

json::object* ObjectIn(json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

void ForEachObject(json::object& o, std::string_view key, const std::function<void(json::object&)>& fn) {
  auto* v = o.if_contains(key);
  if (!v || !v->is_array()) return;
  for (auto& x : v->get_array()) {
    if (x.is_object()) fn(x.get_object());
  }
}

void DefaultHttpGet(json::object& handler) {
  if (auto* h = ObjectIn(handler, "httpGet")) {
    SetIfAbsent(*h, "path", "/");
    SetIfAbsent(*h, "scheme", "HTTP");
  }
}

void DefaultProbe(json::object* p) {
  if (!p) return;
  SetIfZero(*p, "timeoutSeconds", 1);
  SetIfZero(*p, "periodSeconds", 10);
  SetIfZero(*p, "successThreshold", 1);
  SetIfZero(*p, "failureThreshold", 3);
  DefaultHttpGet(*p);
  if (auto* g = ObjectIn(*p, "grpc")) {
    if (!g->contains("service") || (*g)["service"].is_null()) (*g)["service"] = "";
  }
}

void DefaultFieldRef(json::object& holder) {
  if (auto* f = ObjectIn(holder, "fieldRef")) SetIfAbsent(*f, "apiVersion", "v1");
}

void DefaultContainer(json::object& c) {
  SetIfAbsent(c, "imagePullPolicy", json::string(DefaultPullPolicy(StringAt(c, "image"))));
  SetIfAbsent(c, "terminationMessagePath", "/dev/termination-log");
  SetIfAbsent(c, "terminationMessagePolicy", "File");
  ForEachObject(c, "ports", [](json::object& p) { SetIfAbsent(p, "protocol", "TCP"); });
  DefaultProbe(ObjectIn(c, "livenessProbe"));
  DefaultProbe(ObjectIn(c, "readinessProbe"));
  DefaultProbe(ObjectIn(c, "startupProbe"));
  if (auto* lc = ObjectIn(c, "lifecycle")) {
    if (auto* h = ObjectIn(*lc, "postStart")) DefaultHttpGet(*h);
    if (auto* h = ObjectIn(*lc, "preStop")) DefaultHttpGet(*h);
  }
  ForEachObject(c, "env", [](json::object& e) {
    if (auto* vf = ObjectIn(e, "valueFrom")) DefaultFieldRef(*vf);
  });
}

void DefaultDownwardItems(json::object& src) {
  ForEachObject(src, "items", [](json::object& item) { DefaultFieldRef(item); });
}

void DefaultVolume(json::object& v) {
  bool has_source = false;
  for (const auto& kv : v) {
    if (kv.key() != "name") has_source = true;
  }
  if (!has_source) v["emptyDir"] = json::object();
  if (auto* s = ObjectIn(v, "secret")) SetIfAbsent(*s, "defaultMode", kDefaultVolumeMode);
  if (auto* s = ObjectIn(v, "configMap")) SetIfAbsent(*s, "defaultMode", kDefaultVolumeMode);
  if (auto* s = ObjectIn(v, "downwardAPI")) {
    SetIfAbsent(*s, "defaultMode", kDefaultVolumeMode);
    DefaultDownwardItems(*s);
  }
  if (auto* s = ObjectIn(v, "projected")) {
    SetIfAbsent(*s, "defaultMode", kDefaultVolumeMode);
    ForEachObject(*s, "sources", [](json::object& src) {
      if (auto* t = ObjectIn(src, "serviceAccountToken")) SetIfAbsent(*t, "expirationSeconds", 3600);
      if (auto* d = ObjectIn(src, "downwardAPI")) DefaultDownwardItems(*d);
    });
  }
  if (auto* s = ObjectIn(v, "hostPath")) {
    if (!s->contains("type") || (*s)["type"].is_null()) (*s)["type"] = "";
  }
  if (auto* s = ObjectIn(v, "iscsi")) SetIfAbsent(*s, "iscsiInterface", "default");
  if (auto* s = ObjectIn(v, "rbd")) {
    SetIfAbsent(*s, "pool", "rbd");
    SetIfAbsent(*s, "user", "admin");
    SetIfAbsent(*s, "keyring", "/etc/ceph/keyring");
  }
  if (auto* s = ObjectIn(v, "azureDisk")) {
    SetIfAbsent(*s, "cachingMode", "ReadWrite");
    SetIfAbsent(*s, "kind", "Shared");
    SetIfAbsent(*s, "fsType", "ext4");
    if (!s->contains("readOnly")) (*s)["readOnly"] = false;
  }
  if (auto* s = ObjectIn(v, "scaleIO")) {
    SetIfAbsent(*s, "storageMode", "ThinProvisioned");
    SetIfAbsent(*s, "fsType", "xfs");
  }
  if (auto* e = ObjectIn(v, "ephemeral")) {
    if (auto* t = ObjectIn(*e, "volumeClaimTemplate")) {
      if (auto* spec = ObjectIn(*t, "spec")) SetIfAbsent(*spec, "volumeMode", "Filesystem");
    }
  }
}

void DefaultPodSpec(json::object& spec) {
  SetIfAbsent(spec, "dnsPolicy", "ClusterFirst");
  SetIfAbsent(spec, "restartPolicy", "Always");
  if (!spec.contains("securityContext") || spec["securityContext"].is_null()) spec["securityContext"] = json::object();
  if (!spec.contains("terminationGracePeriodSeconds") || spec["terminationGracePeriodSeconds"].is_null()) {
    spec["terminationGracePeriodSeconds"] = kDefaultTerminationGracePeriodSeconds;
  }
  SetIfAbsent(spec, "schedulerName", "default-scheduler");
  ForEachObject(spec, "containers", DefaultContainer);
  ForEachObject(spec, "initContainers", DefaultContainer);
  ForEachObject(spec, "ephemeralContainers", DefaultContainer);
  ForEachObject(spec, "volumes", DefaultVolume);
}

// --- validation ---

void AddProblems(ErrorList& errs, const FieldPath& p, std::string_view value, const am::Problems& problems) {
  for (const auto& m : problems) errs.push_back(InvalidError(p, value, m));
}

am::Problems IsValidPortNum(int64_t port) {
  if (port < 1 || port > 65535) return {"must be between 1 and 65535, inclusive"};
  return {};
}

am::Problems IsValidPortName(std::string_view port) {
  am::Problems p;
  if (port.size() > 15) p.push_back(am::MaxLenError(15));
  bool charset = !port.empty(), letter = false;
  for (char c : port) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) charset = false;
    if (c >= 'a' && c <= 'z') letter = true;
  }
  if (!charset) p.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!letter) p.push_back("must contain at least one letter (a-z)");
  if (port.find("--") != std::string_view::npos) p.push_back("must not contain consecutive hyphens");
  if (!port.empty() && (port.front() == '-' || port.back() == '-')) p.push_back("must not begin or end with a hyphen");
  return p;
}

void ValidatePorts(const json::object& c, const FieldPath& path, ErrorList& errs) {
  const auto* ports = ArrayAt(c, "ports");
  if (!ports) return;
  std::set<std::string> names;
  for (size_t i = 0; i < ports->size(); ++i) {
    if (!(*ports)[i].is_object()) continue;
    const json::object& p = (*ports)[i].get_object();
    FieldPath ip = path.Index(i);
    std::string name = StringAt(p, "name");
    if (!name.empty()) {
      auto problems = IsValidPortName(name);
      if (!problems.empty()) {
        AddProblems(errs, ip.Child("name"), name, problems);
      } else if (!names.insert(name).second) {
        errs.push_back(DuplicateError(ip.Child("name"), name));
      }
    }
    int64_t cp = IntAt(p, "containerPort");
    if (cp == 0) {
      errs.push_back(RequiredError(ip.Child("containerPort"), ""));
    } else {
      for (const auto& m : IsValidPortNum(cp)) errs.push_back(InvalidError(ip.Child("containerPort"), cp, m));
    }
    int64_t hp = IntAt(p, "hostPort");
    if (hp != 0) {
      for (const auto& m : IsValidPortNum(hp)) errs.push_back(InvalidError(ip.Child("hostPort"), hp, m));
    }
    std::string proto = StringAt(p, "protocol");
    if (proto.empty()) {
      errs.push_back(RequiredError(ip.Child("protocol"), ""));
    } else if (proto != "TCP" && proto != "UDP" && proto != "SCTP") {
      errs.push_back(NotSupportedError(ip.Child("protocol"), proto, {"SCTP", "TCP", "UDP"}));
    }
  }
}

void ValidateContainer(const json::object& c, const FieldPath& path, const std::set<std::string>& volumes,
                       ErrorList& errs) {
  std::string name = StringAt(c, "name");
  if (name.empty()) {
    errs.push_back(RequiredError(path.Child("name"), ""));
  } else {
    AddProblems(errs, path.Child("name"), name, am::IsDNS1123Label(name));
  }
  if (StringAt(c, "image").empty()) errs.push_back(RequiredError(path.Child("image"), ""));
  std::string tmp = StringAt(c, "terminationMessagePolicy");
  if (tmp.empty()) {
    errs.push_back(RequiredError(path.Child("terminationMessagePolicy"), ""));
  } else if (tmp != "File" && tmp != "FallbackToLogsOnError") {
    errs.push_back(NotSupportedError(path.Child("terminationMessagePolicy"), tmp, {"File", "FallbackToLogsOnError"}));
  }
  ValidatePorts(c, path.Child("ports"), errs);
  core::ValidateContainerCapabilities(c, path, errs);
  if (const auto* env = ArrayAt(c, "env")) {
    for (size_t i = 0; i < env->size(); ++i) {
      if ((*env)[i].is_object() && StringAt((*env)[i].get_object(), "name").empty()) {
        errs.push_back(RequiredError(path.Child("env").Index(i).Child("name"), ""));
      }
    }
  }
  if (const auto* mounts = ArrayAt(c, "volumeMounts")) {
    for (size_t i = 0; i < mounts->size(); ++i) {
      if (!(*mounts)[i].is_object()) continue;
      const json::object& m = (*mounts)[i].get_object();
      FieldPath mp = path.Child("volumeMounts").Index(i);
      std::string vol = StringAt(m, "name");
      if (vol.empty()) {
        errs.push_back(RequiredError(mp.Child("name"), ""));
      } else if (!volumes.count(vol)) {
        errs.push_back(NotFoundError(mp.Child("name"), vol));
      }
      if (StringAt(m, "mountPath").empty()) errs.push_back(RequiredError(mp.Child("mountPath"), ""));
    }
  }
  std::string pull = StringAt(c, "imagePullPolicy");
  if (pull.empty()) {
    errs.push_back(RequiredError(path.Child("imagePullPolicy"), ""));
  } else if (pull != "Always" && pull != "IfNotPresent" && pull != "Never") {
    errs.push_back(NotSupportedError(path.Child("imagePullPolicy"), pull, {"Always", "IfNotPresent", "Never"}));
  }
}

void ValidateContainers(const json::object& spec, std::string_view key, const FieldPath& path, bool required,
                        const std::set<std::string>& volumes, std::set<std::string>& names, ErrorList& errs) {
  const auto* cs = ArrayAt(spec, key);
  if (!cs || cs->empty()) {
    if (required) errs.push_back(RequiredError(path, ""));
    return;
  }
  for (size_t i = 0; i < cs->size(); ++i) {
    if (!(*cs)[i].is_object()) continue;
    const json::object& c = (*cs)[i].get_object();
    ValidateContainer(c, path.Index(i), volumes, errs);
    std::string name = StringAt(c, "name");
    if (!name.empty() && !names.insert(name).second) errs.push_back(DuplicateError(path.Index(i).Child("name"), name));
  }
}

void ValidatePodSpec(const json::object& spec, const FieldPath& path, ErrorList& errs) {
  std::set<std::string> volumes;
  if (const auto* vols = ArrayAt(spec, "volumes")) {
    for (size_t i = 0; i < vols->size(); ++i) {
      if (!(*vols)[i].is_object()) continue;
      std::string name = StringAt((*vols)[i].get_object(), "name");
      FieldPath np = path.Child("volumes").Index(i).Child("name");
      if (name.empty()) {
        errs.push_back(RequiredError(np, ""));
      } else {
        AddProblems(errs, np, name, am::IsDNS1123Label(name));
      }
      if (!volumes.insert(name).second) errs.push_back(DuplicateError(np, name));
    }
  }
  std::set<std::string> names;
  ValidateContainers(spec, "containers", path.Child("containers"), true, volumes, names, errs);
  ValidateContainers(spec, "initContainers", path.Child("initContainers"), false, volumes, names, errs);

  std::string restart = StringAt(spec, "restartPolicy");
  if (restart.empty()) {
    errs.push_back(RequiredError(path.Child("restartPolicy"), ""));
  } else if (restart != "Always" && restart != "OnFailure" && restart != "Never") {
    errs.push_back(NotSupportedError(path.Child("restartPolicy"), restart, {"Always", "OnFailure", "Never"}));
  }
  std::string dns = StringAt(spec, "dnsPolicy");
  if (dns.empty()) {
    errs.push_back(RequiredError(path.Child("dnsPolicy"), ""));
  } else if (dns != "ClusterFirstWithHostNet" && dns != "ClusterFirst" && dns != "Default" && dns != "None") {
    errs.push_back(
        NotSupportedError(path.Child("dnsPolicy"), dns, {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"}));
  }
  if (const auto* ns = ObjectAt(spec, "nodeSelector")) {
    am::StringPairs pairs;
    for (const auto& kv : *ns) {
      pairs.emplace_back(std::string(kv.key()), kv.value().is_string() ? std::string(kv.value().get_string()) : "");
    }
    ErrorList e = am::ValidateLabels(pairs, path.Child("nodeSelector"));
    errs.insert(errs.end(), e.begin(), e.end());
  }
  if (std::string sa = StringAt(spec, "serviceAccountName"); !sa.empty()) {
    AddProblems(errs, path.Child("serviceAccountName"), sa, am::IsDNS1123Subdomain(sa));
  }
  if (auto ads = OptInt(&spec, "activeDeadlineSeconds"); ads && (*ads < 1 || *ads > 2147483647)) {
    errs.push_back(InvalidError(path.Child("activeDeadlineSeconds"), *ads, "must be between 1 and 2147483647, inclusive"));
  }
  if (std::string h = StringAt(spec, "hostname"); !h.empty()) {
    AddProblems(errs, path.Child("hostname"), h, am::IsDNS1123Label(h));
  }
  if (std::string s = StringAt(spec, "subdomain"); !s.empty()) {
    AddProblems(errs, path.Child("subdomain"), s, am::IsDNS1123Label(s));
  }
}

am::StringPairs Pairs(const json::object* o) {
  am::StringPairs out;
  if (!o) return out;
  for (const auto& kv : *o) {
    out.emplace_back(std::string(kv.key()), kv.value().is_string() ? std::string(kv.value().get_string()) : "");
  }
  return out;
}

}  // namespace

std::string DefaultPullPolicy(std::string_view image) {
  std::string_view name = image;
  bool digest = false;
  if (auto at = name.find('@'); at != std::string_view::npos) {
    name = name.substr(0, at);
    digest = true;
  }
  std::string_view tag;
  auto colon = name.rfind(':');
  auto slash = name.rfind('/');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    tag = name.substr(colon + 1);
  } else if (!digest) {
    tag = "latest";
  }
  return tag == "latest" ? "Always" : "IfNotPresent";
}

void DefaultPodTemplate(json::object& tmpl) {
  json::object& md = ChildObject(tmpl, "metadata");
  (void)md;
  DefaultPodSpec(ChildObject(tmpl, "spec"));
}

void DefaultClaimTemplate(json::object& claim) {
  json::object& spec = ChildObject(claim, "spec");
  SetIfAbsent(spec, "volumeMode", "Filesystem");
  json::object& status = ChildObject(claim, "status");
  SetIfAbsent(status, "phase", "Pending");
}

ErrorList ValidatePodTemplate(const json::value* tmpl, const FieldPath& path) {
  ErrorList errs;
  if (!tmpl || !tmpl->is_object()) {
    errs.push_back(RequiredError(path, ""));
    return errs;
  }
  const json::object& t = tmpl->get_object();
  const json::object* md = ObjectAt(t, "metadata");
  ErrorList le = am::ValidateLabels(Pairs(md ? ObjectAt(*md, "labels") : nullptr), path.Child("labels"));
  errs.insert(errs.end(), le.begin(), le.end());
  ErrorList ae = am::ValidateAnnotations(Pairs(md ? ObjectAt(*md, "annotations") : nullptr), path.Child("annotations"));
  errs.insert(errs.end(), ae.begin(), ae.end());
  static const json::object kEmpty;
  const json::object* spec = ObjectAt(t, "spec");
  ValidatePodSpec(spec ? *spec : kEmpty, path.Child("spec"), errs);
  if (spec && CountAt(*spec, "ephemeralContainers") > 0) {
    errs.push_back(ForbiddenError(path.Child("spec").Child("ephemeralContainers"),
                                  "ephemeral containers not allowed in pod template"));
  }
  return errs;
}

}  // namespace capstan::api::apps
