// The upstream API fixtures (one fully populated object per kind, in JSON and protobuf) checked
// against the built-in schemas: nothing in a fixture's JSON is unknown to its schema or of another
// JSON type, and its protobuf encoding walks cleanly with the schema's x-proto description.

#include <gtest/gtest.h>

#include <iostream>
#include <memory>

#include "api/schemas/fixtures.h"
#include "api/schemas/json_check.h"
#include "api/schemas/proto_check.h"
#include "api/schemas/schema_index.h"

namespace capstan::api::testing {
namespace {

namespace json = boost::json;

const SchemaIndex& Index() {
  static const SchemaIndex* index = [] {
    std::vector<std::string> errors;
    return SchemaIndex::Load(&errors).release();
  }();
  return *index;
}

// The fixtures whose kind has a definition (the others are counted by FixtureCoverageTest).
std::vector<Fixture> FixturesWithDefinitions() {
  std::optional<std::string> dir = FixtureDir();
  if (!dir) return {};
  std::vector<Fixture> out;
  for (Fixture& f : ListFixtures(*dir)) {
    if (!Index().DefinitionForKind(f.group, f.version, f.kind).empty()) out.push_back(std::move(f));
  }
  return out;
}

std::string Join(const std::vector<std::string>& lines, size_t max = 20) {
  std::string out;
  for (size_t i = 0; i < lines.size() && i < max; ++i) out += "  " + lines[i] + "\n";
  if (lines.size() > max) out += "  ... " + std::to_string(lines.size() - max) + " more\n";
  return out;
}

struct Outcome {
  std::string definition;  // "" when the schemas have no definition for the kind
  std::vector<std::string> json_errors;
  std::vector<std::string> proto_errors;
};

Outcome Check(const Fixture& f) {
  Outcome o;
  o.definition = Index().DefinitionForKind(f.group, f.version, f.kind);
  if (o.definition.empty()) return o;
  std::optional<std::string> text = ReadFile(f.base + ".json");
  if (!text) {
    o.json_errors.push_back("cannot read " + f.base + ".json");
    return o;
  }
  boost::system::error_code ec;
  json::value doc = json::parse(*text, ec);
  if (ec) {
    o.json_errors.push_back("fixture JSON: " + ec.message());
    return o;
  }
  o.json_errors = CheckJsonAgainstSchema(Index(), o.definition, doc);

  std::optional<std::string> pb = ReadFile(f.base + ".pb");
  if (!pb) {
    o.proto_errors.push_back("cannot read " + f.base + ".pb");
    return o;
  }
  Envelope env;
  o.proto_errors = OpenEnvelope(*pb, &env);
  if (!o.proto_errors.empty()) return o;
  const json::object* obj = doc.if_object();
  auto json_str = [&](const char* key) {
    const json::value* v = obj ? obj->if_contains(key) : nullptr;
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  if (env.api_version != json_str("apiVersion") || env.kind != json_str("kind")) {
    o.proto_errors.push_back("envelope typeMeta " + env.api_version + "/" + env.kind + " differs from the JSON's " +
                             json_str("apiVersion") + "/" + json_str("kind"));
  }
  std::vector<std::string> walk = CheckProtoAgainstSchema(Index(), o.definition, env.raw);
  o.proto_errors.insert(o.proto_errors.end(), walk.begin(), walk.end());
  return o;
}

class FixtureTest : public ::testing::TestWithParam<Fixture> {};

TEST_P(FixtureTest, JsonAndProtobufAgreeWithSchema) {
  const Fixture& f = GetParam();
  Outcome o = Check(f);
  ASSERT_FALSE(o.definition.empty()) << f.name;
  EXPECT_TRUE(o.json_errors.empty()) << f.name << " (" << o.definition << ") JSON:\n" << Join(o.json_errors);
  EXPECT_TRUE(o.proto_errors.empty()) << f.name << " (" << o.definition << ") protobuf:\n" << Join(o.proto_errors);
}

std::string FixtureName(const ::testing::TestParamInfo<Fixture>& info) {
  std::string n = info.param.name;
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(Upstream, FixtureTest, ::testing::ValuesIn(FixturesWithDefinitions()), FixtureName);
// Without fixtures (no shared/ folder) there is nothing to instantiate; FixtureCoverageTest says so.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FixtureTest);

// Counts what passes, prints it, and requires that every fixture of a group/version the schemas
// serve has a definition (the generator writes every type of a package, so a miss is a bug).
TEST(FixtureCoverageTest, EveryServedGroupVersionKindHasADefinition) {
  std::optional<std::string> dir = FixtureDir();
  if (!dir) GTEST_SKIP() << "API fixtures not found (set CAPSTAN_API_FIXTURES or put shared/ beside the source tree)";
  std::vector<Fixture> fixtures = ListFixtures(*dir);
  ASSERT_FALSE(fixtures.empty()) << *dir;
  auto served = Index().GroupVersions();
  size_t with_def = 0, json_ok = 0, proto_ok = 0, both_ok = 0;
  std::vector<std::string> missing;
  for (const Fixture& f : fixtures) {
    Outcome o = Check(f);
    if (o.definition.empty()) {
      if (served.count({f.group, f.version})) missing.push_back(f.name);
      continue;
    }
    ++with_def;
    json_ok += o.json_errors.empty();
    proto_ok += o.proto_errors.empty();
    both_ok += o.json_errors.empty() && o.proto_errors.empty();
  }
  std::cout << "[fixtures] " << fixtures.size() << " fixtures in " << *dir << "; " << with_def
            << " have a definition; JSON agrees for " << json_ok << ", protobuf for " << proto_ok << ", both for "
            << both_ok << "; " << fixtures.size() - with_def << " are of group/versions not in the schemas\n";
  EXPECT_TRUE(missing.empty()) << "fixtures of served group/versions without a definition:\n" << Join(missing);
  EXPECT_EQ(both_ok, with_def);
  EXPECT_GT(with_def, 80u);
}

}  // namespace
}  // namespace capstan::api::testing
