// api/rbac/install.cpp: the rbac.authorization.k8s.io/v1 resources, their strategies and printers,
// and the escalation guard in front of admission.
#include "api/common.h"
#include "api/rbac/rbac.h"
#include "apimachinery/object_meta.h"
#include "util/strings.h"

namespace capstan::api::rbac {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

class RoleStrategy : public registry::DefaultStrategy {
 public:
  explicit RoleStrategy(bool namespaced) : DefaultStrategy(MakeOptions(namespaced)), namespaced_(namespaced) {}

  ErrorList Validate(const registry::Context&, const Object& role) const override {
    ErrorList errs = ValidateRoleRules(role, namespaced_);
    if (!namespaced_) {
      for (auto& e : ValidateAggregationRule(role)) errs.push_back(std::move(e));
    }
    return errs;
  }
  ErrorList ValidateUpdate(const registry::Context& ctx, const Object& role, const Object&) const override {
    return Validate(ctx, role);
  }

 private:
  static Options MakeOptions(bool namespaced) {
    Options o;
    o.namespaced = namespaced;
    o.allow_create_on_update = true;  // kube's role strategies allow create on update
    o.name_validator = am::ValidatePathSegmentName;
    return o;
  }
  bool namespaced_;
};

std::string SubjectList(const Object& b, std::string_view kind) {
  std::vector<std::string> out;
  if (const auto* subjects = ArrayAt(b, "subjects")) {
    for (const auto& s : *subjects) {
      if (!s.is_object() || StringAt(s.get_object(), "kind") != kind) continue;
      if (kind == "ServiceAccount") {
        out.push_back(StringAt(s.get_object(), "namespace") + "/" + StringAt(s.get_object(), "name"));
      } else {
        out.push_back(StringAt(s.get_object(), "name"));
      }
    }
  }
  return Join(out, ", ");
}

class BindingStrategy : public registry::DefaultStrategy {
 public:
  explicit BindingStrategy(bool namespaced) : DefaultStrategy(MakeOptions(namespaced)), namespaced_(namespaced) {}

  void PrepareForCreate(const registry::Context& ctx, Object& obj) const override {
    DefaultStrategy::PrepareForCreate(ctx, obj);
    DefaultBinding(obj);
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& obj, const Object& old) const override {
    DefaultStrategy::PrepareForUpdate(ctx, obj, old);
    DefaultBinding(obj);
  }
  ErrorList Validate(const registry::Context&, const Object& b) const override { return ValidateBinding(b, namespaced_); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& b, const Object& old) const override {
    ErrorList errs = ValidateBinding(b, namespaced_);
    const json::value* ref = b.if_contains("roleRef");
    const json::value* old_ref = old.if_contains("roleRef");
    json::value nv = ref ? *ref : json::value(nullptr);
    json::value ov = old_ref ? *old_ref : json::value(nullptr);
    if (nv != ov) {
      // kube prints the internal RoleRef struct with %#v.
      static const json::object kEmpty;
      const json::object& r = nv.is_object() ? nv.get_object() : kEmpty;
      FieldError e = InvalidError(FieldPath("roleRef"), "", "cannot change roleRef");
      e.omit_value = true;
      e.detail = "rbac.RoleRef{APIGroup:" + GoQuote(StringAt(r, "apiGroup")) + ", Kind:" + GoQuote(StringAt(r, "kind")) +
                 ", Name:" + GoQuote(StringAt(r, "name")) + "}: cannot change roleRef";
      errs.push_back(std::move(e));
    }
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    const std::string what = namespaced_ ? "roleBinding" : "clusterRoleBinding";
    return {registry::NameColumn(),
            {"Role", "string", "",
             std::string(namespaced_ ? "RoleRef can reference a Role in the current namespace or a ClusterRole in the "
                                       "global namespace."
                                     : "RoleRef can only reference a ClusterRole in the global namespace.") +
                 " If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.",
             0},
            registry::AgeColumn(),
            {"Users", "string", "", "Users in the " + what, 1},
            {"Groups", "string", "", "Groups in the " + what, 1},
            {"ServiceAccounts", "string", "", "ServiceAccounts in the " + what, 1}};
  }
  json::array TableCells(const Object& b) const override {
    std::string role;
    if (const auto* ref = ObjectAt(b, "roleRef")) role = StringAt(*ref, "kind") + "/" + StringAt(*ref, "name");
    return {json::value(am::GetName(b)), json::value(role),          AgeCell(b),
            json::value(SubjectList(b, "User")), json::value(SubjectList(b, "Group")),
            json::value(SubjectList(b, "ServiceAccount"))};
  }

 private:
  static Options MakeOptions(bool namespaced) {
    Options o;
    o.namespaced = namespaced;
    o.allow_create_on_update = true;
    o.name_validator = am::ValidatePathSegmentName;
    return o;
  }
  bool namespaced_;
};

// Runs the escalation guard on creates and updates of the group's resources, then the server's
// admission chain.
class GuardedAdmission : public registry::AdmissionHook {
 public:
  GuardedAdmission(registry::AdmissionHook* inner, EscalationGuard guard) : inner_(inner), guard_(std::move(guard)) {}
  Task<Status> Admit(registry::AdmissionAttributes& attrs) override {
    if (guard_ && attrs.subresource.empty() && (attrs.operation == "CREATE" || attrs.operation == "UPDATE")) {
      Status st = co_await guard_(attrs);
      if (!st.ok()) co_return st;
    }
    if (!inner_) co_return Status();
    co_return co_await inner_->Admit(attrs);
  }
  Task<Status> Validate(const registry::AdmissionAttributes& attrs) override {
    if (!inner_) co_return Status();
    co_return co_await inner_->Validate(attrs);
  }

 private:
  registry::AdmissionHook* inner_;
  EscalationGuard guard_;
};

}  // namespace

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps, RbacApiOptions opts) {
  // The hook lives as long as the process's API (the storages keep a raw pointer to it).
  static std::vector<std::unique_ptr<GuardedAdmission>> hooks;
  hooks.push_back(std::make_unique<GuardedAdmission>(deps.admission, std::move(opts.guard)));
  registry::GroupDeps d = deps;
  d.admission = hooks.back().get();

  std::vector<registry::RestResource> all;
  auto add = [&](InfoArgs args, std::shared_ptr<const registry::Strategy> strategy) {
    registry::ResourceSpec spec;
    spec.info = MakeInfo(std::move(args));
    spec.strategy = std::move(strategy);
    for (auto& r : registry::MakeResource(d, std::move(spec))) all.push_back(std::move(r));
  };
  const std::string g = "rbac.authorization.k8s.io";
  add({g, "v1", "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", false, {}, {},
       "io.k8s.api.rbac.v1.ClusterRoleBinding"},
      std::make_shared<BindingStrategy>(false));
  add({g, "v1", "clusterroles", "clusterrole", "ClusterRole", false, {}, {}, "io.k8s.api.rbac.v1.ClusterRole"},
      std::make_shared<RoleStrategy>(false));
  add({g, "v1", "rolebindings", "rolebinding", "RoleBinding", true, {}, {}, "io.k8s.api.rbac.v1.RoleBinding"},
      std::make_shared<BindingStrategy>(true));
  add({g, "v1", "roles", "role", "Role", true, {}, {}, "io.k8s.api.rbac.v1.Role"}, std::make_shared<RoleStrategy>(true));
  return all;
}

}  // namespace capstan::api::rbac
