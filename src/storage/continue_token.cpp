#include "storage/continue_token.h"

#include <boost/json.hpp>

#include "util/strings.h"

namespace capstan::storage {
namespace {

// path.Clean for the absolute paths continue tokens carry.
std::string CleanPath(const std::string& p) {
  std::vector<std::string> out;
  for (const auto& part : Split(p, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!out.empty()) out.pop_back();
      continue;
    }
    out.push_back(part);
  }
  std::string cleaned = "/" + Join(out, "/");
  return cleaned;
}

Status Invalid(const std::string& why) { return Status(400, "BadRequest", "invalid continue token: " + why); }

}  // namespace

StatusOr<ContinuePosition> DecodeContinue(const std::string& token, const std::string& key_prefix) {
  std::string data;
  if (!Base64UrlDecode(token, data)) {
    return Invalid("continue key is not valid: illegal base64 data");
  }
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(data, ec);
  if (ec || !v.is_object()) return Invalid("continue key is not valid: " + std::string(ec ? ec.message() : "not an object"));
  const auto& o = v.get_object();
  const auto* ver = o.if_contains("v");
  std::string version = ver && ver->is_string() ? std::string(ver->get_string()) : "";
  if (version != "meta.k8s.io/v1") {
    return Invalid("continue key is not valid: server does not recognize this encoded version " + version);
  }
  int64_t rv = 0;
  if (const auto* r = o.if_contains("rv")) {
    if (r->is_int64()) rv = r->get_int64();
    else if (r->is_uint64()) rv = static_cast<int64_t>(r->get_uint64());
  }
  if (rv == 0) return Invalid("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  const auto* s = o.if_contains("start");
  std::string start = s && s->is_string() ? std::string(s->get_string()) : "";
  if (start.empty()) return Invalid("continue key is not valid: encoded start key empty (version meta.k8s.io/v1)");
  std::string key = start[0] == '/' ? start : "/" + start;
  // Keys of the next item end in "\x00"; CleanPath must not strip it, so compare the part before.
  std::string cleaned = CleanPath(key);
  if (cleaned != key) return Invalid("continue key is not valid: " + start);
  ContinuePosition pos;
  pos.from_key = key_prefix + cleaned.substr(1);
  pos.revision = rv;
  return pos;
}

std::string EncodeContinue(const std::string& next_key, const std::string& key_prefix, int64_t revision) {
  std::string start = next_key.compare(0, key_prefix.size(), key_prefix) == 0 ? next_key.substr(key_prefix.size()) : next_key;
  boost::json::object o;
  o["v"] = "meta.k8s.io/v1";
  o["rv"] = revision;
  o["start"] = start;
  return Base64UrlEncode(boost::json::serialize(o));
}

}  // namespace capstan::storage
