// server/http/user_info.h: the caller's identity as the HTTP layer names it (see apimachinery/user_info.h).
#pragma once

#include "apimachinery/user_info.h"

namespace capstan::http {
using capstan::UserInfo;
using capstan::kAllAuthenticated;
using capstan::kAllUnauthenticated;
using capstan::kAnonymousUser;
using capstan::kSystemPrivilegedGroup;
}  // namespace capstan::http
