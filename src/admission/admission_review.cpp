#include "admission/admission_review.h"

#include <boost/json.hpp>

#include "apimachinery/json_parse.h"
#include "apimachinery/status_json.h"
#include "apimachinery/user_info_json.h"
#include "util/strings.h"

namespace capstan::admission {

namespace json = boost::json;

namespace {

std::string Str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace

json::object MakeReview(const Attributes& a, const std::string& uid, const registry::Object* object) {
  json::object req;
  req["uid"] = uid;
  json::object kind, resource;
  if (a.resource) {
    auto gk = a.resource->GroupKind();
    std::string version = a.resource->kind_version.empty() ? a.resource->version : a.resource->kind_version;
    kind["group"] = gk.group;
    kind["version"] = version;
    kind["kind"] = gk.kind;
    resource["group"] = a.resource->group;
    resource["version"] = a.resource->version;
    resource["resource"] = a.resource->resource;
  }
  req["kind"] = kind;
  req["resource"] = resource;
  if (!a.subresource.empty()) req["subResource"] = a.subresource;
  req["requestKind"] = kind;
  req["requestResource"] = resource;
  if (!a.subresource.empty()) req["requestSubResource"] = a.subresource;
  if (!a.name.empty()) req["name"] = a.name;
  if (!a.namespace_.empty()) req["namespace"] = a.namespace_;
  req["operation"] = a.operation;
  req["userInfo"] = a.user ? apimachinery::UserInfoToJson(*a.user) : json::object();
  req["object"] = object ? json::value(*object) : json::value(nullptr);
  req["oldObject"] = a.old_object && a.operation != "CREATE" ? json::value(*a.old_object) : json::value(nullptr);
  req["dryRun"] = a.dry_run;
  json::object options;
  if (a.operation == "CREATE") options["kind"] = "CreateOptions";
  if (a.operation == "UPDATE") options["kind"] = "UpdateOptions";
  if (a.operation == "DELETE") options["kind"] = "DeleteOptions";
  if (a.operation == "CONNECT") options["kind"] = "ConnectOptions";
  options["apiVersion"] = "meta.k8s.io/v1";
  req["options"] = std::move(options);
  json::object review;
  review["kind"] = "AdmissionReview";
  review["apiVersion"] = "admission.k8s.io/v1";
  review["request"] = std::move(req);
  return review;
}

StatusOr<ReviewResult> VerifyResponse(const std::string& uid, bool mutating, std::string_view body) {
  auto bad = [](std::string m) { return Status(500, "InternalError", std::move(m)); };
  auto parsed = apimachinery::ParseJsonValue(body);
  if (!parsed.ok()) return bad("couldn't get version/kind; json parse error: " + parsed.status().message());
  if (!parsed->is_object()) return bad("couldn't get version/kind; json parse error: not an object");
  const json::object& doc = parsed->as_object();
  std::string api_version = Str(doc, "apiVersion"), kind = Str(doc, "kind");
  if (api_version != "admission.k8s.io/v1" || kind != "AdmissionReview") {
    std::string got;
    size_t slash = api_version.find('/');
    if (slash == std::string::npos) {
      got = "/" + api_version + ", Kind=" + kind;
    } else {
      got = api_version + ", Kind=" + kind;
    }
    return bad("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got " + got);
  }
  const json::value* rv = doc.if_contains("response");
  if (!rv || !rv->is_object()) return bad("webhook response was absent");
  const json::object& r = rv->as_object();
  if (Str(r, "uid") != uid) return bad("expected response.uid=\"" + uid + "\", got \"" + Str(r, "uid") + "\"");
  ReviewResult out;
  if (const json::value* al = r.if_contains("allowed"); al && al->is_bool()) out.allowed = al->as_bool();
  if (const json::value* st = r.if_contains("status"); st && st->is_object()) out.result = *st;
  std::string patch = Str(r, "patch");
  if (!patch.empty()) {
    if (!mutating) return bad("validating webhooks may not return patches");
    std::string type = Str(r, "patchType");
    if (type.empty()) return bad("webhook returned response.patch but not response.patchType");
    if (type != "JSONPatch") return bad("webhook returned invalid response.patchType of \"" + type + "\"");
    if (!Base64Decode(patch, out.patch)) return bad("illegal base64 data in response.patch");
  }
  if (const json::value* w = r.if_contains("warnings"); w && w->is_array()) {
    for (const auto& x : w->as_array()) {
      if (x.is_string()) out.warnings.emplace_back(x.as_string());
    }
  }
  if (const json::value* an = r.if_contains("auditAnnotations"); an && an->is_object()) {
    for (const auto& [k, v] : an->as_object()) {
      if (v.is_string()) out.audit_annotations[std::string(k)] = std::string(v.as_string());
    }
  }
  return out;
}

Status DeniedStatus(const std::string& webhook, const std::optional<json::value>& result) {
  std::string denied = "admission webhook \"" + webhook + "\" denied the request";
  int code = 0;
  std::string message, reason;
  StatusDetails details;
  bool has_details = false;
  if (result && result->is_object()) {
    const json::object& r = result->as_object();
    if (const json::value* c = r.if_contains("code"); c && c->is_int64()) code = static_cast<int>(c->as_int64());
    message = Str(r, "message");
    reason = Str(r, "reason");
    if (auto parsed = apimachinery::StatusFromJson(*result); parsed && parsed->has_details()) {
      details = parsed->details();
      has_details = true;
    }
  }
  if (code < 400) code = 400;
  std::string text;
  if (!message.empty()) {
    text = denied + ": " + message;
  } else if (!reason.empty()) {
    text = denied + ": " + reason;
  } else {
    text = denied + " without explanation";
  }
  Status st(code, reason, text);
  if (has_details) st.WithDetails(details);
  return st;
}

}  // namespace capstan::admission
