// admission/service_account.h: the ServiceAccount plugin for pods being created: the pod gets the
// "default" service account when it names none; the account must exist ("error looking up service
// account <ns>/<name>: serviceaccount \"<name>\" not found", 403; the default account is looked up
// for up to about 1.5s since the serviceaccounts controller creates it right after the namespace);
// unless automountServiceAccountToken says no (the pod's, else the account's), every container and
// init container mounts a projected "kube-api-access-<5 chars>" volume (a bound token expiring in
// 3607s, the kube-root-ca.crt CA and the namespace) read-only at
// /var/run/secrets/kubernetes.io/serviceaccount, unless it mounts something there already; a pod
// without imagePullSecrets gets the account's. Mirror pods are left alone. Thread-safe.
#pragma once

#include "admission/builtin_plugins.h"

namespace capstan::admission {

class ServiceAccountPlugin : public Plugin {
 public:
  explicit ServiceAccountPlugin(ObjectGetter get) : get_(std::move(get)) {}
  std::string Name() const override { return "ServiceAccount"; }
  bool Handles(const std::string& op) const override { return op == "CREATE"; }
  bool Mutating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;

 private:
  ObjectGetter get_;
};

}  // namespace capstan::admission
