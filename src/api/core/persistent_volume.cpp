// api/core/persistent_volume.cpp: core/v1 PersistentVolumes and PersistentVolumeClaims: kube's
// defaults (reclaim policy Retain, volumeMode Filesystem, phase Pending with its transition time),
// validation (access modes, capacity / storage request, exactly one volume source, immutable source
// and volumeMode, claims immutable but for their storage request), status subresources and printers.
#include <set>

#include "api/core/core_descriptions.h"
#include "api/core/core_helpers.h"
#include "api/core/core_resources.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/quantity.h"
#include "apimachinery/time_util.h"
#include "apimachinery/validation.h"
#include "apimachinery/labels.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

namespace {

const json::object& Part(const Object& o, std::string_view key) {
  static const json::object kEmpty;
  const auto* s = o.if_contains(key);
  return s && s->is_object() ? s->get_object() : kEmpty;
}

std::string Now(const registry::Context&) { return am::FormatRfc3339(am::Timestamp::FromTimePoint(std::chrono::system_clock::now())); }

constexpr const char* kModes[] = {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"};

ErrorList ValidateAccessModes(const json::value* modes, const FieldPath& p, bool claim) {
  ErrorList errs;
  if (!modes || !modes->is_array() || modes->get_array().empty()) {
    errs.push_back(RequiredError(p, claim ? "at least 1 access mode is required" : ""));
    return errs;
  }
  bool rwop = false;
  for (const auto& m : modes->get_array()) {
    std::string v = StrOf(&m);
    if (std::find(std::begin(kModes), std::end(kModes), v) == std::end(kModes)) {
      errs.push_back(NotSupportedError(p, v, {"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"}));
    }
    if (v == "ReadWriteOncePod") rwop = true;
  }
  if (rwop && modes->get_array().size() > 1) {
    errs.push_back(ForbiddenError(p, "may not use ReadWriteOncePod with other access modes"));
  }
  return errs;
}

// "RWO,ROX,RWX,RWOP" in kube's order.
std::string AccessModesString(const json::value* modes) {
  std::set<std::string> have;
  if (modes && modes->is_array()) {
    for (const auto& m : modes->get_array()) have.insert(StrOf(&m));
  }
  std::vector<std::string> out;
  if (have.count("ReadWriteOnce")) out.push_back("RWO");
  if (have.count("ReadOnlyMany")) out.push_back("ROX");
  if (have.count("ReadWriteMany")) out.push_back("RWX");
  if (have.count("ReadWriteOncePod")) out.push_back("RWOP");
  return Join(out, ",");
}

std::string StorageClassOf(const Object& o) {
  auto beta = am::GetAnnotations(o);
  for (const auto& [k, v] : beta) {
    if (k == "volume.beta.kubernetes.io/storage-class") return v;
  }
  return StrOf(Part(o, "spec").if_contains("storageClassName"));
}

std::string QuantityCell(const json::value* v) {
  if (!v) return "0";
  auto q = am::ParseQuantityJson(*v);
  return q.ok() ? q->String() : StrOf(v);
}

ErrorList ValidatePositiveQuantity(const json::value& v, const FieldPath& p) {
  auto q = am::ParseQuantityJson(v);
  if (!q.ok()) return {InvalidError(p, v, std::string(q.status().message()))};
  if (q->Sign() <= 0) return {InvalidError(p, q->String(), "must be greater than zero")};
  return {};
}

// --- PersistentVolume

constexpr const char* kPvSources[] = {
    "gcePersistentDisk", "awsElasticBlockStore", "hostPath", "glusterfs", "nfs", "rbd", "quobyte", "cinder", "cephfs",
    "iscsi", "fc", "flocker", "flexVolume", "azureFile", "vsphereVolume", "azureDisk", "photonPersistentDisk",
    "portworxVolume", "scaleIO", "local", "storageos", "csi"};

json::object SourceOf(const json::object& spec) {
  json::object s;
  for (const char* k : kPvSources) {
    if (const auto* v = spec.if_contains(k)) s[k] = *v;
  }
  return s;
}

void DefaultPv(Object& pv) {
  json::object& spec = ObjectField(pv, "spec");
  if (StrOf(spec.if_contains("persistentVolumeReclaimPolicy")).empty()) spec["persistentVolumeReclaimPolicy"] = "Retain";
  if (StrOf(spec.if_contains("volumeMode")).empty()) spec["volumeMode"] = "Filesystem";
  if (auto* h = spec.if_contains("hostPath"); h && h->is_object() && !h->get_object().contains("type")) h->get_object()["type"] = "";
  if (auto* r = spec.if_contains("rbd"); r && r->is_object()) {
    auto& o = r->get_object();
    if (StrOf(o.if_contains("pool")).empty()) o["pool"] = "rbd";
    if (StrOf(o.if_contains("user")).empty()) o["user"] = "admin";
    if (StrOf(o.if_contains("keyring")).empty()) o["keyring"] = "/etc/ceph/keyring";
  }
  if (auto* i = spec.if_contains("iscsi"); i && i->is_object() && StrOf(i->get_object().if_contains("iscsiInterface")).empty()) {
    i->get_object()["iscsiInterface"] = "default";
  }
  if (auto* a = spec.if_contains("azureDisk"); a && a->is_object()) {
    auto& o = a->get_object();
    if (StrOf(o.if_contains("cachingMode")).empty()) o["cachingMode"] = "ReadWrite";
    if (StrOf(o.if_contains("fsType")).empty()) o["fsType"] = "ext4";
    if (!o.contains("readOnly")) o["readOnly"] = false;
    if (StrOf(o.if_contains("kind")).empty()) o["kind"] = "Shared";
  }
  if (auto* s = spec.if_contains("scaleIO"); s && s->is_object()) {
    auto& o = s->get_object();
    if (StrOf(o.if_contains("storageMode")).empty()) o["storageMode"] = "ThinProvisioned";
    if (StrOf(o.if_contains("fsType")).empty()) o["fsType"] = "xfs";
  }
}

ErrorList ValidatePv(const Object& pv) {
  ErrorList errs;
  const json::object& spec = Part(pv, "spec");
  FieldPath sp("spec");
  auto add = [&](ErrorList more) { errs.insert(errs.end(), more.begin(), more.end()); };
  add(ValidateAccessModes(spec.if_contains("accessModes"), sp.Child("accessModes"), false));
  const auto* cap = spec.if_contains("capacity");
  const json::object* capo = cap && cap->is_object() ? &cap->get_object() : nullptr;
  if (!capo || capo->empty()) errs.push_back(RequiredError(sp.Child("capacity"), ""));
  if (!capo || !capo->contains("storage") || capo->size() > 1) {
    FieldError e = NotSupportedError(sp.Child("capacity"), "", {"storage"});
    e.omit_value = true;
    e.detail = (capo && !capo->empty() ? "core.ResourceList{...}" : "core.ResourceList(nil)") + std::string(": ") + e.detail;
    errs.push_back(std::move(e));
  }
  for (const auto& k : SortedKeys(capo)) add(ValidatePositiveQuantity(capo->at(k), sp.Child("capacity").Key(k)));
  std::string policy = StrOf(spec.if_contains("persistentVolumeReclaimPolicy"));
  if (!policy.empty() && policy != "Delete" && policy != "Recycle" && policy != "Retain") {
    errs.push_back(NotSupportedError(sp.Child("persistentVolumeReclaimPolicy"), policy, {"Delete", "Recycle", "Retain"}));
  }
  std::string sc = StrOf(spec.if_contains("storageClassName"));
  if (!sc.empty()) add(ProblemsAt(am::IsDNS1123Subdomain(sc), sp.Child("storageClassName"), sc));
  std::string mode = StrOf(spec.if_contains("volumeMode"));
  if (!mode.empty() && mode != "Block" && mode != "Filesystem") {
    errs.push_back(NotSupportedError(sp.Child("volumeMode"), mode, {"Block", "Filesystem"}));
  }
  int n = 0;
  for (const char* k : kPvSources) {
    const auto* v = spec.if_contains(k);
    if (!v || v->is_null()) continue;
    if (n++ > 0) {
      errs.push_back(ForbiddenError(sp.Child(k), "may not specify more than 1 volume type"));
      continue;
    }
    if (!v->is_object()) continue;
    const auto& src = v->get_object();
    auto require = [&](const char* f) {
      if (StrOf(src.if_contains(f)).empty()) errs.push_back(RequiredError(sp.Child(k).Child(f), ""));
    };
    std::string_view kind = k;
    if (kind == "hostPath" || kind == "local") require("path");
    if (kind == "nfs") {
      require("server");
      require("path");
    }
    if (kind == "csi") {
      require("driver");
      require("volumeHandle");
    }
    if (kind == "local" && !spec.contains("nodeAffinity")) {
      errs.push_back(RequiredError(sp.Child("nodeAffinity"), "Local volume requires node affinity"));
    }
  }
  if (n == 0) errs.push_back(RequiredError(sp, "must specify a volume type"));
  if (const auto* cr = spec.if_contains("claimRef"); cr && cr->is_object()) {
    if (StrOf(cr->get_object().if_contains("name")).empty()) errs.push_back(RequiredError(sp.Child("claimRef").Child("name"), ""));
  }
  return errs;
}

class PvStrategy : public registry::DefaultStrategy {
 public:
  PvStrategy() : DefaultStrategy(Options{.namespaced = false}) {}
  // kube's storage keeps a legacy "name" field for volumes and claims, but core/v1 has no field label
  // conversion for them: the default one refuses "name" before any selector reaches it.
  void PrepareForCreate(const registry::Context& ctx, Object& pv) const override {
    DefaultPv(pv);
    pv["status"] = json::object{{"phase", "Pending"}, {"lastPhaseTransitionTime", Now(ctx)}};
  }
  void PrepareForUpdate(const registry::Context&, Object& pv, const Object& old) const override {
    DefaultPv(pv);
    if (const auto* s = old.if_contains("status")) {
      pv["status"] = *s;
    } else {
      pv.erase("status");
    }
  }
  ErrorList Validate(const registry::Context&, const Object& pv) const override { return ValidatePv(pv); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& pv, const Object& old) const override {
    ErrorList errs = ValidatePv(pv);
    json::object a = SourceOf(Part(old, "spec")), b = SourceOf(Part(pv, "spec"));
    if (a != b) {
      errs.push_back(ForbiddenError(FieldPath("spec").Child("persistentvolumesource"),
                                    "spec.persistentvolumesource is immutable after creation\n" + json::serialize(a) + "\n" +
                                        json::serialize(b)));
    }
    std::string om = StrOf(Part(old, "spec").if_contains("volumeMode")), nm = StrOf(Part(pv, "spec").if_contains("volumeMode"));
    if (om != nm) errs.push_back(InvalidError(FieldPath("volumeMode"), nm, std::string(am::kFieldImmutableErrorMsg)));
    if (const auto* na = Part(old, "spec").if_contains("nodeAffinity"); na && !na->is_null()) {
      const auto* nn = Part(pv, "spec").if_contains("nodeAffinity");
      if (!nn || *nn != *na) {
        FieldError e = InvalidError(FieldPath("nodeAffinity"), "", std::string(am::kFieldImmutableErrorMsg));
        e.omit_value = true;
        e.detail = "core.VolumeNodeAffinity{...}: " + e.detail;
        errs.push_back(std::move(e));
      }
    }
    return errs;
  }
  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Capacity", "string", "", kPersistentVolumeSpecCapacity, 0},
            {"Access Modes", "string", "", kPersistentVolumeSpecAccessModes, 0},
            {"Reclaim Policy", "string", "", kPersistentVolumeSpecPersistentVolumeReclaimPolicy, 0},
            {"Status", "string", "", kPersistentVolumeStatusPhase, 0},
            {"Claim", "string", "", kPersistentVolumeSpecClaimRef, 0},
            {"StorageClass", "string", "", "StorageClass of the pv", 0},
            {"VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pv", 0},
            {"Reason", "string", "", kPersistentVolumeStatusReason, 0},
            registry::AgeColumn(),
            {"VolumeMode", "string", "", kPersistentVolumeSpecVolumeMode, 1}};
  }
  json::array TableCells(const Object& pv) const override {
    const json::object& spec = Part(pv, "spec");
    std::string claim;
    if (const auto* cr = spec.if_contains("claimRef"); cr && cr->is_object()) {
      claim = StrOf(cr->get_object().if_contains("namespace")) + "/" + StrOf(cr->get_object().if_contains("name"));
    }
    std::string phase = StrOf(PathAt(pv, {"status", "phase"}));
    if (am::GetDeletionTimestamp(pv)) phase = "Terminating";
    std::string mode = StrOf(spec.if_contains("volumeMode"));
    std::string vac = StrOf(spec.if_contains("volumeAttributesClassName"));
    return {json::value(am::GetName(pv)),
            json::value(QuantityCell(PathAt(pv, {"spec", "capacity", "storage"}))),
            json::value(AccessModesString(spec.if_contains("accessModes"))),
            json::value(StrOf(spec.if_contains("persistentVolumeReclaimPolicy"))),
            json::value(phase),
            json::value(claim),
            json::value(StorageClassOf(pv)),
            json::value(spec.contains("volumeAttributesClassName") ? vac : std::string("<unset>")),
            json::value(StrOf(PathAt(pv, {"status", "reason"}))),
            json::value(AgeCell(pv)),
            json::value(mode.empty() ? std::string("<unset>") : mode)};
  }
};

class PvStatusStrategy : public registry::StatusStrategy {
 public:
  using StatusStrategy::StatusStrategy;
  void PrepareForUpdate(const registry::Context& ctx, Object& pv, const Object& old) const override {
    std::string new_phase = StrOf(PathAt(pv, {"status", "phase"}));
    const auto* new_time = PathAt(pv, {"status", "lastPhaseTransitionTime"});
    const auto* old_time = PathAt(old, {"status", "lastPhaseTransitionTime"});
    bool phase_changed = new_phase != StrOf(PathAt(old, {"status", "phase"}));
    bool time_kept = !new_time || new_time->is_null() || (old_time && *new_time == *old_time);
    StatusStrategy::PrepareForUpdate(ctx, pv, old);
    if (phase_changed && time_kept && pv.contains("status")) ObjectField(pv, "status")["lastPhaseTransitionTime"] = Now(ctx);
  }
};

// --- PersistentVolumeClaim

void DefaultPvc(Object& pvc) {
  json::object& spec = ObjectField(pvc, "spec");
  if (StrOf(spec.if_contains("volumeMode")).empty()) spec["volumeMode"] = "Filesystem";
}

ErrorList ValidatePvc(const Object& pvc) {
  ErrorList errs;
  const json::object& spec = Part(pvc, "spec");
  FieldPath sp("spec");
  auto add = [&](ErrorList more) { errs.insert(errs.end(), more.begin(), more.end()); };
  add(ValidateAccessModes(spec.if_contains("accessModes"), sp.Child("accessModes"), true));
  if (const auto* sel = spec.if_contains("selector"); sel && !sel->is_null()) add(am::ValidateLabelSelector(*sel, sp.Child("selector")));
  const auto* storage = PathAt(pvc, {"spec", "resources", "requests", "storage"});
  FieldPath rp = sp.Child("resources").Key("storage");
  if (!storage) {
    errs.push_back(RequiredError(rp, ""));
  } else {
    add(ValidatePositiveQuantity(*storage, rp));
  }
  const auto* sc = spec.if_contains("storageClassName");
  if (sc && sc->is_string() && !sc->get_string().empty()) add(ProblemsAt(am::IsDNS1123Subdomain(sc->get_string()), sp.Child("storageClassName"), sc->get_string()));
  std::string mode = StrOf(spec.if_contains("volumeMode"));
  if (!mode.empty() && mode != "Block" && mode != "Filesystem") {
    errs.push_back(NotSupportedError(sp.Child("volumeMode"), mode, {"Block", "Filesystem"}));
  }
  for (const char* ds : {"dataSource", "dataSourceRef"}) {
    if (const auto* d = spec.if_contains(ds); d && d->is_object()) {
      if (StrOf(d->get_object().if_contains("name")).empty()) errs.push_back(RequiredError(sp.Child(ds).Child("name"), ""));
      if (StrOf(d->get_object().if_contains("kind")).empty()) errs.push_back(RequiredError(sp.Child(ds).Child("kind"), ""));
    }
  }
  return errs;
}

class PvcStrategy : public registry::DefaultStrategy {
 public:
  PvcStrategy() : DefaultStrategy(Options{}) {}
  // kube's storage keeps a legacy "name" field for volumes and claims, but core/v1 has no field label
  // conversion for them: the default one refuses "name" before any selector reaches it.
  void PrepareForCreate(const registry::Context&, Object& pvc) const override {
    DefaultPvc(pvc);
    pvc["status"] = json::object{{"phase", "Pending"}};
  }
  void PrepareForUpdate(const registry::Context&, Object& pvc, const Object& old) const override {
    DefaultPvc(pvc);
    if (const auto* s = old.if_contains("status")) {
      pvc["status"] = *s;
    } else {
      pvc.erase("status");
    }
  }
  ErrorList Validate(const registry::Context&, const Object& pvc) const override { return ValidatePvc(pvc); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& pvc, const Object& old) const override {
    ErrorList errs = ValidatePvc(pvc);
    json::object a = Part(old, "spec"), b = Part(pvc, "spec");
    if (StrOf(a.if_contains("volumeName")).empty()) {
      if (const auto* vn = b.if_contains("volumeName")) {
        a["volumeName"] = *vn;
      }
    }
    // A bound claim may change its storage request (expansion); the rest is fixed.
    if (StrOf(PathAt(pvc, {"status", "phase"})) == "Bound") {
      const auto* old_storage = PathAt(old, {"spec", "resources", "requests", "storage"});
      if (auto* res = b.if_contains("resources"); res && res->is_object()) {
        if (auto* req = res->get_object().if_contains("requests"); req && req->is_object() && old_storage) {
          req->get_object()["storage"] = *old_storage;
        }
      }
    }
    if (const auto* vac = b.if_contains("volumeAttributesClassName")) {
      a["volumeAttributesClassName"] = *vac;
    } else {
      a.erase("volumeAttributesClassName");
    }
    if (a != b) {
      errs.push_back(ForbiddenError(FieldPath("spec"),
                                    "spec is immutable after creation except resources.requests and volumeAttributesClassName "
                                    "for bound claims\n" + json::serialize(Part(old, "spec")) + "\n" + json::serialize(Part(pvc, "spec"))));
    }
    auto q = [](const json::value* v) -> std::optional<am::Quantity> {
      if (!v) return std::nullopt;
      auto r = am::ParseQuantityJson(*v);
      return r.ok() ? std::optional<am::Quantity>(*r) : std::nullopt;
    };
    auto old_size = q(PathAt(old, {"spec", "resources", "requests", "storage"}));
    auto new_size = q(PathAt(pvc, {"spec", "resources", "requests", "storage"}));
    if (old_size && new_size && new_size->Cmp(*old_size) < 0) {
      errs.push_back(ForbiddenError(FieldPath("spec").Child("resources").Child("requests").Child("storage"),
                                    "field can not be less than previous value"));
    }
    std::string om = StrOf(Part(old, "spec").if_contains("volumeMode")), nm = StrOf(Part(pvc, "spec").if_contains("volumeMode"));
    if (om != nm) errs.push_back(InvalidError(FieldPath("volumeMode"), nm, std::string(am::kFieldImmutableErrorMsg)));
    return errs;
  }
  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Status", "string", "", kPersistentVolumeClaimStatusPhase, 0},
            {"Volume", "string", "", kPersistentVolumeClaimSpecVolumeName, 0},
            {"Capacity", "string", "", kPersistentVolumeClaimStatusCapacity, 0},
            {"Access Modes", "string", "", kPersistentVolumeClaimStatusAccessModes, 0},
            {"StorageClass", "string", "", "StorageClass of the pvc", 0},
            {"VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pvc", 0},
            registry::AgeColumn(),
            {"VolumeMode", "string", "", kPersistentVolumeClaimSpecVolumeMode, 1}};
  }
  json::array TableCells(const Object& pvc) const override {
    const json::object& spec = Part(pvc, "spec");
    std::string phase = StrOf(PathAt(pvc, {"status", "phase"}));
    if (am::GetDeletionTimestamp(pvc)) phase = "Terminating";
    std::string volume = StrOf(spec.if_contains("volumeName"));
    std::string capacity, modes;
    if (!volume.empty()) {
      modes = AccessModesString(PathAt(pvc, {"status", "accessModes"}));
      capacity = QuantityCell(PathAt(pvc, {"status", "capacity", "storage"}));
    }
    std::string mode = StrOf(spec.if_contains("volumeMode"));
    std::string vac = spec.contains("volumeAttributesClassName") ? StrOf(spec.if_contains("volumeAttributesClassName")) : "<unset>";
    return {json::value(am::GetName(pvc)), json::value(phase), json::value(volume), json::value(capacity), json::value(modes),
            json::value(StorageClassOf(pvc)), json::value(vac), json::value(AgeCell(pvc)),
            json::value(mode.empty() ? std::string("<unset>") : mode)};
  }
};

}  // namespace

std::vector<registry::RestResource> PersistentVolumes(const registry::GroupDeps& deps) {
  auto info = MakeInfo({"", "v1", "persistentvolumes", "persistentvolume", "PersistentVolume", false, {"pv"}, {},
                        "io.k8s.api.core.v1.PersistentVolume"});
  auto strategy = std::make_shared<PvStrategy>();
  return MakeCoreResource(deps, info, strategy, std::make_shared<PvStatusStrategy>(strategy));
}

std::vector<registry::RestResource> PersistentVolumeClaims(const registry::GroupDeps& deps) {
  auto info = MakeInfo({"", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", true, {"pvc"}, {},
                        "io.k8s.api.core.v1.PersistentVolumeClaim"});
  auto strategy = std::make_shared<PvcStrategy>();
  return MakeCoreResource(deps, info, strategy, std::make_shared<registry::StatusStrategy>(strategy));
}

}  // namespace capstan::api::core
