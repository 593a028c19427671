// The volume protection loops' decisions: when a pod uses a claim, when an object needs or may lose its
// finalizer, and the finalizer mutations.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "controllers/volumeprotection/finalizer_util.h"
#include "controllers/volumeprotection/pv_protection_controller.h"
#include "controllers/volumeprotection/pvc_protection_controller.h"

namespace capstan::controllers {
namespace {

namespace json = boost::json;

Object Parse(const char* s) { return json::parse(s).as_object(); }

TEST(VolumeProtectionTest, ScheduledPodsUseTheirClaims) {
  Object pvc = Parse(R"({"metadata":{"name":"data","namespace":"default"}})");
  Object scheduled = Parse(
      R"({"metadata":{"name":"p","uid":"u1"},"spec":{"nodeName":"n1","volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"data"}}]}})");
  EXPECT_TRUE(PodUsesClaim(scheduled, pvc));
  Object pending = Parse(
      R"({"metadata":{"name":"p","uid":"u1"},"spec":{"volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"data"}}]}})");
  EXPECT_FALSE(PodUsesClaim(pending, pvc));  // not scheduled: no kubelet can be using it
  Object other = Parse(
      R"({"metadata":{"name":"p","uid":"u1"},"spec":{"nodeName":"n1","volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"logs"}}]}})");
  EXPECT_FALSE(PodUsesClaim(other, pvc));

  // An ephemeral volume's claim <pod>-<volume>, owned by the pod.
  Object eph_pod = Parse(R"({"metadata":{"name":"web","uid":"u2"},"spec":{"nodeName":"n1","volumes":[{"name":"scratch","ephemeral":{}}]}})");
  Object eph_claim = Parse(
      R"({"metadata":{"name":"web-scratch","ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"web","uid":"u2","controller":true}]}})");
  EXPECT_TRUE(PodUsesClaim(eph_pod, eph_claim));
  Object foreign = Parse(R"({"metadata":{"name":"web-scratch"}})");
  EXPECT_FALSE(PodUsesClaim(eph_pod, foreign));
  Object shut = eph_pod;
  shut["metadata"].as_object()["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  shut["metadata"].as_object()["deletionGracePeriodSeconds"] = 0;
  EXPECT_FALSE(PodUsesClaim(shut, eph_claim));
}

TEST(VolumeProtectionTest, FinalizerStates) {
  Object fresh = Parse(R"({"metadata":{"name":"a"}})");
  EXPECT_TRUE(NeedsFinalizer(fresh, kPvcProtectionFinalizer));
  EXPECT_FALSE(IsDeletionCandidate(fresh, kPvcProtectionFinalizer));
  Object guarded = Parse(R"({"metadata":{"name":"a","finalizers":["kubernetes.io/pvc-protection"]}})");
  EXPECT_FALSE(NeedsFinalizer(guarded, kPvcProtectionFinalizer));
  Object deleting =
      Parse(R"({"metadata":{"name":"a","deletionTimestamp":"2026-01-01T00:00:00Z","finalizers":["x","kubernetes.io/pv-protection"]}})");
  EXPECT_TRUE(IsDeletionCandidate(deleting, kPvProtectionFinalizer));
  EXPECT_FALSE(NeedsFinalizer(deleting, kPvcProtectionFinalizer));  // never added to an object being deleted

  auto remove = RemoveFinalizerMutation(kPvProtectionFinalizer);
  auto changed = remove(deleting);
  ASSERT_TRUE(changed.ok());
  EXPECT_TRUE(*changed);
  EXPECT_EQ(json::serialize(deleting["metadata"].as_object()["finalizers"]), R"(["x"])");
  EXPECT_FALSE(*remove(deleting));
  auto add = AddFinalizerMutation(kPvcProtectionFinalizer);
  EXPECT_TRUE(*add(fresh));
  EXPECT_EQ(json::serialize(fresh["metadata"].as_object()["finalizers"]), R"(["kubernetes.io/pvc-protection"])");
  EXPECT_FALSE(*add(fresh));
  EXPECT_FALSE(*add(deleting));
}

}  // namespace
}  // namespace capstan::controllers
