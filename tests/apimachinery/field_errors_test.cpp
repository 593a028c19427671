#include "apimachinery/field_errors.h"

#include <gtest/gtest.h>

namespace capstan {
namespace {

TEST(FieldErrorsTest, InvalidQuotesStringValues) {
  auto e = InvalidError(FieldPath("metadata").Child("name"), "Foo", "must be lowercase");
  EXPECT_EQ(e.ToString(), "metadata.name: Invalid value: \"Foo\": must be lowercase");
  EXPECT_EQ(FieldErrorCauseType(e.type), "FieldValueInvalid");
}

TEST(FieldErrorsTest, RequiredHasNoValue) {
  EXPECT_EQ(RequiredError(FieldPath("spec").Child("containers"), "").ToString(), "spec.containers: Required value");
}

TEST(FieldErrorsTest, NotSupportedListsQuotedValues) {
  auto e = NotSupportedError(FieldPath("spec").Child("type"), "Bogus", {"ClusterIP", "NodePort"});
  EXPECT_EQ(e.Body(), "Unsupported value: \"Bogus\": supported values: \"ClusterIP\", \"NodePort\"");
}

TEST(FieldErrorsTest, NumbersPrintPlainAndPathsIndex) {
  auto e = InvalidError(FieldPath("spec").Child("ports").Index(0).Child("port"), 70000, "must be between 1 and 65535");
  EXPECT_EQ(e.ToString(), "spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535");
}

TEST(FieldErrorsTest, TooLongOmitsValue) {
  EXPECT_EQ(TooLongError(FieldPath("metadata").Child("annotations"), 262144).Body(),
            "Too long: may not be more than 262144 bytes");
}

TEST(FieldErrorsTest, AggregateDropsDuplicatesAndBrackets) {
  ErrorList errs = {RequiredError(FieldPath("a"), ""), RequiredError(FieldPath("a"), ""), RequiredError(FieldPath("b"), "")};
  EXPECT_EQ(AggregateMessage(errs), "[a: Required value, b: Required value]");
  EXPECT_EQ(AggregateMessage({errs[0]}), "a: Required value");
}

}  // namespace
}  // namespace capstan
