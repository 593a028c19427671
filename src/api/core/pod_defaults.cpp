#include "api/core/pod_defaults.h"

#include <algorithm>
#include <cctype>

#include "api/core/core_helpers.h"

namespace capstan::api::core {

namespace {

bool Missing(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return !v || v->is_null() || (v->is_string() && v->get_string().empty());
}

void SetIfMissing(json::object& o, std::string_view key, json::value v) {
  if (Missing(o, key)) o[key] = std::move(v);
}

void DefaultHttpGet(json::object& h) {
  SetIfMissing(h, "path", "/");
  SetIfMissing(h, "scheme", "HTTP");
}

// The handler of a probe or lifecycle hook.
void DefaultHandler(json::object& h) {
  if (auto* g = h.if_contains("httpGet"); g && g->is_object()) DefaultHttpGet(g->get_object());
  if (auto* g = h.if_contains("grpc"); g && g->is_object()) {
    // GRPCAction.service is declared with default "".
    if (!g->get_object().contains("service")) g->get_object()["service"] = "";
  }
}

void DefaultProbe(json::object& p) {
  auto set_zero = [&](std::string_view key, int64_t def) {
    if (IntOf(p.if_contains(key), 0) == 0) p[key] = def;
  };
  set_zero("timeoutSeconds", 1);
  set_zero("periodSeconds", 10);
  set_zero("successThreshold", 1);
  set_zero("failureThreshold", 3);
  DefaultHandler(p);
}

void DefaultFieldRef(json::object& holder) {
  if (auto* f = holder.if_contains("fieldRef"); f && f->is_object()) SetIfMissing(f->get_object(), "apiVersion", "v1");
}

void DefaultContainer(json::object& c) {
  // kube always writes the (non-pointer) resources struct.
  if (const auto* r = c.if_contains("resources"); !r || r->is_null()) c["resources"] = json::object();
  if (Missing(c, "imagePullPolicy")) c["imagePullPolicy"] = DefaultPullPolicy(StrOf(c.if_contains("image")));
  SetIfMissing(c, "terminationMessagePath", "/dev/termination-log");
  SetIfMissing(c, "terminationMessagePolicy", "File");
  if (auto* ports = ArrayField(c, "ports")) {
    for (auto& p : *ports) {
      if (p.is_object()) SetIfMissing(p.get_object(), "protocol", "TCP");
    }
  }
  if (auto* env = ArrayField(c, "env")) {
    for (auto& e : *env) {
      if (!e.is_object()) continue;
      if (auto* vf = e.get_object().if_contains("valueFrom"); vf && vf->is_object()) DefaultFieldRef(vf->get_object());
    }
  }
  for (const char* probe : {"livenessProbe", "readinessProbe", "startupProbe"}) {
    if (auto* p = c.if_contains(probe); p && p->is_object()) DefaultProbe(p->get_object());
  }
  if (auto* lc = c.if_contains("lifecycle"); lc && lc->is_object()) {
    for (const char* hook : {"postStart", "preStop"}) {
      if (auto* h = lc->get_object().if_contains(hook); h && h->is_object()) DefaultHandler(h->get_object());
    }
  }
}

constexpr const char* kVolumeSources[] = {
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi",
    "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc",
    "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected",
    "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image"};

void DefaultDownwardApiItems(json::object& src) {
  if (auto* items = ArrayField(src, "items")) {
    for (auto& i : *items) {
      if (i.is_object()) DefaultFieldRef(i.get_object());
    }
  }
}

void DefaultVolume(json::object& v) {
  bool any = false;
  for (const char* s : kVolumeSources) {
    const auto* x = v.if_contains(s);
    if (x && !x->is_null()) any = true;
  }
  if (!any) v["emptyDir"] = json::object();
  auto source = [&](const char* key) -> json::object* {
    auto* x = v.if_contains(key);
    return x && x->is_object() ? &x->get_object() : nullptr;
  };
  if (auto* s = source("hostPath")) SetIfMissing(*s, "type", "");
  if (auto* s = source("secret"); s && !s->contains("defaultMode")) (*s)["defaultMode"] = 420;
  if (auto* s = source("configMap"); s && !s->contains("defaultMode")) (*s)["defaultMode"] = 420;
  if (auto* s = source("downwardAPI")) {
    if (!s->contains("defaultMode")) (*s)["defaultMode"] = 420;
    DefaultDownwardApiItems(*s);
  }
  if (auto* s = source("projected")) {
    if (!s->contains("defaultMode")) (*s)["defaultMode"] = 420;
    if (auto* sources = ArrayField(*s, "sources")) {
      for (auto& p : *sources) {
        if (!p.is_object()) continue;
        if (auto* d = p.get_object().if_contains("downwardAPI"); d && d->is_object()) DefaultDownwardApiItems(d->get_object());
        if (auto* t = p.get_object().if_contains("serviceAccountToken"); t && t->is_object()) {
          if (!t->get_object().contains("expirationSeconds")) t->get_object()["expirationSeconds"] = 3600;
        }
      }
    }
  }
  if (auto* s = source("iscsi")) SetIfMissing(*s, "iscsiInterface", "default");
  if (auto* s = source("rbd")) {
    SetIfMissing(*s, "pool", "rbd");
    SetIfMissing(*s, "user", "admin");
    SetIfMissing(*s, "keyring", "/etc/ceph/keyring");
  }
  if (auto* s = source("azureDisk")) {
    SetIfMissing(*s, "cachingMode", "ReadWrite");
    SetIfMissing(*s, "fsType", "ext4");
    if (!s->contains("readOnly")) (*s)["readOnly"] = false;
    SetIfMissing(*s, "kind", "Shared");
  }
  if (auto* s = source("scaleIO")) {
    SetIfMissing(*s, "storageMode", "ThinProvisioned");
    SetIfMissing(*s, "fsType", "xfs");
  }
  if (auto* s = source("ephemeral")) {
    if (auto* t = s->if_contains("volumeClaimTemplate"); t && t->is_object()) {
      if (auto* spec = t->get_object().if_contains("spec"); spec && spec->is_object()) {
        SetIfMissing(spec->get_object(), "volumeMode", "Filesystem");
      }
    }
  }
  if (auto* s = source("image")) {
    if (Missing(*s, "pullPolicy")) (*s)["pullPolicy"] = DefaultPullPolicy(StrOf(s->if_contains("reference")));
  }
}

void ForEachContainer(json::object& spec, void (*fn)(json::object&)) {
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    if (auto* arr = ArrayField(spec, list)) {
      for (auto& c : *arr) {
        if (c.is_object()) fn(c.get_object());
      }
    }
  }
}

}  // namespace

std::string DefaultPullPolicy(std::string_view image) {
  // kube parses the reference (docker's normalized names): a digest ends it, a tag follows the last
  // ':' after the last '/'; no tag and no digest means "latest"; a malformed name has no tag.
  std::string_view ref = image;
  bool digest = false;
  if (size_t at = ref.find('@'); at != std::string_view::npos) {
    digest = true;
    ref = ref.substr(0, at);
  }
  std::string_view tag;
  size_t slash = ref.rfind('/');
  size_t colon = ref.rfind(':');
  std::string_view name = ref;
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    tag = ref.substr(colon + 1);
    name = ref.substr(0, colon);
  }
  // Repository names are lowercase; the domain (first part with '.', ':' or "localhost") may not be.
  std::string_view path = name;
  if (size_t first = name.find('/'); first != std::string_view::npos) {
    std::string_view domain = name.substr(0, first);
    if (domain.find('.') != std::string_view::npos || domain.find(':') != std::string_view::npos || domain == "localhost") {
      path = name.substr(first + 1);
    }
  }
  bool malformed = name.empty() || std::any_of(path.begin(), path.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
  if (!malformed && !tag.empty()) {
    malformed = tag.size() > 128 || !(std::isalnum(static_cast<unsigned char>(tag[0])) || tag[0] == '_') ||
                !std::all_of(tag.begin(), tag.end(), [](char c) {
                  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
                });
  }
  if (malformed) return "IfNotPresent";
  if (tag.empty() && !digest) tag = "latest";
  return tag == "latest" ? "Always" : "IfNotPresent";
}

void DefaultPodSpec(json::object& spec) {
  if (auto* vols = ArrayField(spec, "volumes")) {
    for (auto& v : *vols) {
      if (v.is_object()) DefaultVolume(v.get_object());
    }
  }
  ForEachContainer(spec, DefaultContainer);
  SetIfMissing(spec, "dnsPolicy", "ClusterFirst");
  SetIfMissing(spec, "restartPolicy", "Always");
  if (const auto* sc = spec.if_contains("securityContext"); !sc || sc->is_null()) spec["securityContext"] = json::object();
  if (const auto* g = spec.if_contains("terminationGracePeriodSeconds"); !g || g->is_null()) {
    spec["terminationGracePeriodSeconds"] = 30;
  }
  SetIfMissing(spec, "schedulerName", "default-scheduler");
}

void DefaultPodTemplateSpec(json::object& tmpl) {
  // A template's ObjectMeta is written with its zero creationTimestamp, as kube writes it.
  json::object& md = ObjectField(tmpl, "metadata");
  if (!md.contains("creationTimestamp")) md["creationTimestamp"] = nullptr;
  DefaultPodSpec(ObjectField(tmpl, "spec"));
}

void DefaultPod(json::object& pod) {
  json::object& spec = ObjectField(pod, "spec");
  DefaultPodSpec(spec);
  // Requests default to limits (regular and init containers).
  for (const char* list : {"containers", "initContainers"}) {
    if (auto* arr = ArrayField(spec, list)) {
      for (auto& c : *arr) {
        if (!c.is_object()) continue;
        auto* res = c.get_object().if_contains("resources");
        if (!res || !res->is_object()) continue;
        const auto* limits = res->get_object().if_contains("limits");
        if (!limits || !limits->is_object() || limits->get_object().empty()) continue;
        json::object& requests = ObjectField(res->get_object(), "requests");
        for (const auto& kv : limits->get_object()) {
          if (!requests.contains(kv.key())) requests[kv.key()] = kv.value();
        }
      }
    }
  }
  if (const auto* esl = spec.if_contains("enableServiceLinks"); !esl || esl->is_null()) spec["enableServiceLinks"] = true;
  if (const auto* hn = spec.if_contains("hostNetwork"); hn && hn->is_bool() && hn->get_bool()) {
    for (const char* list : {"containers", "initContainers"}) {
      if (auto* arr = ArrayField(spec, list)) {
        for (auto& c : *arr) {
          if (!c.is_object()) continue;
          if (auto* ports = ArrayField(c.get_object(), "ports")) {
            for (auto& p : *ports) {
              if (!p.is_object()) continue;
              if (IntOf(p.get_object().if_contains("hostPort")) == 0) p.get_object()["hostPort"] = p.get_object()["containerPort"];
            }
          }
        }
      }
    }
  }
}

}  // namespace capstan::api::core
