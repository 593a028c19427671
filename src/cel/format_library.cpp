// kube's format library (apiserver/pkg/cel/library/format.go, 1.31+): format.dns1123Label() and
// the other named formats, format.named(name), and <Format>.validate(string), which is
// optional.none() for a valid string and optional.of(list of problems) otherwise, with
// apimachinery's validation texts.
#include <functional>

#include "apimachinery/schema_formats.h"
#include "apimachinery/validation.h"
#include "cel/functions.h"

namespace capstan::cel {

namespace {

namespace am = capstan::apimachinery;

using Validate = std::vector<std::string> (*)(std::string_view);

std::vector<std::string> Uri(std::string_view s) {
  if (am::IsRequestUriFormat(s)) return {};
  return {"parse \"" + std::string(s) + "\": invalid URI for request"};
}
std::vector<std::string> Uuid(std::string_view s) {
  return am::IsValidStringFormat(am::StringFormat::kUuid, s) ? std::vector<std::string>{} : std::vector<std::string>{"does not match the UUID format"};
}
std::vector<std::string> Byte(std::string_view s) {
  return am::IsValidStringFormat(am::StringFormat::kByte, s) ? std::vector<std::string>{} : std::vector<std::string>{"invalid base64"};
}
std::vector<std::string> Date(std::string_view s) {
  return am::IsDateFormat(s) ? std::vector<std::string>{} : std::vector<std::string>{"invalid date"};
}
std::vector<std::string> DateTime(std::string_view s) {
  return am::IsDateTimeFormat(s) ? std::vector<std::string>{} : std::vector<std::string>{"invalid datetime"};
}

struct Format {
  const char* key;   // format.<key>()
  const char* name;  // what the Format prints as
  Validate validate;
};

const Format kFormats[] = {
    {"dns1123Label", "DNS1123Label", [](std::string_view s) { return am::NameIsDNSLabel(s, false); }},
    {"dns1123Subdomain", "DNS1123Subdomain", [](std::string_view s) { return am::NameIsDNSSubdomain(s, false); }},
    {"dns1035Label", "DNS1035Label", [](std::string_view s) { return am::NameIsDNS1035Label(s, false); }},
    {"qualifiedName", "QualifiedName", [](std::string_view s) { return am::IsQualifiedName(s); }},
    {"dns1123LabelPrefix", "DNS1123LabelPrefix", [](std::string_view s) { return am::NameIsDNSLabel(s, true); }},
    {"dns1123SubdomainPrefix", "DNS1123SubdomainPrefix", [](std::string_view s) { return am::NameIsDNSSubdomain(s, true); }},
    {"dns1035LabelPrefix", "DNS1035LabelPrefix", [](std::string_view s) { return am::NameIsDNS1035Label(s, true); }},
    {"labelValue", "LabelValue", [](std::string_view s) { return am::IsValidLabelValue(s); }},
    {"uri", "URI", Uri},
    {"uuid", "uuid", Uuid},
    {"byte", "byte", Byte},
    {"date", "date", Date},
    {"datetime", "datetime", DateTime},
};

class FormatValue : public OpaqueValue {
 public:
  explicit FormatValue(const Format* f) : f_(f) {}
  std::string_view TypeName() const override { return "kubernetes.NamedFormat"; }
  bool Equal(const OpaqueValue& o) const override {
    const auto* x = dynamic_cast<const FormatValue*>(&o);
    return x && x->f_ == f_;
  }
  const Format* format() const { return f_; }

 private:
  const Format* f_;
};

Value Make(const Format& f) { return Value::Opaque(std::make_shared<const FormatValue>(&f)); }

template <size_t kIndex>
Value Named0(EvalContext&, const Value*, size_t n) {
  if (n != 0) return NoSuchOverload();
  return Make(kFormats[kIndex]);
}

Value Named(EvalContext&, const Value* a, size_t n) {
  if (n != 1 || a[0].kind() != Kind::kString) return NoSuchOverload();
  for (const auto& f : kFormats) {
    if (a[0].str() == f.key) return Value::OptionalOf(Make(f));
  }
  return Value::OptionalNone();
}

Value ValidateFn(EvalContext& ctx, const Value* a, size_t n) {
  const auto* f = n == 2 ? a[0].opaque_as<FormatValue>() : nullptr;
  if (!f || a[1].kind() != Kind::kString) return NoSuchOverload();
  ctx.Charge(SizeCost(a[1]));
  auto problems = f->format()->validate(a[1].str());
  if (problems.empty()) return Value::OptionalNone();
  std::vector<Value> items;
  for (auto& p : problems) items.push_back(Value::String(std::move(p)));
  return Value::OptionalOf(Value::List(std::move(items)));
}

template <size_t... kI>
void RegisterNamed(FunctionRegistry& r, std::index_sequence<kI...>) {
  (r.AddGlobal(std::string("format.") + kFormats[kI].key, Named0<kI>), ...);
}

}  // namespace

void RegisterKubeFormatLibrary(FunctionRegistry& r) {
  RegisterNamed(r, std::make_index_sequence<sizeof kFormats / sizeof kFormats[0]>());
  r.AddGlobal("format.named", Named);
  r.AddMember("validate", ValidateFn);
}

}  // namespace capstan::cel
