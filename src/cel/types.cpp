#include "cel/types.h"

namespace capstan::cel {

TypePtr DynType() {
  static const TypePtr kDyn = std::make_shared<const Type>();
  return kDyn;
}

TypePtr UnknownType() {
  static const TypePtr kUnknown = std::make_shared<const Type>();
  return kUnknown;
}

TypePtr Primitive(TypeKind k) {
  static const TypePtr kTypes[] = {
      DynType(),
      std::make_shared<const Type>(Type{TypeKind::kNull}), std::make_shared<const Type>(Type{TypeKind::kBool}),
      std::make_shared<const Type>(Type{TypeKind::kInt}), std::make_shared<const Type>(Type{TypeKind::kUint}),
      std::make_shared<const Type>(Type{TypeKind::kDouble}), std::make_shared<const Type>(Type{TypeKind::kString}),
      std::make_shared<const Type>(Type{TypeKind::kBytes}),
  };
  size_t i = static_cast<size_t>(k);
  if (i < sizeof kTypes / sizeof kTypes[0]) return kTypes[i];
  auto t = std::make_shared<Type>();
  t->kind = k;
  return t;
}

TypePtr ListOf(TypePtr elem) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kList;
  t->elem = elem ? std::move(elem) : DynType();
  return t;
}

TypePtr MapOf(TypePtr key, TypePtr value) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kMap;
  t->key = key ? std::move(key) : DynType();
  t->elem = value ? std::move(value) : DynType();
  return t;
}

TypePtr OptionalOf(TypePtr inner) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kOptional;
  t->elem = inner ? std::move(inner) : DynType();
  return t;
}

TypePtr OpaqueType(std::string name) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kOpaque;
  t->name = std::move(name);
  return t;
}

TypePtr ObjectType(std::string name, std::vector<std::pair<std::string, TypePtr>> fields) {
  auto t = std::make_shared<Type>();
  t->kind = TypeKind::kObject;
  t->name = std::move(name);
  t->fields = std::move(fields);
  return t;
}

std::string TypeString(const Type& t) {
  switch (t.kind) {
    case TypeKind::kDyn: return "dyn";
    case TypeKind::kNull: return "null_type";
    case TypeKind::kBool: return "bool";
    case TypeKind::kInt: return "int";
    case TypeKind::kUint: return "uint";
    case TypeKind::kDouble: return "double";
    case TypeKind::kString: return "string";
    case TypeKind::kBytes: return "bytes";
    case TypeKind::kList: return "list(" + TypeString(*t.elem) + ")";
    case TypeKind::kMap: return "map(" + TypeString(*t.key) + ", " + TypeString(*t.elem) + ")";
    case TypeKind::kObject: return t.name;
    case TypeKind::kTimestamp: return "google.protobuf.Timestamp";
    case TypeKind::kDuration: return "google.protobuf.Duration";
    case TypeKind::kType: return "type";
    case TypeKind::kOptional: return "optional_type(" + TypeString(*t.elem) + ")";
    case TypeKind::kOpaque: return t.name;
  }
  return "dyn";
}

bool IsDyn(const TypePtr& t) { return !t || t->kind == TypeKind::kDyn; }

bool Assignable(const TypePtr& to, const TypePtr& from) {
  if (IsDyn(to) || IsDyn(from)) return true;
  if (to->kind != from->kind) return false;
  switch (to->kind) {
    case TypeKind::kList:
    case TypeKind::kOptional: return Assignable(to->elem, from->elem);
    case TypeKind::kMap: return Assignable(to->key, from->key) && Assignable(to->elem, from->elem);
    case TypeKind::kObject:
    case TypeKind::kOpaque: return to->name == from->name;
    default: return true;
  }
}

}  // namespace capstan::cel
