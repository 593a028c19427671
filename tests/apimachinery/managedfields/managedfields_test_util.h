// Helpers for the managedfields tests: JSON literals and the built-in schemas.
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string_view>

#include "api/schemas/builtin_schemas.h"
#include "apimachinery/go_normalize.h"
#include "apimachinery/schema_registry.h"

namespace capstan::apimachinery::managedfields::testing {

inline boost::json::value J(std::string_view text) { return boost::json::parse(text); }
inline boost::json::object O(std::string_view text) { return boost::json::parse(text).as_object(); }

inline const SchemaRegistry& Builtins() {
  static const SchemaRegistry* r = [] {
    auto* reg = new SchemaRegistry();
    for (const auto& f : api::BuiltinSchemaFiles()) EXPECT_TRUE(reg->AddDocumentJson(f.text).ok()) << f.name;
    EXPECT_TRUE(reg->Resolve().ok());
    return reg;
  }();
  return *r;
}

inline const Schema* Def(std::string_view name) {
  const Schema* s = Builtins().Find(name);
  EXPECT_NE(s, nullptr) << name;
  return s;
}

inline std::string FieldsV1(const boost::json::value& managed_fields_entry) {
  return boost::json::serialize(managed_fields_entry.at("fieldsV1"));
}

}  // namespace capstan::apimachinery::managedfields::testing
