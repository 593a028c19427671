// api/apps/workload_util.h: what the workload kinds (apps, batch, autoscaling, policy) share: kube's
// validators for selectors against pod templates, int-or-percent fields and immutable fields, with
// kube's messages (bad values rendered as Go's %#v renders kube's Go types, e.g.
// `map[string]string{"app":"web"}`), the printer helpers (kube's FormatLabelSelector, container
// cells), and the status subresource strategy of these kinds (spec kept from the stored object,
// status validated by the kind).
// Pure functions and immutable strategies; thread-safe.
#pragma once

#include <boost/json.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "apimachinery/field_errors.h"
#include "registry/rest.h"
#include "registry/strategy.h"

namespace capstan::api::apps {

using registry::Object;

// Go's %#v of the JSON forms of kube types, as kube's field errors print them.
std::string GoStringMap(const boost::json::value* v);       // map[string]string{"a":"b"} / (nil)
std::string GoLabelSelector(const boost::json::value* v);   // v1.LabelSelector{MatchLabels:..., ...}
std::string GoIntOrString(const boost::json::value& v);     // intstr.IntOrString{Type:1, IntVal:0, StrVal:"x"}

// An Invalid error whose value is already rendered (kube's %#v of a Go value).
FieldError InvalidRendered(const FieldPath& p, std::string rendered, std::string_view detail);

// The labels of a template (spec.template.metadata.labels), null when absent.
const boost::json::value* TemplateLabels(const Object& spec);

// kube's apps selector rules for a spec with `selector` and `template` (Deployment, ReplicaSet,
// StatefulSet): required, valid, not empty ("empty selector is invalid for <what>"), and matching the
// template labels. `invalid_detail` is what kube says when the selector does not parse; `parsed`
// (optional) tells whether it did (kube validates the template only then).
ErrorList ValidateSelectorAndTemplate(const Object& spec, const FieldPath& path, std::string_view what,
                                      std::string_view invalid_detail, bool* parsed = nullptr);

// kube's ValidatePositiveIntOrPercent and IsNotMoreThan100Percent, and the value it compares
// (a percentage's number, or the integer).
ErrorList ValidatePositiveIntOrPercent(const boost::json::value& v, const FieldPath& p);
ErrorList IsNotMoreThan100Percent(const boost::json::value& v, const FieldPath& p);
int64_t IntOrPercentValue(const boost::json::value* v);

// kube's ValidateImmutableField for a label selector (the most common immutable workload field).
ErrorList ValidateImmutableSelector(const Object& spec, const Object& old_spec, const FieldPath& p);

// kube's ValidateNonnegativeField on an optional integer field of `o`.
void CheckNonnegative(const Object& o, std::string_view key, const FieldPath& p, ErrorList& errs);

// The integer at o[key], nullopt when absent or not an integer.
std::optional<int64_t> OptInt(const Object* o, std::string_view key);
// A mutable child object, created when absent (or of another type).
boost::json::object& ChildObject(boost::json::object& o, std::string_view key);

// kube's metav1.FormatLabelSelector ("<none>" for empty, "<error>" when it does not parse) and the
// plain selector string (Deployment's wide column, Scale's status.selector).
std::string FormatLabelSelector(const boost::json::value* selector);
std::string SelectorString(const boost::json::value* selector);
// kube's layoutContainerCells: container names and images, comma separated.
std::pair<std::string, std::string> ContainerCells(const Object& pod_spec);
// The pod spec of a template holder (spec.template.spec), an empty object when absent.
const Object& TemplatePodSpec(const Object& spec);

// The status subresource of the workload kinds: everything but status (and the labels when
// `keep_labels`) comes from the stored object; the kind validates the new status.
class WorkloadStatusStrategy : public registry::Strategy {
 public:
  using StatusValidator = std::function<ErrorList(const Object& obj, const Object& old)>;
  WorkloadStatusStrategy(std::shared_ptr<const registry::Strategy> main, bool keep_labels, StatusValidator validate)
      : main_(std::move(main)), keep_labels_(keep_labels), validate_(std::move(validate)) {}
  bool NamespaceScoped() const override { return main_->NamespaceScoped(); }
  apimachinery::NameValidator NameValidator() const override { return main_->NameValidator(); }
  void PrepareForUpdate(const registry::Context& ctx, Object& obj, const Object& old) const override;
  ErrorList ValidateUpdate(const registry::Context& ctx, const Object& obj, const Object& old) const override;
  bool ShouldDeleteDuringUpdate(const Object& obj) const override { return main_->ShouldDeleteDuringUpdate(obj); }
  std::vector<registry::TableColumn> TableColumns() const override { return main_->TableColumns(); }
  boost::json::array TableCells(const Object& obj) const override { return main_->TableCells(obj); }

 private:
  std::shared_ptr<const registry::Strategy> main_;
  bool keep_labels_;
  StatusValidator validate_;
};

}  // namespace capstan::api::apps
