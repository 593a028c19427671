// api/authentication/authentication.h: the authentication.k8s.io/v1 group: tokenreviews (ask whether
// a bearer token is valid and whose it is) and selfsubjectreviews (`kubectl auth whoami`: who am I).
// Both are create-only and store nothing; their storages implement only registry::Creater.
//
// The API layer does not depend on the authenticators: cmd/ passes a TokenReviewer that runs the
// server's own authenticator chain on the token. Thread-safe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "apimachinery/user_info.h"
#include "registry/rest_resource.h"

namespace capstan::api::authentication {

struct ReviewedToken {
  bool authenticated = false;
  UserInfo user;                       // when authenticated
  std::vector<std::string> audiences;  // the audiences the token is valid for
  std::string error;                   // why not, when the authenticators said so
};

// Authenticates `token` for `audiences` (never empty: the caller passes the API audiences when a
// review names none). An error Status only for an internal failure.
using TokenReviewer =
    std::function<Task<StatusOr<ReviewedToken>>(const std::string& token, const std::vector<std::string>& audiences)>;

struct AuthenticationApiOptions {
  TokenReviewer review;                    // unset: tokenreviews are not served
  std::vector<std::string> api_audiences;  // --api-audiences (default: the service-account issuers)
};

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps, AuthenticationApiOptions opts);

// One function per resource (token_review.cpp, self_subject_review.cpp).
std::vector<registry::RestResource> TokenReviews(const registry::GroupDeps& deps, AuthenticationApiOptions opts);
std::vector<registry::RestResource> SelfSubjectReviews(const registry::GroupDeps& deps);

}  // namespace capstan::api::authentication
