// The JSONPath subset and the Table cells of additionalPrinterColumns.
#include "api/apiextensions/printer_columns.h"

#include <gtest/gtest.h>

namespace capstan::api::apiextensions {
namespace {

namespace json = boost::json;

TEST(JsonPath, FieldsIndexesAndFilters) {
  json::value v = json::parse(R"({"spec":{"a.b":1,"list":[{"type":"Ready","status":"True"},{"type":"X","status":"False"}]}})");
  auto p = ParseSimpleJsonPath(".spec.list[?(@.type==\"Ready\")].status");
  ASSERT_TRUE(p);
  auto r = EvalJsonPath(*p, v);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0]->as_string(), "True");
  auto idx = EvalJsonPath(*ParseSimpleJsonPath(".spec.list[-1].type"), v);
  ASSERT_EQ(idx.size(), 1u);
  EXPECT_EQ(idx[0]->as_string(), "X");
  EXPECT_EQ(EvalJsonPath(*ParseSimpleJsonPath(".spec['a.b']"), v)[0]->as_int64(), 1);
  EXPECT_EQ(EvalJsonPath(*ParseSimpleJsonPath(".spec.list[*].type"), v).size(), 2u);
  EXPECT_TRUE(EvalJsonPath(*ParseSimpleJsonPath(".spec.missing"), v).empty());
  EXPECT_FALSE(ParseSimpleJsonPath("spec.x"));
  EXPECT_FALSE(ParseSimpleJsonPath(".spec[abc"));
}

TEST(PrinterColumns, TypedCellsAndDefaultAge) {
  PrinterColumns cols({{"Spec", "string", "", "", ".spec.cronSpec", 0},
                       {"Replicas", "integer", "", "the count", ".spec.replicas", 1},
                       {"Ready", "boolean", "", "", ".status.ready", 0},
                       {"Missing", "string", "", "", ".spec.nothing", 0}});
  auto headers = cols.Columns();
  ASSERT_EQ(headers.size(), 5u);
  EXPECT_EQ(headers[0].name, "Name");
  EXPECT_EQ(headers[1].description, "Custom resource definition column (in JSONPath format): .spec.cronSpec");
  EXPECT_EQ(headers[2].description, "the count");
  EXPECT_EQ(headers[2].priority, 1);
  Object o = json::parse(R"({"metadata":{"name":"a"},"spec":{"cronSpec":"* * * * */5","replicas":3.0},"status":{"ready":true}})").as_object();
  auto cells = cols.Cells(o);
  ASSERT_EQ(cells.size(), 5u);
  EXPECT_EQ(cells[0].as_string(), "a");
  EXPECT_EQ(cells[1].as_string(), "* * * * */5");
  EXPECT_EQ(cells[2].as_int64(), 3);
  EXPECT_EQ(cells[3].as_bool(), true);
  EXPECT_TRUE(cells[4].is_null());

  PrinterColumns none({});
  ASSERT_EQ(none.Columns().size(), 2u);
  EXPECT_EQ(none.Columns()[1].name, "Age");
  EXPECT_EQ(none.Columns()[1].type, "date");
}

}  // namespace
}  // namespace capstan::api::apiextensions
