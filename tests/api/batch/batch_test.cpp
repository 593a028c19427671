// batch/v1 through the real Stores over the embedded backend: job defaults and generated selectors,
// kube's validation messages, immutable fields, printers, cron schedule parsing, and the upstream
// fixtures.
#include <gtest/gtest.h>

#include "api/apps/api_test_env.h"
#include "api/apps/fixture_util.h"
#include "api/batch/batch.h"
#include "api/batch/cron_schedule.h"
#include "apimachinery/object_meta.h"

namespace capstan::api::batch {
namespace {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using registry::Object;
using testing::ApiTestEnv;
using testing::Parse;

Object Job(const std::string& name, const std::string& restart = "Never") {
  return Parse(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":")" + name +
               R"("},"spec":{"template":{"spec":{"restartPolicy":")" + restart +
               R"(","containers":[{"name":"c","image":"busybox"}]}}}})");
}

Object CronJob(const std::string& name, const std::string& schedule) {
  return Parse(R"({"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":")" + name + R"("},"spec":{"schedule":")" +
               schedule +
               R"(","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure","containers":[{"name":"c",)"
               R"("image":"busybox"}]}}}}}})");
}

const json::value& At(const Object& o, std::initializer_list<std::string_view> path) {
  const json::value* v = nullptr;
  const json::object* cur = &o;
  for (auto k : path) {
    v = &cur->at(k);
    if (v->is_object()) cur = &v->get_object();
  }
  return *v;
}

class BatchTest : public ::testing::Test {
 protected:
  ApiTestEnv env_{Install};
};

TEST_F(BatchTest, JobDefaultsAndGeneratedSelector) {
  auto j = env_.Create("jobs", Job("pi"));
  ASSERT_TRUE(j.ok()) << j.status().message();
  const Object& spec = j->at("spec").as_object();
  EXPECT_EQ(spec.at("completions").as_int64(), 1);
  EXPECT_EQ(spec.at("parallelism").as_int64(), 1);
  EXPECT_EQ(spec.at("backoffLimit").as_int64(), 6);
  EXPECT_EQ(spec.at("completionMode").as_string(), "NonIndexed");
  EXPECT_FALSE(spec.at("suspend").as_bool());
  EXPECT_FALSE(spec.at("manualSelector").as_bool());
  EXPECT_EQ(spec.at("podReplacementPolicy").as_string(), "TerminatingOrFailed");
  std::string uid(am::GetUid(*j));
  ASSERT_FALSE(uid.empty());
  EXPECT_EQ(At(*j, {"spec", "selector", "matchLabels"}).as_object(),
            Parse(R"({"batch.kubernetes.io/controller-uid":")" + uid + R"("})"));
  const Object& labels = At(*j, {"spec", "template", "metadata", "labels"}).as_object();
  EXPECT_EQ(labels.at("controller-uid").as_string(), uid);
  EXPECT_EQ(labels.at("batch.kubernetes.io/controller-uid").as_string(), uid);
  EXPECT_EQ(labels.at("job-name").as_string(), "pi");
  EXPECT_EQ(labels.at("batch.kubernetes.io/job-name").as_string(), "pi");
  // kube copies the template labels to a job that has none.
  EXPECT_EQ(At(*j, {"metadata", "labels"}).as_object(), labels);
  EXPECT_EQ(am::GetGeneration(*j), 1);
}

TEST_F(BatchTest, JobValidationMessages) {
  auto r = env_.Create("jobs", Job("bad", "Always"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Job.batch \"bad\" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "
            "\"OnFailure\", \"Never\"");
  Object neg = Job("neg");
  neg["spec"].as_object()["parallelism"] = -1;
  auto r2 = env_.Create("jobs", neg);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().message(), "Job.batch \"neg\" is invalid: spec.parallelism: Invalid value: -1: must be greater than or equal to 0");
  Object indexed = Job("idx");
  indexed["spec"].as_object()["completionMode"] = "Indexed";
  indexed["spec"].as_object()["parallelism"] = 2;
  auto r3 = env_.Create("jobs", indexed);
  ASSERT_FALSE(r3.ok());
  EXPECT_EQ(r3.status().message(), "Job.batch \"idx\" is invalid: spec.completions: Required value: when completion mode is Indexed");
  // A manual selector must match the template.
  Object manual = Job("manual");
  manual["spec"].as_object()["manualSelector"] = true;
  manual["spec"].as_object()["selector"] = Parse(R"({"matchLabels":{"app":"x"}})");
  auto r4 = env_.Create("jobs", manual);
  ASSERT_FALSE(r4.ok());
  EXPECT_EQ(r4.status().message(),
            "Job.batch \"manual\" is invalid: spec.template.metadata.labels: Invalid value: map[string]string(nil): "
            "`selector` does not match template `labels`");
  manual["spec"].as_object()["template"].as_object()["metadata"] = Parse(R"({"labels":{"app":"x"}})");
  EXPECT_TRUE(env_.Create("jobs", manual).ok());
}

TEST_F(BatchTest, JobImmutableFieldsAndSuspendedTemplateChanges) {
  ASSERT_TRUE(env_.Create("jobs", Job("pi")).ok());
  auto r = env_.Mutate("jobs", "pi", [](Object& o) { o["spec"].as_object()["completions"] = 3; });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Job.batch \"pi\" is invalid: spec.completions: Invalid value: 3: field is immutable");
  auto img = env_.Mutate("jobs", "pi", [](Object& o) {
    o["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object()["image"] = "x";
  });
  ASSERT_FALSE(img.ok());
  EXPECT_NE(img.status().message().find("spec.template: Invalid value: core.PodTemplateSpec"), std::string::npos);
  EXPECT_NE(img.status().message().find(": field is immutable"), std::string::npos);
  // Parallelism may change, and bumps the generation.
  auto par = env_.Mutate("jobs", "pi", [](Object& o) { o["spec"].as_object()["parallelism"] = 2; });
  ASSERT_TRUE(par.ok()) << par.status().message();
  EXPECT_EQ(am::GetGeneration(par->object), 2);

  // A suspended job that never started may change its template's node selector.
  Object susp = Job("susp");
  susp["spec"].as_object()["suspend"] = true;
  ASSERT_TRUE(env_.Create("jobs", susp).ok());
  auto ns = env_.Mutate("jobs", "susp", [](Object& o) {
    o["spec"].as_object()["template"].as_object()["spec"].as_object()["nodeSelector"] = Parse(R"({"disk":"ssd"})");
  });
  EXPECT_TRUE(ns.ok()) << ns.status().message();
}

TEST_F(BatchTest, JobPrinterAndFieldSelector) {
  auto j = env_.Create("jobs", Job("pi"));
  ASSERT_TRUE(j.ok());
  auto cols = env_.Columns("jobs");
  std::vector<std::string> names;
  for (const auto& c : cols) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Status", "Completions", "Duration", "Age", "Containers", "Images",
                                             "Selector"}));
  auto cells = env_.Cells("jobs", *j);
  EXPECT_EQ(cells[1].as_string(), "Running");
  EXPECT_EQ(cells[2].as_string(), "0/1");
  EXPECT_EQ(cells[3].as_string(), "");
  auto done = env_.Mutate(
      "jobs", "pi",
      [](Object& o) {
        o["status"] = Parse(R"({"succeeded":1,"startTime":"2024-01-01T00:00:00Z","completionTime":"2024-01-01T00:01:05Z",)"
                            R"("conditions":[{"type":"Complete","status":"True"}]})");
      },
      "status");
  ASSERT_TRUE(done.ok()) << done.status().message();
  cells = env_.Cells("jobs", done->object);
  EXPECT_EQ(cells[1].as_string(), "Complete");
  EXPECT_EQ(cells[2].as_string(), "1/1");
  EXPECT_EQ(cells[3].as_string(), "65s");
  registry::ListOptions lo;
  lo.field_selector = "status.successful=1";
  auto list = SyncWait(env_.As<registry::Lister>("jobs")->List(env_.Ctx(), lo));
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ(list->items.size(), 1u);
  EXPECT_EQ(env_.Find("jobs")->info.categories, std::vector<std::string>{"all"});
}

TEST_F(BatchTest, JobDeleteOrphansByDefaultAsBatchV1Does) {
  ASSERT_TRUE(env_.Create("jobs", Job("pi")).ok());
  auto* d = env_.As<registry::GracefulDeleter>("jobs");
  auto r = SyncWait(d->Delete(env_.Ctx(), "pi", {}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->deleted);
  EXPECT_EQ(am::GetFinalizers(r->object), std::vector<std::string>{"orphan"});
  ASSERT_TRUE(env_.Create("jobs", Job("bg")).ok());
  registry::DeleteOptions bg;
  bg.propagation_policy = "Background";
  auto r2 = SyncWait(d->Delete(env_.Ctx(), "bg", bg));
  ASSERT_TRUE(r2.ok());
  EXPECT_TRUE(r2->deleted);
}

TEST_F(BatchTest, CronJobDefaultsValidationAndPrinter) {
  auto cj = env_.Create("cronjobs", CronJob("tick", "*/5 * * * *"));
  ASSERT_TRUE(cj.ok()) << cj.status().message();
  const Object& spec = cj->at("spec").as_object();
  EXPECT_EQ(spec.at("concurrencyPolicy").as_string(), "Allow");
  EXPECT_FALSE(spec.at("suspend").as_bool());
  EXPECT_EQ(spec.at("successfulJobsHistoryLimit").as_int64(), 3);
  EXPECT_EQ(spec.at("failedJobsHistoryLimit").as_int64(), 1);
  auto cells = env_.Cells("cronjobs", *cj);
  ASSERT_EQ(cells.size(), 10u);
  EXPECT_EQ(cells[1].as_string(), "*/5 * * * *");
  EXPECT_EQ(cells[2].as_string(), "<none>");
  EXPECT_EQ(cells[3].as_string(), "False");
  EXPECT_EQ(cells[4].as_int64(), 0);
  EXPECT_EQ(cells[5].as_string(), "<none>");
  EXPECT_EQ(env_.Find("cronjobs")->info.short_names, std::vector<std::string>{"cj"});

  auto bad = env_.Create("cronjobs", CronJob("bad", "bad"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "CronJob.batch \"bad\" is invalid: spec.schedule: Invalid value: \"bad\": expected exactly 5 fields, found "
            "1: [bad]");
  auto tz = env_.Create("cronjobs", CronJob("tz", "TZ=UTC 0 * * * *"));
  ASSERT_FALSE(tz.ok());
  EXPECT_EQ(tz.status().message(),
            "CronJob.batch \"tz\" is invalid: spec.schedule: Invalid value: \"TZ=UTC 0 * * * *\": cannot use TZ or "
            "CRON_TZ in schedule, use timeZone field instead");
  Object zone = CronJob("zone", "0 * * * *");
  zone["spec"].as_object()["timeZone"] = "Mars/Base";
  auto z = env_.Create("cronjobs", zone);
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().message(),
            "CronJob.batch \"zone\" is invalid: spec.timeZone: Invalid value: \"Mars/Base\": unknown time zone Mars/Base");
  zone["spec"].as_object()["timeZone"] = "Europe/Paris";
  auto z2 = env_.Create("cronjobs", zone);
  ASSERT_TRUE(z2.ok()) << z2.status().message();
  EXPECT_EQ(env_.Cells("cronjobs", *z2)[2].as_string(), "Europe/Paris");
  auto longname = env_.Create("cronjobs", CronJob(std::string(53, 'a'), "0 * * * *"));
  ASSERT_FALSE(longname.ok());
  EXPECT_NE(longname.status().message().find("metadata.name: Invalid value: \"" + std::string(53, 'a') +
                                             "\": must be no more than 52 characters"),
            std::string::npos);
  Object sel = CronJob("sel", "0 * * * *");
  sel["spec"].as_object()["jobTemplate"].as_object()["spec"].as_object()["selector"] = Parse(R"({"matchLabels":{"a":"b"}})");
  auto s = env_.Create("cronjobs", sel);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map["
                                      "string]string{\"a\":\"b\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: "
                                      "`selector` will be auto-generated"),
            std::string::npos)
      << s.status().message();
}

TEST(CronScheduleTest, ParserMessages) {
  EXPECT_FALSE(CronScheduleError("*/5 * * * *"));
  EXPECT_FALSE(CronScheduleError("0 0 1 jan,mar MON-FRI"));
  EXPECT_FALSE(CronScheduleError("@hourly"));
  EXPECT_FALSE(CronScheduleError("@every 1h30m"));
  EXPECT_FALSE(CronScheduleError("CRON_TZ=Europe/Paris 0 1 * * *"));
  EXPECT_EQ(CronScheduleError("61 * * * *").value_or(""), "end of range (61) above maximum (59): 61");
  EXPECT_EQ(CronScheduleError("* * 0 * *").value_or(""), "beginning of range (0) below minimum (1): 0");
  EXPECT_EQ(CronScheduleError("5-2 * * * *").value_or(""), "beginning of range (5) beyond end of range (2): 5-2");
  EXPECT_EQ(CronScheduleError("*/0 * * * *").value_or(""), "step of range should be a positive number: */0");
  EXPECT_EQ(CronScheduleError("x * * * *").value_or(""), "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax");
  EXPECT_EQ(CronScheduleError("-1 * * * *").value_or(""), "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax");
  EXPECT_EQ(CronScheduleError("1-2-3 * * * *").value_or(""), "too many hyphens: 1-2-3");
  EXPECT_EQ(CronScheduleError("1/2/3 * * * *").value_or(""), "too many slashes: 1/2/3");
  EXPECT_EQ(CronScheduleError("* * * *").value_or(""), "expected exactly 5 fields, found 4: [* * * *]");
  EXPECT_EQ(CronScheduleError("@weekdays").value_or(""), "unrecognized descriptor: @weekdays");
  EXPECT_EQ(CronScheduleError("@every x").value_or(""), "failed to parse duration @every x: time: invalid duration \"x\"");
  EXPECT_EQ(CronScheduleError("TZ=Nowhere/City 0 * * * *").value_or(""),
            "provided bad location Nowhere/City: unknown time zone Nowhere/City");
}

// --- fixtures ---

void SanitizeJobSpec(Object& spec, bool cron) {
  spec["completionMode"] = "Indexed";
  spec["maxFailedIndexes"] = 1;
  auto& rule = spec["podFailurePolicy"].as_object()["rules"].as_array()[0].as_object();
  rule["action"] = "FailIndex";
  rule.erase("onPodConditions");
  rule["onExitCodes"].as_object()["containerName"] = "c0";
  rule["onExitCodes"].as_object()["operator"] = "In";
  spec["podReplacementPolicy"] = "Failed";
  if (cron) {
    spec.erase("selector");
    spec["manualSelector"] = false;
    testing::SanitizePodTemplate(spec["template"].as_object(), "Never", true, nullptr);
  } else {
    testing::SanitizeSelector(spec["selector"].as_object());
    testing::SanitizePodTemplate(spec["template"].as_object(), "Never", true, &spec["selector"].as_object());
  }
}

const std::vector<std::string> kServerOwned = {"metadata.uid", "metadata.resourceVersion", "metadata.creationTimestamp",
                                               "metadata.generation", "status"};

TEST_F(BatchTest, JobFixture) {
  auto f = testing::LoadFixture("batch.v1.Job");
  if (!f) GTEST_SKIP() << "fixture not found";
  Object job = *f;
  testing::SanitizeMetadata(job);
  SanitizeJobSpec(job["spec"].as_object(), false);
  Object status = job["status"].as_object();
  auto created = env_.Create("jobs", job);
  ASSERT_TRUE(created.ok()) << created.status().message();
  testing::ExpectNothingLost(job, *created, kServerOwned);
  auto st = env_.Mutate("jobs", "fixture", [&](Object& o) { o["status"] = status; }, "status");
  ASSERT_TRUE(st.ok()) << st.status().message();
  testing::ExpectNothingLost(status, st->object.at("status"), {});
}

TEST_F(BatchTest, CronJobFixture) {
  auto f = testing::LoadFixture("batch.v1.CronJob");
  if (!f) GTEST_SKIP() << "fixture not found";
  Object cj = *f;
  testing::SanitizeMetadata(cj);
  auto& spec = cj["spec"].as_object();
  spec["schedule"] = "*/5 * * * *";
  spec["timeZone"] = "Etc/UTC";
  spec["concurrencyPolicy"] = "Forbid";
  SanitizeJobSpec(spec["jobTemplate"].as_object()["spec"].as_object(), true);
  Object status = cj["status"].as_object();
  auto created = env_.Create("cronjobs", cj);
  ASSERT_TRUE(created.ok()) << created.status().message();
  testing::ExpectNothingLost(cj, *created, kServerOwned);
  auto st = env_.Mutate("cronjobs", "fixture", [&](Object& o) { o["status"] = status; }, "status");
  ASSERT_TRUE(st.ok()) << st.status().message();
  testing::ExpectNothingLost(status, st->object.at("status"), {});
}

}  // namespace
}  // namespace capstan::api::batch
