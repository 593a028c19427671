// api/apiextensions/crd_resource.h: the customresourcedefinitions resource (apiextensions.k8s.io/v1,
// cluster-scoped, short names crd/crds) and its status subresource, as kube's
// customresourcedefinition REST: kube's defaults (singular, listKind, conversion None,
// status.storedVersions), validation (crd_validation.h), status kept on spec updates and spec on status
// updates, metadata.generation on spec changes, and a delete that first adds the
// customresourcecleanup finalizer so the CRD controller (crd_controller.h) can remove the custom
// resources before the CRD goes. x-kubernetes-validations rules are checked and compiled with the
// CRD's validation (cel/crd_rules.h) and enforced on its custom resources.
// Thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "api/apiextensions/crd_signal.h"

#include "registry/rest_resource.h"

namespace capstan::api::apiextensions {

// `signal` (optional) is notified after every successful write of a CRD.
std::vector<registry::RestResource> Install(const registry::GroupDeps& deps,
                                            std::shared_ptr<CrdChangeSignal> signal = nullptr);

}  // namespace capstan::api::apiextensions
