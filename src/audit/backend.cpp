#include "audit/backend.h"

#include <cmath>

#include "util/log.h"
#include "util/strings.h"

namespace capstan::audit {

void HandlePluginError(AuditMetrics* metrics, std::string_view plugin, std::string_view error, size_t impacted) {
  bool log = true;
  double total = static_cast<double>(impacted);
  if (metrics) {
    Counter* c = metrics->errors.With({std::string(plugin)});
    double before = c->Value();
    c->Inc(static_cast<double>(impacted));
    total = before + static_cast<double>(impacted);
    log = before == 0 || std::floor(before / 1000) != std::floor(total / 1000);
  }
  if (!log) return;
  LogError("error in audit plugin", {{"plugin", std::string(plugin)},
                                     {"impacted", static_cast<int64_t>(impacted)},
                                     {"error", std::string(error)},
                                     {"failed_total", static_cast<int64_t>(total)}});
}

bool UnionBackend::ProcessEvents(std::vector<EventPtr> events) {
  bool ok = true;
  for (auto& m : members_) ok = m->ProcessEvents(events) && ok;
  return ok;
}

Task<bool> UnionBackend::ProcessEventsAsync(std::vector<EventPtr> events) {
  bool ok = true;
  for (auto& m : members_) ok = co_await m->ProcessEventsAsync(events) && ok;
  co_return ok;
}

void UnionBackend::Shutdown() {
  for (auto& m : members_) m->Shutdown();
}

std::string UnionBackend::Name() const {
  std::vector<std::string> names;
  for (const auto& m : members_) names.push_back(m->Name());
  return "union[" + Join(names, ",") + "]";
}

}  // namespace capstan::audit
