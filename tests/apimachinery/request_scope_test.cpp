#include "apimachinery/request_scope.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace capstan {
namespace {

TEST(RequestScopeTest, TheFirstValueOfAnAnnotationWinsAndADifferentOneIsRefused) {
  RequestScope s;
  EXPECT_TRUE(s.AddAnnotation("a", "1"));
  EXPECT_TRUE(s.AddAnnotation("a", "1"));   // the same value again: fine
  EXPECT_FALSE(s.AddAnnotation("a", "2"));  // kube: "failed to set annotation"
  EXPECT_TRUE(s.AddAnnotation("b", "x", AuditLevel::kRequest));
  auto an = s.annotations();
  ASSERT_EQ(an.size(), 2u);
  EXPECT_EQ(an.at("a").value, "1");
  EXPECT_EQ(an.at("a").level, AuditLevel::kMetadata);
  EXPECT_EQ(an.at("b").level, AuditLevel::kRequest);
}

TEST(RequestScopeTest, WarningsAreKeptOnceInTheOrderFirstAddedFromAnyThread) {
  RequestScope s;
  s.AddWarning("first");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&s, t] {
      for (int i = 0; i < 100; ++i) s.AddWarning("w" + std::to_string(i % 10));
      s.AddWarning("t" + std::to_string(t));
    });
  }
  for (auto& t : threads) t.join();
  auto w = s.warnings();
  EXPECT_EQ(w.size(), 1u + 10u + 4u);
  EXPECT_EQ(w[0], "first");
}

}  // namespace
}  // namespace capstan
