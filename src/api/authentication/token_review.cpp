// api/authentication/token_review.cpp: tokenreviews (kube's pkg/registry/authentication/tokenreview).
#include <boost/json.hpp>

#include "api/authentication/authentication.h"
#include "api/common.h"
#include "apimachinery/errors.h"
#include "apimachinery/user_info_json.h"

namespace capstan::api::authentication {

namespace json = boost::json;
namespace am = capstan::apimachinery;


namespace {

class TokenReviewStore : public registry::Creater {
 public:
  TokenReviewStore(registry::ResourceInfo info, AuthenticationApiOptions opts) : info_(std::move(info)), opts_(std::move(opts)) {}
  const registry::ResourceInfo& Info() const override { return info_; }

  Task<StatusOr<Object>> Create(const registry::Context& ctx, Object review, const registry::CreateOptions&) override {
    if (!ctx.namespace_.empty()) co_return am::NewBadRequest("namespace is not allowed on this type: " + ctx.namespace_);
    std::string token;
    std::vector<std::string> audiences;
    if (const auto* spec = ObjectAt(review, "spec")) {
      token = StringAt(*spec, "token");
      if (const auto* a = ArrayAt(*spec, "audiences")) {
        for (const auto& x : *a) {
          if (x.is_string()) audiences.emplace_back(x.get_string());
        }
      }
    }
    if (token.empty()) co_return am::NewBadRequest("token is required for TokenReview in authentication");
    std::vector<std::string> auds = audiences.empty() ? opts_.api_audiences : audiences;
    auto r = co_await opts_.review(token, auds);
    if (!r.ok()) co_return r.TakeStatus();
    json::object status;
    if (r->authenticated) {
      // An authenticator must answer for the audiences it was asked about (kube's check).
      bool intersects = auds.empty();
      for (const auto& a : auds) {
        for (const auto& b : r->audiences) intersects = intersects || a == b;
      }
      if (!intersects) co_return am::NewInternalError("error validating audiences");
      status["authenticated"] = true;
      status["user"] = am::UserInfoToJson(r->user);
      if (!r->audiences.empty()) {
        json::array a;
        for (const auto& x : r->audiences) a.emplace_back(x);
        status["audiences"] = std::move(a);
      }
    } else {
      status["user"] = json::object();
    }
    if (!r->error.empty()) status["error"] = r->error;
    review["apiVersion"] = "authentication.k8s.io/v1";
    review["kind"] = "TokenReview";
    json::object& md = review["metadata"].is_object() ? review["metadata"].get_object() : (review["metadata"] = json::object()).get_object();
    if (!md.contains("creationTimestamp")) md["creationTimestamp"] = nullptr;
    review["status"] = std::move(status);
    co_return review;
  }

 private:
  registry::ResourceInfo info_;
  AuthenticationApiOptions opts_;
};

}  // namespace

std::vector<registry::RestResource> TokenReviews(const registry::GroupDeps& deps, AuthenticationApiOptions opts) {
  auto info = MakeInfo({"authentication.k8s.io", "v1", "tokenreviews", "tokenreview", "TokenReview", false, {}, {},
                        "io.k8s.api.authentication.v1.TokenReview"});
  info.list_kind.clear();
  const apimachinery::Schema* schema = deps.schemas ? deps.schemas->Find(info.definition) : nullptr;
  registry::RestResource r;
  r.info = info;
  r.storage = std::make_shared<TokenReviewStore>(info, std::move(opts));
  r.schema = schema;
  return {std::move(r)};
}

}  // namespace capstan::api::authentication
