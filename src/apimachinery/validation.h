// apimachinery/validation.h: kube's string-format validators with their exact messages.
//
// Each returns the list of problems (empty when valid), e.g. IsDNS1123Subdomain("Foo") gives
//   a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and
//   must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is
//   '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
// kube keeps two length texts: names say "must be no more than 253 characters" (util/validation),
// label keys and values "must be no more than 63 bytes" (api/validate/content); both are kept.
// The Name* functions are kube's ValidateNameFunc family for metadata.name / generateName (prefix).
// Pure functions; thread-safe.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace capstan::apimachinery {

using Problems = std::vector<std::string>;

Problems IsDNS1123Label(std::string_view v);      // max 63
Problems IsDNS1123Subdomain(std::string_view v);  // max 253
Problems IsDNS1035Label(std::string_view v);      // max 63, starts with a letter
Problems IsQualifiedName(std::string_view v);     // label/annotation key: [prefix/]name
Problems IsValidLabelValue(std::string_view v);
Problems IsConfigMapKey(std::string_view v);
Problems IsPathSegmentName(std::string_view v);   // not "." or "..", no '/' or '%'
Problems IsPathSegmentPrefix(std::string_view v);
Problems IsCIdentifier(std::string_view v);

std::string MaxLenError(int length);         // "must be no more than N characters"
std::string MaxLenBytesError(int length);    // "must be no more than N bytes"
std::string RegexError(std::string_view msg, std::string_view re, const std::vector<std::string_view>& examples);
inline constexpr std::string_view kEmptyError = "must be non-empty";
inline constexpr std::string_view kIsNegativeErrorMsg = "must be greater than or equal to 0";
inline constexpr std::string_view kFieldImmutableErrorMsg = "field is immutable";

// kube's ValidateNameFunc: problems with a name, or with a generateName prefix (prefix == true:
// a trailing '-' is allowed).
using NameValidator = std::function<Problems(std::string_view name, bool prefix)>;
Problems NameIsDNSSubdomain(std::string_view name, bool prefix);
Problems NameIsDNSLabel(std::string_view name, bool prefix);
Problems NameIsDNS1035Label(std::string_view name, bool prefix);
Problems ValidatePathSegmentName(std::string_view name, bool prefix);
inline Problems ValidateNamespaceName(std::string_view name, bool prefix) { return NameIsDNSLabel(name, prefix); }

}  // namespace capstan::apimachinery
