#include "admission/image_policy_webhook.h"

#include <boost/json.hpp>

#include "admission/admission_config.h"
#include "admission/builtin_plugins.h"
#include "admission/plugin_config_decode.h"
#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "util/duration.h"
#include "util/log.h"
#include "util/timer.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = apimachinery;
using std::chrono::nanoseconds;

namespace {

constexpr size_t kCacheEntries = 1024;  // kube's LRUExpireCache(1024)
constexpr int kSteps = 5;               // webhook.DefaultRetryBackoffWithInitialDelay
constexpr char kAuditPrefix[] = "imagepolicywebhook.image-policy.k8s.io/";
constexpr char kFailedOpenKey[] = "alpha.image-policy.k8s.io/failed-open";

// kube's normalizeConfigDuration: -1 disables (0), 0 takes the default, else value x scale within [min, max].
StatusOr<nanoseconds> Normalize(nanoseconds scale, int64_t value, nanoseconds min, nanoseconds max,
                                nanoseconds fallback) {
  if (value == -1) return nanoseconds(0);
  if (value == 0) return fallback;
  nanoseconds v = value * scale;
  if (v < min || v > max) {
    return ConfigError("valid value is between " + FormatGoDuration(min) + " and " + FormatGoDuration(max) + ", got " +
                       FormatGoDuration(v));
  }
  return v;
}

// kube's webhook.DefaultShouldRetry: a reset or lost connection, a 500 (InternalError), 504 (Timeout)
// or 429, or a 5xx that asks for a later retry (Retry-After). A refused connection is not retried.
bool ShouldRetry(const StatusOr<http::ClientResponse>& r) {
  if (!r.ok()) {
    const std::string& m = r.status().message();
    return m.find("connection reset") != std::string::npos || m.find("connection lost") != std::string::npos;
  }
  const int code = r->status;
  if (code == 500 || code == 504 || code == 429) return true;
  return code > 500 && r->headers.Has("Retry-After");
}

}  // namespace

StatusOr<ImagePolicyConfig> ParseImagePolicyConfig(const std::optional<json::value>& config) {
  if (!config) return ConfigError("no config specified");
  ImagePolicyConfig out;
  int64_t allow = 0, deny = 0, backoff = 0;
  if (const auto* root = config->if_object()) {
    const json::value* policy = nullptr;
    for (const auto& kv : *root) {
      if (EqualFold(kv.key(), "imagePolicy")) policy = &kv.value();
    }
    if (policy && !policy->is_null()) {
      if (!policy->is_object()) return UnmarshalTypeError(*policy, "AdmissionConfig.imagePolicy", "imagepolicy.imagePolicyWebhookConfig");
      for (const auto& kv : policy->as_object()) {
        const auto& k = kv.key();
        const json::value& v = kv.value();
        auto integer = [&](int64_t& into, const char* field) -> Status {
          if (!v.is_int64() && !v.is_uint64()) {
            return UnmarshalTypeError(v, std::string("AdmissionConfig.imagePolicy.") + field, "time.Duration");
          }
          into = v.is_int64() ? v.as_int64() : static_cast<int64_t>(v.as_uint64());
          return Status();
        };
        if (EqualFold(k, "kubeConfigFile")) {
          if (!v.is_string()) return UnmarshalTypeError(v, "AdmissionConfig.imagePolicy.kubeConfigFile", "string");
          out.kubeconfig_file = std::string(v.as_string());
        } else if (EqualFold(k, "allowTTL")) {
          RETURN_IF_ERROR(integer(allow, "allowTTL"));
        } else if (EqualFold(k, "denyTTL")) {
          RETURN_IF_ERROR(integer(deny, "denyTTL"));
        } else if (EqualFold(k, "retryBackoff")) {
          RETURN_IF_ERROR(integer(backoff, "retryBackoff"));
        } else if (EqualFold(k, "defaultAllow")) {
          if (!v.is_bool()) return UnmarshalTypeError(v, "AdmissionConfig.imagePolicy.defaultAllow", "bool");
          out.default_allow = v.as_bool();
        }
      }
    }
  }
  using namespace std::chrono;
  ASSIGN_OR_RETURN(out.retry_backoff, Normalize(milliseconds(1), backoff, nanoseconds(1), minutes(5),
                                                milliseconds(500)));
  ASSIGN_OR_RETURN(out.allow_ttl, Normalize(seconds(1), allow, seconds(1), minutes(30), minutes(5)));
  ASSIGN_OR_RETURN(out.deny_ttl, Normalize(seconds(1), deny, seconds(1), minutes(30), seconds(30)));
  return out;
}

StatusOr<ImageReviewAnswer> ParseImageReviewAnswer(std::string_view body) {
  boost::system::error_code ec;
  json::value v = json::parse(body, ec);
  if (ec || !v.is_object()) return Status(500, "InternalError", "couldn't decode the webhook's ImageReview");
  ImageReviewAnswer answer;
  const auto* s = v.as_object().if_contains("status");
  const json::object* status = s ? s->if_object() : nullptr;
  if (!status) return answer;
  if (const auto* a = status->if_contains("allowed"); a && a->is_bool()) answer.allowed = a->as_bool();
  if (const auto* r = status->if_contains("reason"); r && r->is_string()) answer.reason = std::string(r->as_string());
  if (const auto* aa = status->if_contains("auditAnnotations"); aa && aa->is_object()) {
    for (const auto& [k, val] : aa->as_object()) {
      if (val.is_string()) answer.audit_annotations.emplace_back(std::string(k), std::string(val.as_string()));
    }
  }
  return answer;
}

ImagePolicyWebhook::ImagePolicyWebhook(const ImagePolicyConfig& config, WebhookEndpoint endpoint,
                                       std::unique_ptr<http::HttpClient> client)
    : config_(config), endpoint_(std::move(endpoint)), client_(std::move(client)) {}

std::optional<ImagePolicyWebhook::Answer> ImagePolicyWebhook::Cached(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) return std::nullopt;
  if (it->second->expires <= std::chrono::steady_clock::now()) {
    lru_.erase(it->second);
    index_.erase(it);
    return std::nullopt;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->answer;
}

void ImagePolicyWebhook::Cache(const std::string& key, const Answer& answer) {
  const nanoseconds ttl = answer.allowed ? config_.allow_ttl : config_.deny_ttl;
  if (ttl.count() <= 0) return;
  std::lock_guard lock(mu_);
  if (auto it = index_.find(key); it != index_.end()) {
    lru_.erase(it->second);
    index_.erase(it);
  }
  lru_.push_front({key, answer, std::chrono::steady_clock::now() + ttl});
  index_[key] = lru_.begin();
  if (lru_.size() > kCacheEntries) {
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

Task<StatusOr<ImagePolicyWebhook::Answer>> ImagePolicyWebhook::Ask(const std::string& review) {
  http::ClientRequest req = http::JsonPost(endpoint_.server, review, endpoint_.bearer_token);
  Status last;
  auto delay = std::chrono::duration_cast<std::chrono::steady_clock::duration>(config_.retry_backoff);
  for (int attempt = 0; attempt < kSteps; ++attempt) {
    if (attempt > 0) {
      co_await SleepFor(delay);
      delay = delay * 3 / 2;  // Factor 1.5
    }
    auto resp = co_await client_->Do(req);
    const bool retry = ShouldRetry(resp);
    if (!resp.ok()) {
      if (retry) {
        last = resp.status();
        continue;
      }
      co_return resp.status();
    }
    if (resp->status < 200 || resp->status >= 300) {
      last = Status(500, "InternalError", "Error contacting webhook: " + std::to_string(resp->status));
      if (retry) continue;
      co_return last;
    }
    co_return ParseImageReviewAnswer(resp->body);
  }
  co_return last;
}

Task<Status> ImagePolicyWebhook::Validate(const Attributes& a) {
  if (!a.resource || a.resource->group != "" || a.resource->resource != "pods") co_return Status();
  if (!a.subresource.empty() && a.subresource != "ephemeralcontainers") co_return Status();
  if (!a.object) co_return Status();
  json::object& pod = *a.object;
  json::array containers;
  auto add = [&](const char* field) {
    const auto* spec = pod.if_contains("spec");
    const auto* list = spec && spec->is_object() ? spec->as_object().if_contains(field) : nullptr;
    if (!list || !list->is_array()) return;
    for (const auto& c : list->as_array()) {
      const auto* image = c.is_object() ? c.as_object().if_contains("image") : nullptr;
      json::object entry;
      if (image && image->is_string() && !image->as_string().empty()) entry["image"] = *image;
      containers.push_back(std::move(entry));
    }
  };
  if (a.subresource.empty()) {
    add("containers");
    add("initContainers");
  } else {
    add("ephemeralContainers");
  }
  json::object spec;
  if (!containers.empty()) spec["containers"] = std::move(containers);
  json::object annotations;
  for (const auto& [k, v] : am::GetAnnotations(pod)) {
    if (k.find(".image-policy.k8s.io/") != std::string::npos) annotations[k] = v;
  }
  if (!annotations.empty()) spec["annotations"] = std::move(annotations);
  if (!a.namespace_.empty()) spec["namespace"] = a.namespace_;
  const std::string key = json::serialize(spec);
  std::optional<Answer> answer = Cached(key);
  if (!answer) {
    json::object review{{"kind", "ImageReview"},
                        {"apiVersion", "imagepolicy.k8s.io/v1alpha1"},
                        {"metadata", json::object{{"creationTimestamp", nullptr}}},
                        {"spec", spec},
                        {"status", json::object{{"allowed", false}}}};
    auto asked = co_await Ask(json::serialize(review));
    if (!asked.ok()) {
      LogInfo("error contacting webhook backend", {{"plugin", "ImagePolicyWebhook"}, {"error", asked.status().message()}});
      if (!config_.default_allow) co_return ForbiddenFor(a, asked.status().message());
      if (a.scope) a.scope->AddAnnotation(std::string(kAuditPrefix) + "failed-open", "true");
      json::value& md = pod["metadata"];
      if (!md.is_object()) md = json::object();
      json::value& ann = md.as_object()["annotations"];
      if (!ann.is_object()) ann = json::object();
      ann.as_object()[kFailedOpenKey] = "true";
      co_return Status();
    }
    answer = std::move(*asked);
    Cache(key, *answer);
  }
  if (a.scope) {
    for (const auto& [k, v] : answer->audit_annotations) a.scope->AddAnnotation(kAuditPrefix + k, v);
  }
  if (!answer->allowed) {
    co_return ForbiddenFor(a, answer->reason.empty()
                                  ? std::string("one or more images rejected by webhook backend")
                                  : "image policy webhook backend denied one or more images: " + answer->reason);
  }
  co_return Status();
}

StatusOr<std::unique_ptr<Plugin>> NewImagePolicyWebhookPlugin(const PluginDeps& deps) {
  std::optional<json::value> config;
  if (deps.config) {
    ASSIGN_OR_RETURN(config, deps.config->ConfigFor("ImagePolicyWebhook"));
  }
  auto wrap = [](const Status& st) {
    return ConfigError("couldn't init admission plugin \"ImagePolicyWebhook\": " + st.message());
  };
  auto parsed = ParseImagePolicyConfig(config);
  if (!parsed.ok()) return wrap(parsed.status());
  if (!deps.load_webhook_kubeconfig || !deps.webhook.http) {
    return wrap(Status(500, "InternalError", "no webhook client"));
  }
  auto endpoint = deps.load_webhook_kubeconfig(parsed->kubeconfig_file);
  if (!endpoint.ok()) return wrap(endpoint.status());
  auto client = deps.webhook.http->NewClient(endpoint->tls);
  if (!client.ok()) return wrap(client.status());
  return std::unique_ptr<Plugin>(std::make_unique<ImagePolicyWebhook>(*parsed, std::move(*endpoint), std::move(*client)));
}

}  // namespace capstan::admission
