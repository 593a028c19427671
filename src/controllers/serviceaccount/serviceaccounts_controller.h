// controllers/serviceaccount/serviceaccounts_controller.h: kube's serviceaccount-controller: every
// active namespace has the service accounts it should (`default`), recreated when deleted.
//
// Namespaces are queued when added or updated while Active, and when one of the ensured service
// accounts is deleted. A sync looks the namespace up in the cache (gone or not Active: nothing to
// do, so a terminating namespace is not refilled) and creates each missing account; AlreadyExists
// and a namespace that went away meanwhile are success. Queue: "serviceaccount", kube's default
// rate limiter, 5 workers. Thread-safety: loop-thread only.
#pragma once

#include <string>
#include <vector>

#include "controllers/controller.h"

namespace capstan::controllers {

struct ServiceAccountsControllerOptions {
  std::vector<std::string> service_accounts = {"default"};
  int workers = 5;
};

class ServiceAccountsController : public Controller {
 public:
  explicit ServiceAccountsController(ServiceAccountsControllerOptions opts = {}) : opts_(std::move(opts)) {}
  std::string_view Name() const override;
  void Start(ControllerContext& ctx) override;

 private:
  Task<void> Run(ControllerContext& ctx);
  Task<SyncResult> Sync(const std::string& ns);

  ServiceAccountsControllerOptions opts_;
  ApiClient* client_ = nullptr;
  Informer* namespaces_ = nullptr;
  Informer* accounts_ = nullptr;
  WorkQueue* queue_ = nullptr;
};

}  // namespace capstan::controllers
