// api/networking/network_policy.cpp: networking.k8s.io/v1 NetworkPolicies: kube's defaults (port
// protocol TCP; policyTypes Ingress, plus Egress when egress rules exist), ValidateNetworkPolicy(Update)
// (selectors, ports and end ports, peers, ipBlock CIDRs and strict-subset excepts, policy types; CIDRs
// already stored are not re-checked), generation on spec changes, and the printer (NAME POD-SELECTOR
// AGE).
#include "api/apps/workload_util.h"
#include "api/common.h"
#include "api/networking/networking.h"
#include "api/networking/validators.h"
#include "apimachinery/labels.h"
#include "apimachinery/object_meta.h"
#include "util/strings.h"

namespace capstan::api::networking {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

constexpr std::string_view kCidrError = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

void EachObject(const json::object& o, std::string_view key, const std::function<void(const json::object&, size_t)>& fn) {
  const json::array* a = ArrayAt(o, key);
  if (!a) return;
  for (size_t i = 0; i < a->size(); ++i) {
    if ((*a)[i].is_object()) fn((*a)[i].get_object(), i);
  }
}

ErrorList ValidatePort(const json::object& port, const FieldPath& p) {
  ErrorList errs;
  if (auto proto = catalog::OptString(&port, "protocol"); proto && *proto != "TCP" && *proto != "UDP" && *proto != "SCTP") {
    errs.push_back(NotSupportedError(p.Child("protocol"), *proto, {"TCP", "UDP", "SCTP"}));
  }
  const json::value* value = port.if_contains("port");
  auto end = catalog::OptInt(&port, "endPort");
  if (value && !value->is_null()) {
    if (value->is_string()) {
      if (end) errs.push_back(InvalidError(p.Child("endPort"), *end, "may not be specified when `port` is non-numeric"));
      std::string name(value->get_string());
      catalog::AddProblems(errs, p.Child("port"), name, catalog::PortNameProblems(name));
    } else {
      int64_t n = value->is_int64() ? value->get_int64() : 0;
      for (const auto& m : catalog::PortNumProblems(n)) errs.push_back(InvalidError(p.Child("port"), n, m));
      if (end) {
        if (*end < n) errs.push_back(InvalidError(p.Child("endPort"), *end, "must be greater than or equal to `port`"));
        for (const auto& m : catalog::PortNumProblems(*end)) errs.push_back(InvalidError(p.Child("endPort"), *end, m));
      }
    }
  } else if (end) {
    errs.push_back(InvalidError(p.Child("endPort"), *end, "may not be specified when `port` is not specified"));
  }
  return errs;
}

ErrorList ValidateIpBlock(const json::object& block, const FieldPath& p, const std::vector<std::string>& allowed) {
  ErrorList errs;
  std::string cidr = StringAt(block, "cidr");
  if (cidr.empty()) {
    errs.push_back(RequiredError(p.Child("cidr"), ""));
    return errs;
  }
  auto is_allowed = [&](const std::string& c) { return std::find(allowed.begin(), allowed.end(), c) != allowed.end(); };
  auto parsed = catalog::ParseCidr(cidr);
  if (!parsed && !is_allowed(cidr)) errs.push_back(InvalidError(p.Child("cidr"), cidr, std::string(kCidrError)));
  if (!parsed) return errs;
  auto excepts = catalog::Strings(block, "except");
  for (size_t i = 0; i < excepts.size(); ++i) {
    FieldPath ep = p.Child("except").Index(i);
    auto ex = catalog::ParseCidr(excepts[i]);
    if (!ex) {
      if (!is_allowed(excepts[i])) errs.push_back(InvalidError(ep, excepts[i], std::string(kCidrError)));
      continue;
    }
    if (!catalog::CidrContains(*parsed, ex->ip) || parsed->prefix >= ex->prefix) {
      errs.push_back(InvalidError(ep, excepts[i], "must be a strict subset of `cidr`"));
    }
  }
  return errs;
}

ErrorList ValidatePeer(const json::object& peer, const FieldPath& p, bool allow_invalid_label_value,
                       const std::vector<std::string>& allowed_cidrs) {
  ErrorList errs;
  int peers = 0;
  auto add = [&](ErrorList more) { errs.insert(errs.end(), more.begin(), more.end()); };
  if (const json::value* sel = peer.if_contains("podSelector"); sel && !sel->is_null()) {
    ++peers;
    add(am::ValidateLabelSelector(*sel, p.Child("podSelector"), allow_invalid_label_value));
  }
  if (const json::value* sel = peer.if_contains("namespaceSelector"); sel && !sel->is_null()) {
    ++peers;
    add(am::ValidateLabelSelector(*sel, p.Child("namespaceSelector"), allow_invalid_label_value));
  }
  const json::object* block = ObjectAt(peer, "ipBlock");
  if (block) {
    ++peers;
    add(ValidateIpBlock(*block, p.Child("ipBlock"), allowed_cidrs));
  }
  if (peers == 0) {
    errs.push_back(RequiredError(p, "must specify a peer"));
  } else if (peers > 1 && block) {
    errs.push_back(ForbiddenError(p, "may not specify both ipBlock and another peer"));
  }
  return errs;
}

ErrorList ValidateSpec(const Object& np, bool allow_invalid_label_value, const std::vector<std::string>& allowed_cidrs) {
  ErrorList errs;
  static const json::object kEmpty;
  const json::object* spec = ObjectAt(np, "spec");
  if (!spec) spec = &kEmpty;
  FieldPath p("spec");
  auto add = [&](ErrorList more) { errs.insert(errs.end(), more.begin(), more.end()); };
  const json::value* pod_selector = spec->if_contains("podSelector");
  add(am::ValidateLabelSelector(pod_selector ? *pod_selector : json::value(json::object()), p.Child("podSelector"),
                                allow_invalid_label_value));
  for (const char* dir : {"ingress", "egress"}) {
    const char* peers_key = std::string_view(dir) == "ingress" ? "from" : "to";
    EachObject(*spec, dir, [&](const json::object& rule, size_t i) {
      FieldPath rp = p.Child(dir).Index(i);
      EachObject(rule, "ports", [&](const json::object& port, size_t j) { add(ValidatePort(port, rp.Child("ports").Index(j))); });
      EachObject(rule, peers_key, [&](const json::object& peer, size_t j) {
        add(ValidatePeer(peer, rp.Child(peers_key).Index(j), allow_invalid_label_value, allowed_cidrs));
      });
    });
  }
  auto types = catalog::Strings(*spec, "policyTypes");
  if (types.size() > 2) {
    std::vector<std::string> q;
    for (const auto& t : types) q.push_back(GoQuote(t));
    errs.push_back(catalog::InvalidGo(p.Child("policyTypes"), "&[]networking.PolicyType{" + Join(q, ", ") + "}",
                                      "may not specify more than two policyTypes"));
    return errs;
  }
  for (size_t i = 0; i < types.size(); ++i) {
    if (types[i] != "Ingress" && types[i] != "Egress") {
      errs.push_back(NotSupportedError(p.Child("policyTypes").Index(i), types[i], {"Ingress", "Egress"}));
    }
  }
  return errs;
}

// The CIDRs of a stored policy (kept valid on update even if they no longer are).
std::vector<std::string> StoredCidrs(const Object& old) {
  std::vector<std::string> out;
  const json::object* spec = ObjectAt(old, "spec");
  if (!spec) return out;
  for (auto [dir, key] : {std::pair{"ingress", "from"}, std::pair{"egress", "to"}}) {
    EachObject(*spec, dir, [&, key = key](const json::object& rule, size_t) {
      EachObject(rule, key, [&](const json::object& peer, size_t) {
        if (const json::object* b = ObjectAt(peer, "ipBlock")) {
          out.push_back(StringAt(*b, "cidr"));
          for (auto& e : catalog::Strings(*b, "except")) out.push_back(std::move(e));
        }
      });
    });
  }
  return out;
}

class NetworkPolicyStrategy : public registry::DefaultStrategy {
 public:
  NetworkPolicyStrategy() : DefaultStrategy(Options{.namespaced = true, .has_status = false, .track_generation = true}) {}

  void PrepareForCreate(const registry::Context& ctx, Object& np) const override {
    Default(np);
    DefaultStrategy::PrepareForCreate(ctx, np);
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& np, const Object& old) const override {
    Default(np);
    DefaultStrategy::PrepareForUpdate(ctx, np, old);
  }
  ErrorList Validate(const registry::Context&, const Object& np) const override { return ValidateSpec(np, false, {}); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& np, const Object& old) const override {
    const json::value* old_sel = PathAt(old, {"spec", "podSelector"});
    bool allow_invalid = old_sel && !am::ValidateLabelSelector(*old_sel, FieldPath()).empty();
    return ValidateSpec(np, allow_invalid, StoredCidrs(old));
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Pod-Selector", "string", "",
             "Selects the pods to which this NetworkPolicy object applies.  The array of ingress rules is applied to "
             "any pods selected by this field. Multiple network policies can select the same set of pods.  In this "
             "case, the ingress rules for each are combined additively. This field is NOT optional and follows "
             "standard label selector semantics. An empty podSelector matches all pods in this namespace.",
             0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& np) const override {
    const json::value* sel = PathAt(np, {"spec", "podSelector"});
    json::value empty = json::object();
    return {json::value(am::GetName(np)), json::value(apps::FormatLabelSelector(sel ? sel : &empty)),
            json::value(AgeCell(np))};
  }

 private:
  // kube's SetDefaults_NetworkPolicyPort and SetDefaults_NetworkPolicy.
  static void Default(Object& np) {
    json::value* spec_v = np.if_contains("spec");
    if (!spec_v || !spec_v->is_object()) return;
    json::object& spec = spec_v->get_object();
    for (const char* dir : {"ingress", "egress"}) {
      json::value* rules = spec.if_contains(dir);
      if (!rules || !rules->is_array()) continue;
      for (auto& rule : rules->get_array()) {
        if (!rule.is_object()) continue;
        json::value* ports = rule.get_object().if_contains("ports");
        if (!ports || !ports->is_array()) continue;
        for (auto& port : ports->get_array()) {
          if (port.is_object()) catalog::DefaultField(port.get_object(), "protocol", "TCP");
        }
      }
    }
    const json::value* types = spec.if_contains("policyTypes");
    if (!types || !types->is_array() || types->get_array().empty()) {
      json::array t{"Ingress"};
      if (CountAt(spec, "egress") > 0) t.push_back("Egress");
      spec["policyTypes"] = std::move(t);
    }
  }
};

}  // namespace

std::vector<registry::RestResource> NetworkPolicies(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"networking.k8s.io", "v1", "networkpolicies", "networkpolicy", "NetworkPolicy", true, {"netpol"},
                        {}, "io.k8s.api.networking.v1.NetworkPolicy"});
  spec.strategy = std::make_shared<NetworkPolicyStrategy>();
  return registry::MakeResource(deps, std::move(spec));
}

}  // namespace capstan::api::networking
