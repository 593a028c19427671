#include "server/healthz.h"

#include <set>

#include "server/http/responses.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::server {
namespace {
unsigned Bit(const std::string& endpoint) {
  if (endpoint == "healthz") return HealthChecks::kHealthz;
  if (endpoint == "livez") return HealthChecks::kLivez;
  return HealthChecks::kReadyz;
}
}  // namespace

void HealthChecks::Add(std::string name, Check check, unsigned endpoints) {
  checks_.push_back({std::move(name), std::move(check), endpoints});
}

void HealthChecks::RecordTo(MetricsRegistry& slis) {
  result_ = &slis.NewGaugeVec("kubernetes_healthcheck", "This metric records the result of a single healthcheck.",
                              {"name", "type"});
  results_total_ = &slis.NewCounterVec("kubernetes_healthchecks_total",
                                       "This metric records the results of all healthcheck.", {"name", "type", "status"});
}

void HealthChecks::Observe(const std::string& name, const std::string& endpoint, bool ok) const {
  if (!result_) return;
  result_->With({name, endpoint})->Set(ok ? 1 : 0);
  results_total_->With({name, endpoint, ok ? "success" : "error"})->Inc();
}

Task<http::HttpResponse> HealthChecks::Run(const std::string& endpoint, const http::Query& query) const {
  std::set<std::string> excluded;
  if (const auto* vals = query.GetAll("exclude")) {
    for (const auto& v : *vals) {
      for (const auto& part : Split(v, ',')) {
        std::string t(TrimSpace(part));
        if (!t.empty()) excluded.insert(t);
      }
    }
  }
  std::set<std::string> unknown = excluded;
  std::string out;
  std::string failed_log;
  std::vector<std::string> failed;
  unsigned bit = Bit(endpoint);
  for (const auto& c : checks_) {
    if (!(c.endpoints & bit)) continue;
    if (excluded.count(c.name)) {
      unknown.erase(c.name);
      out += "[+]" + c.name + " excluded: ok\n";
      continue;
    }
    Status st = co_await c.check();
    Observe(c.name, endpoint, st.ok());
    if (!st.ok()) {
      out += "[-]" + c.name + " failed: reason withheld\n";
      failed_log += "[-]" + c.name + " failed: " + st.message() + "\n";
      failed.push_back(c.name);
    } else {
      out += "[+]" + c.name + " ok\n";
    }
  }
  if (!unknown.empty()) {
    std::vector<std::string> q;
    for (const auto& u : unknown) q.push_back(GoQuote(u));
    out += "warn: some health checks cannot be excluded: no matches for " + Join(q, ",") + "\n";
  }
  if (!failed.empty()) {
    LogInfo("health check failed", {{"endpoint", endpoint}, {"checks", Join(failed, ",")}});
    co_return http::TextResponse(out + endpoint + " check failed\n", 500);
  }
  if (!query.Has("verbose")) co_return http::TextResponse("ok");
  co_return http::TextResponse(out + endpoint + " check passed\n");
}

Task<http::HttpResponse> HealthChecks::RunOne(const std::string& endpoint, const std::string& check) const {
  unsigned bit = Bit(endpoint);
  for (const auto& c : checks_) {
    if (c.name != check || !(c.endpoints & bit)) continue;
    Status st = co_await c.check();
    if (!st.ok()) co_return http::TextResponse("internal server error: " + st.message() + "\n", 500);
    co_return http::TextResponse("ok");
  }
  co_return http::StatusResponse(NotFoundStatus());
}

void HealthChecks::Install(Router& router) {
  for (std::string endpoint : {"healthz", "livez", "readyz"}) {
    router.Handle("/" + endpoint, [this, endpoint](http::RequestContext& ctx) -> Task<void> {
      co_await ctx.writer->Respond(co_await Run(endpoint, ctx.request.query));
    });
    unsigned bit = Bit(endpoint);
    for (const auto& c : checks_) {
      if (!(c.endpoints & bit)) continue;
      std::string name = c.name;
      router.Handle("/" + endpoint + "/" + name, [this, endpoint, name](http::RequestContext& ctx) -> Task<void> {
        co_await ctx.writer->Respond(co_await RunOne(endpoint, name));
      });
    }
  }
}

}  // namespace capstan::server
