// api/core/endpoints.cpp: core/v1 Endpoints: protocol TCP on ports, kube's subset validation
// (addresses required, valid non-special IPs, port names and numbers), create on update, and the
// printer (NAME ENDPOINTS AGE). Stored where kube keeps them: <prefix>/services/endpoints.
#include "api/core/core_descriptions.h"
#include "api/core/core_helpers.h"
#include "api/core/core_resources.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/validation.h"
#include "registry/ip_range.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

namespace {

ErrorList ValidateAddress(const json::object& a, const FieldPath& p) {
  ErrorList errs;
  std::string ip = StrOf(a.if_contains("ip"));
  auto addr = registry::IpAddress::Parse(ip);
  if (!addr) {
    errs.push_back(InvalidError(p.Child("ip"), ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
  }
  std::string host = StrOf(a.if_contains("hostname"));
  if (!host.empty()) {
    auto more = ProblemsAt(am::IsDNS1123Label(host), p.Child("hostname"), host);
    errs.insert(errs.end(), more.begin(), more.end());
  }
  if (const auto* n = a.if_contains("nodeName"); n && n->is_string()) {
    auto more = ProblemsAt(am::IsDNS1123Subdomain(n->get_string()), p.Child("nodeName"), n->get_string());
    errs.insert(errs.end(), more.begin(), more.end());
  }
  if (!addr) {
    errs.push_back(InvalidError(p.Child("ip"), ip, "must be a valid IP address"));
    return errs;
  }
  if (addr->IsUnspecified()) errs.push_back(InvalidError(p.Child("ip"), ip, "may not be unspecified (" + ip + ")"));
  if (addr->IsLoopback()) errs.push_back(InvalidError(p.Child("ip"), ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
  bool link_local = addr->v6 ? (addr->bytes[0] == 0xfe && (addr->bytes[1] & 0xc0) == 0x80) : (addr->bytes[0] == 169 && addr->bytes[1] == 254);
  if (link_local) errs.push_back(InvalidError(p.Child("ip"), ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
  bool ll_multicast = addr->v6 ? (addr->bytes[0] == 0xff && (addr->bytes[1] & 0x0f) == 0x02)
                               : (addr->bytes[0] == 224 && addr->bytes[1] == 0 && addr->bytes[2] == 0);
  if (ll_multicast) {
    errs.push_back(InvalidError(p.Child("ip"), ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
  }
  return errs;
}

class EndpointsStrategy : public registry::DefaultStrategy {
 public:
  EndpointsStrategy() : DefaultStrategy(Options{.allow_create_on_update = true}) {}

  static void Default(Object& ep) {
    if (auto* subsets = ArrayField(ep, "subsets")) {
      for (auto& ss : *subsets) {
        if (!ss.is_object()) continue;
        if (auto* ports = ArrayField(ss.get_object(), "ports")) {
          for (auto& p : *ports) {
            if (p.is_object() && StrOf(p.get_object().if_contains("protocol")).empty()) p.get_object()["protocol"] = "TCP";
          }
        }
      }
    }
  }
  void PrepareForCreate(const registry::Context&, Object& ep) const override { Default(ep); }
  void PrepareForUpdate(const registry::Context&, Object& ep, const Object&) const override { Default(ep); }

  ErrorList Validate(const registry::Context&, const Object& ep) const override {
    ErrorList errs;
    const auto* subsets = ep.if_contains("subsets");
    if (!subsets || !subsets->is_array()) return errs;
    for (size_t i = 0; i < subsets->get_array().size(); ++i) {
      const auto& ssv = subsets->get_array()[i];
      if (!ssv.is_object()) continue;
      const auto& ss = ssv.get_object();
      FieldPath p = FieldPath("subsets").Index(i);
      if (CountAt(ss, "addresses") == 0 && CountAt(ss, "notReadyAddresses") == 0) {
        errs.push_back(RequiredError(p, "must specify `addresses` or `notReadyAddresses`"));
      }
      for (const char* list : {"addresses", "notReadyAddresses"}) {
        if (const auto* a = ss.if_contains(list); a && a->is_array()) {
          for (size_t j = 0; j < a->get_array().size(); ++j) {
            if (!a->get_array()[j].is_object()) continue;
            auto more = ValidateAddress(a->get_array()[j].get_object(), p.Child(list).Index(j));
            errs.insert(errs.end(), more.begin(), more.end());
          }
        }
      }
      if (const auto* ports = ss.if_contains("ports"); ports && ports->is_array()) {
        size_t n = ports->get_array().size();
        for (size_t j = 0; j < n; ++j) {
          if (!ports->get_array()[j].is_object()) continue;
          const auto& port = ports->get_array()[j].get_object();
          FieldPath pp = p.Child("ports").Index(j);
          std::string name = StrOf(port.if_contains("name"));
          if (n > 1 && name.empty()) {
            errs.push_back(RequiredError(pp.Child("name"), ""));
          } else if (!name.empty()) {
            auto more = ProblemsAt(am::IsDNS1123Label(name), pp.Child("name"), name);
            errs.insert(errs.end(), more.begin(), more.end());
          }
          int64_t num = IntOf(port.if_contains("port"));
          if (num < 1 || num > 65535) errs.push_back(InvalidError(pp.Child("port"), num, "must be between 1 and 65535, inclusive"));
          std::string proto = StrOf(port.if_contains("protocol"));
          if (proto.empty()) {
            errs.push_back(RequiredError(pp.Child("protocol"), ""));
          } else if (proto != "TCP" && proto != "UDP" && proto != "SCTP") {
            errs.push_back(NotSupportedError(pp.Child("protocol"), proto, {"SCTP", "TCP", "UDP"}));
          }
          if (const auto* ap = port.if_contains("appProtocol"); ap && ap->is_string()) {
            auto more = ProblemsAt(am::IsQualifiedName(ap->get_string()), pp.Child("appProtocol"), ap->get_string());
            errs.insert(errs.end(), more.begin(), more.end());
          }
        }
      }
    }
    return errs;
  }
  ErrorList ValidateUpdate(const registry::Context& ctx, const Object& ep, const Object&) const override {
    return Validate(ctx, ep);
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(), {"Endpoints", "string", "", kEndpointsSubsets, 0}, registry::AgeColumn()};
  }
  // kube's formatEndpoints: up to three host:port (or address) entries, then "+ N more...".
  json::array TableCells(const Object& ep) const override {
    std::vector<std::string> list;
    int count = 0;
    bool more = false;
    const auto* subsets = ep.if_contains("subsets");
    if (subsets && subsets->is_array()) {
      for (const auto& ssv : subsets->get_array()) {
        if (!ssv.is_object()) continue;
        const auto& ss = ssv.get_object();
        const auto* addrs = ss.if_contains("addresses");
        const json::array kNone;
        const json::array& a = addrs && addrs->is_array() ? addrs->get_array() : kNone;
        const auto* ports = ss.if_contains("ports");
        if (!ports || !ports->is_array() || ports->get_array().empty()) {
          count += static_cast<int>(a.size());
          for (const auto& x : a) {
            if (list.size() == 3) {
              more = true;
              break;
            }
            list.push_back(StrOf(x.is_object() ? x.get_object().if_contains("ip") : nullptr));
          }
          continue;
        }
        for (const auto& pv : ports->get_array()) {
          int64_t port = pv.is_object() ? IntOf(pv.get_object().if_contains("port")) : 0;
          count += static_cast<int>(a.size());
          for (const auto& x : a) {
            if (list.size() == 3) {
              more = true;
              break;
            }
            std::string ip = StrOf(x.is_object() ? x.get_object().if_contains("ip") : nullptr);
            if (ip.find(':') != std::string::npos) ip = "[" + ip + "]";
            list.push_back(ip + ":" + std::to_string(port));
          }
        }
      }
    }
    std::string cell;
    if (!subsets || !subsets->is_array() || subsets->get_array().empty()) {
      cell = "<none>";
    } else {
      cell = Join(list, ",");
      if (more) cell += " + " + std::to_string(count - 3) + " more...";
    }
    return {json::value(am::GetName(ep)), json::value(cell), json::value(AgeCell(ep))};
  }
};

}  // namespace

std::vector<registry::RestResource> EndpointsResource(const registry::GroupDeps& deps) {
  auto info = MakeInfo({"", "v1", "endpoints", "endpoints", "Endpoints", true, {"ep"}, {}, "io.k8s.api.core.v1.Endpoints"});
  return MakeCoreResource(deps, info, std::make_shared<EndpointsStrategy>(), nullptr, "services/endpoints");
}

}  // namespace capstan::api::core
