// apimachinery/errors.h: the Status errors kube-apiserver answers with, as k8s.io/apimachinery's
// api/errors constructors build them: the same HTTP code, reason, message and details.
//
//   NewNotFound({"", "configmaps"}, "x")   404 NotFound   configmaps "x" not found
//   NewConflict(gr, "x", kOptimisticLockErrorMsg)  409 Conflict
//     Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply
//     your changes to the latest version and try again
//   NewInvalid({"", "ConfigMap"}, "x", errs)  422 Invalid, one details.cause per field error
//
// Details follow kube's choice per constructor: most carry {name, group, kind}, where kind is the
// resource (kube's own quirk), NewInvalid the kind; some carry none (NewBadRequest). Status JSON
// encoding is in status_json.h. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/field_errors.h"
#include "apimachinery/gvk.h"
#include "apimachinery/status.h"

namespace capstan::apimachinery {

// The registry's message for a stale resourceVersion (kube's OptimisticLockErrorMsg).
inline constexpr std::string_view kOptimisticLockErrorMsg =
    "the object has been modified; please apply your changes to the latest version and try again";
// The plain-text body of the max-in-flight filter's 429 (kube answers it with http.Error).
inline constexpr std::string_view kTooManyRequestsBody = "Too many requests, please try again later.";

Status NewNotFound(const GroupResource& gr, std::string_view name);
Status NewAlreadyExists(const GroupResource& gr, std::string_view name);
Status NewGenerateNameConflict(const GroupResource& gr, std::string_view name, int retry_after_seconds);
Status NewConflict(const GroupResource& gr, std::string_view name, std::string_view err);
// NewConflict with kOptimisticLockErrorMsg.
Status NewOptimisticLockConflict(const GroupResource& gr, std::string_view name);
Status NewApplyConflict(std::vector<StatusCause> causes, std::string message);
Status NewInvalid(const GroupKind& gk, std::string_view name, const ErrorList& errs);
Status NewBadRequest(std::string reason);
// "forbidden: <err>" without a resource, "configmaps is forbidden: <err>" without a name,
// "configmaps \"x\" is forbidden: <err>" with both.
Status NewForbidden(const GroupResource& gr, std::string_view name, std::string_view err);
Status NewUnauthorized(std::string reason);  // empty: "not authorized"
Status NewMethodNotSupported(const GroupResource& gr, std::string_view action);
Status NewInternalError(std::string_view err);
Status NewServerTimeout(const GroupResource& gr, std::string_view operation, int retry_after_seconds);
Status NewTimeoutError(std::string_view message, int retry_after_seconds);
Status NewTooManyRequests(std::string message, int retry_after_seconds);
// The 429 for in-flight and priority limits: "Too many requests: <message>".
Status NewTooManyRequestsError(std::string_view message);
// 410 Expired: the requested resourceVersion (or continue token) is too old.
Status NewResourceExpired(std::string message);
// 410 Gone (kube's older form, still used for some watch errors).
Status NewGone(std::string message);
Status NewServiceUnavailable(std::string reason);
// kube's NewGenericServerResponse (verb empty, not an unexpected response): the Status for an HTTP
// status another server answered with, its text kept where kube keeps it (403, 406, 415, >= 500).
Status NewGenericServerResponse(int code, const GroupResource& gr, std::string_view name, std::string_view server_message);
Status NewRequestEntityTooLargeError(std::string_view message);  // "Request entity too large: <message>"
// 415: "the body of the request was in an unknown format - accepted media types include: a, b".
Status NewUnsupportedMediaType(const std::vector<std::string>& accepted);
// 406: "only the following media types are accepted: a, b".
Status NewNotAcceptable(const std::vector<std::string>& accepted);
// 406: "only the following media types are accepted when converting to Table: a, b".
Status NewNotAcceptableConversion(std::string_view target, const std::vector<std::string>& accepted);

// kube's transformDecodeError: a 400 for a body that could not be decoded into target_kind.
// With the body's own kind known: `Foo in version "v1" cannot be handled as a ConfigMap: <err>`;
// otherwise `the object provided is unrecognized (must be of type ConfigMap): <err> (<summary>)`,
// the summary being the first 30 bytes of a '{' body (" ..." when cut) or their hex otherwise.
Status NewDecodeError(std::string_view target_kind, const GroupVersionKind* body_gvk, std::string_view err,
                      std::string_view body);

// kube's IsNotFound & co: the reason matches, or an unknown reason comes with the matching code.
bool IsNotFound(const Status& s);
bool IsAlreadyExists(const Status& s);
bool IsConflict(const Status& s);
bool IsInvalid(const Status& s);
bool IsGone(const Status& s);
bool IsResourceExpired(const Status& s);
bool IsBadRequest(const Status& s);
bool IsForbidden(const Status& s);
bool IsUnauthorized(const Status& s);
bool IsTooManyRequests(const Status& s);
bool IsServiceUnavailable(const Status& s);
bool IsInternalError(const Status& s);
bool IsTimeout(const Status& s);
bool IsServerTimeout(const Status& s);
bool IsMethodNotSupported(const Status& s);

}  // namespace capstan::apimachinery
