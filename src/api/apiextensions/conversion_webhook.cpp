#include "api/apiextensions/conversion_webhook.h"

#include <boost/json.hpp>

#include "apimachinery/field_errors.h"
#include "apimachinery/json_parse.h"
#include "apimachinery/json_write.h"
#include "apimachinery/names.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "util/strings.h"

namespace capstan::api::apiextensions {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

const json::object* Obj(const json::object* o, std::string_view key) {
  if (!o) return nullptr;
  const json::value* v = o->if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

std::string Str(const json::object* o, std::string_view key) {
  if (!o) return "";
  const json::value* v = o->if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// Go's GroupVersionKind.String() of an object: "group/version, Kind=kind".
std::string GvkOf(const Object& obj) {
  std::string av(am::GetApiVersion(obj));
  std::string group, version = av;
  if (size_t slash = av.find('/'); slash != std::string::npos) {
    group = av.substr(0, slash);
    version = av.substr(slash + 1);
  }
  return group + "/" + version + ", Kind=" + std::string(am::GetKind(obj));
}

Status Fail(std::string message) { return Status(500, "", std::move(message)); }

// kube's failure_type labels.
constexpr const char* kCallFailure = "conversion_webhook_call_failure";
constexpr const char* kMalformedResponse = "conversion_webhook_malformed_response_failure";
constexpr const char* kPartialResponse = "conversion_webhook_partial_response_failure";
constexpr const char* kInvalidObject = "conversion_webhook_invalid_converted_object_failure";
constexpr const char* kNoCall = "-";  // not a label: no webhook call was made

std::string VersionOf(std::string_view api_version) {
  size_t slash = api_version.find('/');
  return std::string(slash == std::string_view::npos ? api_version : api_version.substr(slash + 1));
}

bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  }
  return true;
}

// The labels or annotations of converted metadata: a string map, or the reason it is not one.
StatusOr<am::StringPairs> StringMap(const json::value& v, std::string_view field) {
  am::StringPairs out;
  if (!v.is_object()) {
    return Status(400, "", "invalid metadata." + std::string(field) + " of type " +
                               (v.is_array() ? "[]interface {}" : v.is_string() ? "string" : "float64") +
                               " in converted object");
  }
  for (const auto& [k, x] : v.get_object()) {
    if (!x.is_string()) {
      return Status(400, "", "metadata." + std::string(field) + "[" + std::string(k) + "] must be a string, but is " +
                                 (x.is_object() ? "map[string]interface {}" : x.is_bool() ? "bool" : "float64") +
                                 " in converted object");
    }
    out.emplace_back(std::string(k), std::string(x.get_string()));
  }
  return out;
}

}  // namespace

StatusOr<std::vector<Object>> ParseConversionResponse(std::string_view body_text, const std::string& review_version,
                                                     const std::string& uid, size_t expected, const std::string& gvk,
                                                     std::string* failure_type) {
  const std::string prefix = "conversion webhook for " + gvk + " failed: ";
  std::string ignored;
  std::string& kind = failure_type ? *failure_type : ignored;
  kind = kCallFailure;  // an unreadable body fails the call itself, as kube's REST client decoding
  auto parsed = am::ParseJsonValue(body_text);
  if (!parsed.ok()) return Fail(prefix + parsed.status().message());
  if (!parsed->is_object()) return Fail(prefix + "json: cannot unmarshal " + (parsed->is_array() ? "array" : "value") +
                                           " into Go value of type ConversionReview");
  const json::object& body = parsed->get_object();
  kind = kMalformedResponse;
  if (review_version == "v1") {
    std::string got_av = Str(&body, "apiVersion"), got_kind = Str(&body, "kind");
    if (got_av != "apiextensions.k8s.io/v1" || got_kind != "ConversionReview") {
      std::string g, v = got_av;
      if (size_t slash = got_av.find('/'); slash != std::string::npos) {
        g = got_av.substr(0, slash);
        v = got_av.substr(slash + 1);
      }
      return Fail(prefix + "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got " + g +
                     "/" + v + ", Kind=" + got_kind);
    }
  }
  const json::object* response = Obj(&body, "response");
  if (!response) return Fail(prefix + "no response provided");
  if (review_version == "v1" && Str(response, "uid") != uid) {
    return Fail(prefix + "expected response.uid=\"" + uid + "\", got \"" + Str(response, "uid") + "\"");
  }
  const json::object* result = Obj(response, "result");
  std::string result_status = Str(result, "status");
  if (result_status != "Success") {
    std::string message = Str(result, "message");
    if (!message.empty()) return Fail(prefix + message);
    return Fail(prefix + "response.result.status was '" + result_status + "', not 'Success'");
  }
  std::vector<Object> out;
  if (const json::value* co = response->if_contains("convertedObjects"); co && co->is_array()) {
    for (const auto& x : co->get_array()) {
      if (!x.is_object()) {
        kind = kInvalidObject;
        return Fail("conversion webhook for " + gvk + " returned invalid converted object at index " +
                       std::to_string(out.size()) + ": Object 'Kind' is missing in '" + am::ToJson(x) + "'");
      }
      out.push_back(x.get_object());
    }
  }
  if (out.size() != expected) {
    kind = kPartialResponse;
    return Fail("conversion webhook for " + gvk + " returned " + std::to_string(out.size()) + " objects, expected " +
                   std::to_string(expected));
  }
  kind.clear();
  return out;
}

std::shared_ptr<ConversionWebhookMetrics> ConversionWebhookMetrics::Register(MetricsRegistry& r) {
  auto m = std::make_shared<ConversionWebhookMetrics>();
  m->requests = &r.NewCounterVec("apiserver_conversion_webhook_request_total",
                                 "Counter for conversion webhook requests with success/failure and failure error type",
                                 {"result", "failure_type"});
  m->latency = &r.NewHistogramVec("apiserver_conversion_webhook_duration_seconds", "Conversion webhook request latency",
                                  {"result", "failure_type"},
                                  {0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 45, 60});
  std::vector<double> exp;
  for (double b = 0.001; exp.size() < 15; b *= 2) exp.push_back(b);
  m->crd_latency = &r.NewHistogramVec("apiserver_crd_conversion_webhook_duration_seconds",
                                      "CRD webhook conversion duration in seconds",
                                      {"crd_name", "from_version", "to_version", "succeeded"}, exp);
  return m;
}

void ConversionWebhookMetrics::Observe(const std::string& crd, const std::string& from_version,
                                       const std::string& to_version, const std::string& failure_type,
                                       double seconds) const {
  const std::string result = failure_type.empty() ? "success" : "failure";
  requests->With({result, failure_type})->Inc();
  latency->With({result, failure_type})->Observe(seconds);
  if (from_version != to_version) {
    crd_latency->With({crd, from_version, to_version, failure_type.empty() ? "true" : "false"})->Observe(seconds);
  }
}

ConversionWebhookConfig ParseConversionWebhook(const Object& crd) {
  ConversionWebhookConfig c;
  c.crd_name = std::string(am::GetName(crd));
  const json::object* webhook = Obj(Obj(Obj(&crd, "spec"), "conversion"), "webhook");
  if (!webhook) {
    c.invalid = "spec.conversion.webhook is required for the Webhook strategy";
    return c;
  }
  if (const json::value* rv = webhook->if_contains("conversionReviewVersions"); rv && rv->is_array()) {
    for (const auto& v : rv->get_array()) {
      if (v.is_string()) c.review_versions.emplace_back(v.get_string());
    }
  }
  const json::object* cc = Obj(webhook, "clientConfig");
  if (!cc) {
    c.invalid = "spec.conversion.webhook.clientConfig is required";
    return c;
  }
  c.url = Str(cc, "url");
  if (const json::object* svc = Obj(cc, "service")) {
    c.service_namespace = Str(svc, "namespace");
    c.service_name = Str(svc, "name");
    c.service_path = Str(svc, "path");
    if (const json::value* p = svc->if_contains("port"); p && p->is_int64()) c.service_port = static_cast<int>(p->get_int64());
  }
  std::string bundle = Str(cc, "caBundle");
  if (!bundle.empty() && !IsBlank(bundle)) {
    std::string pem;
    if (!Base64Decode(bundle, pem)) {
      c.invalid = "caBundle is not valid base64";
    } else if (!IsBlank(pem)) {
      c.ca_pem = std::move(pem);
    }
  }
  if (c.url.empty() && c.service_name.empty() && c.invalid.empty()) c.invalid = "exactly one of url or service is required";
  return c;
}

ConversionWebhook::ConversionWebhook(ConversionWebhookConfig config, ConversionWebhookDeps deps)
    : config_(std::move(config)), deps_(std::move(deps)) {}

StatusOr<http::HttpClient*> ConversionWebhook::Client(const std::string& server_name) const {
  std::lock_guard lock(mu_);
  if (client_) return client_.get();
  if (!deps_.http) return Status(500, "", "no HTTP client for conversion webhooks");
  http::ClientTlsConfig tls;
  tls.ca_pem = config_.ca_pem;
  tls.server_name = server_name;
  auto c = deps_.http->NewClient(tls);
  if (!c.ok()) return c.status();
  client_ = std::move(*c);
  return client_.get();
}

Task<StatusOr<std::vector<Object>>> ConversionWebhook::Post(const std::vector<const Object*>& objects,
                                                            const std::string& desired, const std::string& gvk,
                                                            std::string* failure_type) const {
  const std::string prefix = "conversion webhook for " + gvk + " failed: ";
  std::string review_version;
  for (const auto& v : config_.review_versions) {
    if (v == "v1beta1" || v == "v1") {
      review_version = v;
      break;
    }
  }
  if (review_version.empty()) co_return Fail("no supported conversion review versions");
  *failure_type = kCallFailure;
  if (!config_.invalid.empty()) co_return Fail(prefix + config_.invalid);

  std::string url = config_.url;
  std::string server_name;
  if (!config_.service_name.empty()) {
    server_name = config_.service_name + "." + config_.service_namespace + ".svc";
    if (!deps_.resolve_service) co_return Fail(prefix + "service resolution is not available");
    auto target = co_await deps_.resolve_service(config_.service_namespace, config_.service_name, config_.service_port);
    if (!target.ok()) co_return Fail(prefix + target.status().message());
    url = "https://" + *target + config_.service_path;
  }
  auto secs = std::chrono::duration_cast<std::chrono::seconds>(deps_.timeout).count();
  url += (url.find('?') == std::string::npos ? "?" : "&") + std::string("timeout=") + std::to_string(secs) + "s";
  auto client = Client(server_name);
  if (!client.ok()) co_return Fail(prefix + client.status().message());

  const std::string uid = am::NewUid();
  json::array items;
  items.reserve(objects.size());
  for (const Object* o : objects) items.emplace_back(*o);
  json::object review{
      {"kind", "ConversionReview"},
      {"apiVersion", "apiextensions.k8s.io/" + review_version},
      {"request", json::object{{"uid", uid}, {"desiredAPIVersion", desired}, {"objects", std::move(items)}}},
      {"response", json::object{{"uid", ""}, {"convertedObjects", nullptr}, {"result", json::object{{"metadata", json::object()}}}}}};
  http::ClientRequest req;
  req.method = "POST";
  req.url = url;
  req.headers.Set("Content-Type", "application/json");
  req.headers.Set("Accept", "application/json, */*");
  req.body = am::ToJson(json::value(std::move(review)));
  req.timeout = deps_.timeout;
  auto resp = co_await (*client)->Do(std::move(req));
  if (!resp.ok()) co_return Fail(prefix + resp.status().message());
  if (resp->status < 200 || resp->status > 299) co_return Fail(prefix + admission::HttpErrorText(*resp));
  co_return ParseConversionResponse(resp->body, review_version, uid, objects.size(), gvk, failure_type);
}

void ConversionWebhook::Observe(const Object& from, const std::string& desired, const std::string& failure_type,
                                std::chrono::steady_clock::time_point start) const {
  if (!deps_.metrics || failure_type == kNoCall) return;
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  deps_.metrics->Observe(config_.crd_name, VersionOf(am::GetApiVersion(from)), VersionOf(desired), failure_type, secs);
}

Task<StatusOr<Object>> ConversionWebhook::Convert(Object obj, const std::string& desired) const {
  if (am::GetApiVersion(obj) == desired) co_return obj;
  auto start = std::chrono::steady_clock::now();
  Object original_meta{{"apiVersion", obj["apiVersion"]}};
  std::string failure = kNoCall;
  auto r = co_await ConvertOne(std::move(obj), desired, &failure);
  Observe(original_meta, desired, failure, start);
  co_return r;
}

Task<StatusOr<std::vector<Object>>> ConversionWebhook::ConvertList(std::vector<Object> items,
                                                                   const std::string& desired) const {
  auto start = std::chrono::steady_clock::now();
  Object from;
  for (const auto& o : items) {
    if (am::GetApiVersion(o) != desired) {
      from["apiVersion"] = o.at("apiVersion");
      break;
    }
  }
  std::string failure = kNoCall;
  auto r = co_await ConvertMany(std::move(items), desired, &failure);
  Observe(from, desired, failure, start);
  co_return r;
}

Task<StatusOr<Object>> ConversionWebhook::ConvertOne(Object obj, const std::string& desired, std::string* failure) const {
  const std::string gvk = GvkOf(obj);
  auto converted = co_await Post({&obj}, desired, gvk, failure);
  if (!converted.ok()) co_return converted.TakeStatus();
  *failure = kInvalidObject;  // until the object passed its checks
  Object& c = (*converted)[0];
  const std::string head = "conversion webhook for " + gvk + " returned invalid object";
  if (am::GetApiVersion(c) != desired) {
    co_return Fail(head + " at index 0: invalid groupVersion (expected " + desired + ", received " +
                   std::string(am::GetApiVersion(c)) + ")");
  }
  if (am::GetKind(c) != am::GetKind(obj)) {
    co_return Fail(head + " at index 0: invalid kind (expected " + std::string(am::GetKind(obj)) + ", received " +
                   std::string(am::GetKind(c)) + ")");
  }
  bool metadata_error = false;
  Status st = CheckConvertedObject(obj, c, &metadata_error);
  if (!st.ok()) {
    co_return Fail(metadata_error ? "conversion webhook for " + gvk + " returned invalid metadata: " + st.message()
                                  : head + ": " + st.message());
  }
  failure->clear();
  co_return std::move(c);
}

Task<StatusOr<std::vector<Object>>> ConversionWebhook::ConvertMany(std::vector<Object> items, const std::string& desired,
                                                                   std::string* failure) const {
  std::vector<const Object*> send;
  for (const auto& o : items) {
    if (am::GetApiVersion(o) != desired) send.push_back(&o);
  }
  if (send.empty()) co_return items;
  const std::string gvk = GvkOf(*send.front());
  auto converted = co_await Post(send, desired, gvk, failure);
  if (!converted.ok()) co_return converted.TakeStatus();
  *failure = kInvalidObject;  // until every object passed its checks
  size_t index = 0;
  for (auto& original : items) {
    if (am::GetApiVersion(original) == desired) continue;
    Object& c = (*converted)[index];
    const std::string head = "conversion webhook for " + gvk + " returned invalid converted object at index " + std::to_string(index);
    if (am::GetApiVersion(c) != desired) {
      co_return Fail(head + ": invalid groupVersion (expected " + desired + ", received " + std::string(am::GetApiVersion(c)) + ")");
    }
    if (am::GetKind(c) != am::GetKind(original)) {
      co_return Fail(head + ": invalid kind (expected " + std::string(am::GetKind(original)) + ", received " +
                     std::string(am::GetKind(c)) + ")");
    }
    bool metadata_error = false;
    Status st = CheckConvertedObject(original, c, &metadata_error);
    if (!st.ok()) {
      co_return Fail(metadata_error ? "conversion webhook for " + gvk + " returned invalid metadata in object at index " +
                                          std::to_string(index) + ": " + st.message()
                                    : head + ": " + st.message());
    }
    original = std::move(c);
    ++index;
  }
  failure->clear();
  co_return items;
}

Status CheckConvertedObject(const Object& in, Object& out, bool* metadata_error) {
  *metadata_error = false;
  auto differ = [](std::string_view what, std::string_view a, std::string_view b) {
    return Status(400, "", "must have the same " + std::string(what) + ": " + std::string(a) + " != " + std::string(b));
  };
  if (am::GetKind(in) != am::GetKind(out)) return differ("kind", am::GetKind(in), am::GetKind(out));
  if (am::GetName(in) != am::GetName(out)) return differ("name", am::GetName(in), am::GetName(out));
  if (am::GetNamespace(in) != am::GetNamespace(out)) return differ("namespace", am::GetNamespace(in), am::GetNamespace(out));
  if (am::GetUid(in) != am::GetUid(out)) return differ("UID", am::GetUid(in), am::GetUid(out));

  *metadata_error = true;
  const json::value* response_md = out.if_contains("metadata");
  if (!response_md) return Status(400, "", "missing metadata in converted object");
  if (!response_md->is_object()) return Status(400, "", "invalid metadata of type " + std::string(response_md->is_array() ? "[]interface {}" : "string") + " in converted object");
  json::object response = response_md->get_object();
  json::object restored;
  if (const json::object* md = Obj(&in, "metadata")) restored = *md;
  for (const char* field : {"labels", "annotations"}) {
    const json::value* v = response.if_contains(field);
    if (!v || v->is_null()) {
      restored.erase(field);
      continue;
    }
    auto pairs = StringMap(*v, field);
    if (!pairs.ok()) return pairs.status();
    const json::value* orig = restored.if_contains(field);
    bool changed = !orig || !orig->is_object() || orig->get_object() != v->get_object();
    if (changed) {
      std::string field_str(field);
      ErrorList errs = field_str == "labels" ? am::ValidateLabels(*pairs, FieldPath("metadata").Child("labels"))
                                             : am::ValidateAnnotations(*pairs, FieldPath("metadata").Child("annotation"));
      if (!errs.empty()) return Status(400, "", AggregateMessage(errs));
    }
    restored[field] = *v;
  }
  out["metadata"] = std::move(restored);
  *metadata_error = false;
  return Status();
}

}  // namespace capstan::api::apiextensions
