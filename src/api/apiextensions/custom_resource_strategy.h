// api/apiextensions/custom_resource_strategy.h: the strategy of a custom resource version (kube's
// customresource strategy): on every write the object is pruned of fields its structural schema
// does not specify, nulls that can be neither kept nor defaulted are dropped and the schema's defaults
// applied (kube does this when decoding); it is then validated against the schema (types, formats,
// enum, pattern, bounds, required, nullable, junctors, list-type set/map) with kube's field paths,
// then its x-kubernetes-validations rules run (cel/crd_rules.h; compiled once, with the strategy).
// Updates ratchet (CRDValidationRatcheting): errors at values the update left unchanged are dropped.
// With the status subresource, status is dropped on create and kept on update (the status
// subresource's own strategy changes it), and metadata.generation grows on spec changes only.
// Table output follows the additionalPrinterColumns; field selectors the selectableFields.
//
// Immutable; thread-safe. The schema pointers are owned by `keep_alive`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/apiextensions/crd_types.h"
#include "api/apiextensions/printer_columns.h"
#include "apimachinery/schema.h"
#include "cel/crd_rules.h"
#include "registry/strategy.h"

namespace capstan::api::apiextensions {

class CustomResourceStrategy : public registry::DefaultStrategy {
 public:
  struct Config {
    bool namespaced = true;
    bool has_status = false;
    const apimachinery::Schema* schema = nullptr;  // the version's openAPIV3Schema; null: no schema
    std::shared_ptr<const cel::CrdRules> rules;    // the schema's CEL rules; null: none
    std::vector<PrinterColumn> columns;
    std::vector<std::string> selectable_fields;    // ".spec.color"
    std::string label_selector_path;               // scale: ".status.selector"
    std::shared_ptr<const void> keep_alive;
  };
  explicit CustomResourceStrategy(Config c);

  void PrepareForCreate(const registry::Context& ctx, Object& obj) const override;
  void PrepareForUpdate(const registry::Context& ctx, Object& obj, const Object& old) const override;
  ErrorList Validate(const registry::Context& ctx, const Object& obj) const override;
  ErrorList ValidateUpdate(const registry::Context& ctx, const Object& obj, const Object& old) const override;
  std::vector<registry::TableColumn> TableColumns() const override { return columns_.Columns(); }
  boost::json::array TableCells(const Object& obj) const override { return columns_.Cells(obj); }
  std::vector<std::string> SelectableFieldNames() const override;
  std::string UnsupportedFieldLabelMessage(std::string_view field) const override;
  apimachinery::FieldSet SelectableFields(const Object& obj) const override;

  // Prune, drop non-nullable nulls, default: what decoding does to a custom resource.
  void PruneAndDefault(Object& obj) const;
  const apimachinery::Schema* schema() const { return c_.schema; }
  // Schema validation of the whole object.
  ErrorList ValidateSchema(const Object& obj) const;
  // The CEL rules on the object (old: the stored object on updates), appended to errs unless the
  // schema validation found a blocking error (a wrong type, a missing required field, an unsupported
  // enum value, too long, too many: then kube's "some validation rules were not checked").
  // Ratcheted rule failures become warnings of the request, as kube adds them.
  void ValidateRules(const registry::Context& ctx, const Object& obj, const Object* old, ErrorList& errs) const;

 private:
  Config c_;
  PrinterColumns columns_;
  std::vector<std::pair<std::string, std::vector<JsonPathStep>>> selectable_;  // "spec.color" → path
};

// The status subresource: only status (and metadata as kube's status strategies allow) changes; the
// result is pruned, defaulted and validated like the main resource.
class CustomResourceStatusStrategy : public registry::StatusStrategy {
 public:
  explicit CustomResourceStatusStrategy(std::shared_ptr<const CustomResourceStrategy> main)
      : StatusStrategy(main), cr_(std::move(main)) {}
  void PrepareForUpdate(const registry::Context& ctx, Object& obj, const Object& old) const override;
  ErrorList ValidateUpdate(const registry::Context& ctx, const Object& obj, const Object& old) const override;

 private:
  std::shared_ptr<const CustomResourceStrategy> cr_;
};

}  // namespace capstan::api::apiextensions
