#include "controllers/rootcacert/publisher.h"

#include <boost/json.hpp>

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "controllers/selection.h"
#include "util/log.h"

namespace capstan::controllers {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

const Gvr kConfigMaps{"", "v1", "configmaps"};

bool Active(const Object& ns) {
  return !am::GetDeletionTimestamp(ns) && JsonString(ns, {"status", "phase"}) != "Terminating";
}

}  // namespace

std::string_view RootCAPublisher::Name() const { return kRootCACertificatePublisherController; }

void RootCAPublisher::Start(ControllerContext& ctx) {
  client_ = &ctx.client();
  queue_ = &ctx.NewQueue("root_ca_cert_publisher");
  InformerOptions ns;
  ns.gvr = {"", "v1", "namespaces"};
  namespaces_ = &ctx.SharedInformer(ns);
  InformerOptions cm;
  cm.gvr = kConfigMaps;
  cm.field_selector = "metadata.name=" + std::string(kRootCACertConfigMapName);
  configmaps_ = &ctx.SharedInformer(cm);

  namespaces_->AddHandler(EventHandler{
      [this](const Object& o) { queue_->Add(std::string(am::GetName(o))); },
      [this](const Object&, const Object& o) {
        if (Active(o)) queue_->Add(std::string(am::GetName(o)));
      },
      nullptr});
  auto cm_changed = [this](const Object& o) {
    if (am::GetName(o) != kRootCACertConfigMapName) return;
    queue_->Add(std::string(am::GetNamespace(o)));
  };
  configmaps_->AddHandler(EventHandler{nullptr, [cm_changed](const Object&, const Object& o) { cm_changed(o); }, cm_changed});
  ctx.scope().Spawn(Run(ctx));
}

Task<void> RootCAPublisher::Run(ControllerContext& ctx) {
  if (!co_await namespaces_->WaitForSync() || !co_await configmaps_->WaitForSync()) co_return;
  LogInfo("Starting controller", {{"controller", std::string(kRootCACertificatePublisherController)}});
  WorkerOptions wo;
  wo.controller = std::string(kRootCACertificatePublisherController);
  wo.workers = opts_.workers;
  RunWorkers(ctx, *queue_, wo, [this](const std::string& key) { return Sync(key); });
}

Task<SyncResult> RootCAPublisher::Sync(const std::string& ns) {
  const Object* nsobj = namespaces_->Get("", ns);
  if (!nsobj || !Active(*nsobj)) co_return SyncResult::Ok();
  const std::string name(kRootCACertConfigMapName);
  const Object* cm = configmaps_->Get(ns, name);
  if (!cm) {
    Object fresh;
    json::object md;
    md["name"] = name;
    json::object ann;
    ann[kDescriptionAnnotation] = kRootCADescription;
    md["annotations"] = std::move(ann);
    fresh["metadata"] = std::move(md);
    json::object data;
    data["ca.crt"] = opts_.root_ca_pem;
    fresh["data"] = std::move(data);
    auto r = co_await client_->Create(kConfigMaps, ns, std::move(fresh));
    // Created meanwhile (the cache lags): the update event brings it back here if it differs.
    if (r.ok() || am::IsAlreadyExists(r.status()) || am::IsNotFound(r.status())) co_return SyncResult::Ok();
    co_return SyncResult::Retry(r.TakeStatus());
  }

  auto matches = [this](const Object& o) {
    const json::value* data = o.if_contains("data");
    bool data_ok = data && data->is_object() && data->get_object().size() == 1 &&
                   data->get_object().contains("ca.crt") && data->get_object().at("ca.crt").is_string() &&
                   data->get_object().at("ca.crt").get_string() == opts_.root_ca_pem;
    bool annotated = !JsonString(o, {"metadata", "annotations", kDescriptionAnnotation}).empty();
    return data_ok && annotated;
  };
  if (matches(*cm)) co_return SyncResult::Ok();
  Object next = *cm;
  json::object data;
  data["ca.crt"] = opts_.root_ca_pem;
  next["data"] = std::move(data);
  am::SetAnnotation(next, kDescriptionAnnotation, kRootCADescription);
  auto r = co_await client_->Update(kConfigMaps, ns, std::move(next));
  if (r.ok() || am::IsNotFound(r.status())) co_return SyncResult::Ok();
  co_return SyncResult::Retry(r.TakeStatus());
}

}  // namespace capstan::controllers
