// server/http/responses.h: helpers that answer a request with JSON, text or a metav1.Status.
// Thread-compatible; call from the request's coroutine.
#pragma once

#include <string>

#include "apimachinery/status.h"
#include "server/http/request_context.h"

namespace capstan::http {

// The metav1.Status JSON for a failed Status, with the HTTP code it carries.
HttpResponse StatusResponse(const Status& st);
// A 200 (or `code`) response with a JSON body.
HttpResponse JsonResponse(std::string body, int code = 200);
HttpResponse TextResponse(std::string body, int code = 200);

Task<void> RespondStatus(RequestContext& ctx, const Status& st);
Task<void> RespondJson(RequestContext& ctx, std::string body, int code = 200);
Task<void> RespondText(RequestContext& ctx, std::string body, int code = 200);

// The JSON text of a metav1.Status for `st`: apimachinery's StatusToJson, serialized as Go does.
std::string StatusJson(const Status& st);

}  // namespace capstan::http
