// server/healthz.h: /healthz, /livez and /readyz with named checks, per-check endpoints
// (/readyz/<check>), ?verbose and ?exclude=, in kube's text format:
//   [+]ping ok
//   [-]etcd failed: reason withheld
//   readyz check failed
// Checks are registered before the server starts; running them is thread-safe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "apimachinery/status.h"
#include "server/router.h"
#include "util/metrics.h"
#include "util/task.h"

namespace capstan::server {

class HealthChecks {
 public:
  using Check = std::function<Task<Status>()>;
  enum Endpoint : unsigned { kHealthz = 1, kLivez = 2, kReadyz = 4, kAll = 7 };

  void Add(std::string name, Check check, unsigned endpoints = kAll);
  void Install(Router& router);
  // Records each check the /healthz, /livez and /readyz handlers run as kube's SLI metrics
  // kubernetes_healthcheck{name,type} and kubernetes_healthchecks_total{name,type,status}.
  void RecordTo(MetricsRegistry& slis);

  // Runs the checks of one endpoint ("healthz", "livez", "readyz") as its handler does.
  Task<http::HttpResponse> Run(const std::string& endpoint, const http::Query& query) const;
  Task<http::HttpResponse> RunOne(const std::string& endpoint, const std::string& check) const;

 private:
  struct Entry {
    std::string name;
    Check check;
    unsigned endpoints;
  };
  void Observe(const std::string& name, const std::string& endpoint, bool ok) const;

  std::vector<Entry> checks_;
  GaugeVec* result_ = nullptr;
  CounterVec* results_total_ = nullptr;
};

}  // namespace capstan::server
