#include "flowcontrol/rules.h"

#include <openssl/evp.h>

#include <string_view>

namespace capstan::flowcontrol {

namespace {

constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";

// A single-element list holding the wildcard matches everything; otherwise an exact member.
bool Contains(const std::string& x, const std::vector<std::string>& list, std::string_view wildcard) {
  if (list.size() == 1 && list[0] == wildcard) return true;
  for (const auto& y : list) {
    if (x == y) return true;
  }
  return false;
}

bool MatchesSubject(const UserInfo& user, const Subject& s) {
  switch (s.kind) {
    case Subject::Kind::kUser:
      return s.name == "*" || s.name == user.name;
    case Subject::Kind::kGroup:
      return s.name == "*" || user.InGroup(s.name);
    case Subject::Kind::kServiceAccount: {
      std::string_view name = user.name;
      if (!name.starts_with(kServiceAccountPrefix)) return false;
      name.remove_prefix(kServiceAccountPrefix.size());
      if (s.name == "*") {
        // kube's serviceAccountMatchesNamespace: a prefix test on the namespace, then ':'.
        if (!name.starts_with(s.namespace_)) return false;
        name.remove_prefix(s.namespace_.size());
        return name.starts_with(":");
      }
      return name == s.namespace_ + ":" + s.name;
    }
    case Subject::Kind::kUnknown:
      return false;
  }
  return false;
}

bool MatchesResourceRule(const RequestDigest& d, const ResourceRule& r) {
  if (!Contains(d.verb, r.verbs, "*")) return false;
  std::string resource = d.subresource.empty() ? d.resource : d.resource + "/" + d.subresource;
  if (!Contains(resource, r.resources, "*")) return false;
  if (!Contains(d.api_group, r.api_groups, "*")) return false;
  if (d.namespace_.empty()) return r.cluster_scope;
  return Contains(d.namespace_, r.namespaces, "*");
}

bool MatchesNonResourceUrl(const std::vector<std::string>& urls, const std::string& path) {
  for (const auto& rule : urls) {
    if (rule == "*" || rule == path) return true;
    std::string prefix = rule;
    if (!prefix.empty() && prefix.back() == '*') prefix.pop_back();
    if (prefix.empty() || prefix.back() != '/') prefix += '/';
    if (path.starts_with(prefix)) return true;
  }
  return false;
}

bool MatchesRule(const RequestDigest& d, const PolicyRule& rule) {
  bool subject = false;
  for (const auto& s : rule.subjects) {
    if (MatchesSubject(d.user, s)) {
      subject = true;
      break;
    }
  }
  if (!subject) return false;
  if (d.is_resource_request) {
    for (const auto& r : rule.resource_rules) {
      if (MatchesResourceRule(d, r)) return true;
    }
    return false;
  }
  for (const auto& r : rule.non_resource_rules) {
    if (Contains(d.verb, r.verbs, "*") && MatchesNonResourceUrl(r.urls, d.path)) return true;
  }
  return false;
}

}  // namespace

bool MatchesFlowSchema(const RequestDigest& digest, const FlowSchema& schema) {
  for (const auto& rule : schema.rules) {
    if (MatchesRule(digest, rule)) return true;
  }
  return false;
}

std::string FlowDistinguisher(const RequestDigest& digest, Distinguisher method) {
  switch (method) {
    case Distinguisher::kByUser:
      return digest.user.name;
    case Distinguisher::kByNamespace:
      return digest.namespace_;
    case Distinguisher::kNone:
      return "";
  }
  return "";
}

uint64_t HashFlowId(const std::string& schema_name, const std::string& distinguisher) {
  // Fetched once: EVP_sha256() makes OpenSSL 3 look the algorithm up, under a lock, on every call.
  static EVP_MD* const sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  std::string input = schema_name;
  input.push_back('\0');
  input += distinguisher;
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!sha256 || EVP_Digest(input.data(), input.size(), md, &len, sha256, nullptr) != 1 || len < 8) return 0;
  uint64_t h = 0;
  for (int i = 7; i >= 0; --i) h = (h << 8) | md[i];
  return h;
}

}  // namespace capstan::flowcontrol
