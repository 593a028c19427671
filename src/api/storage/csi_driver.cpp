// api/storage/csi_driver.cpp: storage.k8s.io/v1 CSIDrivers (cluster-scoped): kube's
// SetDefaults_CSIDriver (attachRequired true, podInfoOnMount/storageCapacity/requiresRepublish/
// seLinuxMount false, fsGroupPolicy ReadWriteOnceWithFSType, volumeLifecycleModes [Persistent]),
// ValidateCSIDriver(Update) (the name is a CSI driver name; attachRequired and volumeLifecycleModes
// are immutable; token request audiences and lifetimes), and the printer (NAME ATTACHREQUIRED
// PODINFOONMOUNT STORAGECAPACITY TOKENREQUESTS REQUIRESREPUBLISH MODES AGE).
#include <set>

#include "api/common.h"
#include "api/networking/validators.h"
#include "api/storage/storage.h"
#include "api/storage/storage_descriptions.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::storage_api {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

ErrorList ValidateTokenRequests(const json::object& spec, const FieldPath& p) {
  ErrorList errs;
  const json::array* requests = ArrayAt(spec, "tokenRequests");
  if (!requests) return errs;
  std::set<std::string> audiences;
  for (size_t i = 0; i < requests->size(); ++i) {
    if (!(*requests)[i].is_object()) continue;
    const json::object& r = (*requests)[i].get_object();
    FieldPath rp = p.Index(i);
    std::string audience = StringAt(r, "audience");
    if (!audiences.insert(audience).second) {
      errs.push_back(DuplicateError(rp.Child("audience"), audience));
      continue;
    }
    auto seconds = catalog::OptInt(&r, "expirationSeconds");
    if (!seconds) continue;
    if (*seconds < 600) {
      errs.push_back(InvalidError(rp.Child("expirationSeconds"), *seconds, "may not specify a duration less than 10 minutes"));
    }
    if (*seconds > (int64_t{1} << 32)) {
      errs.push_back(InvalidError(rp.Child("expirationSeconds"), *seconds, "may not specify a duration larger than 2^32 seconds"));
    }
  }
  return errs;
}

ErrorList ValidateCSIDriver(const Object& d) {
  ErrorList errs = ValidateCSIDriverName(am::GetName(d), FieldPath("name"));
  static const json::object kEmpty;
  const json::object* spec = ObjectAt(d, "spec");
  if (!spec) spec = &kEmpty;
  FieldPath p("spec");
  // kube's field path says "attachedRequired".
  if (!catalog::Has(spec, "attachRequired")) errs.push_back(RequiredError(p.Child("attachedRequired"), ""));
  if (auto policy = catalog::OptString(spec, "fsGroupPolicy");
      policy && *policy != "File" && *policy != "None" && *policy != "ReadWriteOnceWithFSType") {
    errs.push_back(NotSupportedError(p.Child("fsGroupPolicy"), *policy, {"File", "None", "ReadWriteOnceWithFSType"}));
  }
  if (!catalog::Has(spec, "podInfoOnMount")) errs.push_back(RequiredError(p.Child("podInfoOnMount"), ""));
  if (!catalog::Has(spec, "requiresRepublish")) errs.push_back(RequiredError(p.Child("requiresRepublish"), ""));
  ErrorList more = ValidateTokenRequests(*spec, p.Child("tokenRequests"));
  errs.insert(errs.end(), more.begin(), more.end());
  for (const auto& mode : catalog::Strings(*spec, "volumeLifecycleModes")) {
    if (mode != "Persistent" && mode != "Ephemeral") {
      errs.push_back(NotSupportedError(p.Child("volumeLifecycleModes"), mode, {"Persistent", "Ephemeral"}));
    }
  }
  if (!catalog::Has(spec, "storageCapacity")) errs.push_back(RequiredError(p.Child("storageCapacity"), ""));
  if (!catalog::Has(spec, "seLinuxMount")) errs.push_back(RequiredError(p.Child("seLinuxMount"), ""));
  return errs;
}

class CSIDriverStrategy : public registry::DefaultStrategy {
 public:
  CSIDriverStrategy()
      : DefaultStrategy(Options{.namespaced = false, .name_validator = am::ValidatePathSegmentName}) {}

  void PrepareForCreate(const registry::Context&, Object& d) const override { Default(d); }
  void PrepareForUpdate(const registry::Context&, Object& d, const Object&) const override { Default(d); }
  ErrorList Validate(const registry::Context&, const Object& d) const override { return ValidateCSIDriver(d); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& d, const Object& old) const override {
    ErrorList errs = ValidateCSIDriver(d);
    FieldPath p("spec");
    catalog::CheckImmutable(errs, PathAt(d, {"spec", "attachRequired"}), PathAt(old, {"spec", "attachRequired"}),
                            p.Child("attachedRequired"));
    const json::value* modes = PathAt(d, {"spec", "volumeLifecycleModes"});
    if (!catalog::SameValue(modes, PathAt(old, {"spec", "volumeLifecycleModes"}), true)) {
      std::vector<std::string> q;
      if (const json::object* spec = ObjectAt(d, "spec")) {
        for (const auto& m : catalog::Strings(*spec, "volumeLifecycleModes")) q.push_back(GoQuote(m));
      }
      errs.push_back(catalog::InvalidGo(p.Child("volumeLifecycleModes"),
                                        q.empty() ? "[]storage.VolumeLifecycleMode(nil)"
                                                  : "[]storage.VolumeLifecycleMode{" + Join(q, ", ") + "}",
                                        am::kFieldImmutableErrorMsg));
    }
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"AttachRequired", "boolean", "", kAttachRequired, 0},
            {"PodInfoOnMount", "boolean", "", kPodInfoOnMount, 0},
            {"StorageCapacity", "boolean", "", kStorageCapacity, 0},
            {"TokenRequests", "string", "", kTokenRequests, 0},
            {"RequiresRepublish", "boolean", "", kRequiresRepublish, 0},
            {"Modes", "string", "", kVolumeLifecycleModes, 0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& d) const override {
    static const json::object kEmpty;
    const json::object* spec = ObjectAt(d, "spec");
    if (!spec) spec = &kEmpty;
    std::string modes = Join(catalog::Strings(*spec, "volumeLifecycleModes"), ",");
    if (modes.empty()) modes = "<none>";
    std::string tokens = "<unset>";
    if (const json::array* requests = ArrayAt(*spec, "tokenRequests")) {
      std::vector<std::string> audiences;
      for (const auto& r : *requests) audiences.push_back(r.is_object() ? StringAt(r.get_object(), "audience") : "");
      tokens = Join(audiences, ",");
    }
    return {json::value(am::GetName(d)),
            json::value(BoolAt(*spec, "attachRequired", true)),
            json::value(BoolAt(*spec, "podInfoOnMount")),
            json::value(BoolAt(*spec, "storageCapacity")),
            json::value(tokens),
            json::value(BoolAt(*spec, "requiresRepublish")),
            json::value(modes),
            json::value(AgeCell(d))};
  }

 private:
  // kube's SetDefaults_CSIDriver (with 1.32's default feature gates).
  static void Default(Object& d) {
    json::object& spec = catalog::Child(d, "spec");
    catalog::DefaultField(spec, "attachRequired", true);
    catalog::DefaultField(spec, "podInfoOnMount", false);
    catalog::DefaultField(spec, "storageCapacity", false);
    catalog::DefaultField(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType");
    const json::value* modes = spec.if_contains("volumeLifecycleModes");
    if (!modes || !modes->is_array() || modes->get_array().empty()) spec["volumeLifecycleModes"] = json::array{"Persistent"};
    catalog::DefaultField(spec, "requiresRepublish", false);
    catalog::DefaultField(spec, "seLinuxMount", false);
  }
};

}  // namespace

std::vector<registry::RestResource> CSIDrivers(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"storage.k8s.io", "v1", "csidrivers", "csidriver", "CSIDriver", false, {}, {},
                        "io.k8s.api.storage.v1.CSIDriver"});
  spec.strategy = std::make_shared<CSIDriverStrategy>();
  return registry::MakeResource(deps, std::move(spec));
}

}  // namespace capstan::api::storage_api
