// admission/event_rate_limit.h: EventRateLimit (off by default): creates and updates of core v1
// Events beyond a rate are refused with 429 "Too many requests: limit reached on type Namespace for
// key <ns>". Its configuration (kind Configuration of eventratelimit.admission.k8s.io/v1alpha1,
// required: kube has no default limits) lists limits of type Server (one bucket for the whole server),
// Namespace, User or SourceAndObject (one bucket per namespace, user name, or event source + involved
// object, kept in an LRU cache of cacheSize buckets, 4096 by default; an evicted key starts again
// with a full bucket). Each bucket is a token bucket as golang.org/x/time/rate's: it starts with
// `burst` tokens and gains `qps` per second up to `burst`; an event takes one token from every
// limit's bucket, and is refused when any of them is empty. Dry runs and events.k8s.io Events are not
// limited (kube matches the core kind only). The plugin owns its buckets; thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "admission/plugin.h"
#include "util/clock.h"

namespace capstan::admission {

struct PluginDeps;

struct EventRateLimitConfig {
  struct Limit {
    std::string type;  // Server, Namespace, User, SourceAndObject
    int32_t qps = 0;
    int32_t burst = 0;
    int32_t cache_size = 0;  // 0: 4096; ignored for Server
  };
  std::vector<Limit> limits;
};

// Decodes and validates the plugin's configuration (nullopt: none given, which kube refuses as
// "limits: Invalid value: []eventratelimit.Limit(nil): must not be empty"). Errors are kube's texts,
// several in brackets: "[limits[0].burst: Invalid value: 0: must be positive, ...]".
StatusOr<EventRateLimitConfig> ParseEventRateLimitConfig(const std::optional<boost::json::value>& config);

// golang.org/x/time/rate's Limiter as client-go's token bucket rate limiter uses it (TryAccept:
// AllowN(now, 1)). Not thread-safe: the owner locks.
class TokenBucket {
 public:
  TokenBucket(double qps, int burst) : qps_(qps), burst_(burst), tokens_(burst) {}
  bool TryAccept(std::chrono::steady_clock::time_point now);

 private:
  double qps_;
  int burst_;
  double tokens_;
  std::optional<std::chrono::steady_clock::time_point> last_;  // none: never used (a full bucket)
};

class EventRateLimit : public Plugin {
 public:
  // `clock` (its monotonic time) refills the buckets; it outlives the plugin.
  EventRateLimit(const EventRateLimitConfig& config, const Clock& clock);
  ~EventRateLimit() override;
  std::string Name() const override { return "EventRateLimit"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE"; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;

 private:
  class Enforcer;
  const Clock& clock_;
  std::vector<std::unique_ptr<Enforcer>> enforcers_;
};

// The plugin from --admission-control-config-file's EventRateLimit entry; kube's start-up error
// ("couldn't init admission plugin \"EventRateLimit\": ...") when it is missing or invalid.
StatusOr<std::unique_ptr<Plugin>> NewEventRateLimitPlugin(const PluginDeps& deps);

}  // namespace capstan::admission
