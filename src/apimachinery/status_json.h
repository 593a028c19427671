// apimachinery/status_json.h: a Status as the metav1.Status JSON object kube-apiserver writes.
//
// Field order and omission follow Go's encoding of metav1.Status: kind, apiVersion, metadata (always
// present, "{}"), status, message, reason, details {name, group, kind, uid, causes [{reason, message,
// field}], retryAfterSeconds}, code; every empty string, zero number and empty list is omitted, and
// details appears exactly when the constructor set it (Status::has_details). For example:
//   {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"x\"
//    not found","reason":"NotFound","details":{"name":"x","kind":"configmaps"},"code":404}
// Serialize the object with json_write.h's ToJson for kube's bytes. Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <string>

#include "apimachinery/status.h"

namespace capstan::apimachinery {

// A failed Status as kube's ErrorToAPIStatus renders it (a failure without a code gets 500). An OK
// Status renders as a bare Success with code 200.
boost::json::object StatusToJson(const Status& s);
std::string StatusToJsonString(const Status& s);

// The Success status kube answers some deletes with: {"status":"Success","details":{...},"code":200}.
// details may be null; code 0 is omitted.
boost::json::object SuccessStatusToJson(const StatusDetails* details, int code);

// Reads a metav1.Status object (kind "Status", apiVersion "v1" or "meta.k8s.io/v1"): a Success
// gives Status::Ok(), a Failure the Status it describes; nullopt when v is not a Status.
std::optional<Status> StatusFromJson(const boost::json::value& v);

}  // namespace capstan::apimachinery
