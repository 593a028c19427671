#include "apimachinery/user_info_json.h"

namespace capstan::apimachinery {

boost::json::object UserInfoToJson(const UserInfo& user) {
  boost::json::object u;
  if (!user.name.empty()) u["username"] = user.name;
  if (!user.uid.empty()) u["uid"] = user.uid;
  if (!user.groups.empty()) {
    boost::json::array g;
    for (const auto& x : user.groups) g.emplace_back(x);
    u["groups"] = std::move(g);
  }
  if (!user.extra.empty()) {
    boost::json::object e;
    for (const auto& [k, vals] : user.extra) {
      boost::json::array a;
      for (const auto& v : vals) a.emplace_back(v);
      e[k] = std::move(a);
    }
    u["extra"] = std::move(e);
  }
  return u;
}

}  // namespace capstan::apimachinery
