#include "admission/webhook_plugins.h"

#include <boost/json.hpp>
#include <mutex>

#include "apimachinery/errors.h"
#include "apimachinery/json_parse.h"
#include "apimachinery/json_patch.h"
#include "apimachinery/json_write.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

constexpr char kMutationPrefix[] = "mutation.webhook.admission.k8s.io/";
constexpr char kPatchPrefix[] = "patch.webhook.admission.k8s.io/";
constexpr char kMutationFailedOpenPrefix[] = "failed-open.mutation.webhook.admission.k8s.io/";
constexpr char kValidatingFailedOpenPrefix[] = "failed-open.validating.webhook.admission.k8s.io/";

std::string Slot(int round, size_t index) {
  return "round_" + std::to_string(round) + "_index_" + std::to_string(index);
}

// The object a webhook sees: none for DELETE (the old object carries it), as kube.
const registry::Object* ReviewObject(const Attributes& a) { return a.operation == "DELETE" ? nullptr : a.object; }

// Runs the calls concurrently; resumes with every outcome, in input order.
Task<std::vector<CallOutcome>> CallAll(std::vector<Task<CallOutcome>> tasks) {
  struct State {
    std::mutex mu;
    std::vector<CallOutcome> results;
    size_t remaining = 0;
    std::function<void(int)> done;
  };
  auto st = std::make_shared<State>();
  st->results.resize(tasks.size());
  st->remaining = tasks.size();
  if (tasks.empty()) co_return std::vector<CallOutcome>();
  co_await Await<int>([st, &tasks](std::function<void(int)> done) {
    st->done = std::move(done);
    for (size_t i = 0; i < tasks.size(); ++i) {
      SpawnThen(std::move(tasks[i]), [st, i](CallOutcome o) {
        bool last = false;
        {
          std::lock_guard lock(st->mu);
          st->results[i] = std::move(o);
          last = --st->remaining == 0;
        }
        if (last) st->done(0);
      });
    }
  });
  co_return std::move(st->results);
}

}  // namespace

Task<Status> MutatingWebhookPlugin::Admit(Attributes& a) {
  auto hooks = co_await source_->Webhooks(true);
  if (!hooks.ok()) co_return am::NewInternalError(hooks.status().message());
  if ((*hooks)->empty()) co_return Status();
  RequestScope* scope = a.scope;
  std::vector<size_t> reinvocable;  // IfNeeded webhooks called before the latest change
  bool reinvoke = false;
  for (int round = 0; round < 2; ++round) {
    if (round == 1 && !reinvoke) break;
    std::vector<size_t> order;
    if (round == 0) {
      for (size_t i = 0; i < (*hooks)->size(); ++i) order.push_back(i);
    } else {
      order = reinvocable;
    }
    std::vector<size_t> called_if_needed;
    for (size_t i : order) {
      const Webhook& w = (**hooks)[i];
      auto should = co_await caller_->ShouldCall(w, a);
      if (!should.ok()) co_return should.status();
      if (!*should) continue;
      CallOutcome out = co_await caller_->Call(w, a, ReviewObject(a));
      bool changed = false;
      if (out.kind == CallOutcome::kCallError) {
        if (w.failure_policy != "Ignore") co_return CallErrorToStatus(out.status);
        caller_->CountFailOpen(w);
        if (scope) scope->AddAnnotation(kMutationFailedOpenPrefix + Slot(round, i), w.name);
      } else if (out.kind == CallOutcome::kRejected) {
        co_return out.status;
      } else if (!out.review.patch.empty()) {
        auto ops = am::ParseJsonValue(out.review.patch);
        if (!ops.ok() || !ops->is_array()) {
          Status st = Status(500, "InternalError", "failed calling webhook \"" + w.name +
                                                       "\": received undecodable patch in webhook response");
          if (w.failure_policy != "Ignore") co_return CallErrorToStatus(st);
          if (scope) scope->AddAnnotation(kMutationFailedOpenPrefix + Slot(round, i), w.name);
        } else if (!ops->as_array().empty()) {
          if (!a.object || a.operation == "DELETE") {
            co_return am::NewInternalError("admission webhook \"" + w.name +
                                           "\" attempted to modify the object, which is not supported for this operation");
          }
          auto patched = am::ApplyJsonPatch(json::value(*a.object), out.review.patch);
          if (!patched.ok()) co_return am::NewInternalError(patched.status().message());
          if (!patched->is_object()) co_return am::NewInternalError("the patched object is not an object");
          changed = patched->as_object() != *a.object;
          *a.object = std::move(patched->as_object());
          if (scope) {
            json::object pa;
            pa["configuration"] = w.configuration;
            pa["webhook"] = w.name;
            pa["patch"] = std::move(*ops);
            pa["patchType"] = "JSONPatch";
            scope->AddAnnotation(kPatchPrefix + Slot(round, i), am::ToJson(pa), AuditLevel::kRequest);
          }
        }
      }
      if (scope && out.kind != CallOutcome::kCallError) {
        json::object ma;
        ma["configuration"] = w.configuration;
        ma["webhook"] = w.name;
        ma["mutated"] = changed;
        scope->AddAnnotation(kMutationPrefix + Slot(round, i), am::ToJson(ma));
      }
      if (round == 0) {
        if (changed && !called_if_needed.empty()) {
          reinvoke = true;
          reinvocable = called_if_needed;
        }
        if (w.reinvocation_policy == "IfNeeded") called_if_needed.push_back(i);
      }
    }
  }
  co_return Status();
}

Task<Status> ValidatingWebhookPlugin::Validate(const Attributes& a) {
  auto hooks = co_await source_->Webhooks(false);
  if (!hooks.ok()) co_return am::NewInternalError(hooks.status().message());
  if ((*hooks)->empty()) co_return Status();
  std::vector<size_t> relevant;
  for (size_t i = 0; i < (*hooks)->size(); ++i) {
    auto should = co_await caller_->ShouldCall((**hooks)[i], a);
    if (!should.ok()) co_return should.status();
    if (*should) relevant.push_back(i);
  }
  if (relevant.empty()) co_return Status();
  std::vector<Task<CallOutcome>> calls;
  for (size_t i : relevant) calls.push_back(caller_->Call((**hooks)[i], a, ReviewObject(a)));
  std::vector<CallOutcome> outcomes = co_await CallAll(std::move(calls));
  RequestScope* scope = a.scope;
  Status first;
  for (size_t k = 0; k < relevant.size(); ++k) {
    const Webhook& w = (**hooks)[relevant[k]];
    CallOutcome& out = outcomes[k];
    if (out.kind == CallOutcome::kAllowed) continue;
    if (out.kind == CallOutcome::kCallError && w.failure_policy == "Ignore") {
      caller_->CountFailOpen(w);
      if (scope) scope->AddAnnotation(kValidatingFailedOpenPrefix + Slot(0, k), w.name);  // kube: index among the matching
      continue;
    }
    if (first.ok()) first = out.kind == CallOutcome::kCallError ? CallErrorToStatus(out.status) : out.status;
  }
  co_return first;
}

}  // namespace capstan::admission
