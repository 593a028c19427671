// apimachinery/user_info_json.h: a UserInfo as kube writes it in authentication.k8s.io/v1 UserInfo —
// {"username","uid","groups","extra"} without empty fields — the shape TokenReview, SelfSubjectReview,
// AdmissionReview and audit Events all carry. Pure function; thread-safe.
#pragma once

#include <boost/json.hpp>

#include "apimachinery/user_info.h"

namespace capstan::apimachinery {

boost::json::object UserInfoToJson(const UserInfo& user);

}  // namespace capstan::apimachinery
