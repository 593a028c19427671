// apimachinery/schema_formats.h: the string formats kube checks in custom resources (kube-openapi's
// strfmt registry as the apiextensions server configures it: bsonobjectid, uri, email, hostname,
// ipv4, ipv6, cidr, mac, uuid, uuid3, uuid4, uuid5, isbn, isbn10, isbn13, creditcard, ssn, hexcolor,
// rgbcolor, byte, password, date, duration, date-time, k8s-short-name, k8s-long-name).
//
// Format names are matched as kube matches them: dashes removed ("date-time" == "datetime"). A
// format kube does not know is not checked. Pure functions, thread-safe.
#pragma once

#include <string_view>

namespace capstan::apimachinery {

enum class StringFormat {
  kNone, kBsonObjectId, kUri, kEmail, kHostname, kIPv4, kIPv6, kCidr, kMac, kUuid, kUuid3, kUuid4,
  kUuid5, kIsbn, kIsbn10, kIsbn13, kCreditCard, kSsn, kHexColor, kRgbColor, kByte, kPassword, kDate,
  kDuration, kDateTime, kK8sShortName, kK8sLongName,
};

// The format kube validates for this name, or kNone.
StringFormat LookupStringFormat(std::string_view name);

// Whether `s` is a valid value of format `f` (kNone accepts everything).
bool IsValidStringFormat(StringFormat f, std::string_view s);

// Individual checks, exposed for tests and other validators.
bool IsIPv4Format(std::string_view s);   // Go's sloppy ParseIP (leading zeros allowed) with a '.'
bool IsIPv6Format(std::string_view s);   // Go's ParseIP with a ':'
bool IsCidrFormat(std::string_view s);   // Go's sloppy ParseCIDR
bool IsMacFormat(std::string_view s);    // Go's net.ParseMAC
bool IsDateFormat(std::string_view s);   // RFC 3339 full-date, e.g. 2006-01-02
bool IsDateTimeFormat(std::string_view s);
bool IsDurationFormat(std::string_view s);
bool IsRequestUriFormat(std::string_view s);  // Go's url.ParseRequestURI
bool IsEmailFormat(std::string_view s);       // net/mail.ParseAddress (a close approximation)
bool IsHostnameFormat(std::string_view s);

}  // namespace capstan::apimachinery
