#include "server/filters/filters.h"
#include "server/http/forwarding_writer.h"

namespace capstan::server {
namespace {

// kube's warning header value: 299, agent "-", the text quoted with " and \ escaped.
std::string WarningHeaderValue(const std::string& text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : text) {
    if (c == '"' || c == '\\') escaped.push_back('\\');
    escaped.push_back(c);
  }
  return "299 - \"" + escaped + "\"";
}

class WarningWriter : public http::ForwardingWriter {
 public:
  WarningWriter(http::ResponseWriter& inner, const RequestScope& scope) : ForwardingWriter(inner), scope_(scope) {}

 private:
  void BeforeStart(int, http::Headers& headers) override {
    for (const auto& w : scope_.warnings()) {
      std::string value = WarningHeaderValue(w);
      bool seen = false;
      for (auto v : headers.GetAll("Warning")) seen = seen || v == value;
      if (!seen) headers.Add("Warning", value);
    }
  }
  const RequestScope& scope_;
};

}  // namespace

Handler WithWarningRecorder(Handler next) {
  return [next = std::move(next)](http::RequestContext& ctx) -> Task<void> {
    WarningWriter w(*ctx.writer, ctx.scope);
    http::ScopedWriter installed(ctx, w);
    co_await next(ctx);
  };
}

}  // namespace capstan::server
