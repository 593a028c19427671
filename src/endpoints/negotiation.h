// endpoints/negotiation.h: content negotiation as kube-apiserver does it: the response format from
// Accept (JSON, YAML, protobuf; as=Table or as=PartialObjectMetadata[List] conversions), the request
// body format from Content-Type. Pure functions.
#pragma once

#include <string>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::endpoints {

enum class MediaFormat { kJson, kYaml, kProtobuf };
enum class Conversion { kNone, kTable, kPartialObjectMetadata, kPartialObjectMetadataList };

struct OutputFormat {
  MediaFormat format = MediaFormat::kJson;
  Conversion conversion = Conversion::kNone;
  std::string conversion_version = "v1";  // meta.k8s.io version of the conversion target
  bool pretty = false;

  std::string ContentType() const;
  std::string WatchContentType() const;  // for ?watch streams
};

// The response format for an Accept header. protobuf: the resource has a protobuf encoding.
// 406 NotAcceptable when nothing acceptable is offered.
StatusOr<OutputFormat> NegotiateOutput(std::string_view accept, bool protobuf);

enum class BodyFormat {
  kJson,
  kYaml,
  kProtobuf,
  kJsonPatch,
  kMergePatch,
  kStrategicMergePatch,
  kApplyPatchYaml,
};

// The body format for a create/update (patch=false) or a patch (patch=true); 415 otherwise.
StatusOr<BodyFormat> NegotiateBody(std::string_view content_type, bool protobuf, bool patch);

// The bare media type ("application/json") of a Content-Type/Accept element, lowercased.
std::string MediaTypeOf(std::string_view v);

}  // namespace capstan::endpoints
