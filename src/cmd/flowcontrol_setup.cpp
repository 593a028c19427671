#include "cmd/flowcontrol_setup.h"

#include <boost/json.hpp>
#include <set>
#include <tuple>

#include "apimachinery/time_util.h"
#include "controllers/api_client.h"
#include "controllers/informer.h"
#include "controllers/run_scope.h"
#include "server/http/responses.h"
#include "storage/cacher/cacher.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::cmd {

namespace json = boost::json;

namespace {

const controllers::Gvr kFlowSchemas{"flowcontrol.apiserver.k8s.io", "v1", "flowschemas"};
const controllers::Gvr kPriorityLevels{"flowcontrol.apiserver.k8s.io", "v1", "prioritylevelconfigurations"};

std::string Key(const std::string& group, const std::string& resource) {
  return group.empty() ? resource : resource + "." + group;
}

std::string DanglingMessage(const std::string& level, bool found) {
  return "This FlowSchema references the PriorityLevelConfiguration object named " + GoQuote(level) +
         (found ? " and it exists" : " but there is no such object");
}

// True when the schema's Dangling condition already says what `found` means.
bool DanglingIsCurrent(const json::object& fs, bool found, const std::string& level) {
  const json::value* conds = controllers::JsonPath(fs, {"status", "conditions"});
  if (!conds || !conds->is_array()) return false;
  for (const auto& c : conds->as_array()) {
    if (!c.is_object()) continue;
    const auto& o = c.as_object();
    auto str = [&](const char* k) {
      const json::value* v = o.if_contains(k);
      return v && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    if (str("type") != "Dangling") continue;
    return str("status") == (found ? "False" : "True") && str("reason") == (found ? "Found" : "NotFound") &&
           str("message") == DanglingMessage(level, found);
  }
  return false;
}

}  // namespace

ApfSetup::ApfSetup(const endpoints::ApiRegistry& apis, storage::CacherFactory* caches, MetricsRegistry& metrics,
                   int server_concurrency_limit)
    : apis_(apis), caches_(caches), metrics_(std::make_unique<flowcontrol::Metrics>(metrics)),
      counts_(std::make_shared<Counts>()) {
  flowcontrol::ControllerConfig cfg;
  cfg.server_concurrency_limit = server_concurrency_limit;
  cfg.object_count = [this](const std::string& group, const std::string& resource) -> std::optional<int64_t> {
    std::shared_ptr<const Counts> c;
    {
      std::lock_guard lock(counts_mu_);
      c = counts_;
    }
    auto it = c->objects.find(Key(group, resource));
    if (it == c->objects.end()) return std::nullopt;
    return it->second;
  };
  controller_ = std::make_shared<flowcontrol::Controller>(RealClock::Get(), std::move(cfg), metrics_.get());
}

ApfSetup::~ApfSetup() { Stop(); }

void ApfSetup::InstallDebugRoutes(server::Router& router) {
  auto c = controller_;
  router.Handle("/debug/api_priority_and_fairness/dump_priority_levels", [c](http::RequestContext& ctx) -> Task<void> {
    co_await http::RespondText(ctx, c->DumpPriorityLevels());
  });
  router.Handle("/debug/api_priority_and_fairness/dump_queues", [c](http::RequestContext& ctx) -> Task<void> {
    co_await http::RespondText(ctx, c->DumpQueues());
  });
  router.Handle("/debug/api_priority_and_fairness/dump_requests", [c](http::RequestContext& ctx) -> Task<void> {
    bool details = !ctx.request.query.Get("includeRequestDetails").value_or("").empty();
    co_await http::RespondText(ctx, c->DumpRequests(details));
  });
}

void ApfSetup::Start() {
  if (started_.exchange(true)) return;
  RefreshCounts();
  loop_ = std::make_shared<LocalLoop>();
  thread_ = std::thread([this] { Loop(); });
}

void ApfSetup::Loop() {
  ExecutorScope executor(loop_);
  client_ = std::make_unique<controllers::ApiClient>(apis_, controllers::ControllerManagerUser(), "api-priority-and-fairness-config-consumer-v1");
  scope_ = std::make_unique<controllers::RunScope>(loop_, [this] { loop_->Stop(); });
  auto informer = [&](const controllers::Gvr& gvr, const char* kind) {
    controllers::InformerOptions o;
    o.gvr = gvr;
    o.api_version = "flowcontrol.apiserver.k8s.io/v1";
    o.kind = kind;
    auto inf = std::make_unique<controllers::Informer>(*client_, *scope_, o);
    controllers::EventHandler h;
    h.on_add = [this](const controllers::Object&) { ScheduleSync(); };
    h.on_update = [this](const controllers::Object&, const controllers::Object&) { ScheduleSync(); };
    h.on_delete = [this](const controllers::Object&) { ScheduleSync(); };
    inf->AddHandler(std::move(h));
    inf->Run();
    return inf;
  };
  levels_ = informer(kPriorityLevels, "PriorityLevelConfiguration");
  schemas_ = informer(kFlowSchemas, "FlowSchema");
  scope_->Spawn(Ticker());
  loop_->Run();
  schemas_.reset();
  levels_.reset();
  scope_.reset();
  client_.reset();
}

void ApfSetup::ScheduleSync() {
  if (sync_pending_) return;
  sync_pending_ = true;
  loop_->Post([this] {
    sync_pending_ = false;
    Sync();
  });
}

// kube's syncOne: the whole configuration at once, after both informers have listed.
void ApfSetup::Sync() {
  if (stopping_ || !levels_->HasSynced() || !schemas_->HasSynced()) return;
  std::vector<json::value> pls, fss;
  std::set<std::string> level_names;
  levels_->ForEach([&](const controllers::Object& o) {
    pls.emplace_back(o);
    level_names.insert(controllers::JsonString(o, {"metadata", "name"}));
  });
  std::vector<std::tuple<std::string, bool, std::string>> dangling_updates;
  schemas_->ForEach([&](const controllers::Object& o) {
    fss.emplace_back(o);
    std::string level = controllers::JsonString(o, {"spec", "priorityLevelConfiguration", "name"});
    bool found = level_names.count(level) > 0;
    if (!DanglingIsCurrent(o, found, level)) {
      dangling_updates.emplace_back(controllers::JsonString(o, {"metadata", "name"}), found, level);
    }
  });
  controller_->Apply(pls, fss);
  for (auto& [name, found, level] : dangling_updates) scope_->Spawn(UpdateDangling(name, found, level));
}

Task<void> ApfSetup::UpdateDangling(std::string name, bool found, std::string level) {
  auto result = co_await client_->Mutate(
      kFlowSchemas, "", name,
      [&](controllers::Object& fs) -> StatusOr<bool> {
        std::string current = controllers::JsonString(fs, {"spec", "priorityLevelConfiguration", "name"});
        if (current != level || DanglingIsCurrent(fs, found, level)) return false;
        json::object cond{{"type", "Dangling"},
                          {"status", found ? "False" : "True"},
                          {"lastTransitionTime", apimachinery::FormatRfc3339(apimachinery::Timestamp::Now())},
                          {"reason", found ? "Found" : "NotFound"},
                          {"message", DanglingMessage(level, found)}};
        json::value& status = fs["status"];
        if (!status.is_object()) status = json::object{};
        json::value& conds = status.as_object()["conditions"];
        if (!conds.is_array()) conds = json::array{};
        json::array kept;
        for (auto& c : conds.as_array()) {
          if (c.is_object() && c.as_object().if_contains("type") && c.as_object().at("type") == "Dangling") continue;
          kept.push_back(c);
        }
        kept.push_back(std::move(cond));
        conds = std::move(kept);
        return true;
      },
      "status");
  if (!result.ok() && result.status().code() != 404 && result.status().code() != 409) {
    LogWarn("flow schema status", {{"name", name}, {"error", result.status().message()}});
  }
}

Task<void> ApfSetup::Ticker() {
  int ticks = 0;
  while (co_await scope_->Sleep(std::chrono::seconds(1))) {
    RefreshCounts();
    if (++ticks % 10 == 0) controller_->UpdateBorrowing();  // kube's borrowingAdjustmentPeriod
  }
}

void ApfSetup::RefreshCounts() {
  auto c = std::make_shared<Counts>();
  if (caches_) {
    for (storage::Cacher* cacher : caches_->cachers()) {
      auto stats = cacher->GetStats();
      std::string key = Key(cacher->group(), cacher->resource());
      c->objects[key] += static_cast<int64_t>(stats.objects);
    }
  }
  std::lock_guard lock(counts_mu_);
  counts_ = std::move(c);
}

void ApfSetup::Stop() {
  if (!started_.exchange(false)) return;
  loop_->Post([this] {
    stopping_ = true;
    if (levels_) levels_->Stop();
    if (schemas_) schemas_->Stop();
    scope_->Stop();
  });
  thread_.join();
}

}  // namespace capstan::cmd
