// admission/cluster_trust_bundle_attest.h: ClusterTrustBundleAttest, as kube-apiserver 1.32's
// (plugin/pkg/admission/certificates/ctbattest): with the ClusterTrustBundle feature gate on, creating
// or updating a clustertrustbundles.certificates.k8s.io object whose spec.signerName is set needs the
// verb "attest" on signers named after it (or "<domain>/*"); otherwise 403 "user not permitted to
// attest for signerName \"<name>\"". An update that changes only ownerReferences, finalizers, selfLink
// or managedFields is not checked (storage migration, garbage collection). With the gate off (kube's
// default) it admits everything. Stateless; thread-safe.
#pragma once

#include "admission/authorize.h"
#include "admission/plugin.h"

namespace capstan::admission {

class ClusterTrustBundleAttest : public Plugin {
 public:
  // `enabled`: the ClusterTrustBundle feature gate.
  ClusterTrustBundleAttest(AuthorizeFunc authorize, bool enabled) : authorize_(std::move(authorize)), enabled_(enabled) {}
  std::string Name() const override { return "ClusterTrustBundleAttest"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE"; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;

 private:
  AuthorizeFunc authorize_;
  bool enabled_;
};

// kube's rbac.IsOnlyMutatingGCFields: `obj` equals `old` once its ownerReferences, finalizers,
// selfLink and managedFields are taken from `old`.
bool IsOnlyMutatingGcFields(const registry::Object& obj, const registry::Object* old);

}  // namespace capstan::admission
