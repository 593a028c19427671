// api/networking/ingress.cpp: networking.k8s.io/v1 Ingresses: kube's ValidateIngressCreate/Update
// (rules, hosts and wildcards, paths per pathType, backends, TLS hosts and secret names, the ingress
// class annotation), the status subresource (load-balancer IPs and hostnames), generation on spec
// changes, the deprecated-annotation warning, and the printer (NAME CLASS HOSTS ADDRESS PORTS AGE).
#include <set>

#include "api/common.h"
#include "api/networking/networking.h"
#include "api/networking/resource_util.h"
#include "api/networking/validators.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::networking {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using catalog::AddProblems;

namespace {

constexpr std::string_view kClassAnnotation = "kubernetes.io/ingress.class";

struct IngressOptions {
  bool allow_invalid_secret_name = false;
  bool allow_invalid_wildcard_host_rule = false;
};

ErrorList ValidateBackend(const json::object& backend, const FieldPath& p) {
  ErrorList errs;
  const json::object* resource = ObjectAt(backend, "resource");
  const json::object* service = ObjectAt(backend, "service");
  if (resource && service) {
    errs.push_back(InvalidError(p, "", "cannot set both resource and service backends"));
    return errs;
  }
  if (resource) {
    FieldPath rp = p.Child("resource");
    if (auto g = catalog::OptString(resource, "apiGroup")) AddProblems(errs, rp.Child("apiGroup"), *g, am::IsDNS1123Subdomain(*g));
    std::string kind = StringAt(*resource, "kind");
    if (kind.empty()) {
      errs.push_back(RequiredError(rp.Child("kind"), ""));
    } else {
      AddProblems(errs, rp.Child("kind"), kind, am::IsPathSegmentName(kind));
    }
    std::string name = StringAt(*resource, "name");
    if (name.empty()) {
      errs.push_back(RequiredError(rp.Child("name"), ""));
    } else {
      AddProblems(errs, rp.Child("name"), name, am::IsPathSegmentName(name));
    }
    return errs;
  }
  if (!service) {
    errs.push_back(InvalidError(p, "", "resource or service backend is required"));
    return errs;
  }
  FieldPath sp = p.Child("service");
  std::string name = StringAt(*service, "name");
  if (name.empty()) {
    errs.push_back(RequiredError(sp.Child("name"), ""));
  } else {
    AddProblems(errs, sp.Child("name"), name, am::NameIsDNS1035Label(name, false));
  }
  const json::object* port = ObjectAt(*service, "port");
  std::string port_name = port ? StringAt(*port, "name") : "";
  int64_t port_number = port ? IntAt(*port, "number") : 0;
  if (!port_name.empty() && port_number != 0) {
    errs.push_back(InvalidError(p, "", "cannot set both port name & port number"));
  } else if (!port_name.empty()) {
    AddProblems(errs, sp.Child("port").Child("name"), port_name, catalog::PortNameProblems(port_name));
  } else if (port_number != 0) {
    for (const auto& m : catalog::PortNumProblems(port_number)) {
      errs.push_back(InvalidError(sp.Child("port").Child("number"), port_number, m));
    }
  } else {
    errs.push_back(RequiredError(p, "port name or number is required"));
  }
  return errs;
}

ErrorList ValidateHttpPath(const json::object& path, const FieldPath& p) {
  ErrorList errs;
  auto type = catalog::OptString(&path, "pathType");
  if (!type) {
    errs.push_back(RequiredError(p.Child("pathType"), "pathType must be specified"));
    return errs;
  }
  std::string value = StringAt(path, "path");
  if (*type == "Exact" || *type == "Prefix") {
    if (!StartsWith(value, "/")) errs.push_back(InvalidError(p.Child("path"), value, "must be an absolute path"));
    if (!value.empty()) {
      for (const char* seq : {"//", "/./", "/../", "%2f", "%2F"}) {
        if (value.find(seq) != std::string::npos) {
          errs.push_back(InvalidError(p.Child("path"), value, "must not contain '" + std::string(seq) + "'"));
        }
      }
      for (const char* suffix : {"/..", "/."}) {
        if (EndsWith(value, suffix)) {
          errs.push_back(InvalidError(p.Child("path"), value, "cannot end with '" + std::string(suffix) + "'"));
        }
      }
    }
  } else if (*type == "ImplementationSpecific") {
    if (!value.empty() && !StartsWith(value, "/")) {
      errs.push_back(InvalidError(p.Child("path"), value, "must be an absolute path"));
    }
  } else {
    errs.push_back(NotSupportedError(p.Child("pathType"), *type, {"Exact", "ImplementationSpecific", "Prefix"}));
  }
  const json::object* backend = ObjectAt(path, "backend");
  ErrorList more = ValidateBackend(backend ? *backend : json::object(), p.Child("backend"));
  errs.insert(errs.end(), more.begin(), more.end());
  return errs;
}

ErrorList ValidateRuleValue(const json::object& rule, const FieldPath& p) {
  ErrorList errs;
  const json::object* http = ObjectAt(rule, "http");
  if (!http) return errs;
  FieldPath hp = p.Child("http");
  const json::array* paths = ArrayAt(*http, "paths");
  if (!paths || paths->empty()) errs.push_back(RequiredError(hp.Child("paths"), ""));
  if (paths) {
    for (size_t i = 0; i < paths->size(); ++i) {
      const json::object empty;
      const json::object& path = (*paths)[i].is_object() ? (*paths)[i].get_object() : empty;
      ErrorList more = ValidateHttpPath(path, hp.Child("paths").Index(i));
      errs.insert(errs.end(), more.begin(), more.end());
    }
  }
  return errs;
}

bool IsIpAddress(std::string_view s) { return catalog::ParseIp(s).has_value(); }

ErrorList ValidateSpec(const json::object* spec_in, const IngressOptions& opts) {
  static const json::object kEmpty;
  const json::object& spec = spec_in ? *spec_in : kEmpty;
  FieldPath p("spec");
  ErrorList errs;
  const json::array* rules = ArrayAt(spec, "rules");
  const json::object* default_backend = ObjectAt(spec, "defaultBackend");
  if ((!rules || rules->empty()) && !default_backend) {
    errs.push_back(catalog::InvalidGo(p, rules ? "[]networking.IngressRule{}" : "[]networking.IngressRule(nil)",
                                      "either `defaultBackend` or `rules` must be specified"));
  }
  if (default_backend) {
    ErrorList more = ValidateBackend(*default_backend, p.Child("defaultBackend"));
    errs.insert(errs.end(), more.begin(), more.end());
  }
  if (rules) {
    for (size_t i = 0; i < rules->size(); ++i) {
      if (!(*rules)[i].is_object()) continue;
      const json::object& rule = (*rules)[i].get_object();
      FieldPath rp = p.Child("rules").Index(i);
      std::string host = StringAt(rule, "host");
      bool wildcard = false;
      if (!host.empty()) {
        if (IsIpAddress(host)) errs.push_back(InvalidError(rp.Child("host"), host, "must be a DNS name, not an IP address"));
        if (host.find('*') != std::string::npos) {
          AddProblems(errs, rp.Child("host"), host, catalog::WildcardDNS1123SubdomainProblems(host));
          wildcard = true;
        } else {
          AddProblems(errs, rp.Child("host"), host, am::IsDNS1123Subdomain(host));
        }
      }
      if (!wildcard || !opts.allow_invalid_wildcard_host_rule) {
        ErrorList more = ValidateRuleValue(rule, rp);
        errs.insert(errs.end(), more.begin(), more.end());
      }
    }
  }
  if (const json::array* tls = ArrayAt(spec, "tls")) {
    for (size_t t = 0; t < tls->size(); ++t) {
      if (!(*tls)[t].is_object()) continue;
      const json::object& entry = (*tls)[t].get_object();
      FieldPath tp = p.Child("tls").Index(t);
      auto hosts = catalog::Strings(entry, "hosts");
      for (size_t i = 0; i < hosts.size(); ++i) {
        if (hosts[i].find('*') != std::string::npos) {
          AddProblems(errs, tp.Child("hosts").Index(i), hosts[i], catalog::WildcardDNS1123SubdomainProblems(hosts[i]));
        } else {
          AddProblems(errs, tp.Child("hosts").Index(i), hosts[i], am::IsDNS1123Subdomain(hosts[i]));
        }
      }
      std::string secret = StringAt(entry, "secretName");
      if (!opts.allow_invalid_secret_name && !secret.empty()) {
        AddProblems(errs, tp.Child("secretName"), secret, am::NameIsDNSSubdomain(secret, false));
      }
    }
  }
  if (auto cls = catalog::OptString(&spec, "ingressClassName")) {
    AddProblems(errs, p.Child("ingressClassName"), *cls, am::NameIsDNSSubdomain(*cls, false));
  }
  return errs;
}

// Compatibility with objects stored before a rule was tightened (kube's allowInvalid* options).
IngressOptions OptionsFor(const Object& old) {
  IngressOptions o;
  const json::object* spec = ObjectAt(old, "spec");
  if (!spec) return o;
  if (const json::array* tls = ArrayAt(*spec, "tls")) {
    for (const auto& t : *tls) {
      if (!t.is_object()) continue;
      std::string secret = StringAt(t.get_object(), "secretName");
      if (!secret.empty() && !am::NameIsDNSSubdomain(secret, false).empty()) o.allow_invalid_secret_name = true;
    }
  }
  if (const json::array* rules = ArrayAt(*spec, "rules")) {
    for (const auto& r : *rules) {
      if (!r.is_object()) continue;
      if (StringAt(r.get_object(), "host").find('*') == std::string::npos) continue;
      if (!ValidateRuleValue(r.get_object(), FieldPath()).empty()) o.allow_invalid_wildcard_host_rule = true;
    }
  }
  return o;
}

ErrorList ValidateLoadBalancerStatus(const Object& ing) {
  ErrorList errs;
  const json::value* lb = PathAt(ing, {"status", "loadBalancer", "ingress"});
  if (!lb || !lb->is_array()) return errs;
  FieldPath p = FieldPath("status").Child("loadBalancer").Child("ingress");
  for (size_t i = 0; i < lb->get_array().size(); ++i) {
    if (!lb->get_array()[i].is_object()) continue;
    const json::object& e = lb->get_array()[i].get_object();
    FieldPath ip = p.Index(i);
    std::string addr = StringAt(e, "ip");
    if (!addr.empty() && !IsIpAddress(addr)) {
      errs.push_back(InvalidError(ip.Child("ip"), addr, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
    }
    std::string host = StringAt(e, "hostname");
    if (!host.empty()) {
      AddProblems(errs, ip.Child("hostname"), host, am::IsDNS1123Subdomain(host));
      if (IsIpAddress(host)) errs.push_back(InvalidError(ip.Child("hostname"), host, "must be a DNS name, not an IP address"));
    }
  }
  return errs;
}

std::string FormatHosts(const json::array* rules) {
  std::vector<std::string> list;
  bool more = false;
  size_t n = rules ? rules->size() : 0;
  for (size_t i = 0; i < n; ++i) {
    if (list.size() == 3) more = true;
    std::string host = (*rules)[i].is_object() ? StringAt((*rules)[i].get_object(), "host") : "";
    if (!more && !host.empty()) list.push_back(host);
  }
  if (list.empty()) return "*";
  std::string ret = Join(list, ",");
  if (more) return ret + " + " + std::to_string(n - 3) + " more...";
  return ret;
}

// kube's ingressLoadBalancerStatusStringer as the server prints it (wide: never clipped).
std::string FormatAddress(const Object& ing) {
  std::set<std::string> result;
  const json::value* lb = PathAt(ing, {"status", "loadBalancer", "ingress"});
  if (lb && lb->is_array()) {
    for (const auto& e : lb->get_array()) {
      if (!e.is_object()) continue;
      std::string ip = StringAt(e.get_object(), "ip");
      std::string host = StringAt(e.get_object(), "hostname");
      if (!ip.empty()) {
        result.insert(ip);
      } else if (!host.empty()) {
        result.insert(host);
      }
    }
  }
  return Join(std::vector<std::string>(result.begin(), result.end()), ",");
}

class IngressStrategy : public registry::DefaultStrategy {
 public:
  IngressStrategy() : DefaultStrategy(Options{.namespaced = true, .has_status = true, .track_generation = true}) {}

  ErrorList Validate(const registry::Context&, const Object& ing) const override {
    ErrorList errs = ValidateSpec(ObjectAt(ing, "spec"), IngressOptions{});
    auto annotation = am::GetAnnotations(ing);
    auto cls = catalog::OptString(ObjectAt(ing, "spec"), "ingressClassName");
    for (const auto& [k, v] : annotation) {
      if (k == kClassAnnotation && cls && v != *cls) {
        errs.push_back(InvalidError(FieldPath("annotations").Child(kClassAnnotation), v,
                                    "must match `ingressClassName` when both are specified"));
      }
    }
    return errs;
  }
  ErrorList ValidateUpdate(const registry::Context&, const Object& ing, const Object& old) const override {
    return ValidateSpec(ObjectAt(ing, "spec"), OptionsFor(old));
  }
  std::vector<std::string> WarningsOnCreate(const registry::Context&, const Object& ing) const override {
    return ClassWarnings(ing);
  }
  std::vector<std::string> WarningsOnUpdate(const registry::Context&, const Object& ing, const Object&) const override {
    return ClassWarnings(ing);
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Class", "string", "", "The name of the IngressClass resource that should be used for additional configuration", 0},
            {"Hosts", "string", "", "Hosts that incoming requests are matched against before the ingress rule", 0},
            {"Address", "string", "", "Address is a list containing ingress points for the load-balancer", 0},
            {"Ports", "string", "", "Ports of TLS configurations that open", 0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& ing) const override {
    const json::object* spec = ObjectAt(ing, "spec");
    std::string cls = catalog::OptString(spec, "ingressClassName").value_or("<none>");
    std::string ports = spec && CountAt(*spec, "tls") > 0 ? "80, 443" : "80";
    return {json::value(am::GetName(ing)), json::value(cls), json::value(FormatHosts(spec ? ArrayAt(*spec, "rules") : nullptr)),
            json::value(FormatAddress(ing)), json::value(ports), json::value(AgeCell(ing))};
  }

 private:
  static std::vector<std::string> ClassWarnings(const Object& ing) {
    if (am::GetAnnotations(ing).empty()) return {};
    for (const auto& [k, v] : am::GetAnnotations(ing)) {
      if (k == kClassAnnotation) {
        return {"annotation \"kubernetes.io/ingress.class\" is deprecated, please use 'spec.ingressClassName' instead"};
      }
    }
    return {};
  }
};

}  // namespace

std::vector<registry::RestResource> Ingresses(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"networking.k8s.io", "v1", "ingresses", "ingress", "Ingress", true, {"ing"}, {},
                        "io.k8s.api.networking.v1.Ingress"});
  spec.storage_resource = "ingress";  // kube's SpecialDefaultResourcePrefixes: <prefix>/ingress/<ns>/<name>
  auto strategy = std::make_shared<IngressStrategy>();
  spec.strategy = strategy;
  auto status = std::make_shared<catalog::StatusOnlyStrategy>(
      strategy, [](const Object& obj, const Object&) { return ValidateLoadBalancerStatus(obj); });
  return catalog::MakeResourceWith(deps, std::move(spec), {{"status", status}});
}

}  // namespace capstan::api::networking
