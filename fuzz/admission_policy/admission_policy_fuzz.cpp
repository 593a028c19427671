// Fuzzes ValidatingAdmissionPolicy handling: the bytes as a policy (CompilePolicy, then EvaluatePolicy
// on a fixed Deployment create) and as a binding (ParseBinding, then its matchResources), and the
// policy's matchConditions compiled as a webhook's.
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "admission/match_conditions.h"
#include "admission/validating_policy.h"
#include "apimachinery/json_parse.h"

using namespace capstan;
using namespace capstan::admission;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto v = apimachinery::ParseJsonValue(in);
  if (!v.ok() || !v->is_object()) return 0;
  static registry::ResourceInfo info = [] {
    registry::ResourceInfo i;
    i.group = "apps";
    i.version = "v1";
    i.resource = "deployments";
    i.kind = "Deployment";
    return i;
  }();
  registry::Object obj = boost::json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web",
      "namespace":"prod","labels":{"app":"web"}},"spec":{"replicas":7,"template":{"spec":{"containers":[{"name":"c"}]}}}})")
                             .as_object();
  UserInfo user{"alice", "", {"system:authenticated"}, {}};
  Attributes a;
  a.operation = "CREATE";
  a.resource = &info;
  a.namespace_ = "prod";
  a.name = "web";
  a.object = &obj;
  a.user = &user;
  auto policy = CompilePolicy(v->as_object());
  (void)PolicyMatches(policy->match_constraints, a, nullptr);
  (void)EvaluatePolicy(*policy, AdmissionValuesFor(a));
  PolicyBinding b = ParseBinding(v->as_object());
  (void)PolicyMatches(b.match_resources, a, nullptr);
  if (const auto* spec = v->as_object().if_contains("spec"); spec && spec->is_object()) {
    if (const auto* mc = spec->as_object().if_contains("matchConditions"); mc && mc->is_array()) {
      auto conditions = MatchConditions::Compile(mc->as_array(), false);
      cel::AdmissionActivation act(AdmissionValuesFor(a));
      (void)conditions->Match(act, true);
    }
  }
  return 0;
}
