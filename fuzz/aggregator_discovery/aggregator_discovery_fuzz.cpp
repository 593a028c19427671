// Fuzzes the aggregation layer's reading of remote and stored JSON: VersionDiscoveryFromResourceList on
// a body as an aggregated server would send it, ParseApiService on the same bytes read as an
// APIService, OrderGroups over what was parsed, and the kube-aware version comparison on the raw text.
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "aggregator/api_service_info.h"
#include "apimachinery/json_parse.h"
#include "apimachinery/version_priority.h"

using namespace capstan;
using namespace capstan::aggregator;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  size_t half = in.size() / 2;
  (void)apimachinery::CompareKubeAwareVersionStrings(in.substr(0, half), in.substr(half));
  auto v = apimachinery::ParseJsonValue(in);
  if (!v.ok() || !v->is_object()) return 0;
  const boost::json::object& o = v->as_object();
  (void)VersionDiscoveryFromResourceList(o, "example.com", "v1", false);
  auto info = ParseApiService(o);
  if (info) {
    ApiServiceInfo other = *info;
    other.version = "v1";
    (void)OrderGroups({*info, other});
  }
  return 0;
}
