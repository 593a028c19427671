// --admission-control-config-file: AdmissionConfiguration parsing, inline and path configurations,
// and kube's start-up error texts.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "admission/admission_config.h"

namespace capstan::admission {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

struct TempDir {
  TempDir() {
    char tmpl[] = "/tmp/admission_config_test.XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::string p = path + "/" + name;
    std::ofstream(p) << text;
    return p;
  }
  std::string path;
};

TEST(AdmissionConfig, YamlWithInlineAndPathConfigurations) {
  TempDir dir;
  dir.Write("psa.yaml", "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\n"
                        "defaults:\n  enforce: baseline\n");
  std::string file = dir.Write("admission.yaml", R"(apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  path: psa.yaml
- name: EventRateLimit
  configuration:
    apiVersion: eventratelimit.admission.k8s.io/v1alpha1
    kind: Configuration
    limits: []
- name: PodSecurity
  configuration: {}
)");
  auto c = ReadAdmissionConfigFile(file);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->plugins.size(), 3u);
  EXPECT_EQ(c->plugins[0].path, dir.path + "/psa.yaml");  // relative to the file
  auto ps = c->ConfigFor("PodSecurity");                  // the first entry wins
  ASSERT_TRUE(ps.ok());
  ASSERT_TRUE(ps->has_value());
  EXPECT_EQ((**ps).at("defaults").at("enforce").as_string(), "baseline");
  auto erl = c->ConfigFor("EventRateLimit");
  ASSERT_TRUE(erl.ok() && erl->has_value());
  EXPECT_EQ((**erl).at("kind").as_string(), "Configuration");
  auto none = c->ConfigFor("LimitRanger");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(AdmissionConfig, JsonAndOtherVersions) {
  for (const char* v : {"apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1alpha1", "apiserver.k8s.io/v1alpha1"}) {
    std::string text = std::string(R"({"apiVersion":")") + v +
                       R"(","kind":"AdmissionConfiguration","plugins":[{"name":"PodSecurity","path":"/abs/x.yaml"}]})";
    auto c = ParseAdmissionConfig(text, "/etc");
    ASSERT_TRUE(c.ok()) << v << ": " << c.status().message();
    EXPECT_EQ(c->plugins[0].path, "/abs/x.yaml");
  }
}

TEST(AdmissionConfig, Errors) {
  TempDir dir;
  auto missing = ReadAdmissionConfigFile(dir.path + "/nope.yaml");
  EXPECT_EQ(missing.status().message(), "failed to read plugin config: unable to read admission control configuration from \"" +
                                            dir.path + "/nope.yaml\" [open " + dir.path + "/nope.yaml: no such file or directory]");
  auto msg = [](const char* text) { return ParseAdmissionConfig(text, "/etc").status().message(); };
  EXPECT_EQ(msg("plugins: []\n"), "Object 'Kind' is missing in 'plugins: []\n'");
  EXPECT_EQ(msg("kind: AdmissionConfiguration\n"), "Object 'apiVersion' is missing in 'kind: AdmissionConfiguration\n'");
  EXPECT_EQ(msg("apiVersion: v1\nkind: AdmissionConfiguration\n"),
            "no kind \"AdmissionConfiguration\" is registered for version \"v1\" in scheme \"k8s.io/apiserver/pkg/server/options/admission.go:51\"");
  EXPECT_EQ(msg("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugin: []\n"),
            "strict decoding error: unknown field \"plugin\"");
  EXPECT_EQ(msg("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: X\n  paht: y\n"),
            "strict decoding error: unknown field \"plugins[0].paht\"");
  EXPECT_EQ(msg("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: {}\n"),
            "json: cannot unmarshal object into Go struct field AdmissionConfiguration.plugins of type []v1.AdmissionPluginConfiguration");
  EXPECT_EQ(msg("a: b: c\n"), "error converting YAML to JSON: yaml: mapping values are not allowed in this context");
  // A plugin path that cannot be read is an error when the plugin asks for it.
  auto c = ParseAdmissionConfig("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  path: gone.yaml\n",
                                dir.path);
  ASSERT_TRUE(c.ok());
  auto cfg = c->ConfigFor("PodSecurity");
  EXPECT_EQ(cfg.status().message(), "couldn't open admission plugin configuration " + dir.path + "/gone.yaml: open " +
                                        dir.path + "/gone.yaml: no such file or directory");
  // An empty file is no configuration at all.
  dir.Write("empty.yaml", "");
  auto e = ParseAdmissionConfig("apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  path: empty.yaml\n",
                                dir.path);
  ASSERT_TRUE(e.ok());
  auto ec = e->ConfigFor("PodSecurity");
  ASSERT_TRUE(ec.ok());
  ASSERT_TRUE(ec->has_value());
  EXPECT_TRUE((**ec).is_null());
}

}  // namespace
}  // namespace capstan::admission
