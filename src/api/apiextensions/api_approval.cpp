#include "api/apiextensions/api_approval.h"

#include "api/apiextensions/crd_types.h"
#include "apimachinery/field_errors.h"
#include "apimachinery/object_meta.h"

namespace capstan::api::apiextensions {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Go's url.ParseRequestURI succeeding with a scheme and a host.
bool IsUrlWithSchemeAndHost(const std::string& s) {
  size_t colon = s.find(':');
  if (colon == std::string::npos || colon == 0) return false;
  if (!std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  for (size_t i = 1; i < colon; ++i) {
    char c = s[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return false;
  }
  if (s.compare(colon, 3, "://") != 0) return false;
  size_t host_start = colon + 3;
  size_t host_end = s.find_first_of("/?#", host_start);
  std::string authority = s.substr(host_start, host_end == std::string::npos ? std::string::npos : host_end - host_start);
  if (size_t at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  if (authority.empty()) return false;
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == ' ' || c == 0x7f) return false;
  }
  return true;
}

std::string AnnotationOf(const registry::Object& crd) {
  for (const auto& [k, v] : am::GetAnnotations(crd)) {
    if (k == kApiApprovedAnnotation) return v;
  }
  return "";
}

std::string GroupOf(const registry::Object& crd) {
  const json::value* spec = crd.if_contains("spec");
  if (!spec || !spec->is_object()) return "";
  const json::value* g = spec->get_object().if_contains("group");
  return g && g->is_string() ? std::string(g->get_string()) : "";
}

}  // namespace

bool IsProtectedCommunityGroup(const std::string& group) {
  return group == "k8s.io" || EndsWith(group, ".k8s.io") || group == "kubernetes.io" || EndsWith(group, ".kubernetes.io");
}

ApiApprovalState GetApiApprovalState(const std::string& annotation, std::string* reason) {
  const std::string quoted = std::string("\"") + kApiApprovedAnnotation + "\"";
  if (annotation.empty()) {
    *reason = "protected groups must have approval annotation " + quoted +
              ", see https://github.com/kubernetes/enhancements/pull/1111";
    return ApiApprovalState::kMissing;
  }
  if (annotation.rfind("unapproved", 0) == 0) {
    *reason = "not approved: \"" + annotation + "\"";
    return ApiApprovalState::kBypassed;
  }
  if (IsUrlWithSchemeAndHost(annotation)) {
    *reason = "approved in " + annotation;
    return ApiApprovalState::kApproved;
  }
  *reason = "protected groups must have approval annotation " + quoted +
            " with either a URL or a reason starting with \"unapproved\", see "
            "https://github.com/kubernetes/enhancements/pull/1111";
  return ApiApprovalState::kInvalid;
}

ErrorList ValidateApiApproval(const registry::Object& crd, const registry::Object* old) {
  if (!IsProtectedCommunityGroup(GroupOf(crd))) return {};
  std::string reason, old_reason;
  const std::string value = AnnotationOf(crd);
  ApiApprovalState state = GetApiApprovalState(value, &reason);
  if (old && GetApiApprovalState(AnnotationOf(*old), &old_reason) == state) return {};
  FieldPath p = FieldPath("metadata").Child("annotations").Key(kApiApprovedAnnotation);
  switch (state) {
    case ApiApprovalState::kMissing:
      return {RequiredError(p, reason)};
    case ApiApprovalState::kInvalid:
      return {InvalidError(p, value, reason)};
    default:
      return {};
  }
}

void SetApiApprovalCondition(registry::Object& crd, const std::string& now) {
  if (!IsProtectedCommunityGroup(GroupOf(crd))) return;
  std::string reason;
  const char* status = "False";
  const char* why = "";
  switch (GetApiApprovalState(AnnotationOf(crd), &reason)) {
    case ApiApprovalState::kInvalid:
      why = "InvalidAnnotation";
      break;
    case ApiApprovalState::kMissing:
      why = "MissingAnnotation";
      break;
    case ApiApprovalState::kApproved:
      status = "True";
      why = "ApprovedAnnotation";
      break;
    case ApiApprovalState::kBypassed:
      why = "UnapprovedAnnotation";
      break;
  }
  SetCondition(crd, "KubernetesAPIApprovalPolicyConformant", status, why, reason, now);
}

}  // namespace capstan::api::apiextensions
