// storage.k8s.io/v1 through the real Stores over the embedded backend: kube's defaults, validation and
// update rules, the VolumeAttachment status subresource, quantities, printers and the fixtures.
#include <gtest/gtest.h>

#include "api/networking/catalog_test_util.h"
#include "api/storage/storage.h"

namespace capstan::api::storage_api {
namespace {

namespace am = capstan::apimachinery;
using namespace capstan::api::testing;

class StorageTest : public ::testing::Test {
 protected:
  ApiTestEnv env_{Install};
};

TEST_F(StorageTest, StorageClassDefaultsUpdateRulesAndPrinter) {
  Object sc = Parse(R"({"metadata":{"name":"fast","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},
                       "provisioner":"example.com/fast","parameters":{"type":"ssd"}})");
  auto created = env_.Create("storageclasses", sc);
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(GetString(*created, "reclaimPolicy"), "Delete");
  EXPECT_EQ(GetString(*created, "volumeBindingMode"), "Immediate");
  auto cells = env_.Cells("storageclasses", *created);
  ASSERT_EQ(cells.size(), 6u);
  EXPECT_EQ(cells[0].as_string(), "fast (default)");
  EXPECT_EQ(cells[1].as_string(), "example.com/fast");
  EXPECT_EQ(cells[2].as_string(), "Delete");
  EXPECT_EQ(cells[3].as_string(), "Immediate");
  EXPECT_EQ(cells[4].as_bool(), false);

  auto changed = env_.Mutate("storageclasses", "fast", [](Object& o) {
    o["provisioner"] = "example.com/slow";
    Set(o, "parameters.type", "hdd");
    o["reclaimPolicy"] = "Retain";
    o["volumeBindingMode"] = "WaitForFirstConsumer";
    o["allowVolumeExpansion"] = true;
  });
  EXPECT_EQ(ErrorOf(changed),
            "StorageClass.storage.k8s.io \"fast\" is invalid: [parameters: Forbidden: updates to parameters are "
            "forbidden., provisioner: Forbidden: updates to provisioner are forbidden., reclaimPolicy: Forbidden: updates "
            "to reclaimPolicy are forbidden., volumeBindingMode: Invalid value: \"WaitForFirstConsumer\": field is "
            "immutable]");
  auto expand = env_.Mutate("storageclasses", "fast", [](Object& o) { o["allowVolumeExpansion"] = true; });
  ASSERT_TRUE(expand.ok()) << expand.status().message();

  Object bad = Parse(R"({"metadata":{"name":"bad"},"provisioner":"","reclaimPolicy":"Recycle","volumeBindingMode":"Later",
                        "allowedTopologies":[{"matchLabelExpressions":[{"key":"zone","values":[]}]}]})");
  EXPECT_EQ(ErrorOf(env_.Create("storageclasses", bad)),
            "StorageClass.storage.k8s.io \"bad\" is invalid: [provisioner: Required value, reclaimPolicy: Unsupported "
            "value: \"Recycle\": supported values: \"Delete\", \"Retain\", volumeBindingMode: Unsupported value: \"Later\": "
            "supported values: \"Immediate\", \"WaitForFirstConsumer\", allowedTopologies[0].matchLabelExpressions[0].values: "
            "Required value]");
}

TEST_F(StorageTest, VolumeAttachmentSpecIsReadOnlyAndStatusSubresource) {
  Object va = Parse(R"({"metadata":{"name":"va-1"},"spec":{"attacher":"csi.example.com","nodeName":"node-1",
                       "source":{"persistentVolumeName":"pv-1"}},"status":{"attached":true}})");
  auto created = env_.Create("volumeattachments", va);
  ASSERT_TRUE(created.ok()) << created.status().message();
  // kube's PrepareForCreate resets the status; its type writes `attached` even when false.
  EXPECT_EQ(json::serialize(Get(*created, "status")), R"({"attached":false})") << json::serialize(*created);
  auto spec = env_.Mutate("volumeattachments", "va-1", [](Object& o) { Set(o, "spec.nodeName", "node-2"); });
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("spec: Invalid value: "), std::string::npos);
  EXPECT_NE(spec.status().message().find("field is immutable"), std::string::npos);
  auto status = env_.Mutate("volumeattachments", "va-1", [](Object& o) { Set(o, "status.attached", true); }, "status");
  ASSERT_TRUE(status.ok()) << status.status().message();
  auto cells = env_.Cells("volumeattachments", status->object);
  EXPECT_EQ(cells[1].as_string(), "csi.example.com");
  EXPECT_EQ(cells[2].as_string(), "pv-1");
  EXPECT_EQ(cells[3].as_string(), "node-1");
  EXPECT_EQ(cells[4].as_bool(), true);

  Object none = Parse(R"({"metadata":{"name":"va-2"},"spec":{"attacher":"Bad_Attacher","nodeName":"node-1","source":{}}})");
  EXPECT_EQ(ErrorOf(env_.Create("volumeattachments", none)),
            "VolumeAttachment.storage.k8s.io \"va-2\" is invalid: [spec.source: Required value: must specify exactly one of "
            "inlineVolumeSpec and persistentVolumeName, spec.attacher: Invalid value: \"Bad_Attacher\": a lowercase RFC "
            "1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]");
}

TEST_F(StorageTest, CSIDriverDefaultsImmutabilityAndPrinter) {
  Object d = Parse(R"({"metadata":{"name":"csi.example.com"},"spec":{"tokenRequests":[{"audience":"vault"}]}})");
  auto created = env_.Create("csidrivers", d);
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(Get(*created, "spec.attachRequired").as_bool(), true);
  EXPECT_EQ(Get(*created, "spec.podInfoOnMount").as_bool(), false);
  EXPECT_EQ(GetString(*created, "spec.fsGroupPolicy"), "ReadWriteOnceWithFSType");
  EXPECT_EQ(json::serialize(Get(*created, "spec.volumeLifecycleModes")), R"(["Persistent"])");
  EXPECT_EQ(Get(*created, "spec.seLinuxMount").as_bool(), false);
  auto cells = env_.Cells("csidrivers", *created);
  ASSERT_EQ(cells.size(), 8u);
  EXPECT_EQ(cells[4].as_string(), "vault");
  EXPECT_EQ(cells[6].as_string(), "Persistent");

  auto changed = env_.Mutate("csidrivers", "csi.example.com", [](Object& o) {
    Set(o, "spec.attachRequired", false);
    Set(o, "spec.podInfoOnMount", true);
  });
  EXPECT_EQ(ErrorOf(changed),
            "CSIDriver.storage.k8s.io \"csi.example.com\" is invalid: spec.attachedRequired: Invalid value: false: field is "
            "immutable");
  Object bad = Parse(R"({"metadata":{"name":"bad.example.com"},"spec":{"fsGroupPolicy":"Sometimes",
                        "tokenRequests":[{"audience":"a","expirationSeconds":60},{"audience":"a"}]}})");
  EXPECT_EQ(ErrorOf(env_.Create("csidrivers", bad)),
            "CSIDriver.storage.k8s.io \"bad.example.com\" is invalid: [spec.fsGroupPolicy: Unsupported value: \"Sometimes\": "
            "supported values: \"File\", \"None\", \"ReadWriteOnceWithFSType\", spec.tokenRequests[0].expirationSeconds: "
            "Invalid value: 60: may not specify a duration less than 10 minutes, spec.tokenRequests[1].audience: Duplicate "
            "value: \"a\"]");
}

TEST_F(StorageTest, CSINodeAndCapacity) {
  Object n = Parse(R"({"metadata":{"name":"node-1"},"spec":{"drivers":[{"name":"csi.example.com","nodeID":"n1"},
                       {"name":"csi.example.com","nodeID":"n1","allocatable":{"count":-1}}]}})");
  EXPECT_EQ(ErrorOf(env_.Create("csinodes", n)),
            "CSINode.storage.k8s.io \"node-1\" is invalid: [spec.drivers[1].allocatable.count: Invalid value: -1: must be "
            "greater than or equal to 0, spec.drivers[1].name: Duplicate value: \"csi.example.com\"]");
  Set(n, "spec.drivers", json::parse(R"([{"name":"csi.example.com","nodeID":"n1"}])"));
  auto created = env_.Create("csinodes", n);
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(env_.Cells("csinodes", *created)[1].as_int64(), 1);

  Object c = Parse(R"({"metadata":{"name":"cap-1"},"storageClassName":"fast","capacity":"1024Mi","maximumVolumeSize":"1.5Gi"})");
  auto cap = env_.Create("csistoragecapacities", c);
  ASSERT_TRUE(cap.ok()) << cap.status().message();
  EXPECT_EQ(GetString(*cap, "capacity"), "1Gi");
  EXPECT_EQ(GetString(*cap, "maximumVolumeSize"), "1536Mi");
  auto cells = env_.Cells("csistoragecapacities", *cap);
  ASSERT_EQ(cells.size(), 3u) << "kube prints no AGE for CSIStorageCapacity";
  EXPECT_EQ(cells[2].as_string(), "1Gi");
  auto moved = env_.Mutate("csistoragecapacities", "cap-1", [](Object& o) { o["storageClassName"] = "slow"; });
  EXPECT_EQ(ErrorOf(moved),
            "CSIStorageCapacity.storage.k8s.io \"cap-1\" is invalid: storageClassName: Invalid value: \"slow\": field is "
            "immutable");
  Object negative = Parse(R"({"metadata":{"name":"cap-2"},"storageClassName":"fast","capacity":"-1"})");
  EXPECT_EQ(ErrorOf(env_.Create("csistoragecapacities", negative)),
            "CSIStorageCapacity.storage.k8s.io \"cap-2\" is invalid: capacity: Invalid value: \"-1\": must be greater than "
            "or equal to 0");
}

// --- fixtures ---

TEST_F(StorageTest, StorageClassFixture) {
  CheckFixture(env_, "storage.k8s.io.v1.StorageClass", "storageclasses", [](Object& o) {
    o["provisioner"] = "example.com/provisioner";
    o["reclaimPolicy"] = "Retain";
    o["volumeBindingMode"] = "WaitForFirstConsumer";
  });
}

TEST_F(StorageTest, VolumeAttachmentFixture) {
  CheckFixture(
      env_, "storage.k8s.io.v1.VolumeAttachment", "volumeattachments",
      [](Object& o) {
        Set(o, "spec.attacher", "csi.example.com");
        Set(o, "spec.nodeName", "node-1");
        Set(o, "spec.source.persistentVolumeName", "pv-1");
        Erase(o, "spec.source.inlineVolumeSpec");
      },
      {}, [](Object&) {});
}

TEST_F(StorageTest, CSIDriverFixture) {
  CheckFixture(env_, "storage.k8s.io.v1.CSIDriver", "csidrivers", [](Object& o) {
    Set(o, "spec.volumeLifecycleModes", json::array{"Persistent", "Ephemeral"});
    Set(o, "spec.fsGroupPolicy", "File");
    Set(o, "spec.tokenRequests[0].expirationSeconds", 3600);
  });
}

TEST_F(StorageTest, CSINodeFixture) {
  CheckFixture(env_, "storage.k8s.io.v1.CSINode", "csinodes", [](Object& o) {
    Set(o, "spec.drivers[0].name", "csi.example.com");
    Set(o, "spec.drivers[0].topologyKeys[0]", "topology.example.com/zone");
  });
}

TEST_F(StorageTest, CSIStorageCapacityFixture) {
  CheckFixture(env_, "storage.k8s.io.v1.CSIStorageCapacity", "csistoragecapacities", [](Object& o) {
    Set(o, "nodeTopology.matchExpressions[0].operator", "In");
    o["storageClassName"] = "fast";
  });
}

}  // namespace
}  // namespace capstan::api::storage_api
