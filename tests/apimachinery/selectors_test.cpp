#include <gtest/gtest.h>

#include "apimachinery/fields.h"
#include "apimachinery/json.h"
#include "apimachinery/labels.h"

namespace capstan::apimachinery {
namespace {

std::string Canonical(std::string_view s) {
  auto sel = ParseLabelSelector(s);
  if (!sel.ok()) return "ERR: " + sel.status().message();
  return sel->String();
}

TEST(LabelSelectorTest, ParseAndCanonicalString) {
  EXPECT_EQ(Canonical(""), "");
  EXPECT_EQ(Canonical("x=a,y=b,z=c"), "x=a,y=b,z=c");
  EXPECT_EQ(Canonical("z=c, x=a"), "x=a,z=c");
  EXPECT_EQ(Canonical("x==a"), "x==a");
  EXPECT_EQ(Canonical("x!=a"), "x!=a");
  EXPECT_EQ(Canonical("x in (b,a,a)"), "x in (a,b)");
  EXPECT_EQ(Canonical("x notin ( a )"), "x notin (a)");
  EXPECT_EQ(Canonical("x in ()"), "x in ()");
  EXPECT_EQ(Canonical("x in (a,)"), "x in (,a)");
  EXPECT_EQ(Canonical("!x"), "!x");
  EXPECT_EQ(Canonical("x"), "x");
  EXPECT_EQ(Canonical("x="), "x=");
  EXPECT_EQ(Canonical("x>1,y<2"), "x>1,y<2");
  EXPECT_EQ(Canonical("in=notin"), "in=notin");
  EXPECT_EQ(Canonical("example.com/app=web"), "example.com/app=web");
}

TEST(LabelSelectorTest, KubeErrors) {
  EXPECT_EQ(Canonical("x=a,"), "ERR: found '', expected: identifier after ','");
  EXPECT_EQ(Canonical(",x"), "ERR: found ',', expected: !, identifier, or 'end of string'");
  EXPECT_EQ(Canonical("x=a b"), "ERR: found 'b', expected: ',' or 'end of string'");
  EXPECT_EQ(Canonical("x in a"), "ERR: unable to parse requirement: found 'a' expected: '('");
  EXPECT_EQ(Canonical("x in (a"), "ERR: unable to parse requirement: found '', expected: ',' or ')'");
  EXPECT_EQ(Canonical("x ~ a"), "ERR: unable to parse requirement: found '~', expected: in, notin, =, ==, !=, gt, lt");
  EXPECT_EQ(Canonical("x=(a)"), "ERR: unable to parse requirement: found '(', expected: identifier");
  EXPECT_EQ(Canonical("!=a"), "ERR: found '!=', expected: !, identifier, or 'end of string'");
  EXPECT_EQ(Canonical("!(a"), "ERR: unable to parse requirement: found '(', expected: identifier");
  EXPECT_EQ(Canonical("-x=a"),
            "ERR: unable to parse requirement: <nil>: Invalid value: \"-x\": name part must consist of alphanumeric "
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
            "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  EXPECT_EQ(Canonical("x=a@b"),
            "ERR: unable to parse requirement: values[0][x]: Invalid value: \"a@b\": a valid label must be an empty "
            "string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  EXPECT_EQ(Canonical("x>a"),
            "ERR: unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value "
            "must be an integer");
  auto bad = ParseLabelSelector("x=a,");
  EXPECT_EQ(bad.status().code(), 400);
}

TEST(LabelSelectorTest, Matching) {
  StringPairs labels = {{"app", "web"}, {"tier", "front"}, {"rev", "5"}};
  auto m = [&](std::string_view s) { return ParseLabelSelector(s)->Matches(labels); };
  EXPECT_TRUE(m(""));
  EXPECT_TRUE(m("app=web"));
  EXPECT_FALSE(m("app=db"));
  EXPECT_TRUE(m("app!=db"));
  EXPECT_TRUE(m("missing!=x"));
  EXPECT_TRUE(m("app in (db,web)"));
  EXPECT_FALSE(m("app notin (db,web)"));
  EXPECT_TRUE(m("missing notin (x)"));
  EXPECT_TRUE(m("tier"));
  EXPECT_FALSE(m("!tier"));
  EXPECT_TRUE(m("!missing"));
  EXPECT_TRUE(m("rev>4,rev<6"));
  EXPECT_FALSE(m("rev>5"));
  EXPECT_FALSE(m("app>1"));
  EXPECT_FALSE(LabelSelector::Nothing().Matches(labels));
  auto obj = ParseJsonValue(R"({"metadata":{"labels":{"app":"web"}}})");
  EXPECT_TRUE(ParseLabelSelector("app=web")->MatchesObject(obj->as_object()));
  EXPECT_FALSE(ParseLabelSelector("app")->MatchesObject(boost::json::object()));
  EXPECT_EQ(ParseLabelSelector("app=web,x in (a)")->RequiresExactMatch("x").value(), "a");
  EXPECT_FALSE(ParseLabelSelector("app!=web")->RequiresExactMatch("app").has_value());
}

TEST(LabelSelectorTest, FromJsonAndValidation) {
  auto v = ParseJsonValue(R"({"matchLabels":{"b":"1","a":"2"},"matchExpressions":[{"key":"c","operator":"In","values":["y","x"]},{"key":"d","operator":"DoesNotExist"}]})");
  auto sel = LabelSelectorFromJson(&*v);
  ASSERT_TRUE(sel.ok()) << sel.status().message();
  EXPECT_EQ(sel->String(), "a=2,b=1,c in (x,y),!d");
  EXPECT_TRUE(LabelSelectorFromJson(nullptr)->IsNothing());
  auto empty = ParseJsonValue("{}");
  EXPECT_TRUE(LabelSelectorFromJson(&*empty)->Empty());
  auto badop = ParseJsonValue(R"({"matchExpressions":[{"key":"c","operator":"Foo"}]})");
  EXPECT_EQ(LabelSelectorFromJson(&*badop).status().message(), "\"Foo\" is not a valid label selector operator");
  auto noval = ParseJsonValue(R"({"matchExpressions":[{"key":"c","operator":"In","values":[]}]})");
  EXPECT_EQ(LabelSelectorFromJson(&*noval).status().message(),
            "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty");

  auto bad = ParseJsonValue(R"({"matchExpressions":[{"key":"c","operator":"In"},{"key":"d","operator":"Exists","values":["x"]},{"key":"e","operator":"Bogus"}]})");
  std::vector<std::string> got;
  for (const FieldError& e : ValidateLabelSelector(*bad, FieldPath("spec").Child("selector"))) got.push_back(e.ToString());
  EXPECT_EQ(got, (std::vector<std::string>{
                     "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
                     "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                     "spec.selector.matchExpressions[2].operator: Invalid value: \"Bogus\": not a valid selector operator"}));
}

TEST(FieldSelectorTest, ParseStringAndMatch) {
  auto s = ParseFieldSelector("spec.nodeName!=,metadata.name==x");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->String(), "metadata.name=x,spec.nodeName!=");
  EXPECT_EQ(s->RequiresExactMatch("metadata.name").value(), "x");
  EXPECT_TRUE(s->Matches({{"metadata.name", "x"}, {"spec.nodeName", "n1"}}));
  EXPECT_FALSE(s->Matches({{"metadata.name", "x"}}));  // an absent field reads as ""
  EXPECT_FALSE(s->Matches({{"metadata.name", "y"}, {"spec.nodeName", "n1"}}));
  EXPECT_TRUE(ParseFieldSelector("")->Empty());
  EXPECT_TRUE(ParseFieldSelector(",,")->Empty());
  auto esc = ParseFieldSelector(R"(a=x\,y\=z\\)");
  ASSERT_TRUE(esc.ok());
  EXPECT_EQ(esc->Requirements()[0].value, R"(x,y=z\)");
  EXPECT_EQ(esc->String(), R"(a=x\,y\=z\\)");
  ASSERT_EQ(s->Requirements().size(), 2u);
  EXPECT_EQ(s->Requirements()[1], (FieldRequirement{"spec.nodeName", true, ""}));
}

TEST(FieldSelectorTest, KubeErrors) {
  EXPECT_EQ(ParseFieldSelector("a").status().message(), "invalid selector: 'a'; can't understand 'a'");
  EXPECT_EQ(ParseFieldSelector("b=1,a").status().message(), "invalid selector: 'b=1,a'; can't understand 'a'");
  EXPECT_EQ(ParseFieldSelector(R"(a=\x)").status().message(), "invalid field selector: invalid escape sequence: \\x");
  EXPECT_EQ(ParseFieldSelector(R"(a=x\)").status().message(), "invalid field selector: invalid escape sequence: \\");
  EXPECT_EQ(ParseFieldSelector("a=b=c").status().message(), "invalid field selector: unescaped character in value: 61");
  auto s = ParseFieldSelector("spec.foo=1");
  std::vector<std::string> supported = {"metadata.name", "metadata.namespace"};
  Status listed = CheckFieldSelectorFields(*s, supported, FieldLabelNotSupportedError);
  EXPECT_EQ(listed.code(), 400);
  EXPECT_EQ(listed.reason(), "BadRequest");
  EXPECT_EQ(listed.message(), "field label not supported: spec.foo");
  EXPECT_EQ(CheckFieldSelectorFields(*s, DefaultSelectableFieldNames(), DefaultFieldLabelConversionError).message(),
            "\"spec.foo\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
  EXPECT_TRUE(CheckFieldSelectorFields(*ParseFieldSelector("metadata.name=a"), supported, FieldLabelNotSupportedError).ok());
  EXPECT_TRUE(CheckFieldSelectorFields(*ParseFieldSelector("metadata.namespace=a"), DefaultSelectableFieldNames(),
                                       DefaultFieldLabelConversionError)
                  .ok());
}

TEST(FieldSelectorTest, Transform) {
  auto s = ParseFieldSelector("a=1,b=2");
  auto t = s->Transform([](const std::string& f, const std::string& v) -> StatusOr<std::pair<std::string, std::string>> {
    if (f == "a") return std::pair<std::string, std::string>{"", ""};
    return std::pair<std::string, std::string>{"x." + f, v};
  });
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->String(), "x.b=2");
}

}  // namespace
}  // namespace capstan::apimachinery
