// api/storage/volume_attachment.cpp: storage.k8s.io/v1 VolumeAttachments (cluster-scoped): kube's
// ValidateVolumeAttachment and its v1 additions (attacher a CSI driver name, source exactly one of
// persistentVolumeName and inlineVolumeSpec, node name, status metadata and error sizes), the
// read-only spec, the status subresource, and the printer (NAME ATTACHER PV NODE ATTACHED AGE).
#include "api/common.h"
#include "api/networking/resource_util.h"
#include "api/networking/validators.h"
#include "api/storage/storage.h"
#include "api/storage/storage_descriptions.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/validation.h"

namespace capstan::api::storage_api {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

constexpr int kMaxMetadataBytes = 256 * 1024;
constexpr size_t kMaxErrorMessage = 1024;

ErrorList ValidateStatus(const Object& va) {
  ErrorList errs;
  const json::object* status = ObjectAt(va, "status");
  if (!status) return errs;
  FieldPath p("status");
  if (const json::object* md = ObjectAt(*status, "attachmentMetadata")) {
    size_t size = 0;
    for (const auto& kv : *md) size += kv.key().size() + (kv.value().is_string() ? kv.value().get_string().size() : 0);
    if (size > kMaxMetadataBytes) errs.push_back(TooLongError(p.Child("attachmentMetadata"), kMaxMetadataBytes));
  }
  for (const char* key : {"attachError", "detachError"}) {
    const json::object* e = ObjectAt(*status, key);
    // kube reports the metadata limit here too.
    if (e && StringAt(*e, "message").size() > kMaxErrorMessage) {
      errs.push_back(TooLongError(p.Child(key).Child("message"), kMaxMetadataBytes));
    }
  }
  return errs;
}

ErrorList ValidateVolumeAttachment(const Object& va) {
  ErrorList errs;
  static const json::object kEmpty;
  const json::object* spec = ObjectAt(va, "spec");
  if (!spec) spec = &kEmpty;
  FieldPath p("spec");
  std::string attacher = StringAt(*spec, "attacher");
  if (attacher.empty()) errs.push_back(RequiredError(p.Child("attacher"), ""));
  const json::object* source = ObjectAt(*spec, "source");
  bool has_pv = source && catalog::Has(source, "persistentVolumeName");
  bool has_inline = source && catalog::Has(source, "inlineVolumeSpec");
  FieldPath sp = p.Child("source");
  if (!has_pv && !has_inline) {
    errs.push_back(RequiredError(sp, "must specify exactly one of inlineVolumeSpec and persistentVolumeName"));
  } else if (has_pv && has_inline) {
    errs.push_back(ForbiddenError(sp, "must specify exactly one of inlineVolumeSpec and persistentVolumeName"));
  } else if (has_pv && StringAt(*source, "persistentVolumeName").empty()) {
    errs.push_back(RequiredError(sp.Child("persistentVolumeName"), "must specify non empty persistentVolumeName"));
  }
  std::string node = StringAt(*spec, "nodeName");
  catalog::AddProblems(errs, p.Child("nodeName"), node, am::NameIsDNSSubdomain(node, false));
  ErrorList more = ValidateStatus(va);
  errs.insert(errs.end(), more.begin(), more.end());
  // The v1 additions (kube's ValidateVolumeAttachmentV1).
  more = ValidateCSIDriverName(attacher, p.Child("attacher"));
  errs.insert(errs.end(), more.begin(), more.end());
  if (has_pv) {
    std::string pv = StringAt(*source, "persistentVolumeName");
    catalog::AddProblems(errs, sp.Child("persistentVolumeName"), pv, am::NameIsDNSSubdomain(pv, false));
  }
  return errs;
}

ErrorList ValidateVolumeAttachmentUpdate(const Object& va, const Object& old) {
  ErrorList errs = ValidateVolumeAttachment(va);
  const json::value* spec = va.if_contains("spec");
  if (!catalog::SameValue(spec, old.if_contains("spec"))) {
    errs.push_back(catalog::InvalidGo(FieldPath("spec"), spec ? json::serialize(*spec) : "null", "field is immutable"));
  }
  return errs;
}

class VolumeAttachmentStrategy : public registry::DefaultStrategy {
 public:
  VolumeAttachmentStrategy() : DefaultStrategy(Options{.namespaced = false, .has_status = true}) {}

  ErrorList Validate(const registry::Context&, const Object& va) const override { return ValidateVolumeAttachment(va); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& va, const Object& old) const override {
    return ValidateVolumeAttachmentUpdate(va, old);
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Attacher", "string", "name", kAttacher, 0},
            {"PV", "string", "", kPersistentVolumeName, 0},
            {"Node", "string", "", kNodeName, 0},
            {"Attached", "boolean", "", kAttached, 0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& va) const override {
    const json::value* pv = PathAt(va, {"spec", "source", "persistentVolumeName"});
    const json::value* attacher = PathAt(va, {"spec", "attacher"});
    const json::value* node = PathAt(va, {"spec", "nodeName"});
    const json::value* attached = PathAt(va, {"status", "attached"});
    auto str = [](const json::value* v) { return v && v->is_string() ? std::string(v->get_string()) : std::string(); };
    return {json::value(am::GetName(va)), json::value(str(attacher)), json::value(str(pv)), json::value(str(node)),
            json::value(attached && attached->is_bool() && attached->get_bool()), json::value(AgeCell(va))};
  }
};

}  // namespace

std::vector<registry::RestResource> VolumeAttachments(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"storage.k8s.io", "v1", "volumeattachments", "volumeattachment", "VolumeAttachment", false, {},
                        {}, "io.k8s.api.storage.v1.VolumeAttachment"});
  auto strategy = std::make_shared<VolumeAttachmentStrategy>();
  spec.strategy = strategy;
  auto status = std::make_shared<catalog::StatusOnlyStrategy>(
      strategy, [](const Object& va, const Object& old) { return ValidateVolumeAttachmentUpdate(va, old); });
  return catalog::MakeResourceWith(deps, std::move(spec), {{"status", status}});
}

}  // namespace capstan::api::storage_api
