// The upstream round-trip fixtures: for every kind with a definition, decoding the .pb gives the .json
// (as JSON values), and encoding that result gives the .pb bytes back.
//
// $CAPSTAN_API_FIXTURES names the fixture directory (default: ../shared/k8s-api-fixtures/HEAD beside
// the source tree); without it the test is skipped with a message.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "apimachinery/protobuf_codec.h"
#include "protobuf_test_util.h"

namespace capstan::apimachinery {
namespace {

namespace fs = std::filesystem;
using testing::BuiltinCodec;
using testing::Hex;
using testing::JsonDiff;

constexpr std::string_view kWatchEvent = "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent";

struct Fixture {
  std::string name;  // apps.v1.Deployment
  GroupVersionKind gvk;
  fs::path base;
};

std::vector<Fixture> ListFixtures(const fs::path& dir) {
  std::vector<Fixture> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".pb") continue;
    const std::string name = entry.path().stem().string();
    const size_t k = name.rfind('.');
    const size_t v = k == std::string::npos || k == 0 ? std::string::npos : name.rfind('.', k - 1);
    if (v == std::string::npos) continue;
    Fixture f;
    f.name = name;
    f.gvk.kind = name.substr(k + 1);
    f.gvk.version = name.substr(v + 1, k - v - 1);
    f.gvk.group = name.substr(0, v);
    if (f.gvk.group == "core") f.gvk.group = "";
    f.base = dir / name;
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const Fixture& a, const Fixture& b) { return a.name < b.name; });
  return out;
}

// The first byte where two strings differ, with some context, for failure messages.
std::string FirstDifference(std::string_view want, std::string_view got) {
  size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  const size_t from = i > 16 ? i - 16 : 0;
  return "sizes " + std::to_string(want.size()) + "/" + std::to_string(got.size()) + ", first difference at " +
         std::to_string(i) + ": want ..." + Hex(want.substr(from, 48)) + " got ..." + Hex(got.substr(from, 48));
}

TEST(ProtobufFixtures, DecodeMatchesJsonAndEncodeRestoresBytes) {
  const auto dir = testing::ApiFixtureDir();
  if (!dir) GTEST_SKIP() << "no fixtures: set CAPSTAN_API_FIXTURES to k8s-api-fixtures/HEAD";
  const ProtobufCodec& codec = BuiltinCodec();
  int with_definition = 0, decoded = 0, round_tripped = 0;
  std::vector<std::string> skipped;
  for (const Fixture& f : ListFixtures(*dir)) {
    const std::string* def = codec.DefinitionFor(f.gvk);
    // WatchEvent's fixture is the event message itself (registered in every group; not an object kind).
    const bool watch_event = f.gvk.kind == "WatchEvent";
    if (def == nullptr && !watch_event) {
      skipped.push_back(f.name);
      continue;
    }
    ++with_definition;
    SCOPED_TRACE(f.name);
    const std::string pb = testing::ReadFileBytes(f.base.string() + ".pb");
    const boost::json::value want = boost::json::parse(testing::ReadFileBytes(f.base.string() + ".json"));

    // WatchEvent has no typeMeta of its own (kube writes an empty one): decode the message directly.
    auto got = watch_event ? [&]() -> StatusOr<ProtobufDecodedObject> {
      auto env = protobuf::DecodeEnvelope(pb);
      if (!env.ok()) return env.TakeStatus();
      auto v = codec.Decode(kWatchEvent, env->raw);
      if (!v.ok()) return v.TakeStatus();
      return ProtobufDecodedObject{GroupVersionKind{}, std::move(*v)};
    }() : codec.DecodeObject(pb);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->gvk, watch_event ? GroupVersionKind{} : f.gvk);
    const std::string diff = JsonDiff(want, got->object);
    EXPECT_EQ(diff, "") << "decoded: " << boost::json::serialize(got->object);
    if (diff.empty()) ++decoded;

    StatusOr<std::string> again = watch_event
        ? [&]() -> StatusOr<std::string> {
            auto raw = codec.Encode(kWatchEvent, got->object);
            if (!raw.ok()) return raw;
            return protobuf::EncodeEnvelope("", "", *raw);
          }()
        : codec.EncodeObject(got->gvk, got->object);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_TRUE(*again == pb) << FirstDifference(pb, *again);
    if (*again == pb) ++round_tripped;
  }
  std::cout << "[ protobuf ] fixtures with a definition: " << with_definition << ", decoded to their JSON: " << decoded
            << ", encoded back to the same bytes: " << round_tripped << " (" << skipped.size()
            << " fixtures of kinds without a definition)\n";
  EXPECT_GT(with_definition, 80);
}

}  // namespace
}  // namespace capstan::apimachinery
