// tests/api/networking/catalog_test_util.h: what the catalog groups' tests share on top of the
// workload groups' ApiTestEnv (tests/api/apps/api_test_env.h): editing JSON documents by dotted paths
// ("spec.rules[0].host"), creating and updating through a chosen context (user, namespace), field
// error lookups, and the upstream-fixture check (the fixture made valid, created, read back, and
// compared field by field; its status written through /status when the kind has one).
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <functional>
#include <string>
#include <vector>

#include "api/apps/api_test_env.h"
#include "apimachinery/object_meta.h"
#include "util/task.h"

namespace capstan::api::testing {

// A step of a dotted path: a key or an index.
inline std::vector<std::pair<std::string, int>> SplitPath(const std::string& path) {
  std::vector<std::pair<std::string, int>> steps;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      size_t end = path.find(']', i);
      steps.emplace_back("", std::stoi(path.substr(i + 1, end - i - 1)));
      i = end + 1;
      continue;
    }
    size_t end = path.find_first_of(".[", i);
    if (end == std::string::npos) end = path.size();
    steps.emplace_back(path.substr(i, end - i), -1);
    i = end;
  }
  return steps;
}

// The value at `path`, created as objects along the way when `create`; null when absent.
inline json::value* At(json::value& root, const std::string& path, bool create = false) {
  json::value* cur = &root;
  for (const auto& [key, index] : SplitPath(path)) {
    if (index >= 0) {
      if (!cur->is_array() || static_cast<size_t>(index) >= cur->get_array().size()) return nullptr;
      cur = &cur->get_array()[index];
    } else {
      if (!cur->is_object()) {
        if (!create) return nullptr;
        *cur = json::object();
      }
      json::object& o = cur->get_object();
      if (!o.contains(key) && !create) return nullptr;
      cur = &o[key];
    }
  }
  return cur;
}

inline void Set(Object& obj, const std::string& path, json::value v) {
  json::value root(std::move(obj));
  *At(root, path, true) = std::move(v);
  obj = std::move(root.get_object());
}

inline void Erase(Object& obj, const std::string& path) {
  size_t dot = path.rfind('.');
  std::string parent = dot == std::string::npos ? "" : path.substr(0, dot);
  std::string key = dot == std::string::npos ? path : path.substr(dot + 1);
  json::value root(std::move(obj));
  json::value* p = parent.empty() ? &root : At(root, parent);
  if (p && p->is_object()) p->get_object().erase(key);
  obj = std::move(root.get_object());
}

inline json::value Get(const Object& obj, const std::string& path) {
  json::value root(obj);
  json::value* v = At(root, path);
  return v ? *v : json::value();
}

inline std::string GetString(const Object& obj, const std::string& path) {
  json::value v = Get(obj, path);
  return v.is_string() ? std::string(v.get_string()) : std::string();
}

inline StatusOr<Object> CreateAs(ApiTestEnv& env, const std::string& resource, Object obj, registry::Context ctx,
                                 const std::string& version = "") {
  auto* c = env.As<registry::Creater>(resource, "", version);
  if (!c) return Status(404, "NotFound", "no creater for " + resource);
  return SyncWait(c->Create(ctx, std::move(obj), {}));
}

inline StatusOr<registry::DeleteOutcome> Delete(ApiTestEnv& env, const std::string& resource, const std::string& name,
                                                const std::string& ns = "default") {
  auto* d = env.As<registry::GracefulDeleter>(resource);
  if (!d) return Status(404, "NotFound", "no deleter for " + resource);
  return SyncWait(d->Delete(env.Ctx(ns), name, {}));
}

inline StatusOr<registry::ObjectList> List(ApiTestEnv& env, const std::string& resource, const std::string& ns = "",
                                           const std::string& field_selector = "", const std::string& version = "") {
  auto* l = env.As<registry::Lister>(resource, "", version);
  if (!l) return Status(404, "NotFound", "no lister for " + resource);
  registry::ListOptions opts;
  opts.field_selector = field_selector;
  return SyncWait(l->List(env.Ctx(ns), opts));
}

// The error message of a failed result ("" when it succeeded).
template <class T>
std::string ErrorOf(const StatusOr<T>& r) {
  return r.ok() ? std::string() : r.status().message();
}

// The server-owned fields a created object differs in.
inline const std::vector<std::string>& ServerOwned() {
  static const std::vector<std::string> paths = {"metadata.uid", "metadata.resourceVersion", "metadata.creationTimestamp",
                                                 "metadata.generation", "metadata.namespace", "status"};
  return paths;
}

// The upstream fixture `fixture` (e.g. "networking.k8s.io.v1.Ingress") made valid by `sanitize`,
// created as "fixture", read back, and compared; `dropped` lists the paths kube itself drops or
// rewrites. When `sanitize_status` is given and the resource has /status, the fixture's status goes
// through it and must come back whole.
inline void CheckFixture(ApiTestEnv& env, const std::string& fixture, const std::string& resource,
                         const std::function<void(Object&)>& sanitize, std::vector<std::string> dropped = {},
                         const std::function<void(Object&)>& sanitize_status = nullptr, const std::string& version = "") {
  auto f = LoadFixture(fixture);
  if (!f) GTEST_SKIP() << "fixture " << fixture << " not found";
  Object obj = *f;
  SanitizeMetadata(obj);
  sanitize(obj);
  Object status = obj.contains("status") && obj["status"].is_object() ? obj["status"].as_object() : Object();
  std::vector<std::string> ignore = ServerOwned();
  ignore.insert(ignore.end(), dropped.begin(), dropped.end());
  auto created = env.Create(resource, obj, version);
  ASSERT_TRUE(created.ok()) << fixture << ": " << created.status().message();
  ExpectNothingLost(obj, *created, ignore);
  auto got = env.Get(resource, "fixture", "", version);
  ASSERT_TRUE(got.ok()) << got.status().message();
  ExpectNothingLost(obj, *got, ignore);
  if (!sanitize_status || status.empty() || !env.Find(resource, "status", version)) return;
  sanitize_status(status);
  auto st = env.Mutate(resource, "fixture", [&](Object& o) { o["status"] = status; }, "status", version);
  ASSERT_TRUE(st.ok()) << fixture << " status: " << st.status().message();
  ExpectNothingLost(status, st->object.at("status"), {});
}

}  // namespace capstan::api::testing
