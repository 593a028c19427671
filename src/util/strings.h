// util/strings.h: small string helpers shared by every layer. Pure functions, thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capstan {

// Go's strconv.Quote: a double-quoted string with Go escapes (what kube's %q prints in messages).
std::string GoQuote(std::string_view s);
// Go's strconv.ParseBool: 1 t T TRUE true True, 0 f F FALSE false False; nullopt for anything else.
std::optional<bool> GoParseBool(std::string_view s);

std::vector<std::string> Split(std::string_view s, char sep);
std::string Join(const std::vector<std::string>& parts, std::string_view sep);
std::string_view TrimSpace(std::string_view s);
bool StartsWith(std::string_view s, std::string_view prefix);
bool EndsWith(std::string_view s, std::string_view suffix);
std::string ToLower(std::string_view s);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// Percent-decoding for URL paths and query strings; plus_as_space for application/x-www-form-urlencoded.
bool PercentDecode(std::string_view in, std::string& out, bool plus_as_space);
// Unreserved characters (and those in also_keep) stay, every other byte is %XX.
std::string PercentEncode(std::string_view in, std::string_view also_keep = "");
// Go's url.URL.EscapedPath for a decoded path: '/' and the characters a path may hold stay as they are.
std::string EscapeUrlPath(std::string_view path);

// Base64 (standard alphabet, padded) as Go's encoding/base64.StdEncoding.
std::string Base64Encode(std::string_view in);
bool Base64Decode(std::string_view in, std::string& out);
// URL-safe alphabet without padding (JWTs).
std::string Base64UrlEncode(std::string_view in);
bool Base64UrlDecode(std::string_view in, std::string& out);

}  // namespace capstan
