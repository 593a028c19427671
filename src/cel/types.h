// cel/types.h: static CEL types for the checker: the primitive types, list(T), map(K, V),
// optional_type(T), object types with declared fields (what kube derives from a structural schema),
// library opaque types (kubernetes.URL, net.IP, ...) and dyn. Printed as cel-go prints them in
// checker errors: "list(int)", "map(string, dyn)".
//
// Types are immutable and shared (shared_ptr<const Type>); thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capstan::cel {

enum class TypeKind : uint8_t {
  kDyn, kNull, kBool, kInt, kUint, kDouble, kString, kBytes, kList, kMap, kObject, kTimestamp,
  kDuration, kType, kOptional, kOpaque,
};

struct Type;
using TypePtr = std::shared_ptr<const Type>;

struct Type {
  TypeKind kind = TypeKind::kDyn;
  TypePtr elem;  // list element, map value, optional value
  TypePtr key;   // map key
  std::string name;  // object or opaque type name
  std::vector<std::pair<std::string, TypePtr>> fields;  // object: declared fields (escaped names)
  // Sizes kube's cost estimator uses: the most elements (string bytes, list items, map entries) a
  // value can have (maxLength*4, maxItems, maxProperties, or what fits in a request), and the
  // fewest bytes its JSON takes. Unset: unknown.
  std::optional<int64_t> max_size;
  int64_t min_size = 1;

  const TypePtr* Field(std::string_view n) const {
    for (const auto& f : fields) {
      if (f.first == n) return &f.second;
    }
    return nullptr;
  }
};

TypePtr DynType();
// dyn because the checker has no signature for a library function (cel-go would know the type):
// callers that require a result type accept it rather than refuse a valid expression.
TypePtr UnknownType();
TypePtr Primitive(TypeKind k);
TypePtr ListOf(TypePtr elem);
TypePtr MapOf(TypePtr key, TypePtr value);
TypePtr OptionalOf(TypePtr inner);
TypePtr OpaqueType(std::string name);
// An object type with declared fields (kube's DeclType objects, e.g. kubernetes.AdmissionRequest).
TypePtr ObjectType(std::string name, std::vector<std::pair<std::string, TypePtr>> fields);

std::string TypeString(const Type& t);
bool IsDyn(const TypePtr& t);
// Whether a value of type `from` may flow where `to` is expected (dyn matches anything).
bool Assignable(const TypePtr& to, const TypePtr& from);

}  // namespace capstan::cel
