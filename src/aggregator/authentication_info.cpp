#include "aggregator/authentication_info.h"

#include <boost/json.hpp>

#include "apimachinery/errors.h"
#include "apimachinery/json_write.h"
#include "registry/rest.h"

namespace capstan::aggregator {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

constexpr const char* kNamespace = "kube-system";
constexpr const char* kName = "extension-apiserver-authentication";

std::string JsonList(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.push_back(json::value(s));
  return json::serialize(a);
}

}  // namespace

json::object AuthenticationConfigMapData(const AuthenticationInfo& info) {
  json::object data;
  if (!info.client_ca_pem.empty()) data["client-ca-file"] = info.client_ca_pem;
  if (!info.requestheader_ca_pem.empty()) {
    data["requestheader-client-ca-file"] = info.requestheader_ca_pem;
    data["requestheader-allowed-names"] = JsonList(info.allowed_names);
    data["requestheader-username-headers"] = JsonList(info.username_headers);
    data["requestheader-group-headers"] = JsonList(info.group_headers);
    data["requestheader-extra-headers-prefix"] = JsonList(info.extra_headers_prefix);
    if (!info.uid_headers.empty()) data["requestheader-uid-headers"] = JsonList(info.uid_headers);
  }
  return data;
}

Task<Status> PublishAuthenticationInfo(const endpoints::ApiRegistry& apis, const AuthenticationInfo& info) {
  auto snap = apis.Snapshot();
  const auto* cms = snap->FindResource("", "v1", "configmaps", "");
  if (!cms || !cms->getter || !cms->creater || !cms->updater) co_return Status(500, "InternalError", "configmaps are not served");
  json::object data = AuthenticationConfigMapData(info);
  registry::Context ctx;
  ctx.namespace_ = kNamespace;
  auto current = co_await cms->getter->Get(ctx, kName, {});
  if (!current.ok()) {
    if (!am::IsNotFound(current.status())) co_return current.status();
    json::object cm{{"apiVersion", "v1"},
                    {"kind", "ConfigMap"},
                    {"metadata", json::object{{"name", kName}, {"namespace", kNamespace}}},
                    {"data", data}};
    auto created = co_await cms->creater->Create(ctx, std::move(cm), {});
    co_return created.ok() || am::IsAlreadyExists(created.status()) ? Status() : created.status();
  }
  const json::value* have = current->if_contains("data");
  if (have && have->is_object() && have->as_object() == data) co_return Status();
  ctx.name = kName;
  auto updated = co_await cms->updater->Update(
      ctx, kName,
      [data](const registry::Object* cur) -> Task<StatusOr<registry::Object>> {
        if (!cur) co_return am::NewNotFound({"", "configmaps"}, kName);
        registry::Object obj = *cur;
        obj["data"] = data;
        co_return obj;
      },
      {});
  co_return updated.ok() ? Status() : updated.status();
}

}  // namespace capstan::aggregator
