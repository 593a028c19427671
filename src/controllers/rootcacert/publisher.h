// controllers/rootcacert/publisher.h: kube's root-ca-certificate-publisher-controller: every active
// namespace has the ConfigMap `kube-root-ca.crt` whose data is exactly {"ca.crt": <cluster CA PEM>}
// with the kubernetes.io/description annotation, so pods can verify the API server.
//
// Namespaces are queued when added, when updated while Active, and when their kube-root-ca.crt is
// updated or deleted (the ConfigMap informer is restricted to that name). A sync creates the
// ConfigMap when it is missing, or rewrites its data and annotation when they differ (a changed CA
// is published at the next sync of each namespace: at start, every namespace is synced). A
// namespace that is not Active is left alone (Capstan has no NamespaceLifecycle admission yet to
// refuse creates in terminating namespaces). Queue: "root_ca_cert_publisher", kube's default rate
// limiter. Thread-safety: loop-thread only.
#pragma once

#include <string>

#include "controllers/controller.h"

namespace capstan::controllers {

inline constexpr std::string_view kRootCACertConfigMapName = "kube-root-ca.crt";
inline constexpr std::string_view kDescriptionAnnotation = "kubernetes.io/description";
inline constexpr std::string_view kRootCADescription =
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the "
    "internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes "
    "clusters.";

struct RootCAPublisherOptions {
  std::string root_ca_pem;
  int workers = 5;
};

class RootCAPublisher : public Controller {
 public:
  explicit RootCAPublisher(RootCAPublisherOptions opts) : opts_(std::move(opts)) {}
  std::string_view Name() const override;
  void Start(ControllerContext& ctx) override;

 private:
  Task<void> Run(ControllerContext& ctx);
  Task<SyncResult> Sync(const std::string& ns);

  RootCAPublisherOptions opts_;
  ApiClient* client_ = nullptr;
  Informer* namespaces_ = nullptr;
  Informer* configmaps_ = nullptr;
  WorkQueue* queue_ = nullptr;
};

}  // namespace capstan::controllers
