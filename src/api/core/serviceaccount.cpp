// api/core/serviceaccount.cpp: ServiceAccounts.
#include "api/common.h"
#include "api/core/core.h"
#include "apimachinery/object_meta.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

namespace {

class ServiceAccountStrategy : public registry::DefaultStrategy {
 public:
  ServiceAccountStrategy() : DefaultStrategy(Options{}) {}
  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Secrets", "string", "", "Secrets is a list of the secrets in the same namespace that pods running using "
                                      "this ServiceAccount are allowed to use.", 0},
            registry::AgeColumn()};
  }
  boost::json::array TableCells(const Object& sa) const override {
    return {boost::json::value(am::GetName(sa)), CountAt(sa, "secrets"), AgeCell(sa)};
  }
};

}  // namespace

std::vector<registry::RestResource> ServiceAccounts(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true, {"sa"}, {},
                        "io.k8s.api.core.v1.ServiceAccount"});
  spec.strategy = std::make_shared<ServiceAccountStrategy>();
  return registry::MakeResource(deps, std::move(spec));
}

}  // namespace capstan::api::core
