// api/apiextensions/crd_v1beta1.h: CustomResourceDefinitions between apiextensions.k8s.io/v1 (what
// Capstan serves) and v1beta1 (what kube-apiserver 1.32 stores: its apiextensions server writes CRDs
// with a LegacyCodec whose encode version is v1beta1, as JSON).
//
// The conversions are kube's, through the internal type, on JSON documents:
//   v1 -> v1beta1: spec.version = the first version's name; a schema, subresources, printer columns or
//     selectable fields identical in every version move to spec.validation / subresources /
//     additionalPrinterColumns / selectableFields and leave the versions; columns' jsonPath is
//     JSONPath; conversion.webhook{clientConfig, conversionReviewVersions} becomes
//     conversion.webhookClientConfig and conversion.conversionReviewVersions; preserveUnknownFields is
//     always written (false when v1 leaves it out).
//   v1beta1 -> v1: the reverse (top-level fields copied into every version, spec.version dropped, a
//     CRD with only spec.version gets one served storage version), with v1beta1's defaults first
//     (preserveUnknownFields true when unset, as kube's decoder defaults a stored object).
// Other apiVersions pass through. Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>

#include "apimachinery/status.h"

namespace capstan::api::apiextensions {

StatusOr<boost::json::object> CrdV1ToV1beta1(boost::json::object crd);
StatusOr<boost::json::object> CrdV1beta1ToV1(boost::json::object crd);

}  // namespace capstan::api::apiextensions
