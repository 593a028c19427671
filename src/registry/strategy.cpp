#include "registry/strategy.h"

#include "apimachinery/object_meta.h"
#include "registry/table.h"

namespace capstan::registry {

namespace am = capstan::apimachinery;

std::vector<std::string> Strategy::SelectableFieldNames() const { return am::DefaultSelectableFieldNames(); }

std::string Strategy::UnsupportedFieldLabelMessage(std::string_view field) const {
  return am::DefaultFieldLabelConversionError(field);
}

am::FieldSet Strategy::SelectableFields(const Object& obj) const {
  am::FieldSet f;
  f["metadata.name"] = std::string(am::GetName(obj));
  if (NamespaceScoped()) f["metadata.namespace"] = std::string(am::GetNamespace(obj));
  return f;
}

std::vector<TableColumn> Strategy::TableColumns() const { return DefaultTableColumns(); }
boost::json::array Strategy::TableCells(const Object& obj) const { return DefaultTableCells(obj); }

bool Strategy::ShouldDeleteDuringUpdate(const Object& obj) const {
  return am::GetDeletionTimestamp(obj).has_value() && am::GetFinalizers(obj).empty();
}

bool SpecChanged(const Object& a, const Object& b) {
  auto strip = [](const Object& o) {
    Object c = o;
    c.stable_erase("metadata");
    c.stable_erase("status");
    c.stable_erase("apiVersion");
    c.stable_erase("kind");
    return c;
  };
  return strip(a) != strip(b);
}

void DefaultStrategy::PrepareForCreate(const Context&, Object& obj) const {
  if (o_.has_status) obj.stable_erase("status");
  if (o_.track_generation) am::SetGeneration(obj, 1);
}

void DefaultStrategy::PrepareForUpdate(const Context&, Object& obj, const Object& old) const {
  if (o_.has_status) {
    // The main resource does not change status; the status subresource does.
    if (const auto* s = old.if_contains("status")) {
      obj["status"] = *s;
    } else {
      obj.stable_erase("status");
    }
  }
  if (o_.track_generation) {
    int64_t gen = am::GetGeneration(old);
    if (SpecChanged(obj, old)) ++gen;
    am::SetGeneration(obj, gen == 0 ? 1 : gen);
  }
}

void StatusStrategy::PrepareForUpdate(const Context&, Object& obj, const Object& old) const {
  // Everything but status (and metadata, which the Store guards) comes from the stored object.
  Object next = old;
  if (const auto* s = obj.if_contains("status")) {
    next["status"] = *s;
  } else {
    next.stable_erase("status");
  }
  // kube's status strategies keep the stored metadata except what status writers may not change;
  // labels and annotations changes through status are dropped too.
  next["metadata"] = old.at("metadata");
  if (const auto* md = obj.if_contains("metadata"); md && md->is_object()) {
    if (const auto* rv = md->get_object().if_contains("resourceVersion")) next["metadata"].as_object()["resourceVersion"] = *rv;
  }
  obj = std::move(next);
}

ErrorList StatusStrategy::ValidateUpdate(const Context&, const Object&, const Object&) const { return {}; }

}  // namespace capstan::registry
