// api/apiextensions/custom_resource.h: the REST storage of one CRD's custom resources (kube's
// customresource.NewStorage): per served version a Store whose strategy prunes unknown fields,
// applies the schema's defaults and validates against the version's structural schema (422 with
// kube's per-field causes), keeps the spec/status split and metadata.generation when the status
// subresource is on, prints the additionalPrinterColumns, and selects by selectableFields; plus the
// status and scale subresources the version declares.
//
// Objects live under <prefix>/<group>/<plural>/[<ns>/]<name> in the storage version; other versions
// are served through a ConvertingStore whose CustomResourceConverter (custom_resource_conversion.h)
// converts by the CRD's strategy (None rewrites apiVersion; Webhook posts ConversionReviews to the
// CRD's conversion webhook) and prunes and defaults on read. When any version's schema declares
// defaults, the storage version is served through one too, so objects stored before a default was
// added read defaulted. Objects are validated in the storage version (after conversion). Built once
// per CRD generation; immutable and thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "api/apiextensions/conversion_webhook.h"
#include "api/apiextensions/crd_types.h"
#include "apimachinery/schema.h"
#include "apimachinery/schema_registry.h"
#include "registry/rest_resource.h"

namespace capstan::api::apiextensions {

// The definition name kube publishes a custom resource kind under: the reversed group, the version
// and the kind ("com.example.stable.v1.CronTab").
std::string DefinitionName(const std::string& group, const std::string& version, const std::string& kind);

// What serving one CRD needs beyond the CRD itself.
struct CustomResourceDeps {
  registry::GroupDeps deps;  // store / store_for, admission, clock, prefix
  std::shared_ptr<const apimachinery::SchemaRegistry> builtin;  // ObjectMeta for the published schema
  ConversionWebhookDeps webhook;  // conversion strategy Webhook
};

struct ServedCustomResource {
  std::vector<registry::RestResource> resources;  // every served version, with subresources
  // Set while the CRD is terminating: creates answer 405 "create not allowed while custom resource
  // definition is terminating", as kube's.
  std::shared_ptr<std::atomic<bool>> terminating;
  std::vector<std::shared_ptr<const apimachinery::Schema>> schemas;  // owned schema trees
};

// Builds the storages of every served version of `crd` (validated, so its schemas parse).
StatusOr<ServedCustomResource> BuildCustomResource(const CustomResourceDeps& deps, const Object& crd);

}  // namespace capstan::api::apiextensions
