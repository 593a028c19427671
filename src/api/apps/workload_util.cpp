#include "api/apps/workload_util.h"

#include <algorithm>
#include <charconv>

#include "api/common.h"
#include "apimachinery/labels.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::apps {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

std::string GoStringSlice(const json::value* v) {
  if (!v || !v->is_array()) return "[]string(nil)";
  std::vector<std::string> parts;
  for (const auto& x : v->get_array()) parts.push_back(GoQuote(x.is_string() ? std::string_view(x.get_string()) : ""));
  return "[]string{" + Join(parts, ", ") + "}";
}

std::string GoRequirements(const json::value* v) {
  if (!v || !v->is_array()) return "[]v1.LabelSelectorRequirement(nil)";
  std::vector<std::string> parts;
  for (const auto& r : v->get_array()) {
    const json::object empty;
    const json::object& o = r.is_object() ? r.get_object() : empty;
    parts.push_back("v1.LabelSelectorRequirement{Key:" + GoQuote(StringAt(o, "key")) +
                    ", Operator:" + GoQuote(StringAt(o, "operator")) + ", Values:" + GoStringSlice(o.if_contains("values")) +
                    "}");
  }
  return "[]v1.LabelSelectorRequirement{" + Join(parts, ", ") + "}";
}

// A selector with empty lists and maps dropped (kube's semantic equality treats them as absent).
json::value CanonicalSelector(const json::value* v) {
  if (!v || !v->is_object()) return nullptr;
  json::object out;
  if (const auto* ml = v->get_object().if_contains("matchLabels"); ml && ml->is_object() && !ml->get_object().empty()) {
    out["matchLabels"] = *ml;
  }
  if (const auto* me = v->get_object().if_contains("matchExpressions"); me && me->is_array() && !me->get_array().empty()) {
    json::array exprs;
    for (const auto& e : me->get_array()) {
      if (!e.is_object()) continue;
      json::object x = e.get_object();
      if (const auto* vals = x.if_contains("values"); vals && vals->is_array() && vals->get_array().empty()) {
        x.erase("values");
      }
      exprs.push_back(std::move(x));
    }
    out["matchExpressions"] = std::move(exprs);
  }
  return out;
}

bool ParsePercent(const std::string& s, int64_t* value) {
  if (s.size() < 2 || s.back() != '%') return false;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  int64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size() - 1, v);
  if (r.ec != std::errc()) return false;
  *value = v;
  return true;
}

constexpr std::string_view kPercentError = "a valid percent string must be a numeric string followed by an ending '%'";

}  // namespace

std::string GoStringMap(const json::value* v) {
  if (!v || !v->is_object()) return "map[string]string(nil)";
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& kv : v->get_object()) {
    entries.emplace_back(std::string(kv.key()), kv.value().is_string() ? std::string(kv.value().get_string()) : "");
  }
  std::sort(entries.begin(), entries.end());
  std::vector<std::string> parts;
  for (const auto& [k, val] : entries) parts.push_back(GoQuote(k) + ":" + GoQuote(val));
  return "map[string]string{" + Join(parts, ", ") + "}";
}

std::string GoLabelSelector(const json::value* v) {
  if (!v || v->is_null()) return "\"null\"";
  const json::object empty;
  const json::object& o = v->is_object() ? v->get_object() : empty;
  return "v1.LabelSelector{MatchLabels:" + GoStringMap(o.if_contains("matchLabels")) +
         ", MatchExpressions:" + GoRequirements(o.if_contains("matchExpressions")) + "}";
}

std::string GoIntOrString(const json::value& v) {
  if (v.is_string()) return "intstr.IntOrString{Type:1, IntVal:0, StrVal:" + GoQuote(std::string_view(v.get_string())) + "}";
  int64_t i = v.is_int64() ? v.get_int64() : 0;
  return "intstr.IntOrString{Type:0, IntVal:" + std::to_string(i) + ", StrVal:\"\"}";
}

FieldError InvalidRendered(const FieldPath& p, std::string rendered, std::string_view detail) {
  FieldError e = InvalidError(p, "", std::string(detail));
  e.omit_value = true;
  e.detail = detail.empty() ? rendered : rendered + ": " + std::string(detail);
  return e;
}

const json::value* TemplateLabels(const Object& spec) { return PathAt(spec, {"template", "metadata", "labels"}); }

ErrorList ValidateSelectorAndTemplate(const Object& spec, const FieldPath& path, std::string_view what,
                                      std::string_view invalid_detail, bool* parsed) {
  ErrorList errs;
  if (parsed) *parsed = false;
  const json::value* sel = spec.if_contains("selector");
  if (sel && sel->is_null()) sel = nullptr;
  FieldPath sp = path.Child("selector");
  if (!sel) {
    errs.push_back(RequiredError(sp, ""));
  } else {
    ErrorList se = am::ValidateLabelSelector(*sel, sp);
    errs.insert(errs.end(), se.begin(), se.end());
    static const Object kNone;
    const Object& so = sel->is_object() ? sel->get_object() : kNone;
    if (CountAt(so, "matchLabels") + CountAt(so, "matchExpressions") == 0) {
      errs.push_back(InvalidRendered(sp, GoLabelSelector(sel), "empty selector is invalid for " + std::string(what)));
    }
  }
  auto selector = am::LabelSelectorFromJson(sel);
  if (!selector.ok()) {
    errs.push_back(InvalidRendered(sp, GoLabelSelector(sel), invalid_detail));
    return errs;
  }
  if (parsed) *parsed = true;
  const json::value* labels = TemplateLabels(spec);
  if (!selector->Empty() && !selector->Matches(labels && labels->is_object() ? &labels->get_object() : nullptr)) {
    errs.push_back(InvalidRendered(path.Child("template").Child("metadata").Child("labels"), GoStringMap(labels),
                                   "`selector` does not match template `labels`"));
  }
  return errs;
}

ErrorList ValidatePositiveIntOrPercent(const json::value& v, const FieldPath& p) {
  ErrorList errs;
  if (v.is_string()) {
    int64_t ignored;
    if (!ParsePercent(std::string(v.get_string()), &ignored)) {
      errs.push_back(InvalidRendered(p, GoIntOrString(v), am::RegexError(kPercentError, "[0-9]+%", {"1%", "93%"})));
    }
  } else if (v.is_int64()) {
    ErrorList e = am::ValidateNonnegativeField(v.get_int64(), p);
    errs.insert(errs.end(), e.begin(), e.end());
  } else {
    errs.push_back(InvalidRendered(p, GoIntOrString(v), "must be an integer or percentage (e.g '5%%')"));
  }
  return errs;
}

ErrorList IsNotMoreThan100Percent(const json::value& v, const FieldPath& p) {
  int64_t pct = 0;
  if (!v.is_string() || !ParsePercent(std::string(v.get_string()), &pct) || pct <= 100) return {};
  return {InvalidRendered(p, GoIntOrString(v), "must not be greater than 100%")};
}

int64_t IntOrPercentValue(const json::value* v) {
  if (!v) return 0;
  if (v->is_int64()) return v->get_int64();
  if (!v->is_string()) return 0;
  std::string s(v->get_string());
  int64_t pct = 0;
  if (ParsePercent(s, &pct)) return pct;
  // IntValue() of a string: strconv.Atoi, 0 on failure.
  int64_t n = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), n);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() ? n : 0;
}

ErrorList ValidateImmutableSelector(const Object& spec, const Object& old_spec, const FieldPath& p) {
  const json::value* now = spec.if_contains("selector");
  const json::value* before = old_spec.if_contains("selector");
  if (CanonicalSelector(now) == CanonicalSelector(before)) return {};
  return {InvalidRendered(p, GoLabelSelector(now), am::kFieldImmutableErrorMsg)};
}

void CheckNonnegative(const Object& o, std::string_view key, const FieldPath& p, ErrorList& errs) {
  if (auto v = OptInt(&o, key)) {
    ErrorList e = am::ValidateNonnegativeField(*v, p);
    errs.insert(errs.end(), e.begin(), e.end());
  }
}

std::optional<int64_t> OptInt(const Object* o, std::string_view key) {
  if (!o) return std::nullopt;
  const auto* v = o->if_contains(key);
  if (!v) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  return std::nullopt;
}

json::object& ChildObject(json::object& o, std::string_view key) {
  json::value& v = o[key];
  if (!v.is_object()) v = json::object();
  return v.get_object();
}

std::string FormatLabelSelector(const json::value* selector) {
  auto s = am::LabelSelectorFromJson(selector && !selector->is_null() ? selector : nullptr);
  if (!s.ok()) return "<error>";
  std::string str = s->String();
  return str.empty() ? "<none>" : str;
}

std::string SelectorString(const json::value* selector) {
  auto s = am::LabelSelectorFromJson(selector && !selector->is_null() ? selector : nullptr);
  if (!s.ok()) return "<invalid>";
  return s->String();
}

std::pair<std::string, std::string> ContainerCells(const Object& pod_spec) {
  std::vector<std::string> names, images;
  if (const auto* cs = ArrayAt(pod_spec, "containers")) {
    for (const auto& c : *cs) {
      if (!c.is_object()) continue;
      names.push_back(StringAt(c.get_object(), "name"));
      images.push_back(StringAt(c.get_object(), "image"));
    }
  }
  return {Join(names, ","), Join(images, ",")};
}

const Object& TemplatePodSpec(const Object& spec) {
  static const Object kEmpty;
  const auto* v = PathAt(spec, {"template", "spec"});
  return v && v->is_object() ? v->get_object() : kEmpty;
}

void WorkloadStatusStrategy::PrepareForUpdate(const registry::Context&, Object& obj, const Object& old) const {
  if (const auto* spec = old.if_contains("spec")) {
    obj["spec"] = *spec;
  } else {
    obj.erase("spec");
  }
  if (keep_labels_) {
    json::object& md = ChildObject(obj, "metadata");
    const auto* old_labels = PathAt(old, {"metadata", "labels"});
    if (old_labels) {
      md["labels"] = *old_labels;
    } else {
      md.erase("labels");
    }
  }
}

ErrorList WorkloadStatusStrategy::ValidateUpdate(const registry::Context&, const Object& obj, const Object& old) const {
  return validate_ ? validate_(obj, old) : ErrorList{};
}

}  // namespace capstan::api::apps
