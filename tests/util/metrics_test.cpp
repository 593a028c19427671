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
  EXPECT_NE(text.find("apiserver_request_total{code=\"200\",verb=\"GET\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("apiserver_request_total{code=\"201\",verb=\"POST\"} 3\n"), std::string::npos);
}

// client_golang's text: families by name, a family's samples by their label values taken in name
// order, each sample's labels by name, the bucket's le last; collectors' families sort among them.
TEST(MetricsTest, ExpositionIsInClientGolangsOrder) {
  MetricsRegistry reg;
  auto& z = reg.NewCounterVec("queue_total", "Q.", {"verb", "code"});
  z.With({"POST", "201"})->Inc();
  z.With({"GET", "200"})->Inc();
  z.With({"GET", "201"})->Inc();
  auto& h = reg.NewHistogramVec("alpha_seconds", "A.", {"verb", "code"}, {1});
  h.With({"GET", "200"})->Observe(0.5);
  reg.NewGauge("mid_gauge", "M.").Set(2);
  reg.AddCollector([](std::string& out) { out += "# HELP beta_bytes B.\n# TYPE beta_bytes gauge\nbeta_bytes 7\n"; });
  std::string text = reg.Expose();
  text = text.substr(0, text.find("# HELP registered_metrics_total"));
  EXPECT_EQ(text,
            "# HELP alpha_seconds [ALPHA] A.\n# TYPE alpha_seconds histogram\n"
            "alpha_seconds_bucket{code=\"200\",verb=\"GET\",le=\"1\"} 1\n"
            "alpha_seconds_bucket{code=\"200\",verb=\"GET\",le=\"+Inf\"} 1\n"
            "alpha_seconds_sum{code=\"200\",verb=\"GET\"} 0.5\n"
            "alpha_seconds_count{code=\"200\",verb=\"GET\"} 1\n"
            "# HELP beta_bytes B.\n# TYPE beta_bytes gauge\nbeta_bytes 7\n"
            "# HELP mid_gauge [ALPHA] M.\n# TYPE mid_gauge gauge\nmid_gauge 2\n"
            "# HELP queue_total [ALPHA] Q.\n# TYPE queue_total counter\n"
            "queue_total{code=\"200\",verb=\"GET\"} 1\n"
            "queue_total{code=\"201\",verb=\"GET\"} 1\n"
            "queue_total{code=\"201\",verb=\"POST\"} 1\n");
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
  EXPECT_NE(text.find("d_seconds_bucket{verb=\"GET\",le=\"0.1\"} 1\n"), std::string::npos) << text;
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

TEST(MetricsTest, HelpCarriesKubesStabilityLevel) {
  MetricsRegistry reg;
  reg.NewCounterVec("apiserver_request_total", "Counter of requests.", {"code"}).With({"200"})->Inc();
  reg.NewGauge("capstan_own", "Capstan's own.").Set(1);
  std::string text = reg.Expose();
  EXPECT_NE(text.find("# HELP apiserver_request_total [STABLE] Counter of requests.\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# HELP capstan_own [ALPHA] Capstan's own.\n"), std::string::npos) << text;
}

TEST(MetricsTest, FamiliesWithoutSamplesAreNotWritten) {
  MetricsRegistry reg;
  reg.NewCounterVec("apiserver_audit_event_total", "Events.", {"x"});
  EXPECT_EQ(reg.Expose().find("apiserver_audit_event_total"), std::string::npos);
}

TEST(MetricsTest, FamiliesDeprecatedBeforeThePreviousMinorAreHiddenUnlessShown) {
  // kube 1.32 deprecated apiserver_request_slo_duration_seconds in 1.27 and
  // apiserver_flowcontrol_request_concurrency_in_use in 1.31.
  auto build = [](MetricsRegistry& reg) {
    reg.NewHistogramVec("apiserver_request_slo_duration_seconds", "SLO.", {"verb"}, {1}).With({"GET"})->Observe(0.5);
    reg.NewGaugeVec("apiserver_flowcontrol_request_concurrency_in_use", "In use.", {"p"}).With({"a"})->Set(1);
  };
  MetricsRegistry plain;
  build(plain);
  std::string text = plain.Expose();
  EXPECT_EQ(text.find("apiserver_request_slo_duration_seconds"), std::string::npos);
  EXPECT_EQ(text.find("apiserver_flowcontrol_request_concurrency_in_use"), std::string::npos);
  EXPECT_NE(text.find("hidden_metrics_total 2\n"), std::string::npos) << text;

  MetricsExposure e;
  EXPECT_EQ(ParseShowHiddenMetricsVersion("1.30", e),
            "--show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the previous minor "
            "version is allowed");
  ASSERT_EQ(ParseShowHiddenMetricsVersion("1.31", e), "");
  MetricsRegistry shown;
  build(shown);
  shown.Configure(e);
  text = shown.Expose();
  EXPECT_NE(text.find("# HELP apiserver_request_slo_duration_seconds [ALPHA] (Deprecated since 1.27.0) SLO.\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("apiserver_flowcontrol_request_concurrency_in_use{p=\"a\"} 1\n"), std::string::npos);
}

TEST(MetricsTest, DisabledMetricsAreNotWrittenAndCounted) {
  MetricsRegistry reg;
  reg.NewCounter("apiserver_x_total", "X.").Inc();
  reg.NewCounter("apiserver_y_total", "Y.").Inc();
  MetricsExposure e;
  e.disabled = {"apiserver_x_total"};
  reg.Configure(e);
  std::string text = reg.Expose();
  EXPECT_EQ(text.find("apiserver_x_total"), std::string::npos);
  EXPECT_NE(text.find("apiserver_y_total 1\n"), std::string::npos);
  EXPECT_NE(text.find("disabled_metrics_total 1\n"), std::string::npos);
  EXPECT_NE(text.find("registered_metrics_total{deprecated_version=\"\",stability_level=\"ALPHA\"} 1\n"),
            std::string::npos)
      << text;
}

TEST(MetricsTest, LabelValuesOutsideTheAllowListBecomeUnexpected) {
  MetricsExposure e;
  ASSERT_EQ(AddAllowedMetricLabels("apiserver_request_total,verb", "GET,LIST", e), "");
  EXPECT_NE(AddAllowedMetricLabels("apiserver_request_total", "GET", e), "");
  EXPECT_NE(AddAllowedMetricLabels("1bad,verb", "GET", e), "");
  MetricsRegistry reg;
  auto& before = reg.NewCounterVec("apiserver_request_total", "R.", {"verb", "code"});
  reg.Configure(e);
  before.With({"GET", "200"})->Inc();
  before.With({"POST", "201"})->Inc();
  before.With({"DELETE", "200"})->Inc();
  std::string text = reg.Expose();
  EXPECT_NE(text.find("apiserver_request_total{code=\"200\",verb=\"GET\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("apiserver_request_total{code=\"200\",verb=\"unexpected\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("apiserver_request_total{code=\"201\",verb=\"unexpected\"} 1\n"), std::string::npos) << text;
}

TEST(MetricsTest, ValuesAreWrittenAsGoWritesThem) {
  EXPECT_EQ(FormatMetricValue(0.1), "0.1");
  EXPECT_EQ(FormatMetricValue(1e6), "1e+06");
  EXPECT_EQ(FormatMetricValue(123456), "123456");
  EXPECT_EQ(FormatMetricValue(2.5e-5), "2.5e-05");
}

}  // namespace
}  // namespace capstan
