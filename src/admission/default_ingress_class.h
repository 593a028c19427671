// admission/default_ingress_class.h: DefaultIngressClass: an Ingress created without
// spec.ingressClassName and without the kubernetes.io/ingress.class annotation gets the default
// IngressClass (annotated ingressclass.kubernetes.io/is-default-class "true"; the newest when several
// are, as kube 1.28+). No default: left alone. Thread-safe.
#pragma once

#include "admission/builtin_plugins.h"

namespace capstan::admission {

class DefaultIngressClass : public Plugin {
 public:
  explicit DefaultIngressClass(ObjectLister list) : list_(std::move(list)) {}
  std::string Name() const override { return "DefaultIngressClass"; }
  bool Handles(const std::string& op) const override { return op == "CREATE"; }
  bool Mutating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;

 private:
  ObjectLister list_;
};

}  // namespace capstan::admission
