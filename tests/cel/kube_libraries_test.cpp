// kube's CEL libraries as kube-apiserver 1.32 enables them for CRD rules.
#include <gtest/gtest.h>

#include "eval_test_util.h"

namespace capstan::cel {
namespace {

using testing::EvalToString;

TEST(KubeLists, Functions) {
  EXPECT_EQ(EvalToString("[1, 2, 3].isSorted()"), "true");
  EXPECT_EQ(EvalToString("['b', 'a'].isSorted()"), "false");
  EXPECT_EQ(EvalToString("[1, 2, 3].sum()"), "6");
  EXPECT_EQ(EvalToString("[1.5, 2.5].sum()"), "4");
  EXPECT_EQ(EvalToString("[3, 1, 2].min()"), "1");
  EXPECT_EQ(EvalToString("[3, 1, 2].max()"), "3");
  EXPECT_EQ(EvalToString("dyn([]).min()"), "error: min called on empty list");
  EXPECT_EQ(EvalToString("[1, 2, 1].indexOf(1)"), "0");
  EXPECT_EQ(EvalToString("[1, 2, 1].lastIndexOf(1)"), "2");
  EXPECT_EQ(EvalToString("'abcb'.indexOf('b')"), "1");  // ext.Strings' indexOf still answers strings
  EXPECT_EQ(EvalToString("[9223372036854775807, 1].sum()"), "error: integer overflow");
}

TEST(KubeRegex, FindAndFindAll) {
  EXPECT_EQ(EvalToString("'abc 123'.find('[0-9]+')"), "\"123\"");
  EXPECT_EQ(EvalToString("'abc'.find('[0-9]+')"), "\"\"");
  EXPECT_EQ(EvalToString("'123 abc 456'.findAll('[0-9]+')"), "[123, 456]");
  EXPECT_EQ(EvalToString("'123 abc 456'.findAll('[0-9]+', 1)"), "[123]");
  EXPECT_EQ(EvalToString("'x'.find('(')"), "error: Illegal regex: error parsing regexp: missing closing ): `(`");
}

TEST(Sets, Functions) {
  EXPECT_EQ(EvalToString("sets.contains([1, 2, 3], [3, 1])"), "true");
  EXPECT_EQ(EvalToString("sets.equivalent([1, 2], [2, 1, 1])"), "true");
  EXPECT_EQ(EvalToString("sets.intersects([1, 2], [3])"), "false");
}

TEST(KubeUrl, Accessors) {
  EXPECT_EQ(EvalToString("url('https://user@example.com:8443/a%20b?x=1&x=2&y=z#frag').getScheme()"), "\"https\"");
  EXPECT_EQ(EvalToString("url('https://example.com:8443/path').getHost()"), "\"example.com:8443\"");
  EXPECT_EQ(EvalToString("url('https://example.com:8443/path').getHostname()"), "\"example.com\"");
  EXPECT_EQ(EvalToString("url('https://[::1]:80/').getHostname()"), "\"::1\"");
  EXPECT_EQ(EvalToString("url('https://example.com:8443/path').getPort()"), "\"8443\"");
  EXPECT_EQ(EvalToString("url('https://example.com/a%20b').getEscapedPath()"), "\"/a%20b\"");
  EXPECT_EQ(EvalToString("url('https://example.com/?x=1&x=2&y=z').getQuery()"), "{x: [1, 2], y: [z]}");
  EXPECT_EQ(EvalToString("isURL('https://example.com')"), "true");
  EXPECT_EQ(EvalToString("isURL('example.com')"), "false");
  EXPECT_EQ(EvalToString("url('example.com')"),
            "error: URL parse error during conversion from string: parse \"example.com\": invalid URI for request");
}

TEST(KubeQuantity, Functions) {
  EXPECT_EQ(EvalToString("quantity('1Gi').isGreaterThan(quantity('1G'))"), "true");
  EXPECT_EQ(EvalToString("quantity('500m').isLessThan(quantity('1'))"), "true");
  EXPECT_EQ(EvalToString("quantity('1k').compareTo(quantity('1000'))"), "0");
  EXPECT_EQ(EvalToString("quantity('1.5').asApproximateFloat()"), "1.5");
  EXPECT_EQ(EvalToString("quantity('2k').asInteger()"), "2000");
  EXPECT_EQ(EvalToString("quantity('1.5').isInteger()"), "false");
  EXPECT_EQ(EvalToString("quantity('1.5').asInteger()"), "error: cannot convert value to integer");
  EXPECT_EQ(EvalToString("quantity('1').add(2).asInteger()"), "3");
  EXPECT_EQ(EvalToString("quantity('5').sub(quantity('7')).sign()"), "-1");
  EXPECT_EQ(EvalToString("isQuantity('1Gi') && !isQuantity('1GG')"), "true");
  EXPECT_EQ(EvalToString("quantity('1k') == quantity('1000')"), "true");
}

TEST(KubeIpCidr, Functions) {
  EXPECT_EQ(EvalToString("ip('192.168.0.1').family()"), "4");
  EXPECT_EQ(EvalToString("ip('::1').family()"), "6");
  EXPECT_EQ(EvalToString("ip('127.0.0.1').isLoopback()"), "true");
  EXPECT_EQ(EvalToString("ip('0.0.0.0').isUnspecified()"), "true");
  EXPECT_EQ(EvalToString("ip('169.254.1.1').isLinkLocalUnicast()"), "true");
  EXPECT_EQ(EvalToString("ip('8.8.8.8').isGlobalUnicast()"), "true");
  EXPECT_EQ(EvalToString("isIP('1.2.3') || isIP('01.2.3.4')"), "false");
  EXPECT_EQ(EvalToString("ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1')"), "true");
  EXPECT_EQ(EvalToString("string(ip('2001:db8:0:0:0:0:0:1'))"), "\"2001:db8::1\"");
  EXPECT_EQ(EvalToString("ip('::ffff:1.2.3.4')"), "error: IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed");
  EXPECT_EQ(EvalToString("cidr('10.0.0.0/8').containsIP('10.1.2.3')"), "true");
  EXPECT_EQ(EvalToString("cidr('10.0.0.0/8').containsIP(ip('11.1.2.3'))"), "false");
  EXPECT_EQ(EvalToString("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')"), "true");
  EXPECT_EQ(EvalToString("cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8')"), "true");
  EXPECT_EQ(EvalToString("cidr('10.1.2.3/8').prefixLength()"), "8");
  EXPECT_EQ(EvalToString("string(cidr('10.1.2.3/8').ip())"), "\"10.1.2.3\"");
  EXPECT_EQ(EvalToString("isCIDR('10.0.0.0/33')"), "false");
}

TEST(KubeFormat, Validate) {
  EXPECT_EQ(EvalToString("format.dns1123Label().validate('my-name').hasValue()"), "false");
  EXPECT_EQ(EvalToString("format.dns1123Label().validate('My_Name').value()[0]"),
            "\"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
            "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')\"");
  EXPECT_EQ(EvalToString("format.named('labelValue').value().validate('ok').hasValue()"), "false");
  EXPECT_EQ(EvalToString("format.named('nope').hasValue()"), "false");
  EXPECT_EQ(EvalToString("format.uuid().validate('x').value()"), "[does not match the UUID format]");
}

TEST(KubeEnvironment, LaterLibrariesAreNotAvailable) {
  // Two-variable comprehensions arrive for new expressions in 1.33; semver in 1.33; reverse() is
  // ext.Strings v3.
  EXPECT_NE(EvalToString("'abc'.reverse()").find("undeclared reference to 'reverse'"), std::string::npos);
  EXPECT_NE(EvalToString("isSemver('1.0.0')").find("undeclared reference to 'isSemver'"), std::string::npos);
}

}  // namespace
}  // namespace capstan::cel
