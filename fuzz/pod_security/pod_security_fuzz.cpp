// Fuzzes PodSecurity with arbitrary request objects: the bytes as a pod (create, and update against
// itself with a changed image), as a deployment and a cronjob, and as a namespace (create and update),
// under namespaces at every level; the same value as a PodSecurityConfiguration; the raw bytes as an
// AdmissionConfiguration file.
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "admission/admission_config.h"
#include "admission/pod_security.h"
#include "apimachinery/json_parse.h"
#include "util/task.h"

using namespace capstan;
using namespace capstan::admission;
namespace json = boost::json;

namespace {

registry::ResourceInfo Info(const char* group, const char* resource, const char* kind) {
  registry::ResourceInfo i;
  i.group = group;
  i.version = "v1";
  i.resource = resource;
  i.kind = kind;
  return i;
}

Task<StatusOr<registry::Object>> Lookup(std::shared_ptr<const registry::Object> ns) { co_return *ns; }
Task<StatusOr<std::vector<registry::Object>>> NoPods() { co_return std::vector<registry::Object>{}; }

struct Fixture {
  Fixture() {
    const char* labels[] = {
        R"({"pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/audit":"baseline","pod-security.kubernetes.io/audit-version":"v1.18"})",
        R"({"pod-security.kubernetes.io/enforce":"baseline","pod-security.kubernetes.io/warn":"restricted","pod-security.kubernetes.io/warn-version":"v1.21"})",
        R"({"pod-security.kubernetes.io/enforce":"bogus","pod-security.kubernetes.io/enforce-version":"v1.24"})"};
    for (const char* l : labels) {
      auto ns = std::make_shared<const registry::Object>(
          json::object{{"metadata", json::object{{"name", "ns"}, {"labels", json::parse(l)}}}});
      PodSecurityPlugin::Deps d;
      d.namespace_lookup = [ns](const std::string&) { return Lookup(ns); };
      d.list_pods = [](const std::string&) { return NoPods(); };
      auto p = PodSecurityPlugin::Create(json::parse(R"({"apiVersion":"pod-security.admission.config.k8s.io/v1",
          "kind":"PodSecurityConfiguration","exemptions":{"runtimeClasses":["kata"]}})"), std::move(d));
      plugins.push_back(std::move(*p));
    }
  }
  std::vector<std::unique_ptr<PodSecurityPlugin>> plugins;
  registry::ResourceInfo pods = Info("", "pods", "Pod");
  registry::ResourceInfo deployments = Info("apps", "deployments", "Deployment");
  registry::ResourceInfo cronjobs = Info("batch", "cronjobs", "CronJob");
  registry::ResourceInfo namespaces = Info("", "namespaces", "Namespace");
};

void Run(PodSecurityPlugin& p, const registry::ResourceInfo& info, const char* op, registry::Object& obj,
         const registry::Object* old) {
  Attributes a;
  a.operation = op;
  a.resource = &info;
  a.namespace_ = "ns";
  a.name = "x";
  a.object = &obj;
  a.old_object = old;
  (void)SyncWait(p.Decide(a));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture* f = new Fixture();
  std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)ParseAdmissionConfig(in, "/etc/capstan");
  auto v = apimachinery::ParseJsonValue(in);
  if (!v.ok()) return 0;
  (void)PodSecurityPlugin::Create(*v, PodSecurityPlugin::Deps{});
  if (!v->is_object()) return 0;
  registry::Object obj = v->as_object();
  registry::Object changed = obj;
  if (auto* spec = changed.if_contains("spec"); spec && spec->is_object()) {
    if (auto* cs = spec->as_object().if_contains("containers"); cs && cs->is_array() && !cs->as_array().empty() &&
                                                                 cs->as_array()[0].is_object()) {
      cs->as_array()[0].as_object()["image"] = "changed";
    }
  }
  for (auto& p : f->plugins) {
    Run(*p, f->pods, "CREATE", obj, nullptr);
    Run(*p, f->pods, "UPDATE", changed, &obj);
    Run(*p, f->deployments, "CREATE", obj, nullptr);
    Run(*p, f->cronjobs, "UPDATE", obj, &obj);
    Run(*p, f->namespaces, "CREATE", obj, nullptr);
    Run(*p, f->namespaces, "UPDATE", changed, &obj);
  }
  return 0;
}
