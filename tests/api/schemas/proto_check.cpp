#include "api/schemas/proto_check.h"

#include <boost/json.hpp>

#include "api/schemas/wire_reader.h"

namespace capstan::api::testing {

namespace json = boost::json;

namespace {

std::string Str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

bool IsVarintType(const std::string& t) {
  return t == "bool" || t == "int32" || t == "int64" || t == "uint32" || t == "uint64";
}

const char* WireName(WireType t) {
  switch (t) {
    case WireType::kVarint: return "varint";
    case WireType::kFixed64: return "fixed64";
    case WireType::kLen: return "length-delimited";
    case WireType::kFixed32: return "fixed32";
    default: return "group";
  }
}

class Walker {
 public:
  Walker(const SchemaIndex& index, std::vector<std::string>* errors) : index_(index), errors_(errors) {}

  void Message(std::string_view data, const std::string& definition, const std::string& path, int depth) {
    if (depth > 64) return Error(path, "nesting too deep");
    auto it = cache_.find(definition);
    if (it == cache_.end()) {
      std::vector<std::string> problems;
      it = cache_.emplace(definition, ProtoFieldsOf(index_, definition, &problems)).first;
      for (auto& p : problems) Error(path, p);
    }
    const auto& fields = it->second;
    WireReader r(data);
    WireField f;
    uint32_t last = 0;
    while (r.Next(&f)) {
      auto fit = fields.find(f.number);
      std::string field_path = path + "." + (fit == fields.end() ? "#" + std::to_string(f.number) : fit->second.name);
      if (f.number < last) {
        Error(field_path, "field " + std::to_string(f.number) + " after field " + std::to_string(last) +
                              " (Go writes fields in ascending order)");
      }
      last = f.number;
      if (fit == fields.end()) {
        Error(field_path, "field number " + std::to_string(f.number) + " is not in " + definition);
        continue;
      }
      Field(f, fit->second, field_path, depth);
    }
    if (!r.ok()) Error(path, r.error());
  }

 private:
  void Field(const WireField& f, const ProtoField& pf, const std::string& path, int depth) {
    if (pf.type == "map") {
      if (f.type != WireType::kLen) return WireMismatch(path, "map entry", f.type);
      WireReader r(f.payload);
      WireField e;
      while (r.Next(&e)) {
        if (e.number == 1) {
          Single(e, pf.key, "", false, path + "{key}", depth);
        } else if (e.number == 2) {
          Single(e, pf.value, pf.value_ref, false, path + "{value}", depth);
        } else {
          Error(path, "map entry field " + std::to_string(e.number));
        }
      }
      if (!r.ok()) Error(path, r.error());
      return;
    }
    Single(f, pf.type, pf.ref, pf.repeated, path, depth);
  }

  void Single(const WireField& f, const std::string& type, const std::string& ref, bool repeated,
              const std::string& path, int depth) {
    if (IsVarintType(type)) {
      if (f.type == WireType::kVarint) return;
      if (repeated && f.type == WireType::kLen) return Packed(f.payload, 0, path);
      return WireMismatch(path, type, f.type);
    }
    if (type == "double" || type == "float") {
      WireType want = type == "double" ? WireType::kFixed64 : WireType::kFixed32;
      if (f.type == want) return;
      if (repeated && f.type == WireType::kLen) return Packed(f.payload, type == "double" ? 8 : 4, path);
      return WireMismatch(path, type, f.type);
    }
    if (type == "string" || type == "bytes") {
      if (f.type != WireType::kLen) WireMismatch(path, type, f.type);
      return;
    }
    if (type == "message") {
      if (f.type != WireType::kLen) return WireMismatch(path, type, f.type);
      std::string def = SchemaIndex::RefName(ref);
      if (index_.Find(def) == nullptr) return Error(path, "message without a resolvable $ref");
      return Message(f.payload, def, path, depth + 1);
    }
    Error(path, "unknown x-proto type \"" + type + "\"");
  }

  void Packed(std::string_view data, size_t width, const std::string& path) {
    if (width != 0) {
      if (data.size() % width != 0) Error(path, "packed fixed-width values of odd length");
      return;
    }
    size_t pos = 0;
    uint64_t v;
    while (pos < data.size()) {
      if (!WireReader::ReadVarint(data, &pos, &v)) return Error(path, "truncated packed varint");
    }
  }

  void WireMismatch(const std::string& path, const std::string& type, WireType got) {
    Error(path, "schema type " + type + ", wire type " + WireName(got));
  }
  void Error(const std::string& path, const std::string& message) { errors_->push_back(path + ": " + message); }

  const SchemaIndex& index_;
  std::vector<std::string>* errors_;
  std::map<std::string, std::map<uint32_t, ProtoField>> cache_;
};

}  // namespace

std::map<uint32_t, ProtoField> ProtoFieldsOf(const SchemaIndex& index, const std::string& definition,
                                             std::vector<std::string>* errors) {
  std::map<uint32_t, ProtoField> out;
  const json::object* def = index.Find(definition);
  if (def == nullptr) {
    errors->push_back("no definition " + definition);
    return out;
  }
  auto add = [&](uint32_t tag, ProtoField f) {
    if (!out.emplace(tag, std::move(f)).second) {
      errors->push_back(definition + ": field number " + std::to_string(tag) + " used twice");
    }
  };
  if (const json::value* pm = def->if_contains("x-proto-message")) {
    const json::object& m = pm->get_object();
    if (Str(m, "kind") == "none") {
      errors->push_back(definition + " has no protobuf form");
      return out;
    }
    if (const json::value* fields = m.if_contains("fields")) {
      for (const json::value& fv : fields->get_array()) {
        const json::object& fo = fv.get_object();
        ProtoField f;
        f.name = Str(fo, "name");
        f.type = Str(fo, "type");
        f.ref = Str(fo, "$ref");
        const json::value* rep = fo.if_contains("repeated");
        f.repeated = rep != nullptr && rep->is_bool() && rep->get_bool();
        add(static_cast<uint32_t>(fo.at("tag").to_number<int64_t>()), std::move(f));
      }
      return out;
    }
  }
  if (const json::value* emb = def->if_contains("x-proto-embedded")) {
    for (const json::value& ev : emb->get_array()) {
      const json::object& eo = ev.get_object();
      ProtoField f;
      f.name = "(embedded " + SchemaIndex::RefName(Str(eo, "$ref")) + ")";
      f.type = "message";
      f.ref = Str(eo, "$ref");
      add(static_cast<uint32_t>(eo.at("tag").to_number<int64_t>()), std::move(f));
    }
  }
  if (const json::value* props = def->if_contains("properties")) {
    for (const auto& [name, pv] : props->get_object()) {
      const json::object& p = pv.get_object();
      const json::value* xpv = p.if_contains("x-proto");
      if (xpv == nullptr) continue;  // not a protobuf field (TypeMeta's apiVersion and kind)
      const json::object& xp = xpv->get_object();
      if (xp.contains("in")) continue;
      ProtoField f;
      f.name = std::string(name);
      f.type = Str(xp, "type");
      f.repeated = Str(p, "type") == "array";
      if (f.type == "message") {
        f.ref = f.repeated ? Str(p.at("items").get_object(), "$ref") : Str(p, "$ref");
      } else if (f.type == "map") {
        f.key = Str(xp, "key");
        f.value = Str(xp, "value");
        if (f.value == "message") f.value_ref = Str(p.at("additionalProperties").get_object(), "$ref");
      }
      add(static_cast<uint32_t>(xp.at("tag").to_number<int64_t>()), std::move(f));
    }
  }
  return out;
}

std::vector<std::string> OpenEnvelope(std::string_view data, Envelope* out) {
  static constexpr std::string_view kMagic("k8s\0", 4);
  if (data.substr(0, 4) != kMagic) return {"missing the k8s\\0 magic"};
  std::vector<std::string> errors;
  WireReader r(data.substr(4));
  WireField f;
  uint32_t last = 0;
  while (r.Next(&f)) {
    if (f.number < last) errors.push_back("envelope fields out of order");
    last = f.number;
    if (f.type != WireType::kLen) {
      errors.push_back("envelope field " + std::to_string(f.number) + " is not length-delimited");
      continue;
    }
    switch (f.number) {
      case 1: {
        WireReader tm(f.payload);
        WireField t;
        while (tm.Next(&t)) {
          if (t.type != WireType::kLen) errors.push_back("typeMeta field is not length-delimited");
          else if (t.number == 1) out->api_version = std::string(t.payload);
          else if (t.number == 2) out->kind = std::string(t.payload);
          else errors.push_back("unknown typeMeta field " + std::to_string(t.number));
        }
        if (!tm.ok()) errors.push_back("typeMeta: " + tm.error());
        break;
      }
      case 2: out->raw = f.payload; break;
      case 3: out->content_encoding = std::string(f.payload); break;
      case 4: out->content_type = std::string(f.payload); break;
      default: errors.push_back("unknown envelope field " + std::to_string(f.number));
    }
  }
  if (!r.ok()) errors.push_back("envelope: " + r.error());
  return errors;
}

std::vector<std::string> CheckProtoAgainstSchema(const SchemaIndex& index, const std::string& definition,
                                                 std::string_view message) {
  std::vector<std::string> errors;
  Walker(index, &errors).Message(message, definition, "", 0);
  return errors;
}

}  // namespace capstan::api::testing
