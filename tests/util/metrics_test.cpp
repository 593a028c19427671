#include "util/metrics.h"

#include <gtest/gtest.h>

namespace capstan {
namespace {

TEST(MetricsTest, CounterWithLabelsIsExposed) {
  MetricsRegistry reg;
  auto& c = reg.NewCounterVec("apiserver_request_total", "Counter of requests.", {"verb", "code"});
  c.With({"GET", "200"})->Inc();
  c.With({"GET", "200"})->Inc();
  c.With({"POST", "201"})->Inc(3);
  EXPECT_EQ(c.Find({"GET", "200"})->Value(), 2);
  std::string text = reg.Expose();
  EXPECT_NE(text.find("# TYPE apiserver_request_total counter\n"), std::string::npos);
  EXPECT_NE(text.find("apiserver_request_total{verb=\"GET\",code=\"200\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("apiserver_request_total{verb=\"POST\",code=\"201\"} 3\n"), std::string::npos);
}

TEST(MetricsTest, HistogramBucketsAreCumulative) {
  MetricsRegistry reg;
  auto& h = reg.NewHistogramVec("d_seconds", "Durations.", {"verb"}, {0.1, 1, 10});
  auto* m = h.With({"GET"});
  m->Observe(0.05);
  m->Observe(0.5);
  m->Observe(5);
  m->Observe(50);
  std::string text = reg.Expose();
  EXPECT_NE(text.find("d_seconds_bucket{verb=\"GET\",le=\"0.10000000000000001\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("d_seconds_bucket{verb=\"GET\",le=\"1\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("d_seconds_bucket{verb=\"GET\",le=\"10\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("d_seconds_bucket{verb=\"GET\",le=\"+Inf\"} 4\n"), std::string::npos);
  EXPECT_NE(text.find("d_seconds_count{verb=\"GET\"} 4\n"), std::string::npos);
}

TEST(MetricsTest, LabelValuesAreEscaped) {
  MetricsRegistry reg;
  reg.NewGaugeVec("g", "G.", {"l"}).With({"a\"b\\c\nd"})->Set(1);
  EXPECT_NE(reg.Expose().find("g{l=\"a\\\"b\\\\c\\nd\"} 1\n"), std::string::npos);
}

}  // namespace
}  // namespace capstan
