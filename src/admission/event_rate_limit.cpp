#include "admission/event_rate_limit.h"

#include <boost/json.hpp>
#include <cmath>
#include <list>
#include <mutex>
#include <set>
#include <unordered_map>

#include "admission/builtin_plugins.h"
#include "admission/plugin_config_decode.h"
#include "apimachinery/errors.h"
#include "apimachinery/field_errors.h"

namespace capstan::admission {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

constexpr char kApiVersion[] = "eventratelimit.admission.k8s.io/v1alpha1";
constexpr char kSchemeName[] = "k8s.io/kubernetes/plugin/pkg/admission/eventratelimit/config.go:31";
constexpr int kDefaultCacheSize = 4096;
const std::vector<std::string> kLimitTypes = {"Server", "Namespace", "User", "SourceAndObject"};

// The Go %#v of the internal limits slice, as kube's "must not be empty" error prints it.
FieldError EmptyLimits(bool null) {
  FieldError e = InvalidError(FieldPath("limits"), "", "must not be empty");
  e.omit_value = true;
  e.detail = std::string(null ? "[]eventratelimit.Limit(nil)" : "[]eventratelimit.Limit{}") + ": " + e.detail;
  return e;
}

StatusOr<EventRateLimitConfig> Decode(const json::value& config, bool& limits_null) {
  RETURN_IF_ERROR(CheckConfigKind(config, {kApiVersion}, "Configuration", kSchemeName));
  EventRateLimitConfig out;
  const json::value* limits = config.get_object().if_contains("limits");
  limits_null = !limits || limits->is_null();
  if (limits_null) return out;
  if (!limits->is_array()) return UnmarshalTypeError(*limits, "Configuration.limits", "[]v1alpha1.Limit");
  for (const auto& item : limits->get_array()) {
    if (item.is_null()) {
      out.limits.emplace_back();
      continue;
    }
    if (!item.is_object()) return UnmarshalTypeError(item, "Configuration.limits", "v1alpha1.Limit");
    const json::object& o = item.get_object();
    EventRateLimitConfig::Limit l;
    if (const json::value* t = o.if_contains("type"); t && !t->is_null()) {
      if (!t->is_string()) return UnmarshalTypeError(*t, "Limit.limits.type", "v1alpha1.LimitType");
      l.type = std::string(t->get_string());
    }
    ASSIGN_OR_RETURN(l.qps, Int32Field(o, "qps", "Limit.limits.qps"));
    ASSIGN_OR_RETURN(l.burst, Int32Field(o, "burst", "Limit.limits.burst"));
    ASSIGN_OR_RETURN(l.cache_size, Int32Field(o, "cacheSize", "Limit.limits.cacheSize"));
    out.limits.push_back(std::move(l));
  }
  return out;
}

// kube's validation.ValidateConfiguration.
ErrorList Validate(const EventRateLimitConfig& c, bool limits_null) {
  ErrorList errs;
  FieldPath limits("limits");
  if (c.limits.empty()) errs.push_back(EmptyLimits(limits_null));
  for (size_t i = 0; i < c.limits.size(); ++i) {
    const auto& l = c.limits[i];
    FieldPath p = limits.Index(i);
    if (std::find(kLimitTypes.begin(), kLimitTypes.end(), l.type) == kLimitTypes.end()) {
      errs.push_back(NotSupportedError(p.Child("type"), l.type, kLimitTypes));
    }
    if (l.burst <= 0) errs.push_back(InvalidError(p.Child("burst"), l.burst, "must be positive"));
    if (l.qps <= 0) errs.push_back(InvalidError(p.Child("qps"), l.qps, "must be positive"));
    if (l.type != "Server" && l.cache_size < 0) {
      errs.push_back(InvalidError(p.Child("cacheSize"), l.cache_size, "must not be negative"));
    }
  }
  return errs;
}

std::string StringAt(const json::object* o, const char* key) {
  const json::value* v = o ? o->if_contains(key) : nullptr;
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

const json::object* ObjectAt(const json::object* o, const char* key) {
  const json::value* v = o ? o->if_contains(key) : nullptr;
  return v && v->is_object() ? &v->get_object() : nullptr;
}

// kube's getSourceAndObjectKey: the event's source and involved object, concatenated.
std::string SourceAndObjectKey(const json::object* event) {
  if (!event) return "";
  const json::object* source = ObjectAt(event, "source");
  const json::object* involved = ObjectAt(event, "involvedObject");
  return StringAt(source, "component") + StringAt(source, "host") + StringAt(involved, "kind") +
         StringAt(involved, "namespace") + StringAt(involved, "name") + StringAt(involved, "uid") +
         StringAt(involved, "apiVersion");
}

}  // namespace

StatusOr<EventRateLimitConfig> ParseEventRateLimitConfig(const std::optional<json::value>& config) {
  EventRateLimitConfig out;
  bool limits_null = true;
  if (config) {
    ASSIGN_OR_RETURN(out, Decode(*config, limits_null));
  }
  ErrorList errs = Validate(out, limits_null);
  if (!errs.empty()) return ConfigError(AggregateMessage(errs));
  return out;
}

bool TokenBucket::TryAccept(std::chrono::steady_clock::time_point now) {
  double tokens = burst_;
  if (last_) {
    auto last = std::min(*last_, now);
    double elapsed = std::chrono::duration<double>(now - last).count();
    tokens = std::min<double>(burst_, tokens_ + elapsed * qps_);
  }
  tokens -= 1;
  // x/time/rate: the wait for the missing fraction of a token, truncated to nanoseconds, must be zero.
  int64_t wait_ns = tokens < 0 ? static_cast<int64_t>(1e9 * (-tokens / qps_)) : 0;
  if (burst_ < 1 || wait_ns > 0) return false;
  tokens_ = tokens;
  last_ = now;
  return true;
}

// One limit: its bucket, or its buckets by key in an LRU cache (k8s.io/utils/lru: a hit moves the key
// to the front; adding past the size drops the least recently used).
class EventRateLimit::Enforcer {
 public:
  explicit Enforcer(const EventRateLimitConfig::Limit& l)
      : type_(l.type), qps_(l.qps), burst_(l.burst),
        size_(l.type == "Server" ? 1 : (l.cache_size == 0 ? kDefaultCacheSize : l.cache_size)) {}

  // An empty string when accepted, else kube's reason.
  std::string Accept(const Attributes& a, std::chrono::steady_clock::time_point now) {
    std::string key = Key(a);
    std::lock_guard<std::mutex> lock(mu_);
    if (BucketLocked(key).TryAccept(now)) return "";
    return "limit reached on type " + type_ + " for key " + key;
  }

 private:
  std::string Key(const Attributes& a) const {
    if (type_ == "Namespace") return a.namespace_;
    if (type_ == "User") return a.user ? a.user->name : "";
    if (type_ == "SourceAndObject") return SourceAndObjectKey(a.object);
    return "";  // Server
  }

  TokenBucket& BucketLocked(const std::string& key) {
    if (auto it = index_.find(key); it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->second;
    }
    lru_.emplace_front(key, TokenBucket(qps_, burst_));
    index_[key] = lru_.begin();
    if (lru_.size() > size_) {
      index_.erase(lru_.back().first);
      lru_.pop_back();
    }
    return lru_.front().second;
  }

  const std::string type_;
  const double qps_;
  const int burst_;
  const size_t size_;
  std::mutex mu_;
  // Most recently used first.
  std::list<std::pair<std::string, TokenBucket>> lru_;  // GUARDED_BY(mu_)
  std::unordered_map<std::string, std::list<std::pair<std::string, TokenBucket>>::iterator> index_;  // GUARDED_BY(mu_)
};

EventRateLimit::EventRateLimit(const EventRateLimitConfig& config, const Clock& clock) : clock_(clock) {
  for (const auto& l : config.limits) enforcers_.push_back(std::make_unique<Enforcer>(l));
}

EventRateLimit::~EventRateLimit() = default;

Task<Status> EventRateLimit::Validate(const Attributes& a) {
  if (!a.resource || a.resource->GroupKind() != am::GroupKind{"", "Event"}) co_return Status();
  // A dry run stores nothing, so it takes no tokens.
  if (a.dry_run) co_return Status();
  auto now = clock_.Monotonic();
  // Every limit is asked, so each takes its token even when another refuses (as kube's).
  std::vector<std::string> refused;
  for (auto& e : enforcers_) {
    std::string why = e->Accept(a, now);
    if (!why.empty() && std::find(refused.begin(), refused.end(), why) == refused.end()) refused.push_back(why);
  }
  if (refused.empty()) co_return Status();
  std::string message = refused[0];
  if (refused.size() > 1) {
    message = "[" + refused[0];
    for (size_t i = 1; i < refused.size(); ++i) message += ", " + refused[i];
    message += "]";
  }
  co_return am::NewTooManyRequestsError(message);
}

StatusOr<std::unique_ptr<Plugin>> NewEventRateLimitPlugin(const PluginDeps& deps) {
  std::optional<json::value> config;
  if (deps.config) {
    ASSIGN_OR_RETURN(config, deps.config->ConfigFor("EventRateLimit"));
  }
  auto parsed = ParseEventRateLimitConfig(config);
  if (!parsed.ok()) return ConfigError("couldn't init admission plugin \"EventRateLimit\": " + parsed.status().message());
  const Clock& clock = deps.clock ? *deps.clock : RealClock::Get();
  return std::unique_ptr<Plugin>(std::make_unique<EventRateLimit>(*parsed, clock));
}

}  // namespace capstan::admission
