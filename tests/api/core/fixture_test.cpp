// The upstream API fixtures of the core/v1 kinds served here (../shared/k8s-api-fixtures/HEAD,
// core.v1.<Kind>.json, every optional field set) through the real Store over the embedded backend:
// created, read back, and (for kinds with status) their status written through the status
// subresource. Fixture values are placeholders ("nameValue", "protocolValue") that kube's validation
// rejects too; the test replaces exactly the values validation names (an unsupported enum by its first
// supported value, a bad name by a valid one, ...) and drops only fields validation forbids, then
// requires every field it sent to come back with the same value (defaults may add fields).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include "core_test_util.h"
#include "util/strings.h"

namespace capstan::api::core::testing {
namespace {

std::optional<std::string> FixtureDir() {
  if (const char* env = std::getenv("CAPSTAN_API_FIXTURES"); env && *env) return std::string(env);
  std::string root = CAPSTAN_TEST_SOURCE_ROOT;
  if (const char* env = std::getenv("CAPSTAN_SOURCE_DIR"); env && *env) root = env;
  auto p = std::filesystem::path(root) / ".." / "shared" / "k8s-api-fixtures" / "HEAD";
  if (!std::filesystem::is_directory(p)) return std::nullopt;
  return p.string();
}

std::optional<Object> LoadFixture(const std::string& kind) {
  auto dir = FixtureDir();
  if (!dir) return std::nullopt;
  std::ifstream f(*dir + "/core.v1." + kind + ".json");
  if (!f) return std::nullopt;
  std::stringstream ss;
  ss << f.rdbuf();
  return json::parse(ss.str()).as_object();
}

// A field path of a validation error ("spec.containers[0].ports[1].name", "spec.hard[pods]") as
// steps into the JSON document.
struct Step {
  std::string key;
  bool index = false;
  size_t i = 0;
};

std::vector<Step> ParsePath(const std::string& path) {
  std::vector<Step> steps;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      size_t end = path.find(']', i);
      std::string inner = path.substr(i + 1, end - i - 1);
      Step s;
      if (!inner.empty() && std::all_of(inner.begin(), inner.end(), ::isdigit)) {
        s.index = true;
        s.i = std::stoul(inner);
      } else {
        s.key = inner;
      }
      steps.push_back(s);
      i = end + 1;
      continue;
    }
    size_t end = path.find_first_of(".[", i);
    if (end == std::string::npos) end = path.size();
    steps.push_back({path.substr(i, end - i), false, 0});
    i = end;
  }
  return steps;
}

// The value at steps, with its parent, or null when the path does not resolve.
json::value* Resolve(json::value& root, const std::vector<Step>& steps, json::value** parent = nullptr) {
  json::value* cur = &root;
  json::value* prev = nullptr;
  for (const auto& s : steps) {
    prev = cur;
    if (s.index) {
      if (!cur->is_array() || s.i >= cur->get_array().size()) return nullptr;
      cur = &cur->get_array()[s.i];
    } else {
      if (!cur->is_object()) return nullptr;
      cur = cur->get_object().if_contains(s.key);
      if (!cur) return nullptr;
    }
  }
  if (parent) *parent = prev;
  return cur;
}

bool Remove(json::value& root, const std::vector<Step>& steps) {
  if (steps.empty()) return false;
  std::vector<Step> up(steps.begin(), steps.end() - 1);
  json::value* parent = up.empty() ? &root : Resolve(root, up);
  if (!parent) return false;
  const Step& last = steps.back();
  if (last.index && parent->is_array() && last.i < parent->get_array().size()) {
    parent->get_array().erase(parent->get_array().begin() + static_cast<long>(last.i));
    return true;
  }
  if (!last.index && parent->is_object()) return parent->get_object().erase(last.key) > 0;
  return false;
}

std::string Lower(std::string s) {
  std::string out;
  for (char c : s) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.push_back((std::isalnum(static_cast<unsigned char>(l)) || l == '-' || l == '.') ? l : '-');
  }
  return out;
}

// Applies one validation cause to the request; false when it cannot be applied.
bool Fix(json::value& root, const StatusCause& c, std::vector<std::string>& dropped) {
  auto steps = ParsePath(c.field);
  json::value* v = Resolve(root, steps);
  const std::string& m = c.message;
  auto drop = [&]() {
    if (!Remove(root, steps)) return false;
    dropped.push_back(c.field + " (" + m.substr(0, 60) + ")");
    return true;
  };
  static const std::regex supported("supported values: \"([^\"]*)\"");
  static const std::regex must_be("must be '([A-Za-z]+)'");
  std::smatch sm;
  if (m.find("supported values: \"storage\"") != std::string::npos && v && v->is_object()) {
    *v = json::object{{"storage", "1Gi"}};
    return true;
  }
  if (StartsWith(m, "Unsupported value") && std::regex_search(m, sm, supported) && v) {
    if (v->is_array()) {
      for (auto& e : v->get_array()) e = json::value(sm[1].str());
    } else {
      *v = json::value(sm[1].str());
    }
    return true;
  }
  if (c.field == "spec.resources[storage]") {
    auto* res = Resolve(root, ParsePath("spec.resources"));
    if (res && res->is_object()) {
      res->get_object()["requests"].emplace_object()["storage"] = "1Gi";
      return true;
    }
  }
  if (m.find("`selector` does not match template `labels`") != std::string::npos && v) {
    auto* sel = Resolve(root, ParsePath("spec.selector"));
    if (sel && sel->is_object()) {
      if (!v->is_object()) *v = json::object();
      for (const auto& kv : sel->get_object()) v->get_object()[kv.key()] = kv.value();
      return true;
    }
  }
  if (EndsWith(c.field, ".name") && StartsWith(m, "Not found") && c.field.find("volumeMounts") != std::string::npos && v) {
    *v = "v0";
    return true;
  }
  if (m.find("not a valid selector operator") != std::string::npos && v) {
    *v = "In";
    return true;
  }
  if (m.find("standard limit type") != std::string::npos && v) {
    *v = "Container";
    return true;
  }
  if (std::regex_search(m, sm, must_be) && v && v->is_string()) {
    *v = json::value(sm[1].str());
    return true;
  }
  if (StartsWith(m, "Invalid value") && v) {
    if (m.find("valid IP") != std::string::npos) {
      *v = v->is_array() ? json::value(json::array{"10.0.0.50"}) : json::value("10.1.2.3");
      return true;
    }
    if (m.find("CIDR") != std::string::npos) {
      *v = "10.1.0.0/24";
      return true;
    }
    if (m.find("between 1 and 65535") != std::string::npos) {
      *v = v->is_string() ? json::value("http") : json::value(80);
      return true;
    }
    if (m.find("greater than") != std::string::npos && (v->is_int64() || v->is_string())) {
      *v = v->is_int64() ? json::value(1) : json::value("1");
      return true;
    }
    if (m.find("absolute path") != std::string::npos) {
      *v = "/abs";
      return true;
    }
    if (v->is_string() && (m.find("RFC 1123") != std::string::npos || m.find("DNS-1035") != std::string::npos ||
                           m.find("qualified name") != std::string::npos || m.find("alphanumeric") != std::string::npos)) {
      std::string fixed = Lower(std::string(v->get_string()));
      if (m.find("DNS-1035") != std::string::npos || m.find("label must") != std::string::npos) {
        std::replace(fixed.begin(), fixed.end(), '.', '-');
      }
      if (fixed == std::string(v->get_string())) return drop();
      *v = json::value(fixed);
      return true;
    }
  }
  if (StartsWith(m, "Duplicate value") && v && v->is_string()) {
    *v = json::value(std::string(v->get_string()) + "-2");
    return true;
  }
  // Forbidden, Not found, Required, Too long and the rest: kube would refuse the field as it is.
  return drop();
}

// Every leaf of `want` is in `got` with the same value.
void ExpectContains(const json::value& want, const json::value* got, const std::string& path, std::vector<std::string>& missing) {
  // An empty list or map sent is no constraint: kube drops empty omitempty fields, or defaults them.
  if ((want.is_array() && want.get_array().empty()) || (want.is_object() && want.get_object().empty())) return;
  if (!got) {
    missing.push_back(path);
    return;
  }
  if (want.is_object() && got->is_object()) {
    for (const auto& kv : want.get_object()) {
      ExpectContains(kv.value(), got->get_object().if_contains(kv.key()), path + "." + std::string(kv.key()), missing);
    }
    return;
  }
  if (want.is_array() && got->is_array() && want.get_array().size() == got->get_array().size()) {
    for (size_t i = 0; i < want.get_array().size(); ++i) {
      ExpectContains(want.get_array()[i], &got->get_array()[i], path + "[" + std::to_string(i) + "]", missing);
    }
    return;
  }
  if (want != *got) missing.push_back(path + " (sent " + json::serialize(want) + ", got " + json::serialize(*got) + ")");
}

struct Case {
  std::string kind;
  std::string resource;
  bool namespaced = true;
  bool status = false;
};

class FixtureTest : public ::testing::TestWithParam<Case> {};

// Sends `obj` with `send`, fixing what validation names, until accepted.
StatusOr<Object> SendFixed(json::value& obj, const std::function<StatusOr<Object>(const Object&)>& send,
                           std::vector<std::string>& dropped) {
  for (int round = 0; round < 200; ++round) {
    auto r = send(obj.as_object());
    if (r.ok() || r.status().code() != 422) return r;
    bool any = false;
    for (const auto& c : r.status().details().causes) {
      if (Fix(obj, c, dropped)) {
        any = true;
        break;  // one at a time: later causes may move
      }
    }
    if (!any) return r;
  }
  return Status(500, "InternalError", "too many rounds");
}

TEST_P(FixtureTest, AcceptedAndReturnedWithoutLosingFields) {
  const Case& c = GetParam();
  auto fixture = LoadFixture(c.kind);
  if (!fixture) GTEST_SKIP() << "API fixtures not found (set CAPSTAN_API_FIXTURES or put shared/ beside the source tree)";
  TestStore store("fixture-" + c.kind);
  CoreApi api(store.objects());
  const std::string ns = c.namespaced ? "default" : "";
  Object obj = *fixture;
  Object status = obj.contains("status") ? obj["status"].as_object() : Object();
  obj.erase("status");
  // Server-owned metadata is set by the server; the name and namespace are the request's.
  auto& md = obj["metadata"].as_object();
  for (const char* k : {"generateName", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
                        "deletionTimestamp", "deletionGracePeriodSeconds", "managedFields"}) {
    md.erase(k);
  }
  md["name"] = "fixture";
  if (c.namespaced) {
    md["namespace"] = ns;
  } else {
    md.erase("namespace");
  }
  // One volume with every source would be many volumes: split so each source is kept.
  auto split_volumes = [](json::value* vols) {
    if (!vols || !vols->is_array() || vols->get_array().empty()) return;
    json::array out;
    const auto& v = vols->get_array()[0].as_object();
    int i = 0;
    for (const auto& kv : v) {
      if (kv.key() == "name") continue;
      out.push_back(json::object{{"name", "v" + std::to_string(i++)}, {kv.key(), kv.value()}});
    }
    *vols = std::move(out);
  };
  json::value root(obj);
  if (c.kind == "Service") {
    // The fixture's addresses are placeholders; ask for one inside the configured range.
    auto& spec = root.as_object()["spec"].as_object();
    spec["clusterIP"] = "10.0.0.50";
    spec["clusterIPs"] = json::array{"10.0.0.50"};
  }
  if (c.kind == "Pod") split_volumes(Resolve(root, ParsePath("spec.volumes")));
  if (c.kind == "PodTemplate") split_volumes(Resolve(root, ParsePath("template.spec.volumes")));
  if (c.kind == "ReplicationController") split_volumes(Resolve(root, ParsePath("spec.template.spec.volumes")));
  std::vector<std::string> dropped;
  auto created = SendFixed(root, [&](const Object& o) { return api.Create(c.resource, o, ns); }, dropped);
  ASSERT_TRUE(created.ok()) << created.status().message();
  auto got = api.GetObj(c.resource, "fixture", ns);
  ASSERT_TRUE(got.ok());
  std::vector<std::string> missing;
  json::value sent = root;
  sent.as_object().erase("status");
  json::value got_v(*got);
  ExpectContains(sent, &got_v, "", missing);
  EXPECT_TRUE(missing.empty()) << Join(missing, "\n");
  auto summary = [](const std::vector<std::string>& d) {
    std::vector<std::string> first(d.begin(), d.begin() + static_cast<long>(std::min<size_t>(d.size(), 3)));
    return d.empty() ? std::string() : ": " + Join(first, "; ") + (d.size() > 3 ? "; ..." : "");
  };
  std::cout << "[fixture] " << c.kind << ": " << dropped.size() << " fields dropped as kube's validation requires"
            << summary(dropped) << "\n";
  if (!c.status || status.empty()) return;
  json::value st(json::object{{"status", status}});
  std::vector<std::string> st_dropped;
  auto updated = SendFixed(st, [&](const Object& s) {
    Object next = *got;
    next["status"] = s.at("status");
    next["metadata"].as_object().erase("resourceVersion");
    return api.Put(c.resource + "/status", "fixture", next, ns);
  }, st_dropped);
  ASSERT_TRUE(updated.ok()) << updated.status().message();
  auto after = api.GetObj(c.resource, "fixture", ns);
  ASSERT_TRUE(after.ok());
  missing.clear();
  json::value after_v(*after);
  ExpectContains(st, &after_v, "", missing);
  EXPECT_TRUE(missing.empty()) << Join(missing, "\n");
  std::cout << "[fixture] " << c.kind << " status: " << st_dropped.size() << " fields dropped" << summary(st_dropped) << "\n";
}

INSTANTIATE_TEST_SUITE_P(Core, FixtureTest,
                         ::testing::Values(Case{"Pod", "pods", true, true}, Case{"Service", "services", true, true},
                                           Case{"Endpoints", "endpoints", true, false}, Case{"Node", "nodes", false, true},
                                           Case{"PersistentVolume", "persistentvolumes", false, true},
                                           Case{"PersistentVolumeClaim", "persistentvolumeclaims", true, true},
                                           Case{"ReplicationController", "replicationcontrollers", true, true},
                                           Case{"PodTemplate", "podtemplates", true, false},
                                           Case{"LimitRange", "limitranges", true, false},
                                           Case{"ResourceQuota", "resourcequotas", true, true}),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.kind; });

}  // namespace
}  // namespace capstan::api::core::testing
