// End-to-end: observability as kube-apiserver 1.32 has it (issue 28). /metrics after real kubectl 1.32
// traffic is compared family by family with kube's own list of its families (tests/data/
// kube_apiserver_metrics.tsv, from kube's instrumentation documentation): type, help text with the
// stability prefix, label names and buckets; Prometheus' promtool parses the scrape; the families
// operators' dashboards query are present; /metrics/slis carries the health checks; the metrics
// flags act (--disabled-metrics, --show-hidden-metrics-for-version, --allow-metric-labels); PUT
// /debug/flags/v changes the verbosity; --logging-format=json writes JSON lines.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

std::vector<std::string> SplitOn(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  out.push_back(cur);
  return out;
}

struct KubeFamily {
  std::string type;  // Counter, Gauge, Histogram, Summary, Custom, TimingRatioHistogram
  std::string stability;
  std::string deprecated;
  std::set<std::string> labels;
  std::vector<double> buckets;
  std::string help;
};

std::map<std::string, KubeFamily> LoadKubeFamilies() {
  const char* src = std::getenv("CAPSTAN_SOURCE_DIR");
  std::ifstream in(std::string(src ? src : ".") + "/tests/data/kube_apiserver_metrics.tsv");
  std::map<std::string, KubeFamily> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto f = SplitOn(line, '\t');
    if (f.size() != 7) continue;
    KubeFamily k;
    k.type = f[1];
    k.stability = f[2];
    k.deprecated = f[3];
    if (!f[4].empty()) {
      for (auto& l : SplitOn(f[4], ',')) k.labels.insert(l);
    }
    if (!f[5].empty()) {
      for (auto& b : SplitOn(f[5], ',')) k.buckets.push_back(std::stod(b));
    }
    k.help = f[6];
    out[f[0]] = std::move(k);
  }
  return out;
}

// A strict reader of the text exposition format, enough to compare families.
struct Family {
  std::string type;
  std::string help;
  std::set<std::string> labels;  // label names of the samples, without le/quantile
  std::set<double> buckets;      // le values, without +Inf
  size_t samples = 0;
};

std::map<std::string, Family> ParseExposition(const std::string& text, std::string* error) {
  std::map<std::string, Family> out;
  std::istringstream in(text);
  std::string line;
  std::string current;
  while (std::getline(in, line)) {
    if (line.rfind("# HELP ", 0) == 0) {
      auto rest = line.substr(7);
      auto sp = rest.find(' ');
      current = rest.substr(0, sp);
      if (out.count(current) && !out[current].help.empty()) *error += "family written twice: " + current + "\n";
      out[current].help = sp == std::string::npos ? "" : rest.substr(sp + 1);
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      auto parts = SplitOn(line.substr(7), ' ');
      if (parts.size() != 2 || parts[0] != current) *error += "TYPE without its HELP: " + line + "\n";
      out[current].type = parts.size() > 1 ? parts[1] : "";
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    auto brace = line.find('{');
    auto space = line.find(' ');
    std::string name = line.substr(0, std::min(brace, space));
    std::string family = name;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      std::string s = suffix;
      if (family.size() > s.size() && family.compare(family.size() - s.size(), s.size(), s) == 0 &&
          out.count(family.substr(0, family.size() - s.size())) && family.substr(0, family.size() - s.size()) == current) {
        family = family.substr(0, family.size() - s.size());
      }
    }
    if (family != current) *error += "sample outside its family: " + line + "\n";
    Family& f = out[family];
    ++f.samples;
    if (brace != std::string::npos && brace < space) {
      auto close = line.find("} ", brace);
      if (close == std::string::npos) {
        *error += "bad labels: " + line + "\n";
        continue;
      }
      std::string labels = line.substr(brace + 1, close - brace - 1);
      size_t i = 0;
      while (i < labels.size()) {
        auto eq = labels.find("=\"", i);
        if (eq == std::string::npos) break;
        std::string key = labels.substr(i, eq - i);
        size_t j = eq + 2;
        std::string value;
        while (j < labels.size() && labels[j] != '"') {
          if (labels[j] == '\\') ++j;
          value.push_back(labels[j++]);
        }
        if (key == "le") {
          if (value != "+Inf") f.buckets.insert(std::stod(value));
        } else if (key != "quantile") {
          f.labels.insert(key);
        }
        i = j + 2;  // past the quote and the comma
      }
    }
  }
  return out;
}

std::string ExpectedType(const std::string& kube_type) {
  if (kube_type == "Counter") return "counter";
  if (kube_type == "Gauge" || kube_type == "Custom") return "gauge";
  if (kube_type == "Summary") return "summary";
  return "histogram";
}

std::string Scrape(const ServerProcess& s, const std::string& path = "/metrics") {
  auto r = s.Kubectl({"get", "--raw", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// Requests every family of the table below is about: creates, reads, lists, a watch, an apply, a
// refused anonymous request, the health endpoints.
void MakeTraffic(const ServerProcess& s) {
  ASSERT_EQ(s.Kubectl({"create", "configmap", "m1", "--from-literal=a=b"}).exit_code, 0);
  ASSERT_EQ(s.Kubectl({"get", "configmap", "m1", "-o", "name"}).exit_code, 0);
  ASSERT_EQ(s.Kubectl({"get", "configmaps", "-A"}).exit_code, 0);
  ASSERT_EQ(s.Kubectl({"apply", "--server-side", "-f", "-"},
                      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m2\ndata:\n  k: v\n")
                .exit_code,
            0);
  s.Kubectl({"get", "configmaps", "--watch", "--request-timeout=2s"});
  ASSERT_EQ(s.Kubectl({"delete", "configmap", "m1"}).exit_code, 0);
  for (const char* p : {"/healthz", "/livez", "/readyz?verbose"}) s.Kubectl({"get", "--raw", p});
  // A request without credentials (anonymous: authenticated, then refused by RBAC) and one with a
  // bad token (authentication fails).
  RunCommand({"curl", "-sk", "https://127.0.0.1:" + std::to_string(s.port()) + "/api/v1/namespaces/default/pods"});
  RunCommand({"curl", "-sk", "-H", "Authorization: Bearer not-a-token",
              "https://127.0.0.1:" + std::to_string(s.port()) + "/api/v1/pods"});
  // A connection whose TLS handshake fails (a malformed ClientHello record).
  RawTcp(s.port(), std::string("\x16\x03\x01\x00\x05hello", 10));
}

TEST(MetricsTest, ExportedFamiliesAreKubesFamilies) {
  ServerProcess s;
  ASSERT_TRUE(s.ok()) << s.error();
  MakeTraffic(s);
  std::string text = Scrape(s);
  std::string error;
  auto families = ParseExposition(text, &error);
  EXPECT_EQ(error, "");
  auto kube = LoadKubeFamilies();
  ASSERT_GT(kube.size(), 200u);

  size_t compared = 0;
  for (const auto& [name, f] : families) {
    auto it = kube.find(name);
    if (it == kube.end()) {
      // Families kube does not have are Capstan's own or etcd's (the embedded store exports etcd's
      // names); Capstan's own are named capstan_*.
      EXPECT_TRUE(name.rfind("capstan_", 0) == 0 || name.rfind("etcd_", 0) == 0 || name.rfind("process_", 0) == 0 ||
                  name.rfind("go_", 0) == 0 || name == "leader_election_master_status")
          << "not a kube-apiserver family: " << name;
      continue;
    }
    const KubeFamily& k = it->second;
    ++compared;
    EXPECT_EQ(f.type, ExpectedType(k.type)) << name;
    std::string help = "[" + k.stability + "] " + (k.deprecated.empty() ? "" : "(Deprecated since " + k.deprecated + ") ") + k.help;
    EXPECT_EQ(f.help, help) << name;
    if (k.type != "Custom") EXPECT_EQ(f.labels, k.labels) << name;
    if (!k.buckets.empty()) {
      EXPECT_EQ(f.buckets, std::set<double>(k.buckets.begin(), k.buckets.end())) << name;
    }
  }
  EXPECT_GT(compared, 40u);

  // What kube-prometheus' and the managed clusters' dashboards query, after this traffic.
  for (const char* must :
       {"apiserver_request_total", "apiserver_request_duration_seconds", "apiserver_request_sli_duration_seconds",
        "apiserver_response_sizes", "apiserver_current_inflight_requests", "apiserver_longrunning_requests",
        "authentication_attempts", "authentication_duration_seconds", "authenticated_user_requests",
        "authorization_attempts_total", "authorization_duration_seconds", "apiserver_tls_handshake_errors_total",
        "kubernetes_build_info", "kubernetes_feature_enabled", "registered_metrics_total",
        "apiserver_watch_cache_events_received_total", "apiserver_flowcontrol_dispatched_requests_total",
        "apiserver_storage_objects", "etcd_request_duration_seconds", "etcd_requests_total",
        "apiserver_request_body_size_bytes",
        "apiserver_watch_events_total", "apiserver_watch_events_sizes",
        "apiserver_admission_step_admission_duration_seconds",
        "apiserver_admission_controller_admission_duration_seconds",
        "process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds", "process_start_time_seconds"}) {
    EXPECT_TRUE(families.count(must)) << "missing " << must;
  }
  // kube's bearer-token authenticator turns "no user" into the error "invalid bearer token".
  EXPECT_TRUE(Contains(text, "authentication_attempts{result=\"error\"}")) << "the bad token was not counted";
  EXPECT_TRUE(Contains(text, "authenticated_user_requests{username=\"other\"}")) << "the admin and anonymous requests";
  EXPECT_TRUE(Contains(text, "authorization_attempts_total{result=\"denied\"}") ||
              Contains(text, "authorization_attempts_total{result=\"no-opinion\"}"))
      << "the anonymous refusal was not counted";
  EXPECT_TRUE(MetricSample(text, "apiserver_longrunning_requests",
                           {"group=\"\"", "resource=\"configmaps\"", "verb=\"WATCH\"", "version=\"v1\""}))
      << "the watch was not tracked";
  EXPECT_TRUE(Contains(text, "apiserver_storage_objects{resource=\"configmaps\"} ")) << "configmaps not counted";
  // A non-resource request: its path stands in the subresource, in every endpoint family; kube's health
  // handlers have an empty component.
  EXPECT_TRUE(Contains(text, "apiserver_request_total{code=\"200\",component=\"\",dry_run=\"\",group=\"\",resource=\"\","
                             "scope=\"\",subresource=\"/healthz\",verb=\"GET\",version=\"\"} "))
      << "the /healthz request";
  EXPECT_TRUE(Contains(text, "apiserver_request_duration_seconds_count{component=\"\",dry_run=\"\",group=\"\",resource=\"\","
                             "scope=\"\",subresource=\"/healthz\",verb=\"GET\","))
      << "the /healthz request";
  EXPECT_TRUE(Contains(text, "apiserver_request_body_size_bytes_count{resource=\"configmaps\",verb=\"create\"} "))
      << "the create's body";
  EXPECT_TRUE(Contains(text, "apiserver_request_body_size_bytes_count{resource=\"configmaps\",verb=\"patch\"} "))
      << "the server-side apply's body";
  EXPECT_TRUE(Contains(text, "etcd_requests_total{operation=\"create\",type=\"configmaps\"} ")) << "the create";
  EXPECT_TRUE(Contains(text, "apiserver_watch_events_total{group=\"\",kind=\"ConfigMap\",version=\"v1\"} "))
      << "the watch's events";
  // The deprecated SLO family is hidden in 1.32 (deprecated since 1.27).
  EXPECT_FALSE(families.count("apiserver_request_slo_duration_seconds"));
}

TEST(MetricsTest, PromtoolParsesTheScrapeAndLintsOnlyKubesOwnNames) {
  if (RunCommand({"sh", "-c", "command -v promtool"}).exit_code != 0) GTEST_SKIP() << "promtool is not installed";
  ServerProcess s;
  ASSERT_TRUE(s.ok()) << s.error();
  MakeTraffic(s);
  auto kube = LoadKubeFamilies();
  for (const char* path : {"/metrics", "/metrics/slis"}) {
    auto r = RunCommand({"promtool", "check", "metrics"}, Scrape(s, path));
    std::string out = r.out + r.err;
    EXPECT_FALSE(Contains(out, "error while linting")) << path << ": " << out;
    // Lint notes are allowed on names kube (or etcd) chose; never on Capstan's own.
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line)) {
      std::string name = line.substr(0, line.find(' '));
      EXPECT_TRUE(name.empty() || kube.count(name) || name.rfind("etcd_", 0) == 0) << path << ": " << line;
    }
  }
}

TEST(MetricsTest, SliEndpointCarriesTheHealthChecks) {
  ServerProcess s;
  ASSERT_TRUE(s.ok()) << s.error();
  s.Kubectl({"get", "--raw", "/readyz"});
  s.Kubectl({"get", "--raw", "/livez?exclude=ping"});
  std::string text = Scrape(s, "/metrics/slis");
  EXPECT_TRUE(Contains(text, "# HELP kubernetes_healthcheck [STABLE] This metric records the result of a single healthcheck.\n"))
      << text;
  EXPECT_TRUE(Contains(text, "kubernetes_healthcheck{name=\"ping\",type=\"readyz\"} 1\n")) << text;
  EXPECT_TRUE(Contains(text, "kubernetes_healthchecks_total{name=\"ping\",status=\"success\",type=\"readyz\"}")) << text;
  EXPECT_TRUE(Contains(text, "kubernetes_healthcheck{name=\"log\",type=\"livez\"} 1\n")) << text;
  // An excluded check is not run, so not recorded.
  EXPECT_FALSE(Contains(text, "name=\"ping\",type=\"livez\"")) << text;
  EXPECT_TRUE(Contains(text, "process_start_time_seconds ")) << text;
  // /metrics does not carry them.
  EXPECT_FALSE(Contains(Scrape(s), "kubernetes_healthcheck{"));
  // With --profiling (kube's default) DELETE resets.
  auto reset = RunCommand({"curl", "-sS", "-X", "DELETE", "--cacert", s.data_dir() + "/pki/ca.crt", "--cert",
                           s.data_dir() + "/pki/admin.crt", "--key", s.data_dir() + "/pki/admin.key",
                           "https://127.0.0.1:" + std::to_string(s.port()) + "/metrics/slis"});
  EXPECT_EQ(reset.out, "metrics reset\n") << reset.err;
  EXPECT_TRUE(Contains(Scrape(s, "/metrics/slis"), "kubernetes_healthcheck{name=\"ping\",type=\"readyz\"} 0\n"));
}

TEST(MetricsTest, MetricsFlagsAct) {
  std::string dir = MakeTempDir("capstan-metrics-flags");
  auto bad = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--show-hidden-metrics-for-version=1.30"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_TRUE(Contains(bad.err, "--show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the "
                                "previous minor version is allowed"))
      << bad.err;
  auto bad_label = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--allow-metric-labels=nolabel=x"});
  EXPECT_NE(bad_label.exit_code, 0);
  EXPECT_TRUE(Contains(bad_label.err, "--allow-metric-labels must have a list of kv pair with format")) << bad_label.err;

  ServerProcess s({"--disabled-metrics=apiserver_request_duration_seconds", "--show-hidden-metrics-for-version=1.31",
                   "--allow-metric-labels=apiserver_request_total,verb=GET"});
  ASSERT_TRUE(s.ok()) << s.error();
  ASSERT_EQ(s.Kubectl({"create", "configmap", "x", "--from-literal=a=b"}).exit_code, 0);
  ASSERT_EQ(s.Kubectl({"get", "configmap", "x"}).exit_code, 0);
  std::string text = Scrape(s);
  EXPECT_FALSE(Contains(text, "apiserver_request_duration_seconds_bucket"));
  EXPECT_TRUE(Contains(text, "disabled_metrics_total 1\n")) << text;
  EXPECT_TRUE(Contains(text, "# HELP apiserver_request_slo_duration_seconds [ALPHA] (Deprecated since 1.27.0) "));
  EXPECT_TRUE(MetricSample(text, "apiserver_request_total", {"verb=\"GET\""})) << text;
  EXPECT_TRUE(MetricSample(text, "apiserver_request_total", {"verb=\"unexpected\""})) << text;
  EXPECT_FALSE(MetricSample(text, "apiserver_request_total", {"verb=\"POST\""})) << text;
}

TEST(MetricsTest, VerbosityChangesAtRuntimeAndJsonLogsParse) {
  ServerProcess s({"--logging-format=json"});
  ASSERT_TRUE(s.ok()) << s.error();
  std::string base = "https://127.0.0.1:" + std::to_string(s.port());
  std::vector<std::string> tls = {"--cacert", s.data_dir() + "/pki/ca.crt", "--cert", s.data_dir() + "/pki/admin.crt",
                                  "--key", s.data_dir() + "/pki/admin.key"};
  auto put = [&](const std::string& body) {
    std::vector<std::string> argv = {"curl", "-sS", "-w", "\n%{http_code}", "-X", "PUT", "--data-binary", body};
    argv.insert(argv.end(), tls.begin(), tls.end());
    argv.push_back(base + "/debug/flags/v");
    return RunCommand(argv).out;
  };
  EXPECT_EQ(put("x"), "strconv.ParseUint: parsing \"x\": invalid syntax\n\n400");
  // Debug lines (verbosity 4: a refused anonymous request logs one) appear only once -v is raised.
  auto refused = [&] { RunCommand({"curl", "-sk", base + "/api/v1/namespaces/default/secrets"}); };
  refused();
  EXPECT_FALSE(Contains(s.log(), "\"v\":4"));
  EXPECT_EQ(put("6"), "successfully set klog.logging.verbosity to 6\n\n200");
  refused();
  std::string log = s.log();
  EXPECT_TRUE(Contains(log, "\"v\":4")) << log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
  std::istringstream lines(log);
  std::string line;
  int parsed = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '{') continue;
    boost::system::error_code ec;
    auto v = boost::json::parse(line, ec);
    ASSERT_FALSE(ec) << line;
    ASSERT_TRUE(v.is_object()) << line;
    EXPECT_TRUE(v.as_object().contains("ts") && v.as_object().contains("msg")) << line;
    ++parsed;
  }
  EXPECT_GT(parsed, 5);
  // Without credentials the debug endpoint is refused.
  auto anon = RunCommand({"curl", "-sk", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT", "--data-binary", "2",
                          base + "/debug/flags/v"});
  EXPECT_EQ(anon.out, "403");
}

TEST(MetricsTest, VmoduleRaisesTheVerbosityOfMatchingFilesOnly) {
  // The authorization filter's lines at 4, nothing else: a forbidden request is logged, an
  // unauthenticated one (the authentication filter's line) is not.
  ServerProcess s({"--vmodule=authoriz*=4"});
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_FALSE(Contains(s.log(), "flags accepted for compatibility but not acted on yet\" flags=\"vmodule")) << s.log();
  auto forbidden = s.Kubectl({"get", "secrets", "--as=nobody"});
  EXPECT_NE(forbidden.exit_code, 0);
  std::string base = "https://127.0.0.1:" + std::to_string(s.port());
  RunCommand({"curl", "-sk", "-H", "Authorization: Bearer not-a-token", base + "/api/v1/namespaces"});
  ASSERT_TRUE(PollFor([&] { return Contains(s.log(), "\"forbidden\" user=\"nobody\""); }, std::chrono::seconds(5))) << s.log();
  EXPECT_FALSE(Contains(s.log(), "unable to authenticate the request")) << s.log();
  // As component-base: vmodule is for the text format only.
  auto json = RunCommand({Binary(), "--data-dir", MakeTempDir("capstan-vmodule"), "--secure-port", "0", "--logging-format=json",
                          "--vmodule=x=2"});
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_TRUE(Contains(json.err, "Error: vmodule: Forbidden: Only supported for text log format")) << json.err;
  auto bad = RunCommand({Binary(), "--data-dir", MakeTempDir("capstan-vmodule"), "--secure-port", "0", "--vmodule=x"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_TRUE(Contains(bad.err, "\"x\" does not have the pattern=N format")) << bad.err;
}

TEST(MetricsTest, CpuProfileDownloadsInGperftoolsFormat) {
  ServerProcess s;
  ASSERT_TRUE(s.ok()) << s.error();
  std::string file = s.data_dir() + "/cpu.prof";
  std::string base = "https://127.0.0.1:" + std::to_string(s.port());
  std::vector<std::string> tls = {"--cacert", s.data_dir() + "/pki/ca.crt", "--cert", s.data_dir() + "/pki/admin.crt",
                                  "--key", s.data_dir() + "/pki/admin.key"};
  std::vector<std::string> argv = {"curl", "-sS", "-o", file, "-w", "%{http_code}"};
  argv.insert(argv.end(), tls.begin(), tls.end());
  argv.push_back(base + "/debug/pprof/profile?seconds=2");
  // Load while the profile runs, so that it has samples.
  std::thread load([&] {
    for (int i = 0; i < 20; ++i) s.Kubectl({"get", "configmaps", "-A"});
  });
  auto r = RunCommand(argv);
  load.join();
  ASSERT_EQ(r.out, "200") << r.err;
  std::ifstream in(file, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // gperftools' CPU profile header: 0, 3 (header words), 0 (version), the sampling period, 0.
  ASSERT_GE(data.size(), 5 * sizeof(uintptr_t));
  const auto* words = reinterpret_cast<const uintptr_t*>(data.data());
  EXPECT_EQ(words[0], 0u);
  EXPECT_EQ(words[1], 3u);
  EXPECT_EQ(words[2], 0u);
  EXPECT_GT(words[3], 0u);
  EXPECT_EQ(words[4], 0u);
  // The thread dump names the server's threads.
  auto threads = s.Kubectl({"get", "--raw", "/debug/pprof/goroutine?debug=1"});
  EXPECT_TRUE(Contains(threads.out, "threads profile: total ")) << threads.out << threads.err;
  // The heap is not profiled: said, not faked.
  auto heap = s.Kubectl({"get", "--raw", "/debug/pprof/heap"});
  EXPECT_NE(heap.exit_code, 0);
}

TEST(MetricsTest, ProfilingOffRemovesTheDebugEndpoints) {
  ServerProcess s({"--profiling=false"});
  ASSERT_TRUE(s.ok()) << s.error();
  for (const char* path : {"/debug/flags/v", "/debug/pprof/"}) {
    auto r = s.Kubectl({"get", "--raw", path});
    EXPECT_NE(r.exit_code, 0) << path;
    EXPECT_TRUE(Contains(r.err, "NotFound")) << path << ": " << r.err;
  }
}

}  // namespace
}  // namespace capstan::e2e
