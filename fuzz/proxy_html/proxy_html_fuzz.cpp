// proxy_html_fuzz: arbitrary bytes as a page a backend serves through */proxy
// (endpoints/proxy_html.h): rewriting never crashes, a rewriter that changes nothing gives back the
// input byte for byte, and decoding a gzip or deflate body never crashes nor exceeds its limit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "endpoints/proxy_html.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace capstan::endpoints;
  std::string_view page(reinterpret_cast<const char*>(data), size);
  if (RewriteHtmlLinks(page, [](std::string_view url) { return std::string(url); }) != page) std::abort();
  (void)RewriteHtmlLinks(page, [](std::string_view url) { return "/prefix" + std::string(url) + "\"'<>&"; });
  for (const char* enc : {"gzip", "deflate"}) {
    auto decoded = DecodeContent(page, enc, 1 << 16);
    if (decoded.ok() && decoded->size() > (1 << 16)) std::abort();
  }
  return 0;
}
