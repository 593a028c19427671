#include "apimachinery/protobuf_plan.h"

#include <algorithm>

#include "util/strings.h"

namespace capstan::apimachinery::protobuf {

namespace json = boost::json;

namespace {

Status SchemaError(std::string_view definition, const std::string& msg) {
  return Status(500, "InternalError",
                "protobuf description of " + std::string(definition) + ": " + msg);
}

std::string LastSegment(std::string_view name) {
  const size_t dot = name.rfind('.');
  return std::string(dot == std::string_view::npos ? name : name.substr(dot + 1));
}

std::string Capitalize(std::string_view s) {
  std::string out(s);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 'a' + 'A');
  return out;
}

std::string_view RefName(std::string_view ref) {
  for (std::string_view prefix : {std::string_view("#/definitions/"), std::string_view("#/components/schemas/")}) {
    if (StartsWith(ref, prefix)) return ref.substr(prefix.size());
  }
  return ref;
}

struct SpecialLayout {
  std::string_view name;
  MessageKind kind;
  std::vector<std::pair<int32_t, ProtoType>> fields;  // (tag, type) the message must have
};

const std::vector<SpecialLayout>& SpecialLayouts() {
  using P = ProtoType;
  static const std::vector<SpecialLayout> kLayouts = {
      {"timestamp", MessageKind::kTimeSeconds, {{1, P::kInt64}, {2, P::kInt32}}},
      {"duration", MessageKind::kDuration, {{1, P::kInt64}}},
      {"quantity", MessageKind::kQuantity, {{1, P::kString}}},
      {"int-or-string", MessageKind::kIntOrString, {{1, P::kInt64}, {2, P::kInt32}, {3, P::kString}}},
      {"raw-extension", MessageKind::kRawExtension, {{1, P::kBytes}}},
      {"raw-json", MessageKind::kRawJson, {{1, P::kBytes}}},
      {"list-wrapper", MessageKind::kListWrapper, {{1, P::kString}}},
      {"schema-or-bool", MessageKind::kSchemaOrBool, {{1, P::kBool}, {2, P::kMessage}}},
      {"schema-or-array", MessageKind::kSchemaOrArray, {{1, P::kMessage}, {2, P::kMessage}}},
      {"schema-or-string-array", MessageKind::kSchemaOrStringArray, {{1, P::kMessage}, {2, P::kString}}},
      {"group-version", MessageKind::kGroupVersion, {{1, P::kString}, {2, P::kString}}},
      {"unknown", MessageKind::kUnknown, {{1, P::kMessage}, {2, P::kBytes}, {3, P::kString}, {4, P::kString}}},
      {"none", MessageKind::kNone, {}},
  };
  return kLayouts;
}

}  // namespace

WireType ScalarWireType(ProtoType t) {
  switch (t) {
    case ProtoType::kDouble: return WireType::kFixed64;
    case ProtoType::kFloat: return WireType::kFixed32;
    case ProtoType::kString:
    case ProtoType::kBytes:
    case ProtoType::kMessage:
    case ProtoType::kMap: return WireType::kLengthDelimited;
    default: return WireType::kVarint;
  }
}

PlanSet::PlanSet(const SchemaRegistry& registry) : registry_(&registry) {
  for (const auto& [name, node] : registry.definitions()) names_.emplace(node, name);
}

void PlanSet::Freeze() {
  registry_ = nullptr;
  names_.clear();
}

const MessagePlan* PlanSet::Find(std::string_view definition) const {
  auto it = by_name_.find(definition);
  return it == by_name_.end() ? nullptr : it->second;
}

StatusOr<const MessagePlan*> PlanSet::Compile(std::string_view definition) {
  if (const MessagePlan* p = Find(definition)) return p;
  if (registry_ == nullptr) return Status(404, "NotFound", "no protobuf message for " + GoQuote(definition));
  const Schema* def = registry_->Find(definition);
  if (def == nullptr) {
    return Status(404, "NotFound", "no schema definition " + GoQuote(definition));
  }
  return CompileNode(*def, definition);
}

Status PlanSet::CompileAll() {
  if (registry_ == nullptr) return Status(500, "InternalError", "protobuf plans are frozen");
  for (const auto& [name, node] : registry_->definitions()) {
    auto p = CompileNode(*node, name);
    if (!p.ok()) return p.TakeStatus();
  }
  return Status::Ok();
}

StatusOr<const MessagePlan*> PlanSet::CompileRef(std::string_view ref, std::string_view where) {
  const std::string_view name = RefName(ref);
  const Schema* def = registry_->Find(name);
  if (def == nullptr) return SchemaError(where, "$ref " + GoQuote(ref) + " does not resolve");
  return CompileNode(*def, name);
}

StatusOr<const MessagePlan*> PlanSet::CompileNode(const Schema& def, std::string_view name) {
  if (auto it = plans_.find(&def); it != plans_.end()) return it->second.get();
  if (name.empty()) {
    auto n = names_.find(&def);
    if (n != names_.end()) name = n->second;
  }
  auto owned = std::make_unique<MessagePlan>();
  MessagePlan* plan = owned.get();
  plan->definition = std::string(name);
  plan->go_name = LastSegment(name);
  plans_.emplace(&def, std::move(owned));
  by_name_.emplace(plan->definition, plan);
  // Registered before its fields are compiled, so recursive types refer to it.
  const json::value* special = def.extensions.if_contains("x-proto-message");
  Status st = special != nullptr && special->is_object() ? CompileSpecial(def, special->get_object(), *plan)
                                                          : CompileStruct(def, *plan);
  if (!st.ok()) return st;
  return plan;
}

Status PlanSet::CompileStruct(const Schema& def, MessagePlan& plan) {
  for (const auto& [prop_name, prop] : def.properties) {
    if (!prop->proto || !prop->proto->in.empty()) continue;  // not a field, or one of an embedded message
    const ProtoField& pf = *prop->proto;
    FieldPlan f;
    f.tag = pf.tag;
    f.json_name = prop_name;
    f.go_name = Capitalize(prop_name);
    f.ptr = pf.ptr;
    f.omitempty = pf.omitempty;
    f.type = pf.type;
    const bool array = prop->HasType("array");
    switch (pf.type) {
      case ProtoType::kMessage: {
        f.kind = FieldKind::kMessage;
        f.repeated = array;
        const Schema* node = array ? prop->items : prop;
        if (node == nullptr || node->ref_target == nullptr) {
          return SchemaError(plan.definition, "message field " + GoQuote(prop_name) + " has no $ref");
        }
        const Schema& target = node->Deref();
        auto n = names_.find(&target);
        ASSIGN_OR_RETURN(f.message, CompileNode(target, n == names_.end() ? std::string_view() : n->second));
        break;
      }
      case ProtoType::kMap: {
        f.kind = FieldKind::kMap;
        if (pf.key != ProtoType::kString) {
          return SchemaError(plan.definition, "map field " + GoQuote(prop_name) + " needs string keys");
        }
        f.map_value = pf.value;
        if (pf.value == ProtoType::kMap || pf.value == ProtoType::kNone) {
          return SchemaError(plan.definition, "map field " + GoQuote(prop_name) + " has no value type");
        }
        if (pf.value == ProtoType::kMessage) {
          const Schema* node = prop->additional_properties;
          if (node == nullptr || node->ref_target == nullptr) {
            return SchemaError(plan.definition, "map field " + GoQuote(prop_name) + " has no value $ref");
          }
          const Schema& target = node->Deref();
          auto n = names_.find(&target);
          ASSIGN_OR_RETURN(f.message, CompileNode(target, n == names_.end() ? std::string_view() : n->second));
        }
        break;
      }
      case ProtoType::kBytes:
        f.kind = FieldKind::kBytes;
        f.repeated = array && prop->items != nullptr && prop->items->format == "byte";  // [][]byte
        break;
      default:
        f.kind = FieldKind::kScalar;
        f.repeated = array;
        break;
    }
    plan.fields.push_back(std::move(f));
  }
  if (const json::value* emb = def.extensions.if_contains("x-proto-embedded"); emb != nullptr) {
    if (!emb->is_array()) return SchemaError(plan.definition, "x-proto-embedded must be an array");
    for (const json::value& e : emb->get_array()) {
      const json::object* o = e.if_object();
      const json::value* tag = o ? o->if_contains("tag") : nullptr;
      const json::value* ref = o ? o->if_contains("$ref") : nullptr;
      if (tag == nullptr || !tag->is_int64() || ref == nullptr || !ref->is_string()) {
        return SchemaError(plan.definition, "x-proto-embedded entries need a tag and a $ref");
      }
      FieldPlan f;
      f.kind = FieldKind::kEmbedded;
      f.tag = static_cast<int32_t>(tag->get_int64());
      f.type = ProtoType::kMessage;
      if (const json::value* ptr = o->if_contains("ptr"); ptr != nullptr && ptr->is_bool()) f.ptr = ptr->get_bool();
      ASSIGN_OR_RETURN(f.message, CompileRef(ref->get_string(), plan.definition));
      f.go_name = f.message->go_name;
      plan.fields.push_back(std::move(f));
    }
  }
  std::sort(plan.fields.begin(), plan.fields.end(), [](const FieldPlan& a, const FieldPlan& b) { return a.tag < b.tag; });
  if (plan.fields.size() > kMaxMessageFields) {
    return SchemaError(plan.definition, "more than " + std::to_string(kMaxMessageFields) + " fields");
  }
  int32_t max_small = -1;
  for (size_t i = 0; i < plan.fields.size(); ++i) {
    if (i > 0 && plan.fields[i].tag == plan.fields[i - 1].tag) {
      return SchemaError(plan.definition, "field number " + std::to_string(plan.fields[i].tag) + " is used twice");
    }
    if (plan.fields[i].tag < 256) max_small = plan.fields[i].tag;
  }
  plan.by_tag.assign(static_cast<size_t>(max_small + 1), -1);
  for (size_t i = 0; i < plan.fields.size(); ++i) {
    if (plan.fields[i].tag < 256) plan.by_tag[static_cast<size_t>(plan.fields[i].tag)] = static_cast<int16_t>(i);
    if (plan.fields[i].kind != FieldKind::kEmbedded) plan.by_name.emplace(plan.fields[i].json_name, static_cast<int>(i));
  }
  return Status::Ok();
}

Status PlanSet::CompileSpecial(const Schema& def, const json::object& message, MessagePlan& plan) {
  const json::value* kind = message.if_contains("kind");
  if (kind == nullptr || !kind->is_string()) return SchemaError(plan.definition, "x-proto-message needs a kind");
  const SpecialLayout* layout = nullptr;
  for (const SpecialLayout& l : SpecialLayouts()) {
    if (l.name == kind->get_string()) layout = &l;
  }
  if (layout == nullptr) {
    return SchemaError(plan.definition, "unknown x-proto-message kind " + GoQuote(std::string_view(kind->get_string())));
  }
  plan.kind = layout->kind;
  if (plan.kind == MessageKind::kTimeSeconds) {
    const json::value* precision = message.if_contains("precision");
    if (precision != nullptr && precision->is_string() && precision->get_string() == "microsecond") {
      plan.kind = MessageKind::kTimeMicro;
    }
  }
  const json::value* fields = message.if_contains("fields");
  const json::array empty;
  const json::array& list = fields != nullptr && fields->is_array() ? fields->get_array() : empty;
  for (const auto& [tag, type] : layout->fields) {
    bool found = false;
    for (const json::value& f : list) {
      const json::object* o = f.if_object();
      if (o == nullptr) continue;
      const json::value* t = o->if_contains("tag");
      const json::value* ty = o->if_contains("type");
      if (t == nullptr || !t->is_int64() || t->get_int64() != tag || ty == nullptr || !ty->is_string()) continue;
      if (ParseProtoType(ty->get_string()) != type) continue;
      found = true;
      if (type == ProtoType::kMessage && plan.kind != MessageKind::kUnknown) {
        const json::value* ref = o->if_contains("$ref");
        if (ref == nullptr || !ref->is_string()) return SchemaError(plan.definition, "message field without $ref");
        ASSIGN_OR_RETURN(plan.schema, CompileRef(ref->get_string(), plan.definition));
      }
    }
    if (!found) {
      return SchemaError(plan.definition, "x-proto-message of kind " + std::string(layout->name) + " lacks field " +
                                              std::to_string(tag) + " of type " + std::string(ProtoTypeName(type)));
    }
  }
  return Status::Ok();
}

KindIndex::KindIndex(const SchemaRegistry& registry) {
  for (const auto& [name, node] : registry.definitions()) {
    const json::value* gvks = node->extensions.if_contains("x-kubernetes-group-version-kind");
    if (gvks == nullptr || !gvks->is_array()) continue;
    for (const json::value& g : gvks->get_array()) {
      const json::object* o = g.if_object();
      if (o == nullptr) continue;
      auto str = [&](const char* key) -> std::string {
        const json::value* v = o->if_contains(key);
        return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
      };
      by_gvk_.emplace(GroupVersionKind{str("group"), str("version"), str("kind")}, name);
    }
  }
}

const std::string* KindIndex::Find(const GroupVersionKind& gvk) const {
  auto it = by_gvk_.find(gvk);
  return it == by_gvk_.end() ? nullptr : &it->second;
}

}  // namespace capstan::apimachinery::protobuf
