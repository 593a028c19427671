// api/batch/cronjob.cpp: batch/v1 CronJobs: kube's SetDefaults_CronJob (Allow, suspend false, history
// limits 3 and 1) and the job template's pod defaults, kube's ValidateCronJobCreate/Update (schedule
// syntax with the cron parser's messages, TZ in the schedule, time zone names, concurrency policy, the
// job template whose selector is generated, name length), generation bumps, the status subresource
// and kube's printer (NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE, wide CONTAINERS IMAGES
// SELECTOR).
#include "api/apps/apps.h"
#include "api/apps/pod_template.h"
#include "api/apps/workload_util.h"
#include "api/batch/batch.h"
#include "api/batch/cron_schedule.h"
#include "api/common.h"
#include "apimachinery/object_meta.h"
#include "util/strings.h"

namespace capstan::api::batch {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using apps::CheckNonnegative;
using apps::ChildObject;

namespace {

const Object kEmpty;

const Object& Spec(const Object& o) {
  const Object* s = ObjectAt(o, "spec");
  return s ? *s : kEmpty;
}

void DefaultCronJob(Object& cj) {
  json::object& spec = ChildObject(cj, "spec");
  if (StringAt(spec, "concurrencyPolicy").empty()) spec["concurrencyPolicy"] = "Allow";
  if (!spec.contains("suspend") || spec["suspend"].is_null()) spec["suspend"] = false;
  if (!spec.contains("successfulJobsHistoryLimit") || spec["successfulJobsHistoryLimit"].is_null()) {
    spec["successfulJobsHistoryLimit"] = 3;
  }
  if (!spec.contains("failedJobsHistoryLimit") || spec["failedJobsHistoryLimit"].is_null()) {
    spec["failedJobsHistoryLimit"] = 1;
  }
  json::object& job_spec = ChildObject(ChildObject(spec, "jobTemplate"), "spec");
  apps::DefaultPodTemplate(ChildObject(job_spec, "template"));
}

bool IsTimeZoneComponent(std::string_view part) {
  if (part.empty() || part.size() > 14) return false;
  for (char c : part) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
              c == '_' || c == '+';
    if (!ok) return false;
  }
  return true;
}

// kube's validateTimeZone.
void ValidateTimeZone(const json::value* tz, const FieldPath& p, ErrorList& errs) {
  if (!tz || tz->is_null() || !tz->is_string()) return;
  std::string zone(tz->get_string());
  if (zone.empty()) {
    errs.push_back(InvalidError(p, zone, "timeZone must be nil or non-empty string"));
    return;
  }
  for (const auto& part : Split(zone, '/')) {
    if (part == "." || part == ".." || StartsWith(part, "-") || !IsTimeZoneComponent(part)) {
      errs.push_back(InvalidError(p, zone, "unknown time zone " + zone));
      return;
    }
  }
  if (EqualsIgnoreCase(zone, "Local")) {
    errs.push_back(InvalidError(p, zone, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"));
  }
  if (auto err = LoadLocationError(zone)) errs.push_back(InvalidError(p, zone, *err));
}

ErrorList ValidateCronJobSpec(const Object& cj, const Object* old) {
  const Object& spec = Spec(cj);
  FieldPath p("spec");
  ErrorList errs;
  std::string schedule = StringAt(spec, "schedule");
  const json::value* tz = spec.if_contains("timeZone");
  const bool has_tz = tz && !tz->is_null();
  if (schedule.empty()) {
    errs.push_back(RequiredError(p.Child("schedule"), ""));
  } else {
    bool allow_tz = old && StringAt(Spec(*old), "schedule").find("TZ") != std::string::npos;
    if (auto err = CronScheduleError(schedule)) errs.push_back(InvalidError(p.Child("schedule"), schedule, *err));
    const bool schedule_tz = schedule.find("TZ") != std::string::npos;
    if (allow_tz && schedule_tz && has_tz) {
      errs.push_back(InvalidError(p.Child("schedule"), schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"));
    } else if (!allow_tz && schedule_tz) {
      errs.push_back(InvalidError(p.Child("schedule"), schedule,
                                  "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"));
    }
  }
  CheckNonnegative(spec, "startingDeadlineSeconds", p.Child("startingDeadlineSeconds"), errs);
  const json::value* old_tz = old ? Spec(*old).if_contains("timeZone") : nullptr;
  if (!old || (tz ? *tz : json::value()) != (old_tz ? *old_tz : json::value())) {
    ValidateTimeZone(tz, p.Child("timeZone"), errs);
  }
  std::string policy = StringAt(spec, "concurrencyPolicy");
  if (policy.empty()) {
    errs.push_back(RequiredError(p.Child("concurrencyPolicy"), ""));
  } else if (policy != "Allow" && policy != "Forbid" && policy != "Replace") {
    errs.push_back(NotSupportedError(p.Child("concurrencyPolicy"), policy, {"Allow", "Forbid", "Replace"}));
  }
  // kube's ValidateJobTemplateSpec.
  FieldPath jp = p.Child("jobTemplate").Child("spec");
  const json::value* js = PathAt(spec, {"jobTemplate", "spec"});
  const Object& job_spec = js && js->is_object() ? js->get_object() : kEmpty;
  for (auto& e : ValidateJobSpecCommon(job_spec, jp)) errs.push_back(std::move(e));
  if (const auto* sel = job_spec.if_contains("selector"); sel && !sel->is_null()) {
    errs.push_back(apps::InvalidRendered(jp.Child("selector"), apps::GoLabelSelector(sel), "`selector` will be auto-generated"));
  }
  if (BoolAt(job_spec, "manualSelector")) {
    errs.push_back(NotSupportedError(jp.Child("manualSelector"), true, {"nil", "false"}));
  }
  CheckNonnegative(spec, "successfulJobsHistoryLimit", p.Child("successfulJobsHistoryLimit"), errs);
  CheckNonnegative(spec, "failedJobsHistoryLimit", p.Child("failedJobsHistoryLimit"), errs);
  return errs;
}

class CronJobStrategy : public registry::DefaultStrategy {
 public:
  CronJobStrategy() : DefaultStrategy(Options{.has_status = true, .track_generation = true}) {}

  void PrepareForCreate(const registry::Context& ctx, Object& cj) const override {
    DefaultCronJob(cj);
    DefaultStrategy::PrepareForCreate(ctx, cj);
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& cj, const Object& old) const override {
    DefaultCronJob(cj);
    DefaultStrategy::PrepareForUpdate(ctx, cj, old);
  }
  ErrorList Validate(const registry::Context&, const Object& cj) const override {
    ErrorList errs = ValidateCronJobSpec(cj, nullptr);
    // The controller names its jobs <cronjob>-<11 characters>, which must fit in 63.
    std::string_view name = am::GetName(cj);
    if (name.size() > 52) errs.push_back(InvalidError(FieldPath("metadata").Child("name"), name, "must be no more than 52 characters"));
    return errs;
  }
  ErrorList ValidateUpdate(const registry::Context&, const Object& cj, const Object& old) const override {
    return ValidateCronJobSpec(cj, &old);
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Schedule", "string", "", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.", 0},
            {"Timezone", "string", "",
             "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. "
             "If not specified, this will default to the time zone of the kube-controller-manager process. The set of "
             "valid time zone names and the time zone offset is loaded from the system-wide time zone database by the "
             "API server during CronJob validation and the controller manager during execution. If no system-wide time "
             "zone database can be found a bundled version of the database is used instead. If the time zone name "
             "becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller "
             "will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More "
             "information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones",
             0},
            {"Suspend", "boolean", "",
             "This flag tells the controller to suspend subsequent executions, it does not apply to already started "
             "executions.  Defaults to false.",
             0},
            {"Active", "integer", "", "A list of pointers to currently running jobs.", 0},
            {"Last Schedule", "string", "", "Information when was the last time the job was successfully scheduled.", 0},
            registry::AgeColumn(),
            {"Containers", "string", "", "Names of each container in the template.", 1},
            {"Images", "string", "", "Images referenced by each container in the template.", 1},
            {"Selector", "string", "",
             "A label query over pods that should match the pod count. Normally, the system sets this field for you. "
             "More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
             1}};
  }
  json::array TableCells(const Object& cj) const override {
    const Object& spec = Spec(cj);
    const Object* st = ObjectAt(cj, "status");
    const Object& status = st ? *st : kEmpty;
    std::string last = StringAt(status, "lastScheduleTime").empty()
                           ? "<none>"
                           : registry::TranslateTimestampSince(StringAt(status, "lastScheduleTime"));
    const json::value* tz = spec.if_contains("timeZone");
    std::string zone = tz && tz->is_string() ? std::string(tz->get_string()) : "<none>";
    const json::value* suspend = spec.if_contains("suspend");
    std::string suspended = suspend && suspend->is_bool() ? (suspend->get_bool() ? "True" : "False") : "<unset>";
    const json::value* js = PathAt(spec, {"jobTemplate", "spec"});
    const Object& job_spec = js && js->is_object() ? js->get_object() : kEmpty;
    auto [names, images] = apps::ContainerCells(apps::TemplatePodSpec(job_spec));
    return {json::value(am::GetName(cj)), json::value(StringAt(spec, "schedule")), json::value(zone),
            json::value(suspended),       CountAt(status, "active"),                 json::value(last),
            json::value(AgeCell(cj)),     json::value(names),                        json::value(images),
            json::value(apps::FormatLabelSelector(job_spec.if_contains("selector")))};
  }
};

}  // namespace

std::vector<registry::RestResource> CronJobs(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"batch", "v1", "cronjobs", "cronjob", "CronJob", true, {"cj"}, {"all"}, "io.k8s.api.batch.v1.CronJob"});
  auto strategy = std::make_shared<CronJobStrategy>();
  spec.strategy = strategy;
  auto out = registry::MakeResource(deps, spec);
  apps::AddStatus(out, std::make_shared<apps::WorkloadStatusStrategy>(strategy, false, nullptr));
  return out;
}

}  // namespace capstan::api::batch
