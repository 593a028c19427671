#include <gtest/gtest.h>

#include "eval_test_util.h"

namespace capstan::cel {
namespace {

using testing::EvalToString;

TEST(CelInterpreter, Arithmetic) {
  EXPECT_EQ(EvalToString("1 + 2 * 3"), "7");
  EXPECT_EQ(EvalToString("9223372036854775807 + 1"), "error: integer overflow");
  EXPECT_EQ(EvalToString("-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(EvalToString("1 / 0"), "error: division by zero");
  EXPECT_EQ(EvalToString("5 % 0"), "error: modulus by zero");
  EXPECT_EQ(EvalToString("18446744073709551615u + 1u"), "error: unsigned integer overflow");
  EXPECT_EQ(EvalToString("1.5 * 2.0"), "3");
  EXPECT_EQ(EvalToString("'a' + 'b'"), "\"ab\"");
}

TEST(CelInterpreter, LogicAbsorbsErrors) {
  EXPECT_EQ(EvalToString("false && (1 / 0 == 1)"), "false");
  EXPECT_EQ(EvalToString("(1 / 0 == 1) && false"), "false");
  EXPECT_EQ(EvalToString("(1 / 0 == 1) || true"), "true");
  EXPECT_EQ(EvalToString("(1 / 0 == 1) || false"), "error: division by zero");
  EXPECT_EQ(EvalToString("true ? 1 : 1 / 0"), "1");
}

TEST(CelInterpreter, HeterogeneousEquality) {
  EXPECT_EQ(EvalToString("dyn(1) == 1.0"), "true");
  EXPECT_EQ(EvalToString("dyn(1u) == 1"), "true");
  EXPECT_EQ(EvalToString("1 < 1.5"), "true");
  EXPECT_EQ(EvalToString("[1, 2] == [1, 2]"), "true");
  EXPECT_EQ(EvalToString("{'a': 1} == {'a': 1}"), "true");
  EXPECT_EQ(EvalToString("dyn(1) in [1.0]"), "true");
}

TEST(CelInterpreter, Macros) {
  EXPECT_EQ(EvalToString("[1, 2, 3].all(x, x > 0)"), "true");
  EXPECT_EQ(EvalToString("[1, 2, 3].exists(x, x > 2)"), "true");
  EXPECT_EQ(EvalToString("[1, 2, 3].exists_one(x, x > 1)"), "false");
  EXPECT_EQ(EvalToString("[1, 2, 3].map(x, x * 2)"), "[2, 4, 6]");
  EXPECT_EQ(EvalToString("[1, 2, 3].map(x, x > 1, x * 2)"), "[4, 6]");
  EXPECT_EQ(EvalToString("[1, 2, 3].filter(x, x != 2)"), "[1, 3]");
  EXPECT_EQ(EvalToString("{'a': 1}.all(k, k == 'a')"), "true");
  EXPECT_EQ(EvalToString("[0, 1].all(x, 1 / x > 0)"), "error: division by zero");
  EXPECT_EQ(EvalToString("[0, 1].exists(x, 1 / x > 0)"), "true");
  EXPECT_EQ(EvalToString("has({'a': 1}.a)"), "true");
  EXPECT_EQ(EvalToString("has({'a': 1}.b)"), "false");
}

TEST(CelInterpreter, IndexingAndErrors) {
  EXPECT_EQ(EvalToString("[1, 2][5]"), "error: index '5' out of range in list size '2'");
  EXPECT_EQ(EvalToString("{'a': 1}['b']"), "error: no such key: b");
  EXPECT_EQ(EvalToString("{'a': 1}.b"), "error: no such key: b");
  EXPECT_EQ(EvalToString("'a' in {'a': 1}"), "true");
}

TEST(CelInterpreter, Optionals) {
  EXPECT_EQ(EvalToString("{'a': 1}.?b.orValue(5)"), "5");
  EXPECT_EQ(EvalToString("{'a': 1}.?a.orValue(5)"), "1");
  EXPECT_EQ(EvalToString("{'a': {'b': 2}}.?a.b.hasValue()"), "true");
  EXPECT_EQ(EvalToString("[1, 2][?5].hasValue()"), "false");
  EXPECT_EQ(EvalToString("optional.of(1).value()"), "1");
  EXPECT_EQ(EvalToString("optional.none().value()"), "error: optional.none() dereference");
  EXPECT_EQ(EvalToString("[?optional.none(), ?optional.of(2)]"), "[2]");
  EXPECT_EQ(EvalToString("optional.of(3).optMap(x, x + 1).value()"), "4");
}

TEST(CelInterpreter, Conversions) {
  EXPECT_EQ(EvalToString("int('12')"), "12");
  EXPECT_EQ(EvalToString("int('x')"), "error: type conversion error from 'string' to 'int'");
  EXPECT_EQ(EvalToString("uint(-1)"), "error: unsigned integer overflow");
  EXPECT_EQ(EvalToString("string(1.5)"), "\"1.5\"");
  EXPECT_EQ(EvalToString("double('1e3')"), "1000");
  EXPECT_EQ(EvalToString("type(1) == int"), "true");
  EXPECT_EQ(EvalToString("string(timestamp('2023-01-02T03:04:05.5Z'))"), "\"2023-01-02T03:04:05.5Z\"");
  EXPECT_EQ(EvalToString("string(duration('1m30s'))"), "\"90s\"");
  EXPECT_EQ(EvalToString("timestamp('2023-01-02T03:04:05Z') + duration('1h') > timestamp('2023-01-02T04:00:00Z')"), "true");
  EXPECT_EQ(EvalToString("timestamp('2023-01-02T03:04:05Z').getFullYear()"), "2023");
  EXPECT_EQ(EvalToString("timestamp('2023-01-02T03:04:05Z').getHours('+02:00')"), "5");
  EXPECT_EQ(EvalToString("'abc'.matches('^a.c$')"), "true");
  EXPECT_EQ(EvalToString("'abc'.matches('(')"), "error: error parsing regexp: missing closing ): `(`");
}

TEST(CelInterpreter, Strings) {
  EXPECT_EQ(EvalToString("'hello'.charAt(1)"), "\"e\"");
  EXPECT_EQ(EvalToString("'hello'.indexOf('l')"), "2");
  EXPECT_EQ(EvalToString("'hello'.lastIndexOf('l')"), "3");
  EXPECT_EQ(EvalToString("'a,b,c'.split(',')"), "[a, b, c]");
  EXPECT_EQ(EvalToString("'hello'.substring(1, 3)"), "\"el\"");
  EXPECT_EQ(EvalToString("'hello'.substring(3, 1)"), "error: invalid substring range. start: 3, end: 1");
  EXPECT_EQ(EvalToString("'  x '.trim()"), "\"x\"");
  EXPECT_EQ(EvalToString("['a', 'b'].join('-')"), "\"a-b\"");
  EXPECT_EQ(EvalToString("'AbC'.lowerAscii()"), "\"abc\"");
  EXPECT_EQ(EvalToString("'aaa'.replace('a', 'b', 2)"), "\"bba\"");
  EXPECT_EQ(EvalToString("'%s is %d'.format([dyn('x'), 3])"), "\"x is 3\"");
  EXPECT_EQ(EvalToString("strings.quote('a\"b')"), "\"\"a\\\"b\"\"");
}

TEST(CelInterpreter, GrowingStringsAreChargedBeforeTheyAreBuilt) {
  // Each replace multiplies the length by 11: the seventh would build 38 MB; the cost limit stops it first.
  EXPECT_EQ(EvalToString("'a'.replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa')"
                         ".replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa').replace('', 'aaaaaaaaaa')"
                         ".replace('', 'aaaaaaaaaa').size()"),
            "error: operation cancelled: actual cost limit exceeded");
}

TEST(CelCompile, Errors) {
  EXPECT_EQ(EvalToString("1 + "), "compile: ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting "
                                  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
                                  "STRING, BYTES, IDENTIFIER}\n | 1 + \n | ....^");
  EXPECT_EQ(EvalToString("x"), "compile: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x\n | ^");
  EXPECT_EQ(EvalToString("1 + 'a'"), "compile: ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'\n | 1 + 'a'\n | ..^");
  EXPECT_EQ(EvalToString("[1, 'a']"), "compile: ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a']\n | ....^");
  EXPECT_EQ(EvalToString("a #"), "compile: ERROR: <input>:1:3: Syntax error: token recognition error at: '#'\n | a #\n | ..^");
  EXPECT_EQ(EvalToString("1 2"), "compile: ERROR: <input>:1:3: Syntax error: mismatched input '2' expecting <EOF>\n | 1 2\n | ..^");
  EXPECT_EQ(EvalToString("as"), "compile: ERROR: <input>:1:1: reserved identifier: as\n | as\n | ^");
}

}  // namespace
}  // namespace capstan::cel
