#include "server/http/request_info.h"

#include "util/strings.h"

namespace capstan::http {
namespace {

std::vector<std::string> SplitPath(const std::string& path) {
  std::string_view p = path;
  while (!p.empty() && p.front() == '/') p.remove_prefix(1);
  while (!p.empty() && p.back() == '/') p.remove_suffix(1);
  if (p.empty()) return {};
  return Split(p, '/');
}

bool QueryBool(const Query& q, const std::string& key) {
  auto v = q.Get(key);
  if (!v) return false;
  return !(*v == "0" || EqualsIgnoreCase(*v, "false"));
}

// fields.Selector.RequiresExactMatch("metadata.name") over the raw selector text: a single term
// "metadata.name=x" or "metadata.name==x" among comma-separated terms.
bool ExactNameFromFieldSelector(const std::string& selector, std::string& name) {
  bool found = false;
  for (const auto& term : Split(selector, ',')) {
    std::string_view t = TrimSpace(term);
    std::string_view rest;
    if (StartsWith(t, "metadata.name==")) {
      rest = t.substr(15);
    } else if (StartsWith(t, "metadata.name=")) {
      rest = t.substr(14);
    } else {
      continue;
    }
    if (found) return false;
    found = true;
    name = std::string(rest);
  }
  return found;
}

}  // namespace

bool IsValidPathSegmentName(const std::string& name) {
  if (name == "." || name == "..") return false;
  return name.find('/') == std::string::npos && name.find('%') == std::string::npos;
}

namespace {
Status Resolve(const std::string& method, const std::string& path, const Query& query, RequestInfo& info) {
  info = RequestInfo();
  info.path = path;
  info.verb = ToLower(method);

  std::vector<std::string> parts = SplitPath(path);
  if (parts.size() < 3) return Status();
  if (parts[0] != "api" && parts[0] != "apis") return Status();
  info.api_prefix = parts[0];
  size_t i = 1;
  if (info.api_prefix != "api") {
    if (parts.size() - i < 3) return Status();
    info.api_group = parts[i++];
  }
  info.is_resource_request = true;
  info.api_version = parts[i++];

  bool verb_via_path = false;
  if (parts[i] == "proxy" || parts[i] == "watch") {
    if (parts.size() - i < 2) {
      return Status(500, "InternalError", "unable to determine kind and namespace from url, " + path);
    }
    info.verb = parts[i++];
    verb_via_path = true;
  } else if (method == "POST") {
    info.verb = "create";
  } else if (method == "GET" || method == "HEAD") {
    info.verb = "get";
  } else if (method == "PUT") {
    info.verb = "update";
  } else if (method == "PATCH") {
    info.verb = "patch";
  } else if (method == "DELETE") {
    info.verb = "delete";
  } else {
    info.verb = "";
  }

  std::vector<std::string> cur(parts.begin() + static_cast<long>(i), parts.end());
  if (cur[0] == "namespaces") {
    if (cur.size() > 1) {
      info.namespace_ = cur[1];
      if (cur.size() > 2 && cur[2] != "status" && cur[2] != "finalize") {
        cur.erase(cur.begin(), cur.begin() + 2);
      }
    }
  }
  info.parts = cur;
  if (cur.size() >= 3 && info.verb != "proxy") info.subresource = cur[2];
  if (cur.size() >= 2) info.name = cur[1];
  if (!cur.empty()) info.resource = cur[0];

  if (info.name.empty() && info.verb == "get") {
    info.verb = QueryBool(query, "watch") ? "watch" : "list";
    if (auto fs = query.Get("fieldSelector")) {
      std::string name;
      if (ExactNameFromFieldSelector(*fs, name) && IsValidPathSegmentName(name)) info.name = name;
    }
  }
  if (info.name.empty() && info.verb == "delete") info.verb = "deletecollection";

  if (!verb_via_path && (info.verb == "list" || info.verb == "watch" || info.verb == "deletecollection")) {
    if (auto v = query.Get("fieldSelector")) info.field_selector = *v;
    if (auto v = query.Get("labelSelector")) info.label_selector = *v;
  }
  return Status();
}

}  // namespace

Status ResolveRequestInfo(const std::string& method, const std::string& path, const Query& query, RequestInfo& info) {
  Status st = Resolve(method, path, query, info);
  info.long_running = IsLongRunning(info);
  return st;
}

bool IsLongRunning(const RequestInfo& info) {
  if (!info.is_resource_request) return false;
  if (info.verb == "watch" || info.verb == "proxy") return true;
  const std::string& s = info.subresource;
  return s == "attach" || s == "exec" || s == "proxy" || s == "log" || s == "portforward";
}

}  // namespace capstan::http
