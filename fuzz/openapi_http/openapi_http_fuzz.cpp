// Fuzzes the OpenAPI handler's request parsing. Input: up to four lines: the path after "/openapi/v"
// (with its query), then the Accept, If-None-Match and If-Modified-Since header values.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "endpoints/openapi_handler.h"
#include "endpoints/openapi_test_util.h"
#include "fakes/fake_response_writer.h"

namespace {

using namespace capstan;

struct Env {
  endpoints::ApiRegistry apis;
  std::unique_ptr<endpoints::OpenApiHandler> handler;
  Env() {
    auto schemas = testing::BuiltinSchemas();
    testing::InstallStub<testing::FullStub>(
        apis, testing::Info("", "v1", "configmaps", "ConfigMap", true, "io.k8s.api.core.v1.ConfigMap"), schemas.get());
    testing::InstallStub<testing::FullStub>(
        apis, testing::Info("coordination.k8s.io", "v1", "leases", "Lease", true, "io.k8s.api.coordination.v1.Lease"),
        schemas.get());
    handler = std::make_unique<endpoints::OpenApiHandler>(apis, schemas.get(), "v1.32.0");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Env* env = new Env();
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string parts[4];
  for (int i = 0; i < 4; ++i) {
    size_t nl = in.find('\n');
    parts[i] = std::string(in.substr(0, nl));
    if (nl == std::string_view::npos) {
      in = {};
    } else {
      in.remove_prefix(nl + 1);
    }
  }
  endpoints::ParseAcceptClauses(parts[1]);
  endpoints::IfNoneMatchMatches(parts[2], "ABC");

  testing::FakeResponseWriter w;
  auto ctx = testing::MakeContext("GET", "/openapi/v" + parts[0], w);
  if (!parts[1].empty()) ctx->request.headers.Add("Accept", parts[1]);
  if (!parts[2].empty()) ctx->request.headers.Add("If-None-Match", parts[2]);
  if (!parts[3].empty()) ctx->request.headers.Add("If-Modified-Since", parts[3]);
  if (ctx->request.path == "/openapi/v2") {
    SyncWait(env->handler->HandleV2(*ctx));
  } else if (ctx->request.path.rfind("/openapi/v3", 0) == 0) {
    SyncWait(env->handler->HandleV3(*ctx));
  } else {
    return 0;
  }
  switch (w.status()) {
    case 200: case 301: case 304: case 404: case 406: break;
    default: std::abort();
  }
  return 0;
}
