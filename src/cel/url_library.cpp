// kube's URL library (apiserver/pkg/cel/library/urls.go): url(), isURL(), and the kubernetes.URL
// accessors getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery. Parsing follows
// Go's net/url ParseRequestURI (absolute URLs or absolute paths) with its error texts
// ("URL parse error during conversion from string: parse \"x\": invalid URI for request").
#include <map>

#include "cel/functions.h"

namespace capstan::cel {

namespace {

struct Url {
  std::string scheme, opaque, host, path, raw_path, raw_query;
};

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Go's url.unescape; plus_space for query components.
bool Unescape(std::string_view s, bool plus_space, std::string& out, std::string& err) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%') {
      if (i + 2 >= s.size() || Hex(s[i + 1]) < 0 || Hex(s[i + 2]) < 0) {
        std::string_view bad = s.substr(i, std::min<size_t>(3, s.size() - i));
        err = "invalid URL escape \"" + std::string(bad) + "\"";
        return false;
      }
      out.push_back(static_cast<char>(Hex(s[i + 1]) * 16 + Hex(s[i + 2])));
      i += 2;
    } else if (s[i] == '+' && plus_space) {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return true;
}

bool ValidPort(std::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  for (char c : port.substr(1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Go's url.ParseRequestURI: the message after `parse "raw": ` on failure.
std::optional<Url> ParseRequestUri(std::string_view raw, std::string& err) {
  for (unsigned char c : raw) {
    if (c < 0x20 || c == 0x7f) {
      err = "net/url: invalid control character in URL";
      return std::nullopt;
    }
  }
  if (raw.empty()) {
    err = "empty url";
    return std::nullopt;
  }
  Url u;
  if (raw == "*") {
    u.path = "*";
    return u;
  }
  std::string_view rest = raw;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (std::isalpha(static_cast<unsigned char>(c))) continue;
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.') {
      if (i == 0) break;
      continue;
    }
    if (c == ':') {
      if (i == 0) {
        err = "missing protocol scheme";
        return std::nullopt;
      }
      u.scheme = std::string(raw.substr(0, i));
      for (auto& ch : u.scheme) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      rest = raw.substr(i + 1);
    }
    break;
  }
  if (size_t q = rest.find('?'); q != std::string_view::npos) {
    u.raw_query = std::string(rest.substr(q + 1));
    rest = rest.substr(0, q);
  }
  if (rest.empty() || rest[0] != '/') {
    if (!u.scheme.empty()) {
      u.opaque = std::string(rest);
      return u;
    }
    err = "invalid URI for request";
    return std::nullopt;
  }
  if (!u.scheme.empty() && rest.substr(0, 2) == "//") {
    std::string_view auth = rest.substr(2);
    size_t slash = auth.find('/');
    rest = slash == std::string_view::npos ? std::string_view() : auth.substr(slash);
    auth = auth.substr(0, slash);
    if (size_t at = auth.rfind('@'); at != std::string_view::npos) auth = auth.substr(at + 1);
    std::string_view port;
    if (!auth.empty() && auth[0] == '[') {
      size_t close = auth.find(']');
      if (close == std::string_view::npos) {
        err = "missing ']' in host";
        return std::nullopt;
      }
      port = auth.substr(close + 1);
    } else if (size_t colon = auth.rfind(':'); colon != std::string_view::npos) {
      port = auth.substr(colon);
    }
    if (!ValidPort(port)) {
      err = "invalid port \"" + std::string(port) + "\" after host";
      return std::nullopt;
    }
    std::string host;
    if (!Unescape(auth, false, host, err)) return std::nullopt;
    u.host = host;
  }
  u.raw_path = std::string(rest);
  std::string path;
  if (!Unescape(rest, false, path, err)) return std::nullopt;
  u.path = path;
  return u;
}

class UrlValue : public OpaqueValue {
 public:
  explicit UrlValue(Url u) : u(std::move(u)) {}
  std::string_view TypeName() const override { return "kubernetes.URL"; }
  bool Equal(const OpaqueValue& o) const override {
    const auto* x = dynamic_cast<const UrlValue*>(&o);
    return x && x->u.scheme == u.scheme && x->u.host == u.host && x->u.path == u.path && x->u.raw_query == u.raw_query &&
           x->u.opaque == u.opaque;
  }
  Url u;
};

const Url* AsUrl(const Value* a, size_t n) {
  if (n != 1) return nullptr;
  const auto* x = a[0].opaque_as<UrlValue>();
  return x ? &x->u : nullptr;
}

Value ToUrl(EvalContext&, const Value* a, size_t n) {
  if (n != 1 || a[0].kind() != Kind::kString) return NoSuchOverload();
  std::string err;
  const std::string& s = a[0].str();
  auto u = ParseRequestUri(s, err);
  if (!u) return Value::Error("URL parse error during conversion from string: parse \"" + s + "\": " + err);
  // A fragment belongs to neither path nor query (kube parses again with url.Parse for this).
  if (size_t h = u->raw_query.find('#'); h != std::string::npos) u->raw_query.resize(h);
  if (size_t h = u->raw_path.find('#'); h != std::string::npos) {
    u->raw_path.resize(h);
    std::string p, e;
    if (Unescape(u->raw_path, false, p, e)) u->path = p;
  }
  return Value::Opaque(std::make_shared<const UrlValue>(std::move(*u)));
}

Value IsUrl(EvalContext&, const Value* a, size_t n) {
  if (n != 1 || a[0].kind() != Kind::kString) return NoSuchOverload();
  std::string err;
  return Value::Bool(ParseRequestUri(a[0].str(), err).has_value());
}

std::pair<std::string, std::string> SplitHostPort(const std::string& host) {
  if (!host.empty() && host[0] == '[') {
    size_t close = host.find(']');
    std::string h = host.substr(1, close == std::string::npos ? std::string::npos : close - 1);
    std::string p = close != std::string::npos && close + 1 < host.size() && host[close + 1] == ':' ? host.substr(close + 2) : "";
    return {h, p};
  }
  size_t colon = host.rfind(':');
  if (colon == std::string::npos) return {host, ""};
  return {host.substr(0, colon), host.substr(colon + 1)};
}

template <int kField>
Value Get(EvalContext&, const Value* a, size_t n) {
  const Url* u = AsUrl(a, n);
  if (!u) return NoSuchOverload();
  switch (kField) {
    case 0: return Value::String(u->scheme);
    case 1: return Value::String(u->host);
    case 2: return Value::String(SplitHostPort(u->host).first);
    case 3: return Value::String(SplitHostPort(u->host).second);
    case 4: return Value::String(u->raw_path);
    default: break;
  }
  // getQuery: map(string, list(string)) as url.Values.
  std::map<std::string, std::vector<Value>> q;
  std::string_view rest = u->raw_query;
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view part = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (part.empty() || part.find(';') != std::string_view::npos) continue;
    size_t eq = part.find('=');
    std::string k, v, err;
    if (!Unescape(part.substr(0, eq), true, k, err)) continue;
    if (eq != std::string_view::npos && !Unescape(part.substr(eq + 1), true, v, err)) continue;
    q[k].push_back(Value::String(v));
  }
  auto m = std::make_shared<MapValue>();
  for (auto& [k, vs] : q) m->entries.emplace_back(Value::String(k), Value::List(std::move(vs)));
  return Value::Map(std::move(m));
}

}  // namespace

void RegisterKubeUrlLibrary(FunctionRegistry& r) {
  r.AddGlobal("url", ToUrl);
  r.AddGlobal("isURL", IsUrl);
  r.AddMember("getScheme", Get<0>);
  r.AddMember("getHost", Get<1>);
  r.AddMember("getHostname", Get<2>);
  r.AddMember("getPort", Get<3>);
  r.AddMember("getEscapedPath", Get<4>);
  r.AddMember("getQuery", Get<5>);
}

}  // namespace capstan::cel
