// End-to-end: the Kubernetes protobuf wire format (issue: protobuf): `kubectl create <kind>` from
// kubectl 1.32 and 1.33 (which send protobuf bodies and do not fall back to JSON), protobuf responses,
// and a protobuf watch stream read by a client.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "api/schemas/builtin_schemas.h"
#include "apimachinery/protobuf_codec.h"
#include "apimachinery/protobuf_envelope.h"
#include "apimachinery/schema_registry.h"
#include "e2e_util.h"

namespace capstan::e2e {
namespace {

class ProtobufTest : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }
  CommandResult K(const std::vector<std::string>& args) { return server_->Kubectl(args, "", GetParam()); }
  static ServerProcess* server_;
};
ServerProcess* ProtobufTest::server_ = nullptr;

TEST_P(ProtobufTest, KubectlCreateSendsProtobufBodies) {
  std::string v = GetParam();
  ASSERT_EQ(K({"create", "namespace", "pb-" + v}).exit_code, 0);
  std::string ns = "pb-" + v;
  auto cm = K({"create", "configmap", "c", "-n", ns, "--from-literal=k=v"});
  EXPECT_EQ(cm.out, "configmap/c created\n") << cm.err;
  auto secret = K({"create", "secret", "generic", "s", "-n", ns, "--from-literal=k=v"});
  EXPECT_EQ(secret.out, "secret/s created\n") << secret.err;
  auto sa = K({"create", "serviceaccount", "robot", "-n", ns});
  EXPECT_EQ(sa.out, "serviceaccount/robot created\n") << sa.err;
  EXPECT_EQ(K({"get", "configmap", "c", "-n", ns, "-o", "jsonpath={.data.k}"}).out, "v");
  EXPECT_EQ(K({"get", "secret", "s", "-n", ns, "-o", "jsonpath={.data.k}"}).out, "dg==");
  auto dup = K({"create", "configmap", "c", "-n", ns, "--from-literal=k=v"});
  EXPECT_NE(dup.exit_code, 0);
  EXPECT_NE(dup.err.find("configmaps \"c\" already exists"), std::string::npos) << dup.err;
}

INSTANTIATE_TEST_SUITE_P(Kubectl, ProtobufTest, ::testing::Values("32", "33"));

std::unique_ptr<const apimachinery::ProtobufCodec> MakeCodec() {
  auto reg = std::make_unique<apimachinery::SchemaRegistry>();
  for (const auto& f : api::BuiltinSchemaFiles()) EXPECT_TRUE(reg->AddDocumentJson(f.text).ok());
  EXPECT_TRUE(reg->Resolve().ok());
  static std::unique_ptr<apimachinery::SchemaRegistry> keep;
  keep = std::move(reg);
  auto codec = apimachinery::ProtobufCodec::Create(*keep);
  EXPECT_TRUE(codec.ok());
  return std::move(*codec);
}

// The WatchEvents of a chunked protobuf watch response (length-prefixed frames).
std::vector<apimachinery::ProtobufWatchEvent> WatchEvents(const apimachinery::ProtobufCodec& codec,
                                                          const std::string& response) {
  std::string raw = response.substr(response.find("\r\n\r\n") + 4), stream;
  size_t pos = 0;
  while (pos < raw.size()) {
    size_t eol = raw.find("\r\n", pos);
    if (eol == std::string::npos) break;
    size_t n = std::stoul(raw.substr(pos, eol - pos), nullptr, 16);
    if (n == 0) break;
    stream += raw.substr(eol + 2, n);
    pos = eol + 2 + n + 2;
  }
  std::vector<apimachinery::ProtobufWatchEvent> out;
  for (size_t at = 0; at + 4 <= stream.size();) {
    uint32_t len = (static_cast<uint8_t>(stream[at]) << 24) | (static_cast<uint8_t>(stream[at + 1]) << 16) |
                   (static_cast<uint8_t>(stream[at + 2]) << 8) | static_cast<uint8_t>(stream[at + 3]);
    if (at + 4 + len > stream.size()) break;
    auto event = codec.DecodeWatchEvent(std::string_view(stream).substr(at + 4, len));
    EXPECT_TRUE(event.ok()) << event.status().message();
    if (event.ok()) out.push_back(std::move(*event));
    at += 4 + len;
  }
  return out;
}

TEST(ProtobufWireTest, GetListAndWatchAnswerInProtobuf) {
  ServerProcess s;
  ASSERT_TRUE(s.ok()) << s.error();
  auto codec = MakeCodec();
  std::string cert = s.data_dir() + "/pki/admin.crt", key = s.data_dir() + "/pki/admin.key";
  // Create one object with a protobuf body.
  boost::json::object cm = boost::json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"wire"},"data":{"a":"b"}})").as_object();
  auto body = codec->EncodeObject({"", "v1", "ConfigMap"}, cm);
  ASSERT_TRUE(body.ok());
  std::string post = "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                     "Content-Type: application/vnd.kubernetes.protobuf\r\nAccept: application/vnd.kubernetes.protobuf\r\n"
                     "Content-Length: " + std::to_string(body->size()) + "\r\n\r\n" + *body;
  auto created = RawHttps(s.port(), {post}, cert, key);
  ASSERT_EQ(HttpStatusOf(created.response), 201) << created.response;
  EXPECT_NE(created.response.find("Content-Type: application/vnd.kubernetes.protobuf"), std::string::npos);
  std::string created_body = created.response.substr(created.response.find("\r\n\r\n") + 4);
  auto decoded = codec->DecodeObject(created_body);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded->gvk.kind, "ConfigMap");
  EXPECT_EQ(decoded->object.at("data").at("a"), "b");

  // A watch in protobuf: length-prefixed WatchEvent frames.
  std::string watch = "GET /api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dwire HTTP/1.1\r\nHost: x\r\n"
                      "Connection: close\r\nAccept: application/vnd.kubernetes.protobuf;stream=watch\r\n\r\n";
  auto w = RawHttps(s.port(), {watch}, cert, key);
  ASSERT_EQ(HttpStatusOf(w.response), 200) << w.response.substr(0, 300);
  EXPECT_NE(w.response.find("application/vnd.kubernetes.protobuf;stream=watch"), std::string::npos);
  auto events = WatchEvents(*codec, w.response);
  ASSERT_GE(events.size(), 1u);
  EXPECT_EQ(events[0].type, "ADDED");
  EXPECT_EQ(events[0].object.at("metadata").at("name"), "wire");

  // Changes replayed from the watch cache to two protobuf watchers: each event carries its own
  // version's data and resourceVersion (the cache encodes each version once for both).
  std::string rv(decoded->object.at("metadata").at("resourceVersion").as_string());
  for (const char* value : {"c", "d"}) {
    std::string patch = std::string(R"({"data":{"a":")") + value + "\"}}";
    std::string req = "PATCH /api/v1/namespaces/default/configmaps/wire HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                      "Content-Type: application/merge-patch+json\r\nContent-Length: " +
                      std::to_string(patch.size()) + "\r\n\r\n" + patch;
    ASSERT_EQ(HttpStatusOf(RawHttps(s.port(), {req}, cert, key).response), 200);
  }
  std::string from = "GET /api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1&resourceVersion=" + rv +
                     " HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAccept: application/vnd.kubernetes.protobuf\r\n\r\n";
  for (int watcher = 0; watcher < 2; ++watcher) {
    auto replay = WatchEvents(*codec, RawHttps(s.port(), {from}, cert, key).response);
    std::string line;
    std::set<std::string> rvs;
    for (const auto& e : replay) {
      if (e.type != "MODIFIED") continue;
      line += std::string(e.object.at("data").at("a").as_string());
      rvs.insert(std::string(e.object.at("metadata").at("resourceVersion").as_string()));
    }
    EXPECT_EQ(line, "cd") << "watcher " << watcher;
    EXPECT_EQ(rvs.size(), 2u) << "watcher " << watcher;
  }
}

}  // namespace
}  // namespace capstan::e2e
