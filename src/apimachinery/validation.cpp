#include "apimachinery/validation.h"

namespace capstan::apimachinery {
namespace {

constexpr std::string_view kDns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character";
constexpr std::string_view kDns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1035LabelErrMsg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character";
constexpr std::string_view kLabelKeyFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kLabelKeyErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character";
constexpr std::string_view kConfigMapKeyFmt = "[-._a-zA-Z0-9]+";
constexpr std::string_view kConfigMapKeyErrMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
constexpr std::string_view kCIdentifierFmt = "[A-Za-z_][A-Za-z0-9_]*";
constexpr std::string_view kCIdentifierErrMsg =
    "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric "
    "characters or '_'";

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) { return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool MatchDns1123Label(std::string_view v) {
  if (v.empty() || !IsLowerAlnum(v.front()) || !IsLowerAlnum(v.back())) return false;
  for (char c : v) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

bool MatchDns1123Subdomain(std::string_view v) {
  size_t start = 0;
  while (true) {
    size_t dot = v.find('.', start);
    if (!MatchDns1123Label(v.substr(start, dot == std::string_view::npos ? v.npos : dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool MatchLabelKeyName(std::string_view v) {
  if (v.empty() || !IsAlnum(v.front()) || !IsAlnum(v.back())) return false;
  for (char c : v) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// The content package's subdomain check (byte wording), used for label-key prefixes.
Problems ContentDns1123Subdomain(std::string_view v) {
  Problems errs;
  if (v.size() > 253) errs.push_back(MaxLenBytesError(253));
  if (!MatchDns1123Subdomain(v)) errs.push_back(RegexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
  return errs;
}

// kube's maskTrailingDash: name[:len-2] + "a" (sic) when the prefix ends in '-'.
std::string MaskTrailingDash(std::string_view name) {
  if (name.size() > 1 && name.back() == '-') return std::string(name.substr(0, name.size() - 2)) + "a";
  return std::string(name);
}

}  // namespace

std::string MaxLenError(int length) { return "must be no more than " + std::to_string(length) + " characters"; }
std::string MaxLenBytesError(int length) { return "must be no more than " + std::to_string(length) + " bytes"; }

std::string RegexError(std::string_view msg, std::string_view re, const std::vector<std::string_view>& examples) {
  std::string out(msg);
  if (examples.empty()) return out + " (regex used for validation is '" + std::string(re) + "')";
  out += " (e.g. ";
  for (size_t i = 0; i < examples.size(); ++i) {
    if (i > 0) out += " or ";
    out += "'" + std::string(examples[i]) + "', ";
  }
  out += "regex used for validation is '" + std::string(re) + "')";
  return out;
}

Problems IsDNS1123Label(std::string_view v) {
  Problems errs;
  if (v.size() > 63) errs.push_back(MaxLenError(63));
  if (!MatchDns1123Label(v)) {
    if (MatchDns1123Subdomain(v)) {
      errs.push_back("must not contain dots");
    } else {
      errs.push_back(RegexError(kDns1123LabelErrMsg, kDns1123LabelFmt, {"my-name", "123-abc"}));
    }
  }
  return errs;
}

Problems IsDNS1123Subdomain(std::string_view v) {
  Problems errs;
  if (v.size() > 253) errs.push_back(MaxLenError(253));
  if (!MatchDns1123Subdomain(v)) errs.push_back(RegexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
  return errs;
}

Problems IsDNS1035Label(std::string_view v) {
  Problems errs;
  if (v.size() > 63) errs.push_back(MaxLenError(63));
  bool ok = !v.empty() && v.front() >= 'a' && v.front() <= 'z' && IsLowerAlnum(v.back());
  for (char c : v) ok = ok && (IsLowerAlnum(c) || c == '-');
  if (!ok) errs.push_back(RegexError(kDns1035LabelErrMsg, kDns1035LabelFmt, {"my-name", "abc-123"}));
  return errs;
}

Problems IsQualifiedName(std::string_view v) {
  Problems errs;
  std::string_view name;
  size_t slash = v.find('/');
  if (slash == std::string_view::npos) {
    name = v;
  } else if (v.find('/', slash + 1) == std::string_view::npos) {
    std::string_view prefix = v.substr(0, slash);
    name = v.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part " + std::string(kEmptyError));
    } else {
      for (const std::string& m : ContentDns1123Subdomain(prefix)) errs.push_back("prefix part " + m);
    }
  } else {
    errs.push_back("a valid label key " + RegexError(kLabelKeyErrMsg, kLabelKeyFmt, {"MyName", "my.name", "123-abc"}) +
                   " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    return errs;
  }
  if (name.empty()) {
    errs.push_back("name part " + std::string(kEmptyError));
  } else if (name.size() > 63) {
    errs.push_back("name part " + MaxLenBytesError(63));
  }
  if (!MatchLabelKeyName(name)) {
    errs.push_back("name part " + RegexError(kLabelKeyErrMsg, kLabelKeyFmt, {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

Problems IsValidLabelValue(std::string_view v) {
  Problems errs;
  if (v.size() > 63) errs.push_back(MaxLenBytesError(63));
  if (!v.empty() && !MatchLabelKeyName(v)) {
    errs.push_back(RegexError(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

Problems IsConfigMapKey(std::string_view v) {
  Problems errs;
  if (v.size() > 253) errs.push_back(MaxLenError(253));
  bool ok = !v.empty();
  for (char c : v) ok = ok && (IsAlnum(c) || c == '-' || c == '.' || c == '_');
  if (!ok) errs.push_back(RegexError(kConfigMapKeyErrMsg, kConfigMapKeyFmt, {"key.name", "KEY_NAME", "key-name"}));
  if (v == ".") {
    errs.push_back("must not be '.'");
  } else if (v == "..") {
    errs.push_back("must not be '..'");
  } else if (v.substr(0, 2) == "..") {
    errs.push_back("must not start with '..'");
  }
  return errs;
}

Problems IsPathSegmentPrefix(std::string_view v) {
  Problems errs;
  if (v.find('/') != std::string_view::npos) errs.push_back("may not contain '/'");
  if (v.find('%') != std::string_view::npos) errs.push_back("may not contain '%'");
  return errs;
}

Problems IsPathSegmentName(std::string_view v) {
  if (v == ".") return {"may not be '.'"};
  if (v == "..") return {"may not be '..'"};
  return IsPathSegmentPrefix(v);
}

Problems IsCIdentifier(std::string_view v) {
  bool ok = !v.empty() && (IsAlnum(v.front()) || v.front() == '_') && !(v.front() >= '0' && v.front() <= '9');
  for (char c : v) ok = ok && (IsAlnum(c) || c == '_');
  if (ok) return {};
  return {RegexError(kCIdentifierErrMsg, kCIdentifierFmt, {"my_name", "MY_NAME", "MyName"})};
}

Problems NameIsDNSSubdomain(std::string_view name, bool prefix) {
  return IsDNS1123Subdomain(prefix ? MaskTrailingDash(name) : std::string(name));
}

Problems NameIsDNSLabel(std::string_view name, bool prefix) {
  return IsDNS1123Label(prefix ? MaskTrailingDash(name) : std::string(name));
}

Problems NameIsDNS1035Label(std::string_view name, bool prefix) {
  return IsDNS1035Label(prefix ? MaskTrailingDash(name) : std::string(name));
}

Problems ValidatePathSegmentName(std::string_view name, bool prefix) {
  return prefix ? IsPathSegmentPrefix(name) : IsPathSegmentName(name);
}

}  // namespace capstan::apimachinery
