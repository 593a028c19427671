// apimachinery/user_info.h: the identity of a caller (kube's user.Info), shared by authentication,
// authorization, admission and the registry. Thread-compatible value.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace capstan {

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;

  bool InGroup(const std::string& g) const {
    for (const auto& x : groups) {
      if (x == g) return true;
    }
    return false;
  }
};

inline constexpr const char* kAnonymousUser = "system:anonymous";
inline constexpr const char* kAllUnauthenticated = "system:unauthenticated";
inline constexpr const char* kAllAuthenticated = "system:authenticated";
inline constexpr const char* kSystemPrivilegedGroup = "system:masters";

}  // namespace capstan
