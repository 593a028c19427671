// Fuzzes the APF configuration digest: the input is a JSON array of FlowSchema and
// PriorityLevelConfiguration objects (told apart by "kind"); whatever it holds, Apply digests it and
// a request is classified, dispatched and finished.
#include <boost/json.hpp>
#include <cstdint>
#include <memory>
#include <string_view>

#include "flowcontrol/controller.h"

using namespace capstan;
using namespace capstan::flowcontrol;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(in, ec);
  if (ec || !v.is_array()) return 0;
  std::vector<boost::json::value> levels, schemas;
  for (const auto& o : v.as_array()) {
    const boost::json::value* kind = o.is_object() ? o.as_object().if_contains("kind") : nullptr;
    if (kind && kind->is_string() && kind->as_string() == "FlowSchema") {
      schemas.push_back(o);
    } else {
      levels.push_back(o);
    }
  }
  static FakeClock clock;
  ControllerConfig cfg;
  cfg.server_concurrency_limit = 20;
  cfg.run_after = [](std::chrono::nanoseconds, std::function<void()> fn) { fn(); };
  auto c = std::make_shared<Controller>(clock, cfg, nullptr);
  c->Apply(levels, schemas);
  for (const char* user : {"alice", "system:serviceaccount:kube-system:x"}) {
    RequestDigest d;
    d.is_resource_request = true;
    d.verb = "list";
    d.resource = "pods";
    d.namespace_ = "ns";
    d.user.name = user;
    d.user.groups = {"system:authenticated"};
    WorkRequest w;
    w.verb = "list";
    w.resource = "pods";
    Ticket t = c->Start(d, w);
    if (t.request->decision == Decision::kPending) c->Cancel(t);
    c->Finish(t);
  }
  (void)c->DumpPriorityLevels();
  (void)c->DumpQueues();
  (void)c->DumpRequests(true);
  c->UpdateBorrowing();
  return 0;
}
