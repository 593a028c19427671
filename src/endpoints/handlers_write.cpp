// endpoints/handlers_write.cpp: CREATE, UPDATE, PATCH, DELETE and DELETECOLLECTION.
#include <boost/json.hpp>

#include "apimachinery/errors.h"
#include "apimachinery/json_parse.h"
#include "apimachinery/json_patch.h"
#include "apimachinery/merge_patch.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/schema_go_format.h"
#include "apimachinery/strategic_merge_patch.h"
#include "apimachinery/unstructured_convert.h"
#include "apimachinery/yaml.h"
#include "endpoints/apply.h"
#include "endpoints/handlers.h"
#include "util/strings.h"

namespace capstan::endpoints {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

// dryRun, fieldValidation and fieldManager of a write, validated as kube's Create/Update/PatchOptions.
struct WriteParams {
  bool dry_run = false;
  std::string field_validation;
  std::string field_manager;
};

StatusOr<WriteParams> ParseWriteParams(const http::Query& q, const std::string& kind) {
  WriteParams p;
  auto dry = ParseDryRun(q, kind);
  if (!dry.ok()) return dry.TakeStatus();
  p.dry_run = *dry;
  auto fv = ParseFieldValidation(q);
  if (!fv.ok()) return fv.TakeStatus();
  p.field_validation = *fv;
  p.field_manager = q.GetOr("fieldManager", "");
  if (ErrorList errs = am::ValidateFieldManager(p.field_manager, FieldPath("fieldManager")); !errs.empty()) {
    return am::NewInvalid({"meta.k8s.io", kind}, "", errs);
  }
  return p;
}

registry::WriteOptions ToOptions(const WriteParams& p) {
  registry::WriteOptions o;
  o.dry_run = p.dry_run;
  o.field_manager = p.field_manager;
  o.field_validation = p.field_validation;
  return o;
}

Status CheckName(const registry::Object& obj, const std::string& name, const std::string& ns) {
  std::string_view obj_name = am::GetName(obj);
  if (obj_name != name) {
    return am::NewBadRequest("the name of the object (" + std::string(obj_name) + ") does not match the name on the URL (" +
                             name + ")");
  }
  std::string_view obj_ns = am::GetNamespace(obj);
  if (!ns.empty() && !obj_ns.empty() && obj_ns != ns) {
    return am::NewBadRequest("the namespace of the object (" + std::string(obj_ns) +
                             ") does not match the namespace on the request (" + ns + ")");
  }
  return Status();
}

// DeleteOptions from the body (when there is one) or else the query, as kube reads them.
StatusOr<registry::DeleteOptions> ParseDeleteOptions(Scope& s) {
  registry::DeleteOptions o;
  const auto& req = s.http().request;
  std::string_view body = TrimSpace(req.body);
  if (!body.empty()) {
    json::value v;
    std::string ct = MediaTypeOf(req.headers.Get("Content-Type"));
    if (ct == "application/vnd.kubernetes.protobuf" && s.limits().protobuf) {
      auto d = s.limits().protobuf->DecodeObject(body);
      if (!d.ok()) return d.TakeStatus();
      v = std::move(d->object);
    } else if (ct == "application/yaml") {
      auto y = am::YamlToJson(body);
      if (!y.ok()) return am::NewBadRequest(y.status().message());
      v = std::move(y->value);
    } else {
      auto j = am::ParseJson(body);
      if (!j.ok()) return am::NewBadRequest(std::string(am::kFindKindErrorPrefix) + j.status().message());
      v = std::move(j->value);
    }
    if (!v.is_object()) return am::NewBadRequest("decoded object cannot be converted to DeleteOptions");
    const auto& b = v.get_object();
    if (const auto* k = b.if_contains("kind"); k && k->is_string() && k->get_string() != "DeleteOptions") {
      return am::NewBadRequest("decoded object cannot be converted to DeleteOptions");
    }
    if (const auto* g = b.if_contains("gracePeriodSeconds"); g && !g->is_null()) {
      if (!g->is_int64()) return am::NewBadRequest("gracePeriodSeconds must be an integer");
      o.grace_period_seconds = g->get_int64();
    }
    if (const auto* p = b.if_contains("propagationPolicy"); p && p->is_string()) o.propagation_policy = std::string(p->get_string());
    if (const auto* od = b.if_contains("orphanDependents"); od && od->is_bool()) o.orphan_dependents = od->get_bool();
    if (const auto* pre = b.if_contains("preconditions"); pre && pre->is_object()) {
      if (const auto* u = pre->get_object().if_contains("uid"); u && u->is_string()) o.precondition_uid = std::string(u->get_string());
      if (const auto* rv = pre->get_object().if_contains("resourceVersion"); rv && rv->is_string()) {
        o.precondition_resource_version = std::string(rv->get_string());
      }
    }
    if (const auto* dr = b.if_contains("dryRun"); dr && dr->is_array()) {
      ErrorList errs;
      for (size_t i = 0; i < dr->get_array().size(); ++i) {
        const auto& x = dr->get_array()[i];
        if (!x.is_string() || x.get_string() != "All") {
          errs.push_back(NotSupportedError(FieldPath("dryRun").Index(i), x.is_string() ? std::string(x.get_string()) : "", {"All"}));
        }
      }
      if (!errs.empty()) return am::NewInvalid({"meta.k8s.io", "DeleteOptions"}, "", errs);
      o.dry_run = !dr->get_array().empty();
    }
    return o;
  }
  const auto& q = req.query;
  auto grace = QueryInt(q, "gracePeriodSeconds");
  if (!grace.ok()) return grace.TakeStatus();
  o.grace_period_seconds = *grace;
  if (auto p = q.Get("propagationPolicy")) o.propagation_policy = *p;
  o.orphan_dependents = QueryBool(q, "orphanDependents");
  auto dry = ParseDryRun(q, "DeleteOptions");
  if (!dry.ok()) return dry.TakeStatus();
  o.dry_run = *dry;
  return o;
}

}  // namespace

Task<void> HandleCreate(Scope& s) {
  if (!co_await s.NegotiateOutputOrFail()) co_return;
  auto params = ParseWriteParams(s.http().request.query, "CreateOptions");
  if (!params.ok()) {
    co_await s.WriteStatus(params.status());
    co_return;
  }
  auto obj = s.DecodeBody(params->field_validation);
  if (!obj.ok()) {
    co_await s.WriteStatus(obj.status());
    co_return;
  }
  s.ctx().dry_run = params->dry_run;
  s.ctx().field_manager = ManagerOrUserAgent(params->field_manager, s.http().request.headers.Get("User-Agent"));
  if (!s.http().info.name.empty() && !s.entry().info.subresource.empty()) {
    // A create on a subresource (binding, eviction, token) names its parent in the URL.
    s.ctx().name = s.http().info.name;
  }
  auto created = co_await s.entry().creater->Create(s.ctx(), std::move(*obj), ToOptions(*params));
  if (!created.ok()) {
    co_await s.WriteStatus(created.status());
    co_return;
  }
  co_await s.WriteObject(201, *created);
}

Task<void> HandleUpdate(Scope& s) {
  if (!co_await s.NegotiateOutputOrFail()) co_return;
  auto params = ParseWriteParams(s.http().request.query, "UpdateOptions");
  if (!params.ok()) {
    co_await s.WriteStatus(params.status());
    co_return;
  }
  auto obj = s.DecodeBody(params->field_validation);
  if (!obj.ok()) {
    co_await s.WriteStatus(obj.status());
    co_return;
  }
  const std::string& name = s.http().info.name;
  if (Status st = CheckName(*obj, name, s.ctx().namespace_); !st.ok()) {
    co_await s.WriteStatus(st);
    co_return;
  }
  s.ctx().dry_run = params->dry_run;
  s.ctx().field_manager = ManagerOrUserAgent(params->field_manager, s.http().request.headers.Get("User-Agent"));
  auto body = std::make_shared<registry::Object>(std::move(*obj));
  auto outcome = co_await s.entry().updater->Update(
      s.ctx(), name, [body](const registry::Object*) -> Task<StatusOr<registry::Object>> { co_return *body; },
      ToOptions(*params));
  if (!outcome.ok()) {
    co_await s.WriteStatus(outcome.status());
    co_return;
  }
  co_await s.WriteObject(outcome->created ? 201 : 200, outcome->object);
}

Task<void> HandlePatch(Scope& s) {
  if (!co_await s.NegotiateOutputOrFail()) co_return;
  auto type = NegotiateBody(s.http().request.headers.Get("Content-Type"), false, true);
  if (!type.ok()) {
    co_await s.WriteStatus(type.status());
    co_return;
  }
  if (*type == BodyFormat::kApplyPatchYaml) {
    co_await HandleApplyPatch(s);  // endpoints/handlers_apply.cpp
    co_return;
  }
  if (*type == BodyFormat::kStrategicMergePatch && s.entry().custom) {
    co_await s.WriteStatus(am::NewUnsupportedMediaType({"application/json-patch+json", "application/merge-patch+json",
                                                        "application/apply-patch+yaml"}));
    co_return;
  }
  auto params = ParseWriteParams(s.http().request.query, "PatchOptions");
  if (!params.ok()) {
    co_await s.WriteStatus(params.status());
    co_return;
  }
  if (s.http().request.query.Get("force")) {
    co_await s.WriteStatus(am::NewInvalid({"meta.k8s.io", "PatchOptions"}, "",
                                          {ForbiddenError(FieldPath("force"), "may not be specified for non-apply patch")}));
    co_return;
  }
  const std::string& patch = s.http().request.body;
  if (patch.size() > s.limits().max_body_bytes) {
    co_await s.WriteStatus(am::NewRequestEntityTooLargeError("limit is " + std::to_string(s.limits().max_body_bytes)));
    co_return;
  }
  s.ctx().dry_run = params->dry_run;
  s.ctx().field_manager = ManagerOrUserAgent(params->field_manager, s.http().request.headers.Get("User-Agent"));
  const std::string name = s.http().info.name;
  const std::string ns = s.ctx().namespace_;
  const BodyFormat patch_type = *type;
  const std::string field_validation = params->field_validation;
  Scope* scope = &s;
  auto transform = [scope, patch_type, name, ns, field_validation,
                    &patch](const registry::Object* cur) -> Task<StatusOr<registry::Object>> {
    if (!cur) co_return am::NewNotFound(scope->entry().info.GroupResource(), name);
    json::value current(*cur);
    StatusOr<json::value> patched = Status();
    switch (patch_type) {
      case BodyFormat::kJsonPatch:
        patched = am::ApplyJsonPatch(current, patch);
        break;
      case BodyFormat::kMergePatch:
        patched = am::ApplyMergePatch(current, patch);
        break;
      default:
        patched = am::ApplyStrategicMergePatch(current, patch, scope->entry().schema);
        if (patched.ok()) {
          // kube converts the patched map into the Go type; a value of the wrong type fails there
          // (the merge itself takes the patch's value when the types differ), as a 422 on "patch".
          if (std::string err = am::FromUnstructuredError(*patched, scope->entry().schema); !err.empty()) {
            auto patch_map = am::ParseJsonValue(patch);
            co_return am::NewInvalid({"", ""}, "",
                                     {InvalidError(FieldPath("patch"),
                                                   patch_map.ok() ? am::GoSprint(*patch_map) : std::string(patch), err)});
          }
        }
        break;
    }
    if (!patched.ok()) co_return patched.TakeStatus();
    if (!patched->is_object()) co_return am::NewBadRequest("the patch did not produce an object");
    auto obj = scope->DecodeValue(std::move(*patched), field_validation);
    if (!obj.ok()) co_return obj.TakeStatus();
    CO_RETURN_IF_ERROR(CheckName(*obj, name, ns));
    co_return std::move(*obj);
  };
  auto outcome = co_await s.entry().updater->Update(s.ctx(), name, transform, ToOptions(*params));
  if (!outcome.ok()) {
    co_await s.WriteStatus(outcome.status());
    co_return;
  }
  co_await s.WriteObject(outcome->created ? 201 : 200, outcome->object);
}

Task<void> HandleDelete(Scope& s) {
  if (!co_await s.NegotiateOutputOrFail()) co_return;
  auto opts = ParseDeleteOptions(s);
  if (!opts.ok()) {
    co_await s.WriteStatus(opts.status());
    co_return;
  }
  s.ctx().dry_run = opts->dry_run;
  auto outcome = co_await s.entry().deleter->Delete(s.ctx(), s.http().info.name, *opts);
  if (!outcome.ok()) {
    co_await s.WriteStatus(outcome.status());
    co_return;
  }
  int code = 200;
  if (!outcome->deleted && opts->orphan_dependents && !*opts->orphan_dependents) code = 202;
  co_await s.WriteObject(code, outcome->object);
}

Task<void> HandleDeleteCollection(Scope& s) {
  if (!co_await s.NegotiateOutputOrFail()) co_return;
  auto lopts = ParseListOptions(s.http().request.query);
  if (!lopts.ok()) {
    co_await s.WriteStatus(lopts.status());
    co_return;
  }
  auto dopts = ParseDeleteOptions(s);
  if (!dopts.ok()) {
    co_await s.WriteStatus(dopts.status());
    co_return;
  }
  s.ctx().dry_run = dopts->dry_run;
  auto list = co_await s.entry().collection_deleter->DeleteCollection(s.ctx(), *dopts, *lopts);
  if (!list.ok()) {
    co_await s.WriteStatus(list.status());
    co_return;
  }
  co_await s.WriteList(*list);
}

}  // namespace capstan::endpoints
