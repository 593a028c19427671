#include "endpoints/openapi_proto.h"

#include <cstring>

#include "apimachinery/json_write.h"
#include "apimachinery/protobuf_wire.h"
#include "util/strings.h"

namespace capstan::endpoints {

namespace json = boost::json;
namespace pb = apimachinery::protobuf;

bool OpenApiV2ProtobufSupported() { return true; }

namespace {

// Writes one gnostic message field by field; each Write* skips proto3 default values.
class Msg {
 public:
  explicit Msg(std::string& out) : out_(out) {}

  void Str(int field, const json::value* v) {
    if (v && v->is_string() && !v->get_string().empty()) pb::AppendLengthDelimited(out_, field, v->get_string());
  }
  void Str(int field, std::string_view s) {
    if (!s.empty()) pb::AppendLengthDelimited(out_, field, s);
  }
  void Bool(int field, const json::value* v) {
    if (v && v->is_bool() && v->get_bool()) {
      pb::AppendKey(out_, field, pb::WireType::kVarint);
      pb::AppendVarint(out_, 1);
    }
  }
  void Int64(int field, const json::value* v) {
    if (!v) return;
    int64_t n = 0;
    if (v->is_int64()) {
      n = v->get_int64();
    } else if (v->is_uint64()) {
      n = static_cast<int64_t>(v->get_uint64());
    } else if (v->is_double()) {
      n = static_cast<int64_t>(v->get_double());
    }
    if (n == 0) return;
    pb::AppendKey(out_, field, pb::WireType::kVarint);
    pb::AppendVarint(out_, static_cast<uint64_t>(n));
  }
  void Double(int field, const json::value* v) {
    if (!v || !v->is_number()) return;
    double d = v->to_number<double>();
    if (d == 0) return;
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof(bits));
    pb::AppendKey(out_, field, pb::WireType::kFixed64);
    pb::AppendFixed64(out_, bits);
  }
  // A repeated string field from a string or an array of strings.
  void Strings(int field, const json::value* v) {
    if (!v) return;
    if (v->is_string()) {
      pb::AppendLengthDelimited(out_, field, v->get_string());
      return;
    }
    if (!v->is_array()) return;
    for (const auto& e : v->get_array()) {
      if (e.is_string()) pb::AppendLengthDelimited(out_, field, e.get_string());
    }
  }
  // Any {2: yaml}: the value's text.
  void Any(int field, const json::value& v) {
    size_t m = pb::BeginLengthDelimited(out_, field);
    std::string text = apimachinery::ToJson(v, {.sort_keys = false, .escape_html = false});
    text.push_back('\n');
    pb::AppendLengthDelimited(out_, 2, text);
    pb::EndLengthDelimited(out_, m);
  }
  // NamedAny entries for the object's "x-" keys.
  void Extensions(int field, const json::object& o) {
    for (const auto& kv : o) {
      if (!StartsWith(kv.key(), "x-")) continue;
      size_t m = pb::BeginLengthDelimited(out_, field);
      pb::AppendLengthDelimited(out_, 1, kv.key());
      Any(2, kv.value());
      pb::EndLengthDelimited(out_, m);
    }
  }
  size_t Begin(int field) { return pb::BeginLengthDelimited(out_, field); }
  void End(size_t mark) { pb::EndLengthDelimited(out_, mark); }
  std::string& out() { return out_; }

 private:
  std::string& out_;
};

const json::value* Get(const json::object& o, std::string_view k) { return o.if_contains(k); }

void WriteSchema(std::string& out, const json::object& s);

void SchemaField(std::string& out, int field, const json::value& v) {
  if (!v.is_object()) return;
  Msg m(out);
  size_t mark = m.Begin(field);
  WriteSchema(out, v.get_object());
  m.End(mark);
}

// openapi.v2.Schema
void WriteSchema(std::string& out, const json::object& s) {
  Msg m(out);
  m.Str(1, Get(s, "$ref"));
  m.Str(2, Get(s, "format"));
  m.Str(3, Get(s, "title"));
  m.Str(4, Get(s, "description"));
  if (const auto* d = Get(s, "default")) m.Any(5, *d);
  m.Double(6, Get(s, "multipleOf"));
  m.Double(7, Get(s, "maximum"));
  m.Bool(8, Get(s, "exclusiveMaximum"));
  m.Double(9, Get(s, "minimum"));
  m.Bool(10, Get(s, "exclusiveMinimum"));
  m.Int64(11, Get(s, "maxLength"));
  m.Int64(12, Get(s, "minLength"));
  m.Str(13, Get(s, "pattern"));
  m.Int64(14, Get(s, "maxItems"));
  m.Int64(15, Get(s, "minItems"));
  m.Bool(16, Get(s, "uniqueItems"));
  m.Int64(17, Get(s, "maxProperties"));
  m.Int64(18, Get(s, "minProperties"));
  m.Strings(19, Get(s, "required"));
  if (const auto* e = Get(s, "enum"); e && e->is_array()) {
    for (const auto& v : e->get_array()) m.Any(20, v);
  }
  if (const auto* ap = Get(s, "additionalProperties")) {
    size_t mark = m.Begin(21);  // AdditionalPropertiesItem
    if (ap->is_bool()) {
      pb::AppendKey(out, 2, pb::WireType::kVarint);
      pb::AppendVarint(out, ap->get_bool() ? 1 : 0);
    } else {
      SchemaField(out, 1, *ap);
    }
    m.End(mark);
  }
  if (const auto* t = Get(s, "type")) {
    size_t mark = m.Begin(22);  // TypeItem
    m.Strings(1, t);
    m.End(mark);
  }
  if (const auto* items = Get(s, "items")) {
    size_t mark = m.Begin(23);  // ItemsItem
    if (items->is_array()) {
      for (const auto& i : items->get_array()) SchemaField(out, 1, i);
    } else {
      SchemaField(out, 1, *items);
    }
    m.End(mark);
  }
  if (const auto* all = Get(s, "allOf"); all && all->is_array()) {
    for (const auto& i : all->get_array()) SchemaField(out, 24, i);
  }
  if (const auto* props = Get(s, "properties"); props && props->is_object()) {
    size_t mark = m.Begin(25);  // Properties
    for (const auto& kv : props->get_object()) {
      size_t named = m.Begin(1);  // NamedSchema
      m.Str(1, kv.key());
      SchemaField(out, 2, kv.value());
      m.End(named);
    }
    m.End(mark);
  }
  m.Str(26, Get(s, "discriminator"));
  m.Bool(27, Get(s, "readOnly"));
  if (const auto* ex = Get(s, "example")) m.Any(30, *ex);
  m.Extensions(31, s);
}

// Header/Path (shift 0) and Query/FormData (shift 1: allowEmptyValue sits at 5) sub-schemas.
void WriteNonBody(std::string& out, const json::object& p, bool query_like) {
  Msg m(out);
  const int s = query_like ? 1 : 0;
  m.Bool(1, Get(p, "required"));
  m.Str(2, Get(p, "in"));
  m.Str(3, Get(p, "description"));
  m.Str(4, Get(p, "name"));
  if (query_like) m.Bool(5, Get(p, "allowEmptyValue"));
  m.Str(5 + s, Get(p, "type"));
  m.Str(6 + s, Get(p, "format"));
  // items (PrimitivesItems) are not used by kube's parameters.
  m.Str(8 + s, Get(p, "collectionFormat"));
  if (const auto* d = Get(p, "default")) m.Any(9 + s, *d);
  m.Double(10 + s, Get(p, "maximum"));
  m.Bool(11 + s, Get(p, "exclusiveMaximum"));
  m.Double(12 + s, Get(p, "minimum"));
  m.Bool(13 + s, Get(p, "exclusiveMinimum"));
  m.Int64(14 + s, Get(p, "maxLength"));
  m.Int64(15 + s, Get(p, "minLength"));
  m.Str(16 + s, Get(p, "pattern"));
  m.Int64(17 + s, Get(p, "maxItems"));
  m.Int64(18 + s, Get(p, "minItems"));
  m.Bool(19 + s, Get(p, "uniqueItems"));
  if (const auto* e = Get(p, "enum"); e && e->is_array()) {
    for (const auto& v : e->get_array()) m.Any(20 + s, v);
  }
  m.Double(21 + s, Get(p, "multipleOf"));
  m.Extensions(22 + s, p);
}

// openapi.v2.Parameter (oneof body_parameter = 1, non_body_parameter = 2).
void WriteParameter(std::string& out, const json::object& p) {
  Msg m(out);
  const json::value* in = Get(p, "in");
  std::string_view where = in && in->is_string() ? std::string_view(in->get_string()) : std::string_view();
  if (where == "body") {
    size_t mark = m.Begin(1);
    m.Str(1, Get(p, "description"));
    m.Str(2, Get(p, "name"));
    m.Str(3, Get(p, "in"));
    m.Bool(4, Get(p, "required"));
    if (const auto* s = Get(p, "schema")) SchemaField(out, 5, *s);
    m.Extensions(6, p);
    m.End(mark);
    return;
  }
  size_t mark = m.Begin(2);  // NonBodyParameter
  int branch = where == "header" ? 1 : where == "formData" ? 2 : where == "query" ? 3 : 4;
  size_t sub = m.Begin(branch);
  WriteNonBody(out, p, branch == 2 || branch == 3);
  m.End(sub);
  m.End(mark);
}

// A ParametersItem: a reference, or a parameter.
void WriteParametersItem(std::string& out, int field, const json::value& v) {
  if (!v.is_object()) return;
  const json::object& p = v.get_object();
  Msg m(out);
  size_t mark = m.Begin(field);
  if (const auto* ref = Get(p, "$ref")) {
    size_t r = m.Begin(2);  // JsonReference
    m.Str(1, ref);
    m.Str(2, Get(p, "description"));
    m.End(r);
  } else {
    size_t r = m.Begin(1);
    WriteParameter(out, p);
    m.End(r);
  }
  m.End(mark);
}

void WriteResponses(std::string& out, int field, const json::object& responses) {
  Msg m(out);
  size_t mark = m.Begin(field);
  for (const auto& kv : responses) {
    if (StartsWith(kv.key(), "x-") || !kv.value().is_object()) continue;
    const json::object& r = kv.value().get_object();
    size_t named = m.Begin(1);  // NamedResponseValue
    m.Str(1, kv.key());
    size_t value = m.Begin(2);  // ResponseValue
    if (const auto* ref = Get(r, "$ref")) {
      size_t j = m.Begin(2);
      m.Str(1, ref);
      m.End(j);
    } else {
      size_t resp = m.Begin(1);  // Response
      m.Str(1, Get(r, "description"));
      if (const auto* s = Get(r, "schema"); s && s->is_object()) {
        size_t item = m.Begin(2);  // SchemaItem
        SchemaField(out, 1, *s);
        m.End(item);
      }
      m.Extensions(5, r);
      m.End(resp);
    }
    m.End(value);
    m.End(named);
  }
  m.Extensions(2, responses);
  m.End(mark);
}

void WriteOperation(std::string& out, int field, const json::object& op) {
  Msg m(out);
  size_t mark = m.Begin(field);
  m.Strings(1, Get(op, "tags"));
  m.Str(2, Get(op, "summary"));
  m.Str(3, Get(op, "description"));
  m.Str(5, Get(op, "operationId"));
  m.Strings(6, Get(op, "produces"));
  m.Strings(7, Get(op, "consumes"));
  if (const auto* ps = Get(op, "parameters"); ps && ps->is_array()) {
    for (const auto& p : ps->get_array()) WriteParametersItem(out, 8, p);
  }
  if (const auto* r = Get(op, "responses"); r && r->is_object()) WriteResponses(out, 9, r->get_object());
  m.Strings(10, Get(op, "schemes"));
  m.Bool(11, Get(op, "deprecated"));
  m.Extensions(13, op);
  m.End(mark);
}

void WritePathItem(std::string& out, const json::object& item) {
  Msg m(out);
  m.Str(1, Get(item, "$ref"));
  static const char* const kMethods[] = {"get", "put", "post", "delete", "options", "head", "patch"};
  for (int i = 0; i < 7; ++i) {
    if (const auto* op = Get(item, kMethods[i]); op && op->is_object()) WriteOperation(out, 2 + i, op->get_object());
  }
  if (const auto* ps = Get(item, "parameters"); ps && ps->is_array()) {
    for (const auto& p : ps->get_array()) WriteParametersItem(out, 9, p);
  }
  m.Extensions(10, item);
}

void WriteSecurityDefinitions(std::string& out, const json::object& defs) {
  Msg m(out);
  size_t mark = m.Begin(13);
  for (const auto& kv : defs) {
    if (!kv.value().is_object()) continue;
    const json::object& d = kv.value().get_object();
    size_t named = m.Begin(1);
    m.Str(1, kv.key());
    size_t item = m.Begin(2);  // SecurityDefinitionsItem
    const json::value* type = Get(d, "type");
    if (type && type->is_string() && type->get_string() == "basic") {
      size_t b = m.Begin(1);
      m.Str(1, type);
      m.Str(2, Get(d, "description"));
      m.Extensions(3, d);
      m.End(b);
    } else {
      size_t k = m.Begin(2);  // ApiKeySecurity
      m.Str(1, type);
      m.Str(2, Get(d, "name"));
      m.Str(3, Get(d, "in"));
      m.Str(4, Get(d, "description"));
      m.Extensions(5, d);
      m.End(k);
    }
    m.End(item);
    m.End(named);
  }
  m.End(mark);
}

}  // namespace

std::string SwaggerToProtobuf(const json::object& doc) {
  std::string out;
  out.reserve(256 * 1024);
  Msg m(out);
  m.Str(1, Get(doc, "swagger"));
  if (const auto* info = Get(doc, "info"); info && info->is_object()) {
    size_t mark = m.Begin(2);
    m.Str(1, Get(info->get_object(), "title"));
    m.Str(2, Get(info->get_object(), "version"));
    m.Str(3, Get(info->get_object(), "description"));
    m.Extensions(7, info->get_object());
    m.End(mark);
  }
  m.Str(3, Get(doc, "host"));
  m.Str(4, Get(doc, "basePath"));
  m.Strings(5, Get(doc, "schemes"));
  m.Strings(6, Get(doc, "consumes"));
  m.Strings(7, Get(doc, "produces"));
  if (const auto* paths = Get(doc, "paths"); paths && paths->is_object()) {
    size_t mark = m.Begin(8);
    m.Extensions(1, paths->get_object());
    for (const auto& kv : paths->get_object()) {
      if (StartsWith(kv.key(), "x-") || !kv.value().is_object()) continue;
      size_t named = m.Begin(2);  // NamedPathItem
      m.Str(1, kv.key());
      size_t item = m.Begin(2);
      WritePathItem(out, kv.value().get_object());
      m.End(item);
      m.End(named);
    }
    m.End(mark);
  }
  if (const auto* defs = Get(doc, "definitions"); defs && defs->is_object()) {
    size_t mark = m.Begin(9);
    for (const auto& kv : defs->get_object()) {
      size_t named = m.Begin(1);  // NamedSchema
      m.Str(1, kv.key());
      SchemaField(out, 2, kv.value());
      m.End(named);
    }
    m.End(mark);
  }
  if (const auto* params = Get(doc, "parameters"); params && params->is_object()) {
    size_t mark = m.Begin(10);
    for (const auto& kv : params->get_object()) {
      if (!kv.value().is_object()) continue;
      size_t named = m.Begin(1);  // NamedParameter
      m.Str(1, kv.key());
      size_t p = m.Begin(2);
      WriteParameter(out, kv.value().get_object());
      m.End(p);
      m.End(named);
    }
    m.End(mark);
  }
  if (const auto* sec = Get(doc, "security"); sec && sec->is_array()) {
    for (const auto& req : sec->get_array()) {
      if (!req.is_object()) continue;
      size_t mark = m.Begin(12);  // SecurityRequirement
      for (const auto& kv : req.get_object()) {
        size_t named = m.Begin(1);  // NamedStringArray
        m.Str(1, kv.key());
        size_t arr = m.Begin(2);
        m.Strings(1, &kv.value());
        m.End(arr);
        m.End(named);
      }
      m.End(mark);
    }
  }
  if (const auto* sd = Get(doc, "securityDefinitions"); sd && sd->is_object()) {
    WriteSecurityDefinitions(out, sd->get_object());
  }
  m.Extensions(16, doc);
  return out;
}

}  // namespace capstan::endpoints
