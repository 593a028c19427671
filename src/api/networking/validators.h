// api/networking/validators.h: kube's small field validators and printer helpers that the catalog
// groups (networking, discovery, storage, scheduling, node, certificates, admissionregistration,
// apiregistration, flowcontrol, events) share: port names and numbers, IP addresses and CIDRs as kube's
// ParseIPSloppy/ParseCIDRSloppy read them, wildcard DNS names, domain-prefixed paths, fully qualified
// names, immutable-field errors, Go's %#v renderings kube prints bad values with, and JSON accessors
// that create what they write. Messages are kube's (k8s.io/apimachinery/pkg/util/validation).
// Pure functions; thread-safe.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/field_errors.h"

namespace capstan::api::catalog {

namespace json = boost::json;

// ---- JSON accessors ----
// The object at key, created (or replacing another type) when needed.
json::object& Child(json::object& o, std::string_view key);
// The strings of an array-valued field (non-strings skipped); empty when absent.
std::vector<std::string> Strings(const json::object& o, std::string_view key);
// The string at key; nullopt when absent or not a string.
std::optional<std::string> OptString(const json::object* o, std::string_view key);
// The integer at key; nullopt when absent or not a number.
std::optional<int64_t> OptInt(const json::object* o, std::string_view key);
// Sets o[key] = v when the key is absent or null (kube's "if x == nil { x = default }").
void DefaultField(json::object& o, std::string_view key, json::value v);
// Whether a field is present and not null.
bool Has(const json::object* o, std::string_view key);
// Two optional values are equal (absent and null are the same; an empty object or array equals absent
// when `empty_is_absent`).
bool SameValue(const json::value* a, const json::value* b, bool empty_is_absent = false);

// ---- errors ----
// One Invalid error per message of a string validator.
void AddProblems(ErrorList& errs, const FieldPath& p, std::string_view value, const std::vector<std::string>& msgs);
// An Invalid error whose bad value is printed already (Go's %#v of a struct, slice or pointer).
FieldError InvalidGo(const FieldPath& p, std::string rendered, std::string_view detail);
// kube's ValidateImmutableField: Invalid(path, new, "field is immutable") when the values differ;
// `rendered` prints the new value (defaults to the JSON value's Go rendering).
void CheckImmutable(ErrorList& errs, const json::value* now, const json::value* old, const FieldPath& p,
                    std::optional<std::string> rendered = std::nullopt);

// ---- Go renderings ----
std::string GoStringSlice(const std::vector<std::string>& v);  // []string{"a", "b"}
std::string GoStringPtr(const std::optional<std::string>& v);  // (*string)(nil) or "x" dereferenced
std::string GoBytes(std::string_view bytes);                   // []byte{0x2d, 0x2d}

// ---- kube's string validators ----
std::vector<std::string> PortNameProblems(std::string_view port);  // IsValidPortName
std::vector<std::string> PortNumProblems(int64_t port);            // IsValidPortNum
std::string InclusiveRangeError(int64_t lo, int64_t hi);           // "must be between lo and hi, inclusive"
std::vector<std::string> WildcardDNS1123SubdomainProblems(std::string_view v);  // IsWildcardDNS1123Subdomain
ErrorList FullyQualifiedName(const FieldPath& p, std::string_view name);        // IsFullyQualifiedName
ErrorList FullyQualifiedDomainName(const FieldPath& p, std::string_view name);  // IsFullyQualifiedDomainName
// kube's ValidateQualifiedName: one Invalid per IsQualifiedName problem.
ErrorList QualifiedName(const FieldPath& p, std::string_view v);

// ---- addresses ----
struct Ip {
  bool v6 = false;
  uint8_t bytes[16] = {};  // IPv4 in the first 4
};
// Go's net.ParseIP as kube's ParseIPSloppy uses it (leading zeros allowed in IPv4 parts; IPv4-mapped
// IPv6 counts as IPv4).
std::optional<Ip> ParseIp(std::string_view s);
struct Cidr {
  Ip ip;          // the network address
  int prefix = 0; // in bits of the family
};
std::optional<Cidr> ParseCidr(std::string_view s);
bool CidrContains(const Cidr& c, const Ip& ip);
bool IsLoopback(const Ip& ip);
bool IsUnspecified(const Ip& ip);
bool IsLinkLocalUnicast(const Ip& ip);
bool IsLinkLocalMulticast(const Ip& ip);
// kube's ValidateNonSpecialIP (EndpointSlice addresses).
ErrorList NonSpecialIp(std::string_view ip, const FieldPath& p);

}  // namespace capstan::api::catalog
