#include "admission/priority.h"

#include <boost/json.hpp>

#include "admission/default_toleration_seconds.h"
#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

constexpr char kPreemptLowerPriority[] = "PreemptLowerPriority";

std::string Str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

int64_t ValueOf(const json::object& pc) {
  const json::value* v = pc.if_contains("value");
  return v && v->is_int64() ? v->as_int64() : 0;
}

std::string PolicyOf(const json::object& pc) {
  std::string p = Str(pc, "preemptionPolicy");
  return p.empty() ? kPreemptLowerPriority : p;
}

}  // namespace

Task<Status> PriorityPlugin::Admit(Attributes& a) {
  if (!IsPod(a) || !a.object) co_return Status();
  json::value* spec_v = a.object->if_contains("spec");
  if (!spec_v || !spec_v->is_object()) co_return Status();
  json::object& spec = spec_v->as_object();
  if (a.operation == "UPDATE") {
    if (!a.old_object) co_return Status();
    const json::value* old_spec = a.old_object->if_contains("spec");
    if (!old_spec || !old_spec->is_object()) co_return Status();
    for (std::string_view field : {"priority", "preemptionPolicy"}) {
      const json::value* old_v = old_spec->get_object().if_contains(field);
      const json::value* new_v = spec.if_contains(field);
      if ((!new_v || new_v->is_null()) && old_v && !old_v->is_null()) spec[field] = *old_v;
    }
    co_return Status();
  }
  if (a.operation != "CREATE") co_return Status();
  std::string name = Str(spec, "priorityClassName");
  int64_t priority = 0;
  std::string policy = kPreemptLowerPriority;
  if (name.empty()) {
    auto classes = co_await list_("scheduling.k8s.io", "v1", "priorityclasses", "");
    if (!classes.ok() && classes.status().code() != 404) co_return am::NewInternalError(classes.status().message());
    if (classes.ok()) {
      // The default class; kube takes the one with the lowest value when several claim it.
      const json::object* chosen = nullptr;
      for (const auto& pc : *classes) {
        const json::value* gd = pc.if_contains("globalDefault");
        if (!gd || !gd->is_bool() || !gd->as_bool()) continue;
        if (!chosen || ValueOf(pc) < ValueOf(*chosen)) chosen = &pc;
      }
      if (chosen) {
        name = std::string(am::GetName(*chosen));
        priority = ValueOf(*chosen);
        policy = PolicyOf(*chosen);
        spec["priorityClassName"] = name;
      }
    }
  } else {
    auto pc = co_await get_("scheduling.k8s.io", "v1", "priorityclasses", "", name);
    if (!pc.ok()) {
      if (pc.status().code() == 404) co_return ForbiddenFor(a, "no PriorityClass with name " + name + " was found");
      co_return am::NewInternalError("failed to get PriorityClass with name " + name + ": " + pc.status().message());
    }
    priority = ValueOf(*pc);
    policy = PolicyOf(*pc);
  }
  if (const json::value* p = spec.if_contains("priority"); p && !p->is_null()) {
    if (!p->is_int64() || p->as_int64() != priority) {
      co_return ForbiddenFor(a, "the integer value of priority (" + (p->is_int64() ? std::to_string(p->as_int64()) : "?") +
                                    ") must not be provided in pod spec; priority admission controller computed " +
                                    std::to_string(priority) + " from the given PriorityClass name");
    }
  }
  spec["priority"] = priority;
  if (std::string given = Str(spec, "preemptionPolicy"); !given.empty() && given != policy) {
    co_return ForbiddenFor(a, "the string value of PreemptionPolicy (" + given +
                                  ") must not be provided in pod spec; priority admission controller computed " + policy +
                                  " from the given PriorityClass name");
  }
  spec["preemptionPolicy"] = policy;
  co_return Status();
}

}  // namespace capstan::admission
