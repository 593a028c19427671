// registry/strategy.h: per-resource behaviour the schema cannot say (kube's RESTCreateStrategy,
// RESTUpdateStrategy and friends rolled into one interface).
//
// The generic Store calls these around every write: PrepareForCreate / PrepareForUpdate (status reset,
// generation, defaults), Validate / ValidateUpdate (cross-field rules, immutable fields), Canonicalize;
// and for reads: SelectableFields (field selectors) and the table columns. ObjectMeta rules common to
// every resource are the Store's, not the strategy's. Strategies are immutable and thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "apimachinery/field_errors.h"
#include "apimachinery/fields.h"
#include "apimachinery/validation.h"
#include "registry/rest.h"

namespace capstan::registry {

class Strategy {
 public:
  virtual ~Strategy() = default;

  virtual bool NamespaceScoped() const = 0;
  // PUT of a missing object creates it.
  virtual bool AllowCreateOnUpdate() const { return false; }
  // An update may omit metadata.resourceVersion (no optimistic-concurrency check).
  virtual bool AllowUnconditionalUpdate() const { return true; }
  virtual apimachinery::NameValidator NameValidator() const { return apimachinery::NameIsDNSSubdomain; }

  virtual void PrepareForCreate(const Context& ctx, Object& obj) const {}
  virtual void PrepareForUpdate(const Context& ctx, Object& obj, const Object& old) const {}
  virtual ErrorList Validate(const Context& ctx, const Object& obj) const { return {}; }
  virtual ErrorList ValidateUpdate(const Context& ctx, const Object& obj, const Object& old) const { return {}; }
  virtual std::vector<std::string> WarningsOnCreate(const Context& ctx, const Object& obj) const { return {}; }
  virtual std::vector<std::string> WarningsOnUpdate(const Context& ctx, const Object& obj, const Object& old) const {
    return {};
  }
  virtual void Canonicalize(Object& obj) const {}

  // Seconds until a created object expires from storage (Events: one hour); 0: never.
  virtual int64_t TTLSeconds(const Object& obj) const { return 0; }

  // An update that leaves an object being deleted without finalizers completes its deletion.
  virtual bool ShouldDeleteDuringUpdate(const Object& obj) const;

  // Deletion: whether the object is deleted gracefully (pods), and the default propagation policy
  // ("Background" for most, kube's DefaultGarbageCollectionPolicy).
  virtual bool CheckGracefulDelete(const Object& obj, DeleteOptions& opts) const { return false; }
  virtual std::string DefaultGarbageCollectionPolicy() const { return "Background"; }

  // Server-side printing: the Table columns and one object's cells (default: Name, Created At).
  virtual std::vector<TableColumn> TableColumns() const;
  virtual boost::json::array TableCells(const Object& obj) const;

  // Field selectors, as kube's field label conversion of the kind: the fields this resource can be
  // selected by (default: metadata.name and metadata.namespace, whatever the scope, as kube's default
  // conversion), the message refusing any other (default: the default conversion's text; a kind with
  // its own conversion function says "field label not supported: <field>" or its own words), and the
  // fields' values for `obj`.
  virtual std::vector<std::string> SelectableFieldNames() const;
  virtual std::string UnsupportedFieldLabelMessage(std::string_view field) const;
  virtual apimachinery::FieldSet SelectableFields(const Object& obj) const;
};

// The strategy of most resources: kube's defaults plus, when the resource has a status subresource,
// the spec/status split (status is reset on create and kept on update of the main resource, and
// metadata.generation starts at 1 and grows when anything but metadata and status changes).
class DefaultStrategy : public Strategy {
 public:
  struct Options {
    bool namespaced = true;
    bool has_status = false;        // spec/status split
    bool track_generation = false;  // metadata.generation bumps on spec changes
    bool allow_create_on_update = false;
    apimachinery::NameValidator name_validator = apimachinery::NameIsDNSSubdomain;
  };
  explicit DefaultStrategy(Options o) : o_(std::move(o)) {}

  bool NamespaceScoped() const override { return o_.namespaced; }
  bool AllowCreateOnUpdate() const override { return o_.allow_create_on_update; }
  apimachinery::NameValidator NameValidator() const override { return o_.name_validator; }
  void PrepareForCreate(const Context& ctx, Object& obj) const override;
  void PrepareForUpdate(const Context& ctx, Object& obj, const Object& old) const override;

 protected:
  Options o_;
};

// The status subresource's strategy: only status changes (and metadata labels/annotations as kube
// allows) are kept; spec is reset to the stored one.
class StatusStrategy : public Strategy {
 public:
  explicit StatusStrategy(std::shared_ptr<const Strategy> main) : main_(std::move(main)) {}
  bool NamespaceScoped() const override { return main_->NamespaceScoped(); }
  apimachinery::NameValidator NameValidator() const override { return main_->NameValidator(); }
  void PrepareForUpdate(const Context& ctx, Object& obj, const Object& old) const override;
  ErrorList ValidateUpdate(const Context& ctx, const Object& obj, const Object& old) const override;
  bool ShouldDeleteDuringUpdate(const Object& obj) const override { return main_->ShouldDeleteDuringUpdate(obj); }

 private:
  std::shared_ptr<const Strategy> main_;
};

// True when anything but metadata and status differs (the "spec" of kube's generation rule).
bool SpecChanged(const Object& a, const Object& b);

}  // namespace capstan::registry
