// Fuzzes the CRD conversion webhook response path: ParseConversionResponse on the body (v1 with its
// kind and uid checks, v1beta1 without), each converted object checked against an original
// (CheckConvertedObject: kind, name, namespace, uid, labels and annotations), and
// ParseConversionWebhook on the same bytes read as a CRD.
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/apiextensions/conversion_webhook.h"
#include "apimachinery/json_parse.h"

using namespace capstan;
using namespace capstan::api::apiextensions;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  static const Object original = boost::json::parse(
      R"({"apiVersion":"example.com/v1","kind":"Book","metadata":{"name":"dune","namespace":"default","uid":"u-1",
          "labels":{"a":"b"},"annotations":{"x":"y"}},"spec":{"name":"Dune"}})").as_object();
  for (const char* version : {"v1", "v1beta1"}) {
    auto r = ParseConversionResponse(in, version, "uid-1", 1, "example.com/v1, Kind=Book");
    if (!r.ok()) continue;
    for (auto& converted : *r) {
      bool metadata_error = false;
      (void)CheckConvertedObject(original, converted, &metadata_error);
    }
  }
  auto v = apimachinery::ParseJsonValue(in);
  if (v.ok() && v->is_object()) (void)ParseConversionWebhook(v->as_object());
  return 0;
}
