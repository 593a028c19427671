// endpoints/handlers_apply.cpp: server-side apply PATCH requests.
#include <boost/json.hpp>
#include <memory>

#include "apimachinery/errors.h"
#include "apimachinery/managedfields/field_manager.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/time_util.h"
#include "apimachinery/yaml.h"
#include "endpoints/apply.h"
#include "endpoints/handlers.h"

namespace capstan::endpoints {

namespace am = capstan::apimachinery;
namespace mf = capstan::apimachinery::managedfields;
namespace json = boost::json;

std::string ManagerOrUserAgent(const std::string& field_manager, std::string_view user_agent) {
  if (!field_manager.empty()) return field_manager;
  std::string_view product = user_agent.substr(0, user_agent.find('/'));
  constexpr size_t kMaxLength = 128;
  std::string out;
  for (size_t i = 0; i < product.size();) {
    unsigned char c = static_cast<unsigned char>(product[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 1;
    if (i + len > product.size()) break;
    bool printable = len > 1 || (c >= 0x20 && c != 0x7f);
    if (printable) {
      if (out.size() + len > kMaxLength) break;
      out.append(product.substr(i, len));
    }
    i += len;
  }
  return out;
}

namespace {

struct ApplyParams {
  bool dry_run = false;
  bool force = false;
  std::string field_validation;
  std::string field_manager;
};

StatusOr<ApplyParams> ParseApplyParams(const http::Query& q) {
  ApplyParams p;
  auto dry = ParseDryRun(q, "PatchOptions");
  if (!dry.ok()) return dry.TakeStatus();
  p.dry_run = *dry;
  auto fv = ParseFieldValidation(q);
  if (!fv.ok()) return fv.TakeStatus();
  p.field_validation = *fv;
  p.field_manager = q.GetOr("fieldManager", "");
  p.force = QueryBool(q, "force").value_or(false);
  ErrorList errs;
  if (p.field_manager.empty()) errs.push_back(RequiredError(FieldPath("fieldManager"), "is required for apply patch"));
  ErrorList more = am::ValidateFieldManager(p.field_manager, FieldPath("fieldManager"));
  errs.insert(errs.end(), more.begin(), more.end());
  if (!errs.empty()) return am::NewInvalid({"meta.k8s.io", "PatchOptions"}, "", errs);
  return p;
}

// The apply configuration from the body, checked as kube's field manager checks it.
StatusOr<json::object> DecodeApplyConfiguration(Scope& s, const ApplyParams& p) {
  const std::string& body = s.http().request.body;
  if (body.size() > s.limits().max_body_bytes) {
    return am::NewRequestEntityTooLargeError("limit is " + std::to_string(s.limits().max_body_bytes));
  }
  am::YamlParseOptions yo;
  yo.strict = p.field_validation != "Ignore";
  yo.max_bytes = s.limits().max_body_bytes;
  auto y = am::YamlToJson(body, yo);
  if (!y.ok()) return am::NewBadRequest("error decoding YAML: " + y.status().message());
  if (!y->value.is_object()) return am::NewBadRequest("error decoding YAML: the apply configuration must be an object");
  const auto& info = s.entry().info;
  const json::object& cfg = y->value.get_object();
  std::string api_version;
  if (const auto* v = cfg.if_contains("apiVersion"); v && v->is_string()) api_version = std::string(v->get_string());
  if (api_version != info.ApiVersion()) {
    return am::NewBadRequest("Incorrect version specified in apply patch. Specified patch version: " + api_version +
                             ", expected: " + info.ApiVersion());
  }
  if (const auto* md = cfg.if_contains("metadata"); md && md->is_object()) {
    if (const auto* m = md->get_object().if_contains("managedFields"); m && !m->is_null()) {
      return am::NewBadRequest("metadata.managedFields must be nil");
    }
  }
  std::vector<std::string> strict_errors;
  if (!y->strict_errors.empty()) strict_errors.push_back(am::YamlStrictErrorMessage(y->strict_errors));
  return s.DecodeValue(std::move(y->value), p.field_validation, std::move(strict_errors));
}

mf::FieldManagerScope ApplyScope(const Scope& s) {
  const ResourceEntry& e = s.entry();
  mf::FieldManagerScope fs;
  fs.schema = e.schema;
  fs.api_version = e.info.group.empty() ? e.info.version : e.info.group + "/" + e.info.version;
  fs.subresource = e.info.subresource;
  if (e.info.subresource == "status") {
    fs.reset = mf::ResetScope::kAllButStatus;
  } else if (!e.custom && e.schema && e.schema->Deref().Property("status")) {
    // Built-in kinds with a status serve it through their status subresource.
    fs.reset = mf::ResetScope::kStatus;
  }
  if (!e.custom && e.schema) fs.empty_object = &mf::GoZeroObject(e.schema);
  return fs;
}

Status CheckApplyName(const registry::Object& obj, const std::string& name, const std::string& ns) {
  if (am::GetName(obj) != name) {
    return am::NewBadRequest("the name of the object (" + std::string(am::GetName(obj)) +
                             ") does not match the name on the URL (" + name + ")");
  }
  std::string_view obj_ns = am::GetNamespace(obj);
  if (!ns.empty() && !obj_ns.empty() && obj_ns != ns) {
    return am::NewBadRequest("the namespace of the object (" + std::string(obj_ns) +
                             ") does not match the namespace on the request (" + ns + ")");
  }
  return Status();
}

}  // namespace

Task<void> HandleApplyPatch(Scope& s) {
  auto params = ParseApplyParams(s.http().request.query);
  if (!params.ok()) {
    co_await s.WriteStatus(params.status());
    co_return;
  }
  auto config = DecodeApplyConfiguration(s, *params);
  if (!config.ok()) {
    co_await s.WriteStatus(config.status());
    co_return;
  }
  const std::string name = s.http().info.name;
  const std::string ns = s.ctx().namespace_;
  // The apply does its own bookkeeping: the Store records no Update for it.
  s.ctx().dry_run = params->dry_run;
  s.ctx().field_manager.clear();
  registry::WriteOptions opts;
  opts.dry_run = params->dry_run;
  opts.field_validation = "Ignore";
  auto cfg = std::make_shared<const json::object>(std::move(*config));
  const mf::FieldManagerScope fs = ApplyScope(s);
  const std::string manager = params->field_manager;
  const bool force = params->force;
  Scope* scope = &s;
  auto apply = [scope, cfg, fs, manager, force, name, ns](const registry::Object* cur) -> StatusOr<registry::Object> {
    auto out = mf::Apply(fs, cur, *cfg, manager, force, am::FormatRfc3339(am::Timestamp::Now()));
    if (!out.ok()) return out.TakeStatus();
    auto obj = scope->DecodeValue(json::value(std::move(*out)), "Ignore");
    if (!obj.ok()) return obj.TakeStatus();
    RETURN_IF_ERROR(CheckApplyName(*obj, name, ns));
    return std::move(*obj);
  };
  auto transform = [apply](const registry::Object* cur) -> Task<StatusOr<registry::Object>> { co_return apply(cur); };
  auto outcome = co_await s.entry().updater->Update(s.ctx(), name, transform, opts);
  if (!outcome.ok() && am::IsNotFound(outcome.status()) && s.entry().info.subresource.empty() && s.entry().creater) {
    // Create by apply: the configuration applied to an empty object.
    auto obj = apply(nullptr);
    if (!obj.ok()) {
      co_await s.WriteStatus(obj.status());
      co_return;
    }
    auto created = co_await s.entry().creater->Create(s.ctx(), std::move(*obj), opts);
    if (created.ok()) {
      co_await s.WriteObject(201, *created);
      co_return;
    }
    if (!am::IsAlreadyExists(created.status())) {
      co_await s.WriteStatus(created.status());
      co_return;
    }
    // Created meanwhile: apply to it.
    outcome = co_await s.entry().updater->Update(s.ctx(), name, transform, opts);
  }
  if (!outcome.ok()) {
    co_await s.WriteStatus(outcome.status());
    co_return;
  }
  co_await s.WriteObject(outcome->created ? 201 : 200, outcome->object);
}

}  // namespace capstan::endpoints
