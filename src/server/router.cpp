#include "server/router.h"

#include <algorithm>

#include "server/http/responses.h"

namespace capstan::server {

Status NotFoundStatus() { return Status(404, "NotFound", "the server could not find the requested resource"); }

void Router::Handle(std::string path, http::Handler h) { exact_[std::move(path)] = std::move(h); }

void Router::HandlePrefix(std::string prefix, http::Handler h) {
  prefixes_.emplace_back(std::move(prefix), std::move(h));
  std::sort(prefixes_.begin(), prefixes_.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

void Router::HandleUnlisted(std::string path, http::Handler h) {
  unlisted_.push_back(path);
  Handle(std::move(path), std::move(h));
}

void Router::HandlePrefixUnlisted(std::string prefix, http::Handler h) {
  unlisted_.push_back(prefix);
  HandlePrefix(std::move(prefix), std::move(h));
}

Task<void> Router::Dispatch(http::RequestContext& ctx) const {
  const std::string& path = ctx.request.path;
  if (auto it = exact_.find(path); it != exact_.end()) {
    co_await it->second(ctx);
    co_return;
  }
  for (const auto& [prefix, h] : prefixes_) {
    if (path == prefix || (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
                           path[prefix.size()] == '/')) {
      co_await h(ctx);
      co_return;
    }
  }
  co_await http::RespondStatus(ctx, NotFoundStatus());
}

std::vector<std::string> Router::Paths() const {
  std::vector<std::string> out;
  auto listed = [this](const std::string& p) { return std::find(unlisted_.begin(), unlisted_.end(), p) == unlisted_.end(); };
  for (const auto& [p, h] : exact_) {
    if (listed(p)) out.push_back(p);
  }
  for (const auto& [p, h] : prefixes_) {
    if (listed(p)) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace capstan::server
