// Fuzzes the admission webhook response path: VerifyResponse on the body, the JSONPatch it carries
// applied to an object, the denial Status, and ParseWebhooks on the same bytes read as a webhook
// configuration.
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "admission/admission_review.h"
#include "admission/webhook_config.h"
#include "apimachinery/json_parse.h"
#include "apimachinery/json_patch.h"

using namespace capstan;
using namespace capstan::admission;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  for (bool mutating : {false, true}) {
    auto r = VerifyResponse("uid-1", mutating, in);
    if (!r.ok()) continue;
    (void)DeniedStatus("w.example.com", r->result);
    if (!r->patch.empty()) {
      boost::json::value doc = boost::json::parse(R"({"metadata":{"name":"x","labels":{"a":"b"}},"data":{"k":"v"}})");
      (void)apimachinery::ApplyJsonPatch(doc, r->patch);
    }
  }
  auto v = apimachinery::ParseJsonValue(in);
  if (v.ok() && v->is_object()) {
    auto hooks = ParseWebhooks({v->as_object()}, true);
    MatchRequest m{"CREATE", "", "v1", "configmaps", "", true};
    for (const auto& h : hooks) (void)RulesMatch(h, m);
  }
  return 0;
}
