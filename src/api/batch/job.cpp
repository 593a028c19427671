// api/batch/job.cpp: batch/v1 Jobs: kube's SetDefaults_Job (completions/parallelism 1, backoffLimit 6,
// NonIndexed, suspend false, manualSelector false, podReplacementPolicy, labels from the template),
// the generated selector (batch.kubernetes.io/controller-uid and the job-name labels on the template),
// kube's ValidateJob(Update) (generated selector, counts, completion mode, pod failure policy, restart
// policy OnFailure/Never, immutable selector, completions, template, completion mode and pod failure
// policy), generation bumps, the status subresource, the status.successful field selector, orphaning
// as batch/v1's default delete propagation, and kube's printer (NAME STATUS COMPLETIONS DURATION AGE,
// wide CONTAINERS IMAGES SELECTOR).
#include <chrono>
#include <set>

#include "api/apps/apps.h"
#include "api/apps/pod_template.h"
#include "api/apps/workload_util.h"
#include "api/batch/batch.h"
#include "api/common.h"
#include "apimachinery/labels.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"
#include "apimachinery/validation.h"
#include "registry/table.h"
#include "util/strings.h"

namespace capstan::api::batch {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using apps::CheckNonnegative;
using apps::ChildObject;
using apps::InvalidRendered;
using apps::OptInt;

namespace {

constexpr std::string_view kControllerUid = "batch.kubernetes.io/controller-uid";
constexpr std::string_view kJobName = "batch.kubernetes.io/job-name";
constexpr std::string_view kLegacyControllerUid = "controller-uid";
constexpr std::string_view kLegacyJobName = "job-name";
// The uid a generated selector names while the object has none yet; replaced by the object's uid
// before validation and storage.
constexpr std::string_view kPendingUid = "capstan-pending-uid";
constexpr int64_t kMaxParallelismForIndexedJob = 100000;
constexpr int64_t kMaxFailedIndexesForIndexedJob = 100000;
constexpr int64_t kCompletionsSoftLimit = 100000;
constexpr int64_t kParallelismLimitForHighCompletions = 10000;
constexpr int64_t kMaxFailedIndexesLimitForHighCompletions = 10000;

const Object kEmpty;

const Object& Spec(const Object& o) {
  const Object* s = ObjectAt(o, "spec");
  return s ? *s : kEmpty;
}

bool HasKey(const Object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && !v->is_null();
}

void CopyTemplateLabelsIfEmpty(Object& job) {
  const json::value* tl = PathAt(job, {"spec", "template", "metadata", "labels"});
  if (!tl || !tl->is_object()) return;
  const json::value* labels = PathAt(job, {"metadata", "labels"});
  if (labels && labels->is_object() && !labels->get_object().empty()) return;
  ChildObject(job, "metadata")["labels"] = *tl;
}

void DefaultJob(Object& job) {
  json::object& spec = ChildObject(job, "spec");
  if (!HasKey(spec, "completions") && !HasKey(spec, "parallelism")) {
    spec["completions"] = 1;
    spec["parallelism"] = 1;
  }
  if (!HasKey(spec, "parallelism")) spec["parallelism"] = 1;
  if (!HasKey(spec, "backoffLimit")) spec["backoffLimit"] = HasKey(spec, "backoffLimitPerIndex") ? 2147483647 : 6;
  CopyTemplateLabelsIfEmpty(job);
  if (!HasKey(spec, "completionMode")) spec["completionMode"] = "NonIndexed";
  if (!HasKey(spec, "suspend")) spec["suspend"] = false;
  if (auto* pfp = spec.if_contains("podFailurePolicy"); pfp && pfp->is_object()) {
    if (auto* rules = pfp->get_object().if_contains("rules"); rules && rules->is_array()) {
      for (auto& r : rules->get_array()) {
        if (!r.is_object()) continue;
        if (auto* conds = r.get_object().if_contains("onPodConditions"); conds && conds->is_array()) {
          for (auto& c : conds->get_array()) {
            if (c.is_object() && StringAt(c.get_object(), "status").empty()) c.get_object()["status"] = "True";
          }
        }
      }
    }
  }
  if (!HasKey(spec, "podReplacementPolicy")) {
    spec["podReplacementPolicy"] = HasKey(spec, "podFailurePolicy") ? "Failed" : "TerminatingOrFailed";
  }
  if (!HasKey(spec, "manualSelector")) spec["manualSelector"] = false;
  apps::DefaultPodTemplate(ChildObject(spec, "template"));
}

// kube's generateSelector: the job-name and controller-uid labels on the template, and the
// controller-uid selector (labels the user set are kept; validation rejects conflicts).
void GenerateSelector(Object& job) {
  json::object& spec = ChildObject(job, "spec");
  if (BoolAt(spec, "manualSelector")) return;
  std::string uid(am::GetUid(job));
  if (uid.empty()) uid = kPendingUid;
  std::string name(am::GetName(job));
  json::object& labels = ChildObject(ChildObject(ChildObject(spec, "template"), "metadata"), "labels");
  for (auto key : {kLegacyJobName, kJobName}) {
    if (!labels.contains(key)) labels[key] = name;
  }
  for (auto key : {kLegacyControllerUid, kControllerUid}) {
    if (!labels.contains(key)) labels[key] = uid;
  }
  json::object& match = ChildObject(ChildObject(spec, "selector"), "matchLabels");
  if (!match.contains(kControllerUid)) match[kControllerUid] = uid;
}

// Replaces the pending uid of a selector generated before the object had its uid.
void ResolvePendingUid(Object& job) {
  std::string uid(am::GetUid(job));
  if (uid.empty()) return;
  auto fix = [&](json::value* v) {
    if (!v || !v->is_object()) return;
    for (auto& kv : v->get_object()) {
      if (kv.value().is_string() && kv.value().get_string() == kPendingUid) kv.value() = json::string(uid);
    }
  };
  if (auto* spec = job.if_contains("spec"); spec && spec->is_object()) {
    auto& s = spec->get_object();
    if (auto* sel = s.if_contains("selector"); sel && sel->is_object()) fix(sel->get_object().if_contains("matchLabels"));
    if (auto* t = s.if_contains("template"); t && t->is_object()) {
      if (auto* md = t->get_object().if_contains("metadata"); md && md->is_object()) {
        fix(md->get_object().if_contains("labels"));
      }
    }
  }
  if (auto* md = job.if_contains("metadata"); md && md->is_object()) fix(md->get_object().if_contains("labels"));
}

std::string GoQuotedList(const std::vector<std::string>& v) {
  std::vector<std::string> q;
  for (const auto& s : v) q.push_back(GoQuote(s));
  return "[" + Join(q, " ") + "]";
}

std::string GoInt32Slice(const json::value* v) {
  if (!v || !v->is_array()) return "[]int32(nil)";
  std::vector<std::string> parts;
  for (const auto& x : v->get_array()) parts.push_back(std::to_string(x.is_int64() ? x.get_int64() : 0));
  return "[]int32{" + Join(parts, ", ") + "}";
}

void ValidateOnExitCodes(const Object& req, const FieldPath& p, const std::set<std::string>& containers, ErrorList& errs) {
  std::string op = StringAt(req, "operator");
  if (op.empty()) {
    errs.push_back(RequiredError(p.Child("operator"), "valid values: " + GoQuotedList({"In", "NotIn"})));
  } else if (op != "In" && op != "NotIn") {
    errs.push_back(NotSupportedError(p.Child("operator"), op, {"In", "NotIn"}));
  }
  if (const auto* cn = req.if_contains("containerName"); cn && cn->is_string() && !containers.count(std::string(cn->get_string()))) {
    errs.push_back(InvalidError(p.Child("containerName"), std::string(cn->get_string()),
                                "must be one of the container or initContainer names in the pod template"));
  }
  FieldPath vp = p.Child("values");
  const json::value* values = req.if_contains("values");
  size_t n = values && values->is_array() ? values->get_array().size() : 0;
  if (n == 0) {
    errs.push_back(InvalidRendered(vp, GoInt32Slice(values), "at least one value is required"));
  } else if (n > 255) {
    errs.push_back(TooManyError(vp, static_cast<int>(n), 255));
  }
  bool ordered = true;
  std::set<int64_t> seen;
  for (size_t j = 0; j < n; ++j) {
    const auto& x = values->get_array()[j];
    int64_t v = x.is_int64() ? x.get_int64() : 0;
    if (op == "In" && v == 0) errs.push_back(InvalidError(vp.Index(j), v, "must not be 0 for the In operator"));
    if (!seen.insert(v).second) errs.push_back(DuplicateError(vp.Index(j), v));
    if (j > 0) {
      const auto& prev = values->get_array()[j - 1];
      if ((prev.is_int64() ? prev.get_int64() : 0) > v) ordered = false;
    }
  }
  if (!ordered) errs.push_back(InvalidRendered(vp, GoInt32Slice(values), "must be ordered"));
}

void ValidatePodFailurePolicy(const Object& spec, const FieldPath& p, ErrorList& errs) {
  const Object* pfp = ObjectAt(spec, "podFailurePolicy");
  const json::array* rules = pfp ? ArrayAt(*pfp, "rules") : nullptr;
  FieldPath rp = p.Child("rules");
  if (rules && rules->size() > 20) errs.push_back(TooManyError(rp, static_cast<int>(rules->size()), 20));
  std::set<std::string> containers;
  const Object& pod = apps::TemplatePodSpec(spec);
  for (const char* key : {"containers", "initContainers"}) {
    if (const auto* cs = ArrayAt(pod, key)) {
      for (const auto& c : *cs) {
        if (c.is_object()) containers.insert(StringAt(c.get_object(), "name"));
      }
    }
  }
  if (!rules) return;
  const std::vector<std::string> actions = {"Count", "FailIndex", "FailJob", "Ignore"};
  for (size_t i = 0; i < rules->size(); ++i) {
    if (!(*rules)[i].is_object()) continue;
    const Object& rule = (*rules)[i].get_object();
    FieldPath rule_path = rp.Index(i);
    std::string action = StringAt(rule, "action");
    if (action.empty()) {
      errs.push_back(RequiredError(rule_path.Child("action"), "valid values: " + GoQuotedList(actions)));
    } else if (action == "FailIndex") {
      if (!HasKey(spec, "backoffLimitPerIndex")) {
        errs.push_back(InvalidError(rule_path.Child("action"), action, "requires the backoffLimitPerIndex to be set"));
      }
    } else if (std::find(actions.begin(), actions.end(), action) == actions.end()) {
      errs.push_back(NotSupportedError(rule_path.Child("action"), action, actions));
    }
    const Object* on_exit = ObjectAt(rule, "onExitCodes");
    if (on_exit) ValidateOnExitCodes(*on_exit, rule_path.Child("onExitCodes"), containers, errs);
    const json::array* conds = ArrayAt(rule, "onPodConditions");
    if (conds && !conds->empty()) {
      FieldPath cp = rule_path.Child("onPodConditions");
      if (conds->size() > 20) errs.push_back(TooManyError(cp, static_cast<int>(conds->size()), 20));
      for (size_t j = 0; j < conds->size(); ++j) {
        if (!(*conds)[j].is_object()) continue;
        const Object& c = (*conds)[j].get_object();
        std::string type = StringAt(c, "type");
        for (const auto& m : am::IsQualifiedName(type)) errs.push_back(InvalidError(cp.Index(j).Child("type"), type, m));
        std::string status = StringAt(c, "status");
        if (status.empty()) {
          errs.push_back(RequiredError(cp.Index(j).Child("status"), "valid values: " + GoQuotedList({"False", "True", "Unknown"})));
        } else if (status != "False" && status != "True" && status != "Unknown") {
          errs.push_back(NotSupportedError(cp.Index(j).Child("status"), status, {"False", "True", "Unknown"}));
        }
      }
    }
    bool has_conds = conds && !conds->empty();
    if (on_exit && has_conds) {
      FieldError e = InvalidError(rule_path, "", "specifying both OnExitCodes and OnPodConditions is not supported");
      e.omit_value = true;
      errs.push_back(std::move(e));
    }
    if (!on_exit && !has_conds) {
      FieldError e = InvalidError(rule_path, "", "specifying one of OnExitCodes and OnPodConditions is required");
      e.omit_value = true;
      errs.push_back(std::move(e));
    }
  }
}

std::string GoCompletionMode(const json::value* v) {
  // kube passes the *CompletionMode pointer; the error prints the string it points to.
  return GoQuote(v && v->is_string() ? std::string_view(v->get_string()) : "");
}

}  // namespace

ErrorList ValidateJobSpecCommon(const Object& spec, const FieldPath& p) {
  ErrorList errs;
  for (const char* f : {"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished",
                        "backoffLimitPerIndex"}) {
    CheckNonnegative(spec, f, p.Child(f), errs);
  }
  auto parallelism = OptInt(&spec, "parallelism");
  auto completions = OptInt(&spec, "completions");
  auto max_failed = OptInt(&spec, "maxFailedIndexes");
  const bool per_index = HasKey(spec, "backoffLimitPerIndex");
  if (max_failed) {
    CheckNonnegative(spec, "maxFailedIndexes", p.Child("maxFailedIndexes"), errs);
    if (!per_index) errs.push_back(RequiredError(p.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"));
  }
  const json::value* mode_v = spec.if_contains("completionMode");
  std::string mode = mode_v && mode_v->is_string() ? std::string(mode_v->get_string()) : "";
  if (mode_v && !mode_v->is_null()) {
    if (mode != "NonIndexed" && mode != "Indexed") {
      FieldError e = NotSupportedError(p.Child("completionMode"), "", {"NonIndexed", "Indexed"});
      e.omit_value = true;
      e.detail = GoCompletionMode(mode_v) + ": " + e.detail;
      errs.push_back(std::move(e));
    }
    if (mode == "Indexed") {
      if (!completions) errs.push_back(RequiredError(p.Child("completions"), "when completion mode is Indexed"));
      if (parallelism && *parallelism > kMaxParallelismForIndexedJob) {
        errs.push_back(InvalidError(p.Child("parallelism"), *parallelism,
                                    "must be less than or equal to 100000 when completion mode is Indexed"));
      }
      if (completions && max_failed && *max_failed > *completions) {
        errs.push_back(InvalidError(p.Child("maxFailedIndexes"), *max_failed, "must be less than or equal to completions"));
      }
      if (max_failed && *max_failed > kMaxFailedIndexesForIndexedJob) {
        errs.push_back(InvalidError(p.Child("maxFailedIndexes"), *max_failed, "must be less than or equal to 100000"));
      }
      if (completions && *completions > kCompletionsSoftLimit && per_index) {
        if (!max_failed) {
          errs.push_back(RequiredError(p.Child("maxFailedIndexes"), "must be specified when completions is above 100000"));
        }
        if (parallelism && *parallelism > kParallelismLimitForHighCompletions) {
          errs.push_back(InvalidError(p.Child("parallelism"), *parallelism,
                                      "must be less than or equal to 10000 when completions are above 100000 and used "
                                      "with backoff limit per index"));
        }
        if (max_failed && *max_failed > kMaxFailedIndexesLimitForHighCompletions) {
          errs.push_back(InvalidError(p.Child("maxFailedIndexes"), *max_failed,
                                      "must be less than or equal to 10000 when completions are above 100000 and used "
                                      "with backoff limit per index"));
        }
      }
    }
  }
  if (mode.empty() || mode == "NonIndexed") {
    if (auto b = OptInt(&spec, "backoffLimitPerIndex")) {
      errs.push_back(InvalidError(p.Child("backoffLimitPerIndex"), *b, "requires indexed completion mode"));
    }
    if (max_failed) errs.push_back(InvalidError(p.Child("maxFailedIndexes"), *max_failed, "requires indexed completion mode"));
  }
  if (HasKey(spec, "podFailurePolicy")) ValidatePodFailurePolicy(spec, p.Child("podFailurePolicy"), errs);
  if (const auto* prp = spec.if_contains("podReplacementPolicy"); prp && prp->is_string()) {
    std::string v(prp->get_string());
    if (HasKey(spec, "podFailurePolicy")) {
      if (v != "Failed") errs.push_back(NotSupportedError(p.Child("podReplacementPolicy"), v, {"Failed"}));
    } else if (v != "Failed" && v != "TerminatingOrFailed") {
      errs.push_back(NotSupportedError(p.Child("podReplacementPolicy"), v, {"Failed", "TerminatingOrFailed"}));
    }
  }
  FieldPath tp = p.Child("template");
  for (auto& e : apps::ValidatePodTemplate(spec.if_contains("template"), tp)) errs.push_back(std::move(e));
  std::string restart = StringAt(apps::TemplatePodSpec(spec), "restartPolicy");
  FieldPath rp = tp.Child("spec").Child("restartPolicy");
  if (restart == "Always" || restart.empty()) {
    errs.push_back(RequiredError(rp, "valid values: \"OnFailure\", \"Never\""));
  } else if (restart != "OnFailure" && restart != "Never") {
    errs.push_back(NotSupportedError(rp, restart, {"OnFailure", "Never"}));
  } else if (HasKey(spec, "podFailurePolicy") && restart != "Never") {
    errs.push_back(InvalidError(rp, restart, "only \"Never\" is supported when podFailurePolicy is specified"));
  }
  return errs;
}

namespace {

// kube's ValidateHasLabel.
void ValidateHasLabel(const Object& spec, std::string_view key, const std::string& expected, ErrorList& errs) {
  FieldPath p = FieldPath("spec").Child("template").Child("metadata").Child("labels").Key(key);
  const json::value* labels = PathAt(spec, {"template", "metadata", "labels"});
  const json::value* v = labels && labels->is_object() ? labels->get_object().if_contains(key) : nullptr;
  if (!v) {
    errs.push_back(RequiredError(p, "must be '" + expected + "'"));
  } else if (!v->is_string() || v->get_string() != expected) {
    errs.push_back(InvalidRendered(p, apps::GoStringMap(labels), "must be '" + expected + "'"));
  }
}

ErrorList ValidateJob(const Object& job_in, bool require_prefixed_labels) {
  Object job = job_in;
  ResolvePendingUid(job);
  const Object& spec = Spec(job);
  ErrorList errs;
  // validateGeneratedSelector
  if (!BoolAt(spec, "manualSelector") && HasKey(spec, "selector")) {
    std::string uid(am::GetUid(job));
    std::string name(am::GetName(job));
    if (uid.empty()) errs.push_back(RequiredError(FieldPath("metadata").Child("uid"), ""));
    ValidateHasLabel(spec, kLegacyControllerUid, uid, errs);
    ValidateHasLabel(spec, kLegacyJobName, name, errs);
    json::object expected;
    if (require_prefixed_labels) {
      ValidateHasLabel(spec, kControllerUid, uid, errs);
      ValidateHasLabel(spec, kJobName, name, errs);
      expected[kControllerUid] = uid;
      expected[kJobName] = name;
    }
    expected[kLegacyControllerUid] = uid;
    expected[kLegacyJobName] = name;
    auto selector = am::LabelSelectorFromJson(spec.if_contains("selector"));
    if (selector.ok() && !selector->Matches(&expected)) {
      errs.push_back(InvalidRendered(FieldPath("spec").Child("selector"), apps::GoLabelSelector(spec.if_contains("selector")),
                                     "`selector` not auto-generated"));
    }
  }
  // ValidateJobSpec
  FieldPath p("spec");
  for (auto& e : ValidateJobSpecCommon(spec, p)) errs.push_back(std::move(e));
  const json::value* sel = spec.if_contains("selector");
  if (sel && sel->is_null()) sel = nullptr;
  if (!sel) {
    errs.push_back(RequiredError(p.Child("selector"), ""));
  } else {
    for (auto& e : am::ValidateLabelSelector(*sel, p.Child("selector"))) errs.push_back(std::move(e));
  }
  auto selector = am::LabelSelectorFromJson(sel);
  const json::value* labels = apps::TemplateLabels(spec);
  if (selector.ok() && !selector->Matches(labels && labels->is_object() ? &labels->get_object() : nullptr)) {
    errs.push_back(InvalidRendered(p.Child("template").Child("metadata").Child("labels"), apps::GoStringMap(labels),
                                   "`selector` does not match template `labels`"));
  }
  if (StringAt(spec, "completionMode") == "Indexed") {
    if (auto c = OptInt(&spec, "completions"); c && *c > 0) {
      std::string host = std::string(am::GetName(job)) + "-" + std::to_string(*c - 1);
      if (!am::IsDNS1123Label(host).empty()) {
        errs.push_back(InvalidError(FieldPath("metadata").Child("name"), am::GetName(job),
                                    "will not able to create pod with invalid DNS label: " + host));
      }
    }
  }
  return errs;
}

bool HasPrefixedLabels(const Object& job) {
  const json::value* labels = PathAt(job, {"spec", "template", "metadata", "labels"});
  return labels && labels->is_object() && labels->get_object().contains(kJobName) &&
         labels->get_object().contains(kControllerUid);
}

std::string ImmutableValue(const json::value* v) {
  if (!v || v->is_null()) return "\"null\"";
  if (v->is_int64()) return std::to_string(v->get_int64());
  if (v->is_string()) return GoQuote(std::string_view(v->get_string()));
  return json::serialize(*v);
}

void ValidateImmutable(const Object& spec, const Object& old_spec, std::string_view key, ErrorList& errs) {
  const json::value* now = spec.if_contains(key);
  const json::value* before = old_spec.if_contains(key);
  if ((now ? *now : json::value()) == (before ? *before : json::value())) return;
  errs.push_back(InvalidRendered(FieldPath("spec").Child(key), ImmutableValue(now), am::kFieldImmutableErrorMsg));
}

// kube's validatePodTemplateUpdate: the template is immutable, except its scheduling directives,
// labels and annotations while the job is suspended and has never started.
void ValidateTemplateUpdate(const Object& job, const Object& old, ErrorList& errs) {
  const Object& spec = Spec(job);
  const Object& old_spec = Spec(old);
  json::value now = spec.contains("template") ? spec.at("template") : json::value();
  json::value before = old_spec.contains("template") ? old_spec.at("template") : json::value();
  const Object* old_status = ObjectAt(old, "status");
  bool mutable_scheduling = BoolAt(old_spec, "suspend") && !(old_status && HasKey(*old_status, "startTime"));
  if (mutable_scheduling && now.is_object() && before.is_object()) {
    json::object& b = before.get_object();
    const json::object& n = now.get_object();
    json::object& bmd = ChildObject(b, "metadata");
    const json::value* nmd = n.if_contains("metadata");
    for (const char* k : {"labels", "annotations"}) {
      const json::value* x = nmd && nmd->is_object() ? nmd->get_object().if_contains(k) : nullptr;
      if (x) {
        bmd[k] = *x;
      } else {
        bmd.erase(k);
      }
    }
    json::object& bs = ChildObject(b, "spec");
    const json::value* ns = n.if_contains("spec");
    for (const char* k : {"nodeSelector", "tolerations", "schedulingGates"}) {
      const json::value* x = ns && ns->is_object() ? ns->get_object().if_contains(k) : nullptr;
      if (x) {
        bs[k] = *x;
      } else {
        bs.erase(k);
      }
    }
    // Node affinity may change; other affinity may not.
    const json::value* na = ns && ns->is_object() ? PathAt(ns->get_object(), {"affinity", "nodeAffinity"}) : nullptr;
    if (na || bs.contains("affinity")) {
      json::object& ba = ChildObject(bs, "affinity");
      if (na) {
        ba["nodeAffinity"] = *na;
      } else {
        ba.erase("nodeAffinity");
      }
      const json::value* naff = ns && ns->is_object() ? ns->get_object().if_contains("affinity") : nullptr;
      if (ba.empty() && !naff) bs.erase("affinity");
    }
  }
  if (now != before) {
    errs.push_back(InvalidRendered(FieldPath("spec").Child("template"), "core.PodTemplateSpec" + json::serialize(now),
                                   am::kFieldImmutableErrorMsg));
  }
}

ErrorList ValidateJobStatus(const Object& job, const Object&) {
  const Object* st = ObjectAt(job, "status");
  const Object& s = st ? *st : kEmpty;
  FieldPath p("status");
  ErrorList errs;
  for (const char* f : {"active", "succeeded", "failed", "ready", "terminating"}) CheckNonnegative(s, f, p.Child(f), errs);
  if (const Object* u = ObjectAt(s, "uncountedTerminatedPods")) {
    std::set<std::string> seen;
    for (const char* key : {"succeeded", "failed"}) {
      const json::array* list = ArrayAt(*u, key);
      if (!list) continue;
      for (size_t i = 0; i < list->size(); ++i) {
        std::string uid = (*list)[i].is_string() ? std::string((*list)[i].get_string()) : "";
        FieldPath ip = p.Child("uncountedTerminatedPods").Child(key).Index(i);
        if (uid.empty()) {
          errs.push_back(InvalidError(ip, uid, "must not be empty"));
        } else if (!seen.insert(uid).second) {
          errs.push_back(DuplicateError(ip, uid));
        }
      }
    }
  }
  return errs;
}

bool HasCondition(const Object& job, std::string_view type) {
  const json::value* conds = PathAt(job, {"status", "conditions"});
  if (!conds || !conds->is_array()) return false;
  for (const auto& c : conds->get_array()) {
    if (c.is_object() && StringAt(c.get_object(), "type") == type && StringAt(c.get_object(), "status") == "True") {
      return true;
    }
  }
  return false;
}

class JobStrategy : public registry::DefaultStrategy {
 public:
  explicit JobStrategy(const Clock* clock) : DefaultStrategy(Options{.has_status = true, .track_generation = true}), clock_(clock) {}

  void PrepareForCreate(const registry::Context& ctx, Object& job) const override {
    DefaultJob(job);
    GenerateSelector(job);
    // kube defaults again when it reads the stored job back: labels from the (generated) template.
    CopyTemplateLabelsIfEmpty(job);
    DefaultStrategy::PrepareForCreate(ctx, job);
  }
  void PrepareForUpdate(const registry::Context& ctx, Object& job, const Object& old) const override {
    DefaultJob(job);
    DefaultStrategy::PrepareForUpdate(ctx, job, old);
  }
  void Canonicalize(Object& job) const override { ResolvePendingUid(job); }

  ErrorList Validate(const registry::Context&, const Object& job) const override { return ValidateJob(job, true); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& job, const Object& old) const override {
    ErrorList errs = ValidateJob(job, HasPrefixedLabels(old));
    const Object& spec = Spec(job);
    const Object& old_spec = Spec(old);
    ValidateImmutable(spec, old_spec, "completions", errs);
    for (auto& e : apps::ValidateImmutableSelector(spec, old_spec, FieldPath("spec").Child("selector"))) {
      errs.push_back(std::move(e));
    }
    ValidateTemplateUpdate(job, old, errs);
    ValidateImmutable(spec, old_spec, "completionMode", errs);
    ValidateImmutable(spec, old_spec, "podFailurePolicy", errs);
    ValidateImmutable(spec, old_spec, "backoffLimitPerIndex", errs);
    return errs;
  }
  std::vector<std::string> WarningsOnCreate(const registry::Context&, const Object& job) const override {
    auto problems = am::IsDNS1123Label(am::GetName(job));
    if (problems.empty()) return {};
    return {"metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS "
            "label is recommended: [" +
            Join(problems, " ") + "]"};
  }

  // batch/v1 keeps orphaning the pods of a deleted job unless the client asks otherwise.
  std::string DefaultGarbageCollectionPolicy() const override { return "Orphan"; }

  // batch/v1's own conversion function words it so.
  std::string UnsupportedFieldLabelMessage(std::string_view f) const override {
    return "field label " + GoQuote(f) + " not supported for Job";
  }
  std::vector<std::string> SelectableFieldNames() const override {
    return {"metadata.name", "metadata.namespace", "status.successful"};
  }
  am::FieldSet SelectableFields(const Object& job) const override {
    am::FieldSet f = DefaultStrategy::SelectableFields(job);
    const Object* st = ObjectAt(job, "status");
    f["status.successful"] = std::to_string(st ? IntAt(*st, "succeeded") : 0);
    return f;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Status", "string", "", "Status of the job.", 0},
            {"Completions", "string", "",
             "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. "
             "However, it may decrease in reaction to scale down of elastic indexed jobs.",
             0},
            {"Duration", "string", "", "Time required to complete the job.", 0},
            registry::AgeColumn(),
            {"Containers", "string", "", "Names of each container in the template.", 1},
            {"Images", "string", "", "Images referenced by each container in the template.", 1},
            {"Selector", "string", "",
             "A label query over pods that should match the pod count. Normally, the system sets this field for you. "
             "More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
             1}};
  }
  json::array TableCells(const Object& job) const override {
    const Object& spec = Spec(job);
    const Object* st = ObjectAt(job, "status");
    const Object& status = st ? *st : kEmpty;
    int64_t succeeded = IntAt(status, "succeeded");
    std::string completions;
    if (auto c = OptInt(&spec, "completions")) {
      completions = std::to_string(succeeded) + "/" + std::to_string(*c);
    } else if (int64_t par = IntAt(spec, "parallelism"); par > 1) {
      completions = std::to_string(succeeded) + "/1 of " + std::to_string(par);
    } else {
      completions = std::to_string(succeeded) + "/1";
    }
    std::string duration;
    auto start = am::ParseRfc3339(StringAt(status, "startTime"));
    if (!StringAt(status, "startTime").empty() && start.ok()) {
      auto end = am::ParseRfc3339(StringAt(status, "completionTime"));
      auto end_tp = !StringAt(status, "completionTime").empty() && end.ok() ? end->ToTimePoint() : clock_->Now();
      duration = registry::HumanDuration(
          std::chrono::duration_cast<std::chrono::seconds>(end_tp - start->ToTimePoint()));
    }
    std::string state = "Running";
    if (HasCondition(job, "Complete")) {
      state = "Complete";
    } else if (HasCondition(job, "Failed")) {
      state = "Failed";
    } else if (am::GetDeletionTimestamp(job)) {
      state = "Terminating";
    } else if (HasCondition(job, "Suspended")) {
      state = "Suspended";
    } else if (HasCondition(job, "FailureTarget")) {
      state = "FailureTarget";
    }
    auto [names, images] = apps::ContainerCells(apps::TemplatePodSpec(spec));
    return {json::value(am::GetName(job)), json::value(state), json::value(completions), json::value(duration),
            json::value(AgeCell(job)),     json::value(names), json::value(images),
            json::value(apps::FormatLabelSelector(spec.if_contains("selector")))};
  }

 private:
  const Clock* clock_;
};

}  // namespace

std::vector<registry::RestResource> Jobs(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"batch", "v1", "jobs", "job", "Job", true, {}, {"all"}, "io.k8s.api.batch.v1.Job"});
  auto strategy = std::make_shared<JobStrategy>(deps.clock);
  spec.strategy = strategy;
  auto out = registry::MakeResource(deps, spec);
  apps::AddStatus(out, std::make_shared<apps::WorkloadStatusStrategy>(strategy, false, ValidateJobStatus));
  return out;
}

}  // namespace capstan::api::batch
