// api/core/pod_validation_volumes.cpp: pod volumes as kube's ValidateVolumes checks them: names,
// exactly one source (kube's order, "may not specify more than 1 volume type" on the later ones),
// and the required fields of the common sources.
#include <set>

#include "api/core/core_helpers.h"
#include "api/core/pod_validation_internal.h"
#include "apimachinery/quantity.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

namespace {

// kube's validateVolumeSource order.
constexpr const char* kSources[] = {
    "emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs", "iscsi",
    "glusterfs", "flocker", "persistentVolumeClaim", "rbd", "cinder", "cephfs", "downwardAPI", "fc", "flexVolume",
    "configMap", "azureFile", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume",
    "scaleIO", "projected", "csi", "ephemeral", "image", "storageos"};

void Require(ErrorList& errs, const json::object& src, const FieldPath& p, const char* field) {
  if (StrOf(src.if_contains(field)).empty()) errs.push_back(RequiredError(p.Child(field), ""));
}

ErrorList ValidateSource(std::string_view kind, const json::object& src, const FieldPath& p) {
  ErrorList errs;
  if (kind == "emptyDir") {
    if (const auto* sl = src.if_contains("sizeLimit"); sl && !sl->is_null()) {
      auto q = am::ParseQuantityJson(*sl);
      if (q.ok() && q->Sign() < 0) {
        errs.push_back(ForbiddenError(p.Child("sizeLimit"), "SizeLimit field must be a valid resource quantity"));
      }
    }
  } else if (kind == "hostPath") {
    Require(errs, src, p, "path");
    std::string t = StrOf(src.if_contains("type"));
    static const std::vector<std::string> kTypes = {"", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate",
                                                    "File", "FileOrCreate", "Socket"};
    if (std::find(kTypes.begin(), kTypes.end(), t) == kTypes.end()) {
      errs.push_back(NotSupportedError(p.Child("type"), t, kTypes));
    }
  } else if (kind == "secret") {
    Require(errs, src, p, "secretName");
  } else if (kind == "configMap") {
    Require(errs, src, p, "name");
  } else if (kind == "persistentVolumeClaim") {
    Require(errs, src, p, "claimName");
  } else if (kind == "nfs") {
    Require(errs, src, p, "server");
    std::string path = StrOf(src.if_contains("path"));
    if (path.empty()) {
      errs.push_back(RequiredError(p.Child("path"), ""));
    } else if (path.front() != '/') {
      errs.push_back(InvalidError(p.Child("path"), path, "must be an absolute path"));
    }
  } else if (kind == "gitRepo") {
    Require(errs, src, p, "repository");
  } else if (kind == "gcePersistentDisk") {
    Require(errs, src, p, "pdName");
  } else if (kind == "awsElasticBlockStore") {
    Require(errs, src, p, "volumeID");
  } else if (kind == "iscsi") {
    Require(errs, src, p, "targetPortal");
    Require(errs, src, p, "iqn");
  } else if (kind == "glusterfs") {
    Require(errs, src, p, "endpoints");
    Require(errs, src, p, "path");
  } else if (kind == "rbd") {
    if (CountAt(src, "monitors") == 0) errs.push_back(RequiredError(p.Child("monitors"), ""));
    Require(errs, src, p, "image");
  } else if (kind == "cinder") {
    Require(errs, src, p, "volumeID");
  } else if (kind == "cephfs") {
    if (CountAt(src, "monitors") == 0) errs.push_back(RequiredError(p.Child("monitors"), ""));
  } else if (kind == "flexVolume") {
    Require(errs, src, p, "driver");
  } else if (kind == "azureFile") {
    Require(errs, src, p, "secretName");
    Require(errs, src, p, "shareName");
  } else if (kind == "vsphereVolume") {
    Require(errs, src, p, "volumePath");
  } else if (kind == "quobyte") {
    Require(errs, src, p, "registry");
    Require(errs, src, p, "volume");
  } else if (kind == "azureDisk") {
    Require(errs, src, p, "diskName");
    Require(errs, src, p, "diskURI");
  } else if (kind == "photonPersistentDisk") {
    Require(errs, src, p, "pdID");
  } else if (kind == "portworxVolume") {
    Require(errs, src, p, "volumeID");
  } else if (kind == "scaleIO") {
    Require(errs, src, p, "gateway");
    Require(errs, src, p, "system");
    Require(errs, src, p, "volumeName");
  } else if (kind == "csi") {
    Require(errs, src, p, "driver");
  } else if (kind == "image") {
    Require(errs, src, p, "reference");
  } else if (kind == "flocker") {
    bool name = !StrOf(src.if_contains("datasetName")).empty();
    bool uuid = !StrOf(src.if_contains("datasetUUID")).empty();
    if (name == uuid) errs.push_back(RequiredError(p, "one of datasetName and datasetUUID is required"));
  }
  return errs;
}

}  // namespace

ErrorList ValidateVolumes(const json::value* volumes, const FieldPath& path, std::set<std::string>& names) {
  ErrorList errs;
  if (!volumes || !volumes->is_array()) return errs;
  const auto& arr = volumes->get_array();
  for (size_t i = 0; i < arr.size(); ++i) {
    static const json::object kEmpty;
    const json::object& v = arr[i].is_object() ? arr[i].get_object() : kEmpty;
    FieldPath p = path.Index(i);
    ErrorList el;
    int n = 0;
    for (const char* kind : kSources) {
      const auto* src = v.if_contains(kind);
      if (!src || src->is_null()) continue;
      if (n > 0) {
        el.push_back(ForbiddenError(p.Child(kind), "may not specify more than 1 volume type"));
        continue;
      }
      ++n;
      if (src->is_object()) {
        auto more = ValidateSource(kind, src->get_object(), p.Child(kind));
        el.insert(el.end(), more.begin(), more.end());
      }
    }
    if (n == 0) el.push_back(RequiredError(p, "must specify a volume type"));
    std::string name = StrOf(v.if_contains("name"));
    if (name.empty()) {
      el.push_back(RequiredError(p.Child("name"), ""));
    } else {
      auto more = ProblemsAt(am::IsDNS1123Label(name), p.Child("name"), name);
      el.insert(el.end(), more.begin(), more.end());
    }
    if (names.count(name)) el.push_back(DuplicateError(p.Child("name"), name));
    if (el.empty()) {
      names.insert(name);
    } else {
      errs.insert(errs.end(), el.begin(), el.end());
    }
  }
  return errs;
}

}  // namespace capstan::api::core
