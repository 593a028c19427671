#include "api/flowcontrol/flowcontrol_validation.h"

#include <cmath>
#include <set>

#include "api/common.h"
#include "api/flowcontrol/flowcontrol.h"
#include "api/networking/validators.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::flowcontrol {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using catalog::Strings;

namespace {

const json::object kEmpty;
const json::object& Or(const json::object* o) { return o ? *o : kEmpty; }
void Append(ErrorList& errs, ErrorList more) { errs.insert(errs.end(), more.begin(), more.end()); }
bool HasWildcard(const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), "*") != v.end(); }

const std::vector<std::string> kVerbs = {"create", "delete", "deletecollection", "get", "list",
                                         "patch",  "proxy",  "update",           "watch"};
constexpr std::string_view kNsErrIntro = "each member of this list must be '*' or a DNS-1123 label; ";

ErrorList ValidateVerbs(const std::vector<std::string>& verbs, const FieldPath& p) {
  ErrorList errs;
  if (verbs.empty()) {
    errs.push_back(RequiredError(p, "verbs must contain at least one value"));
  } else if (HasWildcard(verbs)) {
    if (verbs.size() > 1) {
      errs.push_back(catalog::InvalidGo(p, catalog::GoStringSlice(verbs), "if '*' is present, must not specify other verbs"));
    }
  } else {
    for (const auto& v : verbs) {
      if (std::find(kVerbs.begin(), kVerbs.end(), v) == kVerbs.end()) {
        FieldError e = NotSupportedError(p, "", kVerbs);
        e.omit_value = true;
        e.detail = catalog::GoStringSlice(verbs) + ": " + e.detail;
        errs.push_back(std::move(e));
        break;
      }
    }
  }
  return errs;
}

ErrorList ValidateSubject(const json::object& s, const FieldPath& p) {
  ErrorList errs;
  std::string kind = StringAt(s, "kind");
  bool has_sa = catalog::Has(&s, "serviceAccount");
  bool has_user = catalog::Has(&s, "user");
  bool has_group = catalog::Has(&s, "group");
  auto forbid = [&](bool present, const char* key, const char* what) {
    if (present) {
      errs.push_back(ForbiddenError(p.Child(key), std::string(key) + " is forbidden when subject kind is not '" + what + "'"));
    }
  };
  if (kind == "ServiceAccount") {
    const json::object* sa = ObjectAt(s, "serviceAccount");
    if (!sa) {
      errs.push_back(RequiredError(p.Child("serviceAccount"), "serviceAccount is required when subject kind is 'ServiceAccount'"));
    } else {
      FieldPath sp = p.Child("serviceAccount");
      std::string name = StringAt(*sa, "name");
      if (name.empty()) {
        errs.push_back(RequiredError(sp.Child("name"), ""));
      } else if (name != "*") {
        catalog::AddProblems(errs, sp.Child("name"), name, am::NameIsDNSSubdomain(name, false));
      }
      std::string ns = StringAt(*sa, "namespace");
      if (ns.empty()) {
        errs.push_back(RequiredError(sp.Child("namespace"), "must specify namespace for service account"));
      } else {
        catalog::AddProblems(errs, sp.Child("namespace"), ns, am::ValidateNamespaceName(ns, false));
      }
    }
    forbid(has_user, "user", "User");
    forbid(has_group, "group", "Group");
  } else if (kind == "User") {
    const json::object* user = ObjectAt(s, "user");
    if (!user) {
      errs.push_back(RequiredError(p.Child("user"), "user is required when subject kind is 'User'"));
    } else if (StringAt(*user, "name").empty()) {
      errs.push_back(RequiredError(p.Child("user").Child("name"), ""));
    }
    forbid(has_sa, "serviceAccount", "ServiceAccount");
    forbid(has_group, "group", "Group");
  } else if (kind == "Group") {
    const json::object* group = ObjectAt(s, "group");
    if (!group) {
      errs.push_back(RequiredError(p.Child("group"), "group is required when subject kind is 'Group'"));
    } else if (StringAt(*group, "name").empty()) {
      errs.push_back(RequiredError(p.Child("group").Child("name"), ""));
    }
    forbid(has_sa, "serviceAccount", "ServiceAccount");
    forbid(has_user, "user", "User");
  } else {
    errs.push_back(NotSupportedError(p.Child("kind"), kind, {"Group", "ServiceAccount", "User"}));
  }
  return errs;
}

ErrorList ValidateNonResourceUrl(const std::string& path, const FieldPath& p) {
  if (path.empty()) return {InvalidError(p, path, "must not be empty")};
  if (path == "/") return {};
  if (!StartsWith(path, "/")) return {InvalidError(p, path, "must start with slash")};
  if (path.find(' ') != std::string::npos) return {InvalidError(p, path, "must not contain white-space")};
  if (path.find("//") != std::string::npos) return {InvalidError(p, path, "must not contain double slash")};
  size_t stars = std::count(path.begin(), path.end(), '*');
  if (stars > 1 || (stars == 1 && (path.size() < 2 || path.substr(path.size() - 2) != "/*"))) {
    return {InvalidError(p, path, "wildcard can only do suffix matching")};
  }
  return {};
}

ErrorList ValidateRule(const json::object& rule, const FieldPath& p) {
  ErrorList errs;
  const json::array* subjects = ArrayAt(rule, "subjects");
  if (subjects && !subjects->empty()) {
    for (size_t i = 0; i < subjects->size(); ++i) {
      Append(errs, ValidateSubject((*subjects)[i].is_object() ? (*subjects)[i].get_object() : kEmpty, p.Child("subjects").Index(i)));
    }
  } else {
    errs.push_back(RequiredError(p.Child("subjects"), "subjects must contain at least one value"));
  }
  if (CountAt(rule, "resourceRules") == 0 && CountAt(rule, "nonResourceRules") == 0) {
    errs.push_back(RequiredError(p, "at least one of resourceRules and nonResourceRules has to be non-empty"));
  }
  if (const json::array* rrs = ArrayAt(rule, "resourceRules")) {
    for (size_t i = 0; i < rrs->size(); ++i) {
      const json::object& rr = (*rrs)[i].is_object() ? (*rrs)[i].get_object() : kEmpty;
      FieldPath rp = p.Child("resourceRules").Index(i);
      Append(errs, ValidateVerbs(Strings(rr, "verbs"), rp.Child("verbs")));
      auto groups = Strings(rr, "apiGroups");
      if (groups.empty()) {
        errs.push_back(RequiredError(rp.Child("apiGroups"), "resource rules must supply at least one api group"));
      } else if (groups.size() > 1 && HasWildcard(groups)) {
        errs.push_back(catalog::InvalidGo(rp.Child("apiGroups"), catalog::GoStringSlice(groups),
                                          "if '*' is present, must not specify other api groups"));
      }
      auto resources = Strings(rr, "resources");
      if (resources.empty()) {
        errs.push_back(RequiredError(rp.Child("resources"), "resource rules must supply at least one resource"));
      } else if (resources.size() > 1 && HasWildcard(resources)) {
        errs.push_back(catalog::InvalidGo(rp.Child("resources"), catalog::GoStringSlice(resources),
                                          "if '*' is present, must not specify other resources"));
      }
      auto namespaces = Strings(rr, "namespaces");
      if (namespaces.empty() && !BoolAt(rr, "clusterScope")) {
        errs.push_back(RequiredError(rp.Child("namespaces"),
                                     "resource rules that are not cluster scoped must supply at least one namespace"));
      } else if (HasWildcard(namespaces)) {
        if (namespaces.size() > 1) {
          errs.push_back(catalog::InvalidGo(rp.Child("namespaces"), catalog::GoStringSlice(namespaces),
                                            "if '*' is present, must not specify other namespaces"));
        }
      } else {
        for (size_t j = 0; j < namespaces.size(); ++j) {
          for (const auto& m : am::ValidateNamespaceName(namespaces[j], false)) {
            errs.push_back(InvalidError(rp.Child("namespaces").Index(j), namespaces[j], std::string(kNsErrIntro) + m));
          }
        }
      }
    }
  }
  if (const json::array* nrs = ArrayAt(rule, "nonResourceRules")) {
    for (size_t i = 0; i < nrs->size(); ++i) {
      const json::object& nr = (*nrs)[i].is_object() ? (*nrs)[i].get_object() : kEmpty;
      FieldPath np = p.Child("nonResourceRules").Index(i);
      Append(errs, ValidateVerbs(Strings(nr, "verbs"), np.Child("verbs")));
      auto urls = Strings(nr, "nonResourceURLs");
      if (urls.empty()) {
        errs.push_back(RequiredError(np.Child("nonResourceURLs"), "nonResourceURLs must contain at least one value"));
      } else if (HasWildcard(urls)) {
        if (urls.size() > 1) {
          errs.push_back(catalog::InvalidGo(np.Child("nonResourceURLs"), catalog::GoStringSlice(urls),
                                            "if '*' is present, must not specify other non-resource URLs"));
        }
      } else {
        for (size_t j = 0; j < urls.size(); ++j) Append(errs, ValidateNonResourceUrl(urls[j], np.Child("nonResourceURLs").Index(j)));
      }
    }
  }
  return errs;
}

ErrorList ValidateConditionTypes(const json::object& obj) {
  ErrorList errs;
  const json::value* conditions = PathAt(obj, {"status", "conditions"});
  if (!conditions || !conditions->is_array()) return errs;
  FieldPath p = FieldPath("status").Child("conditions");
  std::set<std::string> seen;
  for (size_t i = 0; i < conditions->get_array().size(); ++i) {
    const json::value& c = conditions->get_array()[i];
    std::string type = c.is_object() ? StringAt(c.get_object(), "type") : "";
    if (!seen.insert(type).second) errs.push_back(DuplicateError(p.Index(i).Child("type"), type));
    if (type.empty()) errs.push_back(RequiredError(p.Index(i).Child("type"), "must not be empty"));
  }
  return errs;
}

}  // namespace

json::value OmitZeroValues(const json::value& v) {
  if (v.is_object()) {
    json::object out;
    for (const auto& kv : v.get_object()) {
      json::value c = OmitZeroValues(kv.value());
      if (!c.is_null()) out[kv.key()] = std::move(c);
    }
    return out.empty() ? json::value() : json::value(std::move(out));
  }
  if (v.is_array()) {
    json::array out;
    for (const auto& e : v.get_array()) {
      json::value c = OmitZeroValues(e);
      out.push_back(c.is_null() ? json::value(json::object()) : std::move(c));
    }
    return out.empty() ? json::value() : json::value(std::move(out));
  }
  if ((v.is_bool() && !v.get_bool()) || (v.is_string() && v.get_string().empty()) || (v.is_int64() && v.get_int64() == 0) ||
      (v.is_uint64() && v.get_uint64() == 0) || (v.is_double() && v.get_double() == 0)) {
    return json::value();
  }
  return v;
}

namespace {

const json::object* MandatoryNamed(const std::vector<registry::Object>& objects, std::string_view name) {
  for (const auto& o : objects) {
    if (am::GetName(o) == name) return &o;
  }
  return nullptr;
}

ErrorList ValidateQueuing(const json::object& q, const FieldPath& p) {
  ErrorList errs;
  int64_t limit = IntAt(q, "queueLengthLimit");
  if (limit <= 0) errs.push_back(InvalidError(p.Child("queueLengthLimit"), limit, "must be positive"));
  int64_t queues = IntAt(q, "queues");
  if (queues <= 0) {
    errs.push_back(InvalidError(p.Child("queues"), queues, "must be positive"));
  } else if (queues > 10000000) {
    errs.push_back(InvalidError(p.Child("queues"), queues, "must not be greater than 10000000"));
  }
  int64_t hand = IntAt(q, "handSize");
  if (hand <= 0) {
    errs.push_back(InvalidError(p.Child("handSize"), hand, "must be positive"));
  } else if (hand > queues) {
    errs.push_back(InvalidError(p.Child("handSize"), hand, "should not be greater than queues (" + std::to_string(queues) + ")"));
  } else if (queues > 0) {
    int64_t entropy = static_cast<int64_t>(std::ceil(std::log2(static_cast<double>(queues)) * static_cast<double>(hand)));
    if (entropy > 60) {
      errs.push_back(InvalidError(p.Child("handSize"), hand,
                                  "required entropy bits of deckSize " + std::to_string(queues) + " and handSize " +
                                      std::to_string(hand) + " should not be greater than 60"));
    }
  }
  return errs;
}

}  // namespace

void DefaultFlowSchema(json::object& fs) {
  json::value* spec = fs.if_contains("spec");
  if (!spec || !spec->is_object()) return;
  auto precedence = catalog::OptInt(&spec->get_object(), "matchingPrecedence");
  if (!precedence || *precedence == 0) spec->get_object()["matchingPrecedence"] = 1000;
}

void DefaultPriorityLevel(json::object& pl) {
  json::value* spec = pl.if_contains("spec");
  if (!spec || !spec->is_object()) return;
  json::object& s = spec->get_object();
  if (json::value* exempt = s.if_contains("exempt"); exempt && exempt->is_object()) {
    catalog::DefaultField(exempt->get_object(), "nominalConcurrencyShares", 0);
    catalog::DefaultField(exempt->get_object(), "lendablePercent", 0);
  }
  if (json::value* limited = s.if_contains("limited"); limited && limited->is_object()) {
    json::object& l = limited->get_object();
    catalog::DefaultField(l, "nominalConcurrencyShares", 30);
    catalog::DefaultField(l, "lendablePercent", 0);
    json::value* response = l.if_contains("limitResponse");
    json::value* queuing = response && response->is_object() ? response->get_object().if_contains("queuing") : nullptr;
    if (queuing && queuing->is_object()) {
      json::object& q = queuing->get_object();
      for (auto [key, def] : {std::pair{"handSize", 8}, std::pair{"queues", 64}, std::pair{"queueLengthLimit", 50}}) {
        auto v = catalog::OptInt(&q, key);
        if (!v || *v == 0) q[key] = def;
      }
    }
  }
}

ErrorList ValidateFlowSchema(const json::object& fs) {
  ErrorList errs;
  const json::object& spec = Or(ObjectAt(fs, "spec"));
  FieldPath p("spec");
  std::string name(am::GetName(fs));
  int64_t precedence = IntAt(spec, "matchingPrecedence");
  if (precedence <= 0) errs.push_back(InvalidError(p.Child("matchingPrecedence"), precedence, "must be a positive value"));
  if (precedence > 10000) errs.push_back(InvalidError(p.Child("matchingPrecedence"), precedence, "must not be greater than 10000"));
  if (precedence == 1 && name != "exempt") {
    errs.push_back(InvalidError(p.Child("matchingPrecedence"), precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  }
  if (const json::object* dm = ObjectAt(spec, "distinguisherMethod")) {
    std::string type = StringAt(*dm, "type");
    if (type != "ByNamespace" && type != "ByUser") {
      FieldError e = NotSupportedError(p.Child("distinguisherMethod").Child("type"), "", {"ByNamespace", "ByUser"});
      e.omit_value = true;
      e.detail = "&flowcontrol.FlowDistinguisherMethod{Type:" + GoQuote(type) + "}: " + e.detail;
      errs.push_back(std::move(e));
    }
  }
  std::string pl = StringAt(Or(ObjectAt(spec, "priorityLevelConfiguration")), "name");
  FieldPath plp = p.Child("priorityLevelConfiguration").Child("name");
  if (pl.empty()) {
    errs.push_back(RequiredError(plp, "must reference a priority level"));
  } else {
    catalog::AddProblems(errs, plp, pl, am::NameIsDNSSubdomain(pl, false));
  }
  if (const json::array* rules = ArrayAt(spec, "rules")) {
    for (size_t i = 0; i < rules->size(); ++i) {
      Append(errs, ValidateRule((*rules)[i].is_object() ? (*rules)[i].get_object() : kEmpty, p.Child("rules").Index(i)));
    }
  }
  auto mandatory = MandatoryFlowSchemas();
  if (const json::object* mand = MandatoryNamed(mandatory, name)) {
    if (OmitZeroValues(spec) != OmitZeroValues(Or(ObjectAt(*mand, "spec")))) {
      errs.push_back(catalog::InvalidGo(p, json::serialize(spec), "spec of '" + name + "' must equal the fixed value"));
    }
  }
  Append(errs, ValidateConditionTypes(fs));
  return errs;
}

ErrorList ValidateFlowSchemaStatus(const json::object& fs) { return ValidateConditionTypes(fs); }

ErrorList ValidatePriorityLevel(const json::object& pl) {
  ErrorList errs;
  const json::object& spec = Or(ObjectAt(pl, "spec"));
  FieldPath p("spec");
  std::string name(am::GetName(pl));
  std::string type = StringAt(spec, "type");
  if ((name == "exempt") != (type == "Exempt")) {
    errs.push_back(InvalidError(p.Child("type"), type, "type must be 'Exempt' if and only if name is 'exempt'"));
  }
  const json::object* exempt = ObjectAt(spec, "exempt");
  const json::object* limited = ObjectAt(spec, "limited");
  if (type == "Exempt") {
    if (limited) errs.push_back(ForbiddenError(p.Child("limited"), "must be nil if the type is not Limited"));
    if (exempt) {
      FieldPath ep = p.Child("exempt");
      if (auto shares = catalog::OptInt(exempt, "nominalConcurrencyShares"); shares && *shares < 0) {
        errs.push_back(InvalidError(ep.Child("nominalConcurrencyShares"), *shares, "must be a non-negative integer"));
      }
      if (auto lp = catalog::OptInt(exempt, "lendablePercent"); lp && (*lp < 0 || *lp > 100)) {
        errs.push_back(InvalidError(ep.Child("lendablePercent"), *lp, "must be between 0 and 100, inclusive"));
      }
    }
  } else if (type == "Limited") {
    if (exempt) errs.push_back(ForbiddenError(p.Child("exempt"), "must be nil if the type is Limited"));
    if (!limited) {
      errs.push_back(RequiredError(p.Child("limited"), "must not be empty when type is Limited"));
    } else {
      FieldPath lp = p.Child("limited");
      int64_t shares = IntAt(*limited, "nominalConcurrencyShares");
      if (shares < 0) errs.push_back(InvalidError(lp.Child("nominalConcurrencyShares"), shares, "must be a non-negative integer"));
      const json::object& response = Or(ObjectAt(*limited, "limitResponse"));
      FieldPath rp = lp.Child("limitResponse");
      std::string rtype = StringAt(response, "type");
      const json::object* queuing = ObjectAt(response, "queuing");
      if (rtype == "Reject") {
        if (queuing) errs.push_back(ForbiddenError(rp.Child("queuing"), "must be nil if limited.limitResponse.type is not Limited"));
      } else if (rtype == "Queue") {
        if (!queuing) {
          errs.push_back(RequiredError(rp.Child("queuing"), "must not be empty if limited.limitResponse.type is Limited"));
        } else {
          Append(errs, ValidateQueuing(*queuing, rp.Child("queuing")));
        }
      } else {
        errs.push_back(NotSupportedError(rp.Child("type"), rtype, {"Queue", "Reject"}));
      }
      if (auto pct = catalog::OptInt(limited, "lendablePercent"); pct && (*pct < 0 || *pct > 100)) {
        errs.push_back(InvalidError(lp.Child("lendablePercent"), *pct, "must be between 0 and 100, inclusive"));
      }
      if (auto b = catalog::OptInt(limited, "borrowingLimitPercent"); b && *b < 0) {
        errs.push_back(InvalidError(lp.Child("borrowingLimitPercent"), *b, "if specified, must be a non-negative integer"));
      }
    }
  } else {
    errs.push_back(NotSupportedError(p.Child("type"), type, {"Exempt", "Limited"}));
  }
  auto mandatory = MandatoryPriorityLevels();
  if (const json::object* mand = MandatoryNamed(mandatory, name)) {
    // The exempt level's shares and lendable percent are the administrator's to tune.
    json::object want = Or(ObjectAt(*mand, "spec"));
    json::object have = spec;
    if (name == "exempt") {
      want.erase("exempt");
      have.erase("exempt");
    }
    if (OmitZeroValues(want) != OmitZeroValues(have)) {
      errs.push_back(catalog::InvalidGo(p, json::serialize(spec), "spec of '" + name + "' must equal the fixed value"));
    }
  }
  Append(errs, ValidateConditionTypes(pl));
  return errs;
}

ErrorList ValidatePriorityLevelStatus(const json::object& pl) { return ValidateConditionTypes(pl); }

}  // namespace capstan::api::flowcontrol
