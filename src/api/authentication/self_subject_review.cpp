// api/authentication/self_subject_review.cpp: selfsubjectreviews, `kubectl auth whoami` (kube's
// pkg/registry/authentication/selfsubjectreview): the caller's own user as authentication (and
// impersonation) left it.
#include <boost/json.hpp>

#include "api/authentication/authentication.h"
#include "api/common.h"
#include "apimachinery/errors.h"
#include "apimachinery/time_util.h"
#include "apimachinery/user_info_json.h"

namespace capstan::api::authentication {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

class SelfSubjectReviewStore : public registry::Creater {
 public:
  SelfSubjectReviewStore(registry::ResourceInfo info, const Clock* clock) : info_(std::move(info)), clock_(clock) {}
  const registry::ResourceInfo& Info() const override { return info_; }

  Task<StatusOr<Object>> Create(const registry::Context& ctx, Object, const registry::CreateOptions&) override {
    if (!ctx.namespace_.empty()) co_return am::NewBadRequest("namespace is not allowed on this type: " + ctx.namespace_);
    if (!ctx.user) co_return am::NewInternalError("no user present on request");
    Object out;
    out["kind"] = "SelfSubjectReview";
    out["apiVersion"] = "authentication.k8s.io/v1";
    json::object md;
    md["creationTimestamp"] = am::FormatRfc3339(am::Timestamp::FromTimePoint(clock_->Now()));
    out["metadata"] = std::move(md);
    json::object status;
    status["userInfo"] = apimachinery::UserInfoToJson(*ctx.user);
    out["status"] = std::move(status);
    co_return out;
  }

 private:
  registry::ResourceInfo info_;
  const Clock* clock_;
};

}  // namespace

std::vector<registry::RestResource> SelfSubjectReviews(const registry::GroupDeps& deps) {
  auto info = MakeInfo({"authentication.k8s.io", "v1", "selfsubjectreviews", "selfsubjectreview", "SelfSubjectReview",
                        false, {}, {}, "io.k8s.api.authentication.v1.SelfSubjectReview"});
  info.list_kind.clear();
  registry::RestResource r;
  r.info = info;
  r.storage = std::make_shared<SelfSubjectReviewStore>(info, deps.clock);
  r.schema = deps.schemas ? deps.schemas->Find(info.definition) : nullptr;
  return {std::move(r)};
}

}  // namespace capstan::api::authentication
