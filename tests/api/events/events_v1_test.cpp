// events.k8s.io/v1 Events through the real Store over the embedded backend: the served form comes back
// from lists, and events.k8s.io's field selectors (regarding.*, reportingController) are converted to
// the stored form's fields as kube's field label conversion does; core/v1's names are refused.
#include <gtest/gtest.h>

#include "api/events/events.h"
#include "api/networking/catalog_test_util.h"

namespace capstan::api::events {
namespace {

using namespace capstan::api::testing;

Object EventV1(const std::string& name, const std::string& kind, const std::string& regarding) {
  return Parse(R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":")" + name +
               R"("},"eventTime":"2024-01-01T00:00:00.000000Z","reportingController":"example.com/ctl",
               "reportingInstance":"ctl-1","action":"Scale","reason":"Scaled","type":"Normal","note":"n",
               "regarding":{"kind":")" + kind + R"(","name":")" + regarding + R"(","namespace":"default"}})");
}

std::vector<std::string> Names(const StatusOr<registry::ObjectList>& list) {
  std::vector<std::string> out;
  if (!list.ok()) return out;
  for (const auto& item : list->items) out.push_back(std::string(apimachinery::GetName(item)));
  return out;
}

class EventsV1Test : public ::testing::Test {
 protected:
  ApiTestEnv env_{Install};
};

TEST_F(EventsV1Test, FieldSelectorsUseEventsV1Names) {
  ASSERT_TRUE(env_.Create("events", EventV1("a", "Pod", "web")).ok());
  ASSERT_TRUE(env_.Create("events", EventV1("b", "Node", "n1")).ok());

  auto by_name = List(env_, "events", "default", "regarding.name=web");
  ASSERT_TRUE(by_name.ok()) << by_name.status().message();
  EXPECT_EQ(Names(by_name), std::vector<std::string>{"a"});
  EXPECT_EQ(GetString(by_name->items.at(0), "apiVersion"), "events.k8s.io/v1");
  EXPECT_EQ(GetString(by_name->items.at(0), "regarding.kind"), "Pod");
  EXPECT_EQ(Names(List(env_, "events", "default", "regarding.kind=Node")), std::vector<std::string>{"b"});
  EXPECT_EQ(Names(List(env_, "events", "default", "reportingController=example.com/ctl,regarding.kind!=Pod")),
            std::vector<std::string>{"b"});
  EXPECT_EQ(Names(List(env_, "events", "default", "reason=Scaled,type=Normal")).size(), 2u);
  EXPECT_TRUE(Names(List(env_, "events", "default", "reportingController=other")).empty());

  auto core_name = List(env_, "events", "default", "involvedObject.name=web");
  ASSERT_FALSE(core_name.ok());
  EXPECT_EQ(core_name.status().code(), 400);
  EXPECT_EQ(core_name.status().message(), "field label not supported: involvedObject.name");
  EXPECT_FALSE(List(env_, "events", "default", "source=kubelet").ok());
}

}  // namespace
}  // namespace capstan::api::events
