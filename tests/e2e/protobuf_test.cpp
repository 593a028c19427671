// End-to-end: the Kubernetes protobuf wire format (issue: protobuf): `kubectl create <kind>` from
// kubectl 1.32 and 1.33 (which send protobuf bodies and do not fall back to JSON), protobuf responses,
// and a protobuf watch stream read by a client.
#include <gtest/gtest.h>

#include <boost/json.hpp>

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
  // De-chunk the body.
  std::string raw = w.response.substr(w.response.find("\r\n\r\n") + 4), stream;
  size_t pos = 0;
  while (pos < raw.size()) {
    size_t eol = raw.find("\r\n", pos);
    if (eol == std::string::npos) break;
    size_t n = std::stoul(raw.substr(pos, eol - pos), nullptr, 16);
    if (n == 0) break;
    stream += raw.substr(eol + 2, n);
    pos = eol + 2 + n + 2;
  }
  ASSERT_GE(stream.size(), 4u);
  uint32_t len = (static_cast<uint8_t>(stream[0]) << 24) | (static_cast<uint8_t>(stream[1]) << 16) |
                 (static_cast<uint8_t>(stream[2]) << 8) | static_cast<uint8_t>(stream[3]);
  ASSERT_LE(4 + len, stream.size());
  auto event = codec->DecodeWatchEvent(std::string_view(stream).substr(4, len));
  ASSERT_TRUE(event.ok()) << event.status().message();
  EXPECT_EQ(event->type, "ADDED");
  EXPECT_EQ(event->object.at("metadata").at("name"), "wire");
}

}  // namespace
}  // namespace capstan::e2e
