#include "api/schemas/builtin_schemas.h"

// BuiltinSchemaFiles() is defined in the generated builtin_schemas_data.cpp (embed_schemas.cmake).

namespace capstan::api {

const BuiltinSchemaFile* FindBuiltinSchemaFile(std::string_view name) {
  for (const BuiltinSchemaFile& f : BuiltinSchemaFiles()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace capstan::api
