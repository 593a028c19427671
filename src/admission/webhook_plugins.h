// admission/webhook_plugins.h: MutatingAdmissionWebhook and ValidatingAdmissionWebhook.
//
// The mutating plugin calls each matching mutating webhook in order (configurations by name, then
// list order), one at a time, and applies each JSONPatch answer to the object before the next call;
// it records kube's audit annotations ("mutation.webhook.admission.k8s.io/round_R_index_I" with
// {"configuration","webhook","mutated"} at Metadata, "patch.webhook.admission.k8s.io/..." with the
// patch at Request level) and, when a later webhook changed the object, calls the webhooks with
// reinvocationPolicy IfNeeded that ran before it once more (round 1).
// The validating plugin calls every matching validating webhook concurrently and fails the request
// with the first refusal in webhook order.
// Either way a call that fails follows the webhook's failurePolicy: Fail answers 500 "Internal error
// occurred: failed calling webhook ...", Ignore goes on and records the
// "failed-open.{mutation,validating}.webhook.admission.k8s.io/round_0_index_I" annotation.
// Thread-safety: thread-safe.
#pragma once

#include <memory>

#include "admission/plugin.h"
#include "admission/webhook_caller.h"
#include "admission/webhook_source.h"

namespace capstan::admission {

class MutatingWebhookPlugin : public Plugin {
 public:
  MutatingWebhookPlugin(std::shared_ptr<WebhookSource> source, std::shared_ptr<WebhookCaller> caller)
      : source_(std::move(source)), caller_(std::move(caller)) {}
  std::string Name() const override { return "MutatingAdmissionWebhook"; }
  bool Handles(const std::string& op) const override { return op != ""; }
  bool Mutating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;

 private:
  std::shared_ptr<WebhookSource> source_;
  std::shared_ptr<WebhookCaller> caller_;
};

class ValidatingWebhookPlugin : public Plugin {
 public:
  ValidatingWebhookPlugin(std::shared_ptr<WebhookSource> source, std::shared_ptr<WebhookCaller> caller)
      : source_(std::move(source)), caller_(std::move(caller)) {}
  std::string Name() const override { return "ValidatingAdmissionWebhook"; }
  bool Handles(const std::string& op) const override { return op != ""; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;

 private:
  std::shared_ptr<WebhookSource> source_;
  std::shared_ptr<WebhookCaller> caller_;
};

}  // namespace capstan::admission
