// api/discovery/endpoint_slice.cpp: discovery.k8s.io/v1 EndpointSlices: kube's SetDefaults_EndpointPort
// (name "", protocol TCP), ValidateEndpointSliceCreate/Update (address type, addresses by type, the
// 1000-endpoint/100-address limits, hostnames, node names, zone hints, ports), v1's dropping of
// deprecatedTopology (kept as nodeName when the stored slice had it), generation on any change but
// metadata (labels included, as kube does), and the printer (NAME ADDRESSTYPE PORTS ENDPOINTS AGE).
#include <set>

#include "api/common.h"
#include "api/discovery/discovery.h"
#include "api/networking/validators.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::discovery {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using catalog::AddProblems;

namespace {

constexpr size_t kMaxEndpoints = 1000;
constexpr size_t kMaxAddresses = 100;
constexpr size_t kMaxPorts = 20000;
constexpr size_t kMaxZoneHints = 8;

const std::vector<std::string> kCreateAddressTypes = {"FQDN", "IPv4", "IPv6"};
const std::vector<std::string> kUpdateAddressTypes = {"FQDN", "IP", "IPv4", "IPv6"};

ErrorList ValidateAddress(const std::string& type, const std::string& address, const FieldPath& p) {
  ErrorList errs;
  if (type == "IP") {
    if (!catalog::ParseIp(address)) {
      errs.push_back(InvalidError(p, address, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
    }
  } else if (type == "IPv4" || type == "IPv6") {
    auto ip = catalog::ParseIp(address);
    bool ok = ip && (type == "IPv6") == ip->v6;
    if (!ok) {
      errs.push_back(InvalidError(p, address, type == "IPv4" ? "must be a valid IPv4 address" : "must be a valid IPv6 address"));
    } else {
      errs = catalog::NonSpecialIp(address, p);
    }
  } else if (type == "FQDN") {
    errs = catalog::FullyQualifiedDomainName(p, address);
  }
  return errs;
}

ErrorList ValidateSlice(const Object& eps, const std::vector<std::string>& valid_types) {
  ErrorList errs;
  auto add = [&](ErrorList more) { errs.insert(errs.end(), more.begin(), more.end()); };
  std::string type = StringAt(eps, "addressType");
  if (type.empty()) {
    errs.push_back(RequiredError(FieldPath("addressType"), ""));
  } else if (std::find(valid_types.begin(), valid_types.end(), type) == valid_types.end()) {
    errs.push_back(NotSupportedError(FieldPath("addressType"), type, valid_types));
  }

  FieldPath ep("endpoints");
  const json::array* endpoints = ArrayAt(eps, "endpoints");
  if (endpoints && endpoints->size() > kMaxEndpoints) {
    errs.push_back(TooManyError(ep, static_cast<int>(endpoints->size()), kMaxEndpoints));
  } else if (endpoints) {
    for (size_t i = 0; i < endpoints->size(); ++i) {
      if (!(*endpoints)[i].is_object()) continue;
      const json::object& e = (*endpoints)[i].get_object();
      FieldPath ip = ep.Index(i);
      auto addresses = catalog::Strings(e, "addresses");
      if (addresses.empty()) {
        errs.push_back(RequiredError(ip.Child("addresses"), "must contain at least 1 address"));
      } else if (addresses.size() > kMaxAddresses) {
        errs.push_back(TooManyError(ip.Child("addresses"), static_cast<int>(addresses.size()), kMaxAddresses));
      }
      for (size_t j = 0; j < addresses.size(); ++j) add(ValidateAddress(type, addresses[j], ip.Child("addresses").Index(j)));
      if (auto node = catalog::OptString(&e, "nodeName")) {
        AddProblems(errs, ip.Child("nodeName"), *node, am::NameIsDNSSubdomain(*node, false));
      }
      if (auto host = catalog::OptString(&e, "hostname")) AddProblems(errs, ip.Child("hostname"), *host, am::IsDNS1123Label(*host));
      if (const json::object* hints = ObjectAt(e, "hints")) {
        FieldPath zp = ip.Child("hints").Child("forZones");
        const json::array* zones = ArrayAt(*hints, "forZones");
        if (zones && zones->size() > kMaxZoneHints) {
          errs.push_back(TooManyError(zp, static_cast<int>(zones->size()), kMaxZoneHints));
        } else if (zones) {
          std::set<std::string> seen;
          for (size_t z = 0; z < zones->size(); ++z) {
            std::string name = (*zones)[z].is_object() ? StringAt((*zones)[z].get_object(), "name") : "";
            if (!seen.insert(name).second) errs.push_back(DuplicateError(zp.Index(z).Child("name"), name));
            AddProblems(errs, zp.Index(z).Child("name"), name, am::IsValidLabelValue(name));
          }
        }
      }
    }
  }

  FieldPath pp("ports");
  const json::array* ports = ArrayAt(eps, "ports");
  if (ports && ports->size() > kMaxPorts) {
    errs.push_back(TooManyError(pp, static_cast<int>(ports->size()), kMaxPorts));
  } else if (ports) {
    std::set<std::string> names;
    for (size_t i = 0; i < ports->size(); ++i) {
      if (!(*ports)[i].is_object()) continue;
      const json::object& port = (*ports)[i].get_object();
      FieldPath ip = pp.Index(i);
      std::string name = StringAt(port, "name");
      if (!name.empty()) AddProblems(errs, ip.Child("name"), name, am::IsDNS1123Label(name));
      if (!names.insert(name).second) errs.push_back(DuplicateError(ip.Child("name"), name));
      auto proto = catalog::OptString(&port, "protocol");
      if (!proto) {
        errs.push_back(RequiredError(ip.Child("protocol"), ""));
      } else if (*proto != "TCP" && *proto != "UDP" && *proto != "SCTP") {
        errs.push_back(NotSupportedError(ip.Child("protocol"), *proto, {"SCTP", "TCP", "UDP"}));
      }
      if (auto app = catalog::OptString(&port, "appProtocol")) {
        AddProblems(errs, ip.Child("appProtocol"), *app, am::IsQualifiedName(*app));
      }
    }
  }
  return errs;
}

// Node names in the deprecatedTopology (kubernetes.io/hostname) of a stored slice.
std::set<std::string> TopologyNodeNames(const Object* eps) {
  std::set<std::string> out;
  const json::array* endpoints = eps ? ArrayAt(*eps, "endpoints") : nullptr;
  if (!endpoints) return out;
  for (const auto& e : *endpoints) {
    const json::value* host = e.is_object() ? PathAt(e.get_object(), {"deprecatedTopology", "kubernetes.io/hostname"}) : nullptr;
    if (host && host->is_string()) out.insert(std::string(host->get_string()));
  }
  return out;
}

// kube's dropTopologyOnV1: v1 writes never set deprecatedTopology; a hostname it carried that the
// stored slice had too becomes the endpoint's nodeName.
void DropTopology(Object& eps, const Object* old) {
  json::value* endpoints = eps.if_contains("endpoints");
  if (!endpoints || !endpoints->is_array()) return;
  if (old) {
    const json::value* old_eps = old->if_contains("endpoints");
    if (old_eps && *old_eps == *endpoints) return;
  }
  std::set<std::string> previous = TopologyNodeNames(old);
  for (auto& e : endpoints->get_array()) {
    if (!e.is_object()) continue;
    json::object& ep = e.get_object();
    const json::value* host = PathAt(ep, {"deprecatedTopology", "kubernetes.io/hostname"});
    if (!catalog::Has(&ep, "nodeName") && host && host->is_string()) {
      std::string name(host->get_string());
      if (previous.count(name) && am::NameIsDNSSubdomain(name, false).empty()) ep["nodeName"] = name;
    }
    ep.erase("deprecatedTopology");
  }
}

// kube's SetDefaults_EndpointPort.
void DefaultPorts(Object& eps) {
  json::value* ports = eps.if_contains("ports");
  if (!ports || !ports->is_array()) return;
  for (auto& p : ports->get_array()) {
    if (!p.is_object()) continue;
    catalog::DefaultField(p.get_object(), "name", "");
    catalog::DefaultField(p.get_object(), "protocol", "TCP");
  }
}

std::string ListWithMore(const std::vector<std::string>& list, bool more, size_t count) {
  std::string ret = Join(list, ",");
  if (more) return ret + " + " + std::to_string(count - 3) + " more...";
  return ret.empty() ? "<unset>" : ret;
}

class EndpointSliceStrategy : public registry::DefaultStrategy {
 public:
  EndpointSliceStrategy() : DefaultStrategy(Options{}) {}

  void PrepareForCreate(const registry::Context&, Object& eps) const override {
    DefaultPorts(eps);
    DropTopology(eps, nullptr);
    am::SetGeneration(eps, 1);
  }
  void PrepareForUpdate(const registry::Context&, Object& eps, const Object& old) const override {
    DefaultPorts(eps);
    DropTopology(eps, &old);
    int64_t gen = am::GetGeneration(old);
    bool labels_changed = am::GetLabels(eps) != am::GetLabels(old);
    if (registry::SpecChanged(eps, old) || labels_changed) ++gen;
    am::SetGeneration(eps, gen == 0 ? 1 : gen);
  }
  ErrorList Validate(const registry::Context&, const Object& eps) const override {
    return ValidateSlice(eps, kCreateAddressTypes);
  }
  ErrorList ValidateUpdate(const registry::Context&, const Object& eps, const Object& old) const override {
    ErrorList errs = ValidateSlice(eps, kUpdateAddressTypes);
    catalog::CheckImmutable(errs, eps.if_contains("addressType"), old.if_contains("addressType"), FieldPath("addressType"));
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"AddressType", "string", "",
             "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice "
             "must be the same type. This field is immutable after creation. The following address types are "
             "currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: "
             "Represents a Fully Qualified Domain Name.",
             0},
            {"Ports", "string", "",
             "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a "
             "unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined "
             "with a nil port value, it indicates \"all ports\". Each slice may include a maximum of 100 ports.",
             0},
            {"Endpoints", "string", "",
             "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.",
             0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& eps) const override {
    std::vector<std::string> ports;
    bool more_ports = false;
    size_t port_count = 0;
    if (const json::array* a = ArrayAt(eps, "ports")) {
      for (const auto& p : *a) {
        if (ports.size() < 3) {
          const json::object empty;
          const json::object& o = p.is_object() ? p.get_object() : empty;
          std::string value = "*";
          if (auto n = catalog::OptInt(&o, "port")) {
            value = std::to_string(*n);
          } else if (auto name = catalog::OptString(&o, "name")) {
            value = *name;
          }
          ports.push_back(value);
        } else if (ports.size() == 3) {
          more_ports = true;
        }
        ++port_count;
      }
    }
    std::vector<std::string> addresses;
    bool more_addresses = false;
    size_t address_count = 0;
    if (const json::array* a = ArrayAt(eps, "endpoints")) {
      for (const auto& e : *a) {
        if (!e.is_object()) continue;
        for (const auto& addr : catalog::Strings(e.get_object(), "addresses")) {
          if (addresses.size() < 3) {
            addresses.push_back(addr);
          } else if (addresses.size() == 3) {
            more_addresses = true;
          }
          ++address_count;
        }
      }
    }
    return {json::value(am::GetName(eps)), json::value(StringAt(eps, "addressType")),
            json::value(ListWithMore(ports, more_ports, port_count)),
            json::value(ListWithMore(addresses, more_addresses, address_count)), json::value(AgeCell(eps))};
  }
};

}  // namespace

std::vector<registry::RestResource> EndpointSlices(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"discovery.k8s.io", "v1", "endpointslices", "endpointslice", "EndpointSlice", true, {}, {},
                        "io.k8s.api.discovery.v1.EndpointSlice"});
  spec.strategy = std::make_shared<EndpointSliceStrategy>();
  return registry::MakeResource(deps, std::move(spec));
}

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) { return EndpointSlices(deps); }

}  // namespace capstan::api::discovery
