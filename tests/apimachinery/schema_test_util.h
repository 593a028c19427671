// Helpers shared by the schema and patch tests: JSON and schema literals.
#pragma once

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "apimachinery/field_errors.h"
#include "apimachinery/schema_registry.h"

namespace capstan::apimachinery::testing {

inline boost::json::value J(std::string_view text) { return boost::json::parse(text); }

inline std::shared_ptr<const Schema> S(std::string_view json) {
  auto r = ParseSchemaJson(json);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

inline std::set<std::string> ErrorStrings(const ErrorList& errs) {
  std::set<std::string> out;
  for (const auto& e : errs) out.insert(e.ToString());
  return out;
}

}  // namespace capstan::apimachinery::testing
