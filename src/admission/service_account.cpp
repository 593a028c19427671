#include "admission/service_account.h"

#include <openssl/rand.h>

#include <boost/json.hpp>

#include "admission/default_toleration_seconds.h"
#include "apimachinery/errors.h"
#include "util/timer.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

constexpr char kMountPath[] = "/var/run/secrets/kubernetes.io/serviceaccount";
constexpr char kVolumePrefix[] = "kube-api-access-";

// kube's utilrand.String: characters without vowels or lookalikes.
std::string RandomSuffix(size_t n) {
  static const char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  unsigned char b[16];
  RAND_bytes(b, sizeof b);
  std::string out;
  for (size_t i = 0; i < n; ++i) out.push_back(kAlphabet[b[i] % (sizeof kAlphabet - 1)]);
  return out;
}

std::optional<bool> BoolAt(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v && v->is_bool()) return v->as_bool();
  return std::nullopt;
}

json::object TokenVolume(const std::string& name) {
  json::object token{{"expirationSeconds", 3607}, {"path", "token"}};
  json::object ca{{"name", "kube-root-ca.crt"}, {"items", json::array{json::object{{"key", "ca.crt"}, {"path", "ca.crt"}}}}};
  json::object ns_item{{"path", "namespace"}, {"fieldRef", json::object{{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}}};
  json::array sources{json::object{{"serviceAccountToken", token}}, json::object{{"configMap", ca}},
                      json::object{{"downwardAPI", json::object{{"items", json::array{ns_item}}}}}};
  return json::object{{"name", name}, {"projected", json::object{{"sources", sources}, {"defaultMode", 420}}}};
}

// Adds the mount to every container of `list` that has nothing at the mount path; true if any got it.
bool MountIn(json::object& spec, std::string_view list, const std::string& volume) {
  json::value* cs = spec.if_contains(list);
  if (!cs || !cs->is_array()) return false;
  bool added = false;
  for (auto& c : cs->as_array()) {
    if (!c.is_object()) continue;
    json::value& mounts = c.as_object()["volumeMounts"];
    if (!mounts.is_array()) mounts = json::array();
    bool existing = false;
    for (const auto& m : mounts.as_array()) {
      if (!m.is_object()) continue;
      const json::value* p = m.as_object().if_contains("mountPath");
      if (p && p->is_string() && p->as_string() == kMountPath) existing = true;
    }
    if (existing) continue;
    mounts.as_array().push_back(json::object{{"name", volume}, {"readOnly", true}, {"mountPath", kMountPath}});
    added = true;
  }
  return added;
}

}  // namespace

Task<Status> ServiceAccountPlugin::Admit(Attributes& a) {
  if (!IsPod(a) || !a.object) co_return Status();
  json::object& pod = *a.object;
  if (const json::value* md = pod.if_contains("metadata"); md && md->is_object()) {
    const json::value* an = md->as_object().if_contains("annotations");
    if (an && an->is_object() && an->as_object().contains("kubernetes.io/config.mirror")) co_return Status();
  }
  json::value* spec_v = pod.if_contains("spec");
  if (!spec_v || !spec_v->is_object()) co_return Status();
  json::object& spec = spec_v->as_object();
  std::string name;
  if (const json::value* n = spec.if_contains("serviceAccountName"); n && n->is_string()) name = std::string(n->as_string());
  if (name.empty()) {
    name = "default";
    spec["serviceAccountName"] = name;
  }
  // The default account may not exist yet right after its namespace: ten tries about 150ms apart.
  const int attempts = name == "default" ? 10 : 1;
  StatusOr<registry::Object> sa = Status(404, "NotFound", "");
  for (int i = 0; i < attempts; ++i) {
    if (i > 0) co_await SleepFor(std::chrono::milliseconds(150));
    sa = co_await get_("", "v1", "serviceaccounts", a.namespace_, name);
    if (sa.ok() || sa.status().code() != 404) break;
  }
  if (!sa.ok()) {
    std::string why = sa.status().code() == 404 ? "serviceaccount \"" + name + "\" not found" : sa.status().message();
    co_return ForbiddenFor(a, "error looking up service account " + a.namespace_ + "/" + name + ": " + why);
  }
  std::optional<bool> automount = BoolAt(spec, "automountServiceAccountToken");
  if (!automount) automount = BoolAt(*sa, "automountServiceAccountToken");
  if (automount.value_or(true)) {
    std::string volume;
    if (const json::value* vols = spec.if_contains("volumes"); vols && vols->is_array()) {
      for (const auto& v : vols->as_array()) {
        if (!v.is_object()) continue;
        const json::value* n = v.as_object().if_contains("name");
        if (n && n->is_string() && n->as_string().starts_with(kVolumePrefix)) volume = std::string(n->as_string());
      }
    }
    const bool has_volume = !volume.empty();
    if (!has_volume) volume = kVolumePrefix + RandomSuffix(5);
    bool needed = MountIn(spec, "initContainers", volume);
    needed = MountIn(spec, "containers", volume) || needed;
    if (needed && !has_volume) {
      json::value& vols = spec["volumes"];
      if (!vols.is_array()) vols = json::array();
      vols.as_array().push_back(TokenVolume(volume));
    }
  }
  const json::value* pull = spec.if_contains("imagePullSecrets");
  const json::value* sa_pull = sa->if_contains("imagePullSecrets");
  if ((!pull || !pull->is_array() || pull->as_array().empty()) && sa_pull && sa_pull->is_array() &&
      !sa_pull->as_array().empty()) {
    spec["imagePullSecrets"] = *sa_pull;
  }
  co_return Status();
}

}  // namespace capstan::admission
