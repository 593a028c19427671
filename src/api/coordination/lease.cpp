// api/coordination/lease.cpp: coordination.k8s.io/v1 Leases (leader election, node heartbeats).
#include "api/common.h"
#include "api/coordination/coordination.h"
#include "apimachinery/object_meta.h"

namespace capstan::api::coordination {

namespace am = capstan::apimachinery;

namespace {

class LeaseStrategy : public registry::DefaultStrategy {
 public:
  LeaseStrategy() : DefaultStrategy(Options{}) {}

  ErrorList Validate(const registry::Context&, const Object& l) const override {
    ErrorList errs;
    const auto* spec = ObjectAt(l, "spec");
    if (!spec) return errs;
    FieldPath p("spec");
    if (const auto* d = spec->if_contains("leaseDurationSeconds"); d && d->is_int64() && d->get_int64() <= 0) {
      errs.push_back(InvalidError(p.Child("leaseDurationSeconds"), d->get_int64(), "must be greater than 0"));
    }
    if (const auto* t = spec->if_contains("leaseTransitions"); t && t->is_int64() && t->get_int64() < 0) {
      errs.push_back(InvalidError(p.Child("leaseTransitions"), t->get_int64(), "must be greater than or equal to 0"));
    }
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Holder", "string", "", "HolderIdentity contains the identity of the holder of a current lease.", 0},
            registry::AgeColumn()};
  }
  boost::json::array TableCells(const Object& l) const override {
    std::string holder;
    if (const auto* h = PathAt(l, {"spec", "holderIdentity"}); h && h->is_string()) holder = std::string(h->get_string());
    return {boost::json::value(am::GetName(l)), boost::json::value(holder), AgeCell(l)};
  }
};

}  // namespace

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"coordination.k8s.io", "v1", "leases", "lease", "Lease", true, {}, {},
                        "io.k8s.api.coordination.v1.Lease"});
  spec.strategy = std::make_shared<LeaseStrategy>();
  return registry::MakeResource(deps, std::move(spec));
}

}  // namespace capstan::api::coordination
