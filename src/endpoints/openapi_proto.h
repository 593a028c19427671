// endpoints/openapi_proto.h: the protobuf form of the Swagger 2.0 document, as kube-apiserver
// serves it for Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf (the form
// client-go's discovery client asks for): gnostic's openapi.v2.Document message
// (github.com/google/gnostic-models, openapiv2/OpenAPIv2.proto), proto3 encoding.
//
// The message is written from the JSON document the way gnostic's compiler reads JSON into it:
// each vendor extension ("x-...") becomes a NamedAny whose Any.yaml holds the value's text (JSON
// is valid YAML, and that is how readers decode it); a parameter that is a "$ref" becomes a
// JsonReference; body and non-body parameters their oneof branches; a schema's "type" a TypeItem,
// "items" an ItemsItem, "additionalProperties" a schema or a boolean. Keys the Swagger 2.0 schema
// has no field for are left out.
//
// The OpenAPI v3 protobuf form is not produced (kube serves it; kubectl and client-go ask for JSON).
//
// Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <string>

namespace capstan::endpoints {

// Whether /openapi/v2 offers the protobuf form.
bool OpenApiV2ProtobufSupported();

// The openapi.v2.Document bytes of a Swagger 2.0 JSON document.
std::string SwaggerToProtobuf(const boost::json::object& swagger);

}  // namespace capstan::endpoints
