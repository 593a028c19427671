#include "apimachinery/errors.h"

#include <set>

#include "util/strings.h"

namespace capstan::apimachinery {
namespace {

Status WithResourceDetails(Status s, const GroupResource& gr, std::string_view name) {
  StatusDetails d;
  d.group = gr.group;
  d.kind = gr.resource;  // kube puts the resource in details.kind
  d.name = std::string(name);
  s.WithDetails(std::move(d));
  return s;
}

std::string JoinAccepted(const std::vector<std::string>& accepted) { return Join(accepted, ", "); }

// The reasons kube's knownReasons lists; an error with another reason is judged by its code.
bool KnownReason(std::string_view r) {
  static const std::set<std::string_view> kKnown = {
      "Unauthorized", "Forbidden", "NotFound", "AlreadyExists", "Conflict", "Gone", "Invalid",
      "ServerTimeout", "StoreReadError", "Timeout", "TooManyRequests", "BadRequest", "MethodNotAllowed",
      "NotAcceptable", "RequestEntityTooLarge", "UnsupportedMediaType", "InternalError", "Expired",
      "ServiceUnavailable"};
  return kKnown.count(r) > 0;
}

bool ReasonOrCode(const Status& s, std::string_view reason, int code) {
  if (s.ok()) return false;
  if (s.reason() == reason) return true;
  return !KnownReason(s.reason()) && s.code() == code;
}

constexpr char kHex[] = "0123456789abcdef";

std::string SummarizeData(std::string_view data, size_t max_length) {
  if (data.empty()) return "<empty>";
  if (data[0] == '{') {
    if (data.size() > max_length) return std::string(data.substr(0, max_length)) + " ...";
    return std::string(data);
  }
  std::string out;
  size_t n = std::min(data.size(), max_length);
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(data[i]);
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xf]);
  }
  if (data.size() > max_length) out += " ...";
  return out;
}

}  // namespace

Status NewNotFound(const GroupResource& gr, std::string_view name) {
  return WithResourceDetails(Status(404, "NotFound", gr.String() + " " + GoQuote(name) + " not found"), gr, name);
}

Status NewAlreadyExists(const GroupResource& gr, std::string_view name) {
  return WithResourceDetails(Status(409, "AlreadyExists", gr.String() + " " + GoQuote(name) + " already exists"),
                             gr, name);
}

Status NewGenerateNameConflict(const GroupResource& gr, std::string_view name, int retry_after_seconds) {
  Status s = WithResourceDetails(
      Status(409, "AlreadyExists",
             gr.String() + " " + GoQuote(name) +
                 " already exists, the server was not able to generate a unique name for the object"),
      gr, name);
  s.mutable_details().retry_after_seconds = retry_after_seconds;
  return s;
}

Status NewConflict(const GroupResource& gr, std::string_view name, std::string_view err) {
  return WithResourceDetails(
      Status(409, "Conflict",
             "Operation cannot be fulfilled on " + gr.String() + " " + GoQuote(name) + ": " + std::string(err)),
      gr, name);
}

Status NewOptimisticLockConflict(const GroupResource& gr, std::string_view name) {
  return NewConflict(gr, name, kOptimisticLockErrorMsg);
}

Status NewApplyConflict(std::vector<StatusCause> causes, std::string message) {
  Status s(409, "Conflict", std::move(message));
  s.mutable_details().causes = std::move(causes);
  return s;
}

Status NewInvalid(const GroupKind& gk, std::string_view name, const ErrorList& errs) {
  std::string msg = gk.String() + " " + GoQuote(name) + " is invalid";
  if (!errs.empty()) msg += ": " + AggregateMessage(errs);
  Status s(422, "Invalid", std::move(msg));
  StatusDetails d;
  d.group = gk.group;
  d.kind = gk.kind;
  d.name = std::string(name);
  for (const FieldError& e : errs) {
    d.causes.push_back(StatusCause{std::string(FieldErrorCauseType(e.type)), e.Body(), e.field});
  }
  s.WithDetails(std::move(d));
  return s;
}

Status NewBadRequest(std::string reason) { return Status(400, "BadRequest", std::move(reason)); }

Status NewForbidden(const GroupResource& gr, std::string_view name, std::string_view err) {
  std::string msg;
  if (gr.Empty()) {
    msg = "forbidden: " + std::string(err);
  } else if (name.empty()) {
    msg = gr.String() + " is forbidden: " + std::string(err);
  } else {
    msg = gr.String() + " " + GoQuote(name) + " is forbidden: " + std::string(err);
  }
  return WithResourceDetails(Status(403, "Forbidden", std::move(msg)), gr, name);
}

Status NewUnauthorized(std::string reason) {
  if (reason.empty()) reason = "not authorized";
  return Status(401, "Unauthorized", std::move(reason));
}

Status NewMethodNotSupported(const GroupResource& gr, std::string_view action) {
  return WithResourceDetails(
      Status(405, "MethodNotAllowed",
             std::string(action) + " is not supported on resources of kind " + GoQuote(gr.String())),
      gr, "");
}

Status NewInternalError(std::string_view err) {
  Status s(500, "InternalError", "Internal error occurred: " + std::string(err));
  s.mutable_details().causes.push_back(StatusCause{"", std::string(err), ""});
  return s;
}

Status NewGenericServerResponse(int code, const GroupResource& gr, std::string_view name, std::string_view server_message) {
  std::string reason = "Unknown";
  std::string message = "the server responded with the status code " + std::to_string(code) + " but did not return more information";
  switch (code) {
    case 409: reason = "Conflict"; message = "the server reported a conflict"; break;
    case 404: reason = "NotFound"; message = "the server could not find the requested resource"; break;
    case 400: reason = "BadRequest"; message = "the server rejected our request for an unknown reason"; break;
    case 401: reason = "Unauthorized"; message = "the server has asked for the client to provide credentials"; break;
    case 403: reason = "Forbidden"; message = std::string(server_message); break;
    case 406:
      reason = "NotAcceptable";
      message = server_message.empty() || server_message == "unknown"
                    ? "the server was unable to respond with a content type that the client supports"
                    : std::string(server_message);
      break;
    case 415: reason = "UnsupportedMediaType"; message = std::string(server_message); break;
    case 405: reason = "MethodNotAllowed"; message = "the server does not allow this method on the requested resource"; break;
    case 422: reason = "Invalid"; message = "the server rejected our request due to an error in our request"; break;
    case 503: reason = "ServiceUnavailable"; message = "the server is currently unable to handle the request"; break;
    case 504:
      reason = "Timeout";
      message = "the server was unable to return a response in the time allotted, but may still be processing the request";
      break;
    case 429:
      reason = "TooManyRequests";
      message = "the server has received too many requests and has asked us to try again later";
      break;
    default:
      if (code >= 500) {
        reason = "InternalError";
        message = "an error on the server (" + GoQuote(server_message) + ") has prevented the request from succeeding";
      }
  }
  // The verb is empty, so kube's "(<verb> <resource> <name>)" starts with a space after the parenthesis.
  if (!gr.Empty() && !name.empty()) {
    message += " ( " + gr.String() + " " + std::string(name) + ")";
  } else if (!gr.Empty()) {
    message += " ( " + gr.String() + ")";
  }
  StatusDetails d;
  d.group = gr.group;
  d.kind = gr.resource;
  d.name = std::string(name);
  Status s(code, reason == "Unknown" ? "" : reason, message);
  s.WithDetails(std::move(d));
  return s;
}

Status NewServerTimeout(const GroupResource& gr, std::string_view operation, int retry_after_seconds) {
  Status s = WithResourceDetails(Status(500, "ServerTimeout",
                                        "The " + std::string(operation) + " operation against " + gr.String() +
                                            " could not be completed at this time, please try again."),
                                 gr, operation);
  s.mutable_details().retry_after_seconds = retry_after_seconds;
  return s;
}

Status NewTimeoutError(std::string_view message, int retry_after_seconds) {
  Status s(504, "Timeout", "Timeout: " + std::string(message));
  s.mutable_details().retry_after_seconds = retry_after_seconds;
  return s;
}

Status NewTooManyRequests(std::string message, int retry_after_seconds) {
  Status s(429, "TooManyRequests", std::move(message));
  s.mutable_details().retry_after_seconds = retry_after_seconds;
  return s;
}

Status NewTooManyRequestsError(std::string_view message) {
  return Status(429, "TooManyRequests", "Too many requests: " + std::string(message));
}

Status NewResourceExpired(std::string message) { return Status(410, "Expired", std::move(message)); }

Status NewGone(std::string message) { return Status(410, "Gone", std::move(message)); }

Status NewServiceUnavailable(std::string reason) { return Status(503, "ServiceUnavailable", std::move(reason)); }

Status NewRequestEntityTooLargeError(std::string_view message) {
  return Status(413, "RequestEntityTooLarge", "Request entity too large: " + std::string(message));
}

Status NewUnsupportedMediaType(const std::vector<std::string>& accepted) {
  return Status(415, "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media types include: " +
                    JoinAccepted(accepted));
}

Status NewNotAcceptable(const std::vector<std::string>& accepted) {
  return Status(406, "NotAcceptable", "only the following media types are accepted: " + JoinAccepted(accepted));
}

Status NewNotAcceptableConversion(std::string_view target, const std::vector<std::string>& accepted) {
  return Status(406, "NotAcceptable",
                "only the following media types are accepted when converting to " + std::string(target) + ": " +
                    JoinAccepted(accepted));
}

Status NewDecodeError(std::string_view target_kind, const GroupVersionKind* body_gvk, std::string_view err,
                      std::string_view body) {
  if (body_gvk != nullptr && !body_gvk->kind.empty()) {
    return NewBadRequest(body_gvk->kind + " in version " + GoQuote(body_gvk->version) + " cannot be handled as a " +
                         std::string(target_kind) + ": " + std::string(err));
  }
  return NewBadRequest("the object provided is unrecognized (must be of type " + std::string(target_kind) +
                       "): " + std::string(err) + " (" + SummarizeData(body, 30) + ")");
}

bool IsNotFound(const Status& s) { return ReasonOrCode(s, "NotFound", 404); }
bool IsAlreadyExists(const Status& s) { return !s.ok() && s.reason() == "AlreadyExists"; }
bool IsConflict(const Status& s) { return ReasonOrCode(s, "Conflict", 409); }
bool IsInvalid(const Status& s) { return ReasonOrCode(s, "Invalid", 422); }
bool IsGone(const Status& s) { return ReasonOrCode(s, "Gone", 410); }
bool IsResourceExpired(const Status& s) { return !s.ok() && s.reason() == "Expired"; }
bool IsBadRequest(const Status& s) { return ReasonOrCode(s, "BadRequest", 400); }
bool IsForbidden(const Status& s) { return ReasonOrCode(s, "Forbidden", 403); }
bool IsUnauthorized(const Status& s) { return ReasonOrCode(s, "Unauthorized", 401); }
bool IsTooManyRequests(const Status& s) { return ReasonOrCode(s, "TooManyRequests", 429); }
bool IsServiceUnavailable(const Status& s) { return ReasonOrCode(s, "ServiceUnavailable", 503); }
bool IsInternalError(const Status& s) { return ReasonOrCode(s, "InternalError", 500); }
bool IsTimeout(const Status& s) { return ReasonOrCode(s, "Timeout", 504); }
bool IsServerTimeout(const Status& s) { return !s.ok() && s.reason() == "ServerTimeout"; }
bool IsMethodNotSupported(const Status& s) { return ReasonOrCode(s, "MethodNotAllowed", 405); }

}  // namespace capstan::apimachinery
