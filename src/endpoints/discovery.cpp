#include "endpoints/discovery.h"

#include <openssl/evp.h>

#include <boost/json.hpp>

#include "util/strings.h"

namespace capstan::endpoints {

namespace json = boost::json;

namespace {

json::object GroupVersionForDiscovery(const std::string& group, const std::string& version) {
  json::object o;
  o["groupVersion"] = group.empty() ? version : group + "/" + version;
  o["version"] = version;
  return o;
}

json::object GroupJson(const GroupEntry& g) {
  json::object o;
  o["name"] = g.name;
  json::array versions;
  for (const auto& v : g.versions) versions.push_back(GroupVersionForDiscovery(g.name, v));
  o["versions"] = std::move(versions);
  if (!g.versions.empty()) o["preferredVersion"] = GroupVersionForDiscovery(g.name, g.versions.front());
  return o;
}

json::array Strings(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.push_back(json::value(s));
  return a;
}

}  // namespace

json::object ApiVersionsJson(const ApiSnapshot& s) {
  json::object o;
  o["kind"] = "APIVersions";
  json::array versions;
  for (const auto& g : s.groups) {
    if (g.name.empty()) {
      for (const auto& v : g.versions) versions.push_back(json::value(v));
    }
  }
  o["versions"] = std::move(versions);
  json::array cidrs;
  json::object any;
  any["clientCIDR"] = "0.0.0.0/0";
  any["serverAddress"] = "";
  cidrs.push_back(std::move(any));
  o["serverAddressByClientCIDRs"] = std::move(cidrs);
  return o;
}

json::object ApiGroupListJson(const ApiSnapshot& s) {
  json::object o;
  o["kind"] = "APIGroupList";
  o["apiVersion"] = "v1";
  json::array groups;
  for (const auto& g : s.groups) {
    if (!g.name.empty()) groups.push_back(GroupJson(g));
  }
  o["groups"] = std::move(groups);
  return o;
}

std::optional<json::object> ApiGroupJson(const ApiSnapshot& s, const std::string& group) {
  for (const auto& g : s.groups) {
    if (g.name == group && !group.empty()) {
      json::object o = GroupJson(g);
      json::object out;
      out["kind"] = "APIGroup";
      out["apiVersion"] = "v1";
      for (auto& kv : o) out[kv.key()] = std::move(kv.value());
      return out;
    }
  }
  return std::nullopt;
}

std::optional<json::object> ResourceListJson(const ApiSnapshot& s, const std::string& group, const std::string& version) {
  const GroupVersionEntry* gv = s.Find(group, version);
  if (!gv) return std::nullopt;
  json::object o;
  o["kind"] = "APIResourceList";
  if (!group.empty()) o["apiVersion"] = "v1";
  o["groupVersion"] = group.empty() ? version : group + "/" + version;
  json::array resources;
  for (const auto& [key, e] : gv->resources) {
    json::object r;
    r["name"] = key;
    r["singularName"] = e.info.subresource.empty() ? e.info.singular : "";
    r["namespaced"] = e.info.namespaced;
    // A storage of another group's kind (kube's GroupVersionKindProvider: scale, eviction, token)
    // names its group and version; kubectl drain uses eviction only when both are there.
    if (!e.info.kind_group.empty() || !e.info.kind_version.empty()) {
      if (!e.info.kind_group.empty()) r["group"] = e.info.kind_group;
      r["version"] = e.info.kind_version.empty() ? version : e.info.kind_version;
    }
    r["kind"] = e.info.kind;
    r["verbs"] = Strings(e.verbs);
    if (e.info.subresource.empty()) {
      if (!e.info.short_names.empty()) r["shortNames"] = Strings(e.info.short_names);
      if (!e.info.categories.empty()) r["categories"] = Strings(e.info.categories);
    }
    if (!e.storage_version_hash.empty()) r["storageVersionHash"] = e.storage_version_hash;
    resources.push_back(std::move(r));
  }
  o["resources"] = std::move(resources);
  return o;
}

json::object AggregatedDiscoveryJson(const ApiSnapshot& s, bool core, const std::string& version) {
  json::object o;
  o["kind"] = "APIGroupDiscoveryList";
  o["apiVersion"] = "apidiscovery.k8s.io/" + version;
  o["metadata"] = json::object();
  json::array items;
  for (const auto& g : s.groups) {
    if (core != g.name.empty()) continue;
    json::object item;
    json::object md;
    md["name"] = g.name;
    md["creationTimestamp"] = nullptr;
    item["metadata"] = std::move(md);
    json::array versions;
    for (const auto& v : g.versions) {
      const GroupVersionEntry* gv = s.Find(g.name, v);
      if (!gv) continue;
      json::object ver;
      ver["version"] = v;
      json::array resources;
      for (const auto& [key, e] : gv->resources) {
        if (!e.info.subresource.empty()) continue;
        json::object r;
        r["resource"] = e.info.resource;
        json::object rk;
        rk["group"] = g.name;
        rk["version"] = v;
        rk["kind"] = e.info.kind;
        r["responseKind"] = std::move(rk);
        r["scope"] = e.info.namespaced ? "Namespaced" : "Cluster";
        r["singularResource"] = e.info.singular;
        r["verbs"] = Strings(e.verbs);
        if (!e.info.short_names.empty()) r["shortNames"] = Strings(e.info.short_names);
        if (!e.info.categories.empty()) r["categories"] = Strings(e.info.categories);
        json::array subs;
        for (const auto& [skey, se] : gv->resources) {
          if (se.info.resource != e.info.resource || se.info.subresource.empty()) continue;
          json::object sub;
          sub["subresource"] = se.info.subresource;
          json::object sk;
          sk["group"] = se.info.kind_group.empty() ? g.name : se.info.kind_group;
          sk["version"] = se.info.kind_version.empty() ? v : se.info.kind_version;
          sk["kind"] = se.info.kind;
          sub["responseKind"] = std::move(sk);
          sub["verbs"] = Strings(se.verbs);
          subs.push_back(std::move(sub));
        }
        if (!subs.empty()) r["subresources"] = std::move(subs);
        resources.push_back(std::move(r));
      }
      ver["resources"] = std::move(resources);
      ver["freshness"] = "Current";
      versions.push_back(std::move(ver));
    }
    item["versions"] = std::move(versions);
    items.push_back(std::move(item));
  }
  o["items"] = std::move(items);
  return o;
}

std::string StorageVersionHash(const std::string& group, const std::string& version, const std::string& kind) {
  const std::string gvk = group + "/" + version + "/" + kind;
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(gvk.data(), gvk.size(), md, &len, EVP_sha256(), nullptr) != 1 || len < 8) return "";
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(md), 8));
}

std::string AggregatedDiscoveryVersion(std::string_view accept) {
  for (const auto& part : Split(accept, ',')) {
    std::string p = ToLower(part);
    if (p.find("as=apigroupdiscoverylist") == std::string::npos || p.find("g=apidiscovery.k8s.io") == std::string::npos) {
      continue;
    }
    if (p.find("v=v2beta1") != std::string::npos) return "v2beta1";
    if (p.find("v=v2") != std::string::npos) return "v2";
  }
  return "";
}

}  // namespace capstan::endpoints
