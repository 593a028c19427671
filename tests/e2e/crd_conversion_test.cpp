// End-to-end: a CRD with two versions and conversion strategy Webhook, against a conversion webhook
// this test runs itself (an HTTPS server on loopback with its own test CA, trusted through the CRD's
// caBundle, reached by `url`). v1 is the storage version and names a field spec.name; v2 calls it
// spec.title. A Book created through v2 reads back through v1 and v2 (get, list, table, watch), a
// default added to the schema later shows on read of the existing object, and with the webhook down
// the conversion fails with kube's 500. Also prints the conversion round-trip overhead (GET through
// v2, converted by the webhook, against GET of the storage version v1).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include "authn_test_util.h"
#include "e2e_util.h"
#include "util/strings.h"

namespace capstan::e2e {
namespace {

namespace json = boost::json;
using authn::testing::JsonReply;
using authn::testing::TestCa;
using authn::testing::TestHttpsServer;

// The webhook: spec.name (v1) <-> spec.title (v2); everything else as it came.
http::HttpResponse Convert(const http::HttpRequest& req, std::atomic<int>& calls) {
  calls++;
  json::object review = json::parse(req.body).as_object();
  json::object& request = review["request"].as_object();
  std::string desired(request["desiredAPIVersion"].as_string());
  bool to_v2 = desired == "library.example.com/v2";
  json::array out;
  for (auto& o : request["objects"].as_array()) {
    json::object c = o.as_object();
    if (auto* spec = c.if_contains("spec"); spec && spec->is_object()) {
      auto& s = spec->as_object();
      const char* from = to_v2 ? "name" : "title";
      const char* to = to_v2 ? "title" : "name";
      if (auto* v = s.if_contains(from)) {
        s[to] = *v;
        s.erase(from);
      }
    }
    c["apiVersion"] = desired;
    out.push_back(std::move(c));
  }
  json::object resp{{"apiVersion", "apiextensions.k8s.io/v1"},
                    {"kind", "ConversionReview"},
                    {"response", json::object{{"uid", request["uid"]},
                                              {"convertedObjects", std::move(out)},
                                              {"result", json::object{{"status", "Success"}}}}}};
  return JsonReply(200, json::serialize(resp));
}

std::string BooksCrd(const std::string& url, const std::string& ca_pem) {
  return R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
  "metadata":{"name":"books.library.example.com"},
  "spec":{"group":"library.example.com","scope":"Namespaced","names":{"plural":"books","kind":"Book"},
    "conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],
      "clientConfig":{"url":")" + url + R"(","caBundle":")" + Base64Encode(ca_pem) + R"("}}},
    "versions":[
      {"name":"v1","served":true,"storage":true,
       "additionalPrinterColumns":[{"name":"Name","type":"string","jsonPath":".spec.name"}],
       "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{
         "name":{"type":"string"},"pages":{"type":"integer"}}}}}}},
      {"name":"v2","served":true,"storage":false,
       "additionalPrinterColumns":[{"name":"Title","type":"string","jsonPath":".spec.title"}],
       "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{
         "title":{"type":"string"},"pages":{"type":"integer"}}}}}}}]}})";
}

// Raw HTTPS as the admin (client certificate from the server's PKI).
RawResult AdminRequest(const ServerProcess& s, const std::string& method, const std::string& path,
                       const std::string& body = "") {
  std::string req = method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n";
  if (!body.empty()) req += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  req += "\r\n" + body;
  return RawHttps(s.port(), {req}, s.data_dir() + "/pki/admin.crt", s.data_dir() + "/pki/admin.key");
}

// A loopback port that refuses connections (bound once, then closed).
int ClosedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof(a);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 && getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  close(fd);
  return port;
}

std::string Body(const RawResult& r) {
  size_t p = r.response.find("\r\n\r\n");
  return p == std::string::npos ? "" : r.response.substr(p + 4);
}

TEST(CrdConversionE2eTest, WebhookConvertsBetweenVersions) {
  TestCa ca;
  std::atomic<int> calls{0};
  auto hook = std::make_unique<TestHttpsServer>(ca, [&calls](const http::HttpRequest& req) { return Convert(req, calls); });
  ASSERT_TRUE(hook->ok());
  const std::string url = hook->url("/convert");
  ServerProcess server;
  ASSERT_TRUE(server.ok()) << server.error();
  auto K = [&](const std::vector<std::string>& args, const std::string& input = "") {
    return server.Kubectl(args, input, "31");
  };
  auto applied = K({"apply", "-f", "-"}, BooksCrd(url, ca.pem()));
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  auto wait = K({"wait", "--for=condition=Established", "--timeout=10s", "crd/books.library.example.com"});
  ASSERT_EQ(wait.exit_code, 0) << wait.err;

  // Created through v2 (the preferred version), stored in v1 through the webhook.
  auto created = K({"apply", "-f", "-"},
                   R"({"apiVersion":"library.example.com/v2","kind":"Book","metadata":{"name":"dune","namespace":"default"},
                      "spec":{"title":"Dune","pages":412}})");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(created.out, "book.library.example.com/dune created\n");
  EXPECT_GT(calls.load(), 0);

  auto v1 = K({"get", "books.v1.library.example.com", "dune", "-o", "jsonpath={.apiVersion} {.spec.name} {.spec.pages}"});
  ASSERT_EQ(v1.exit_code, 0) << v1.err;
  EXPECT_EQ(v1.out, "library.example.com/v1 Dune 412");
  auto v2 = K({"get", "books.v2.library.example.com", "dune", "-o", "jsonpath={.apiVersion} {.spec.title} {.spec.pages}"});
  ASSERT_EQ(v2.exit_code, 0) << v2.err;
  EXPECT_EQ(v2.out, "library.example.com/v2 Dune 412");
  // The raw storage-version object has no title.
  auto raw_v1 = AdminRequest(server, "GET", "/apis/library.example.com/v1/namespaces/default/books/dune");
  EXPECT_EQ(Body(raw_v1).find("\"title\""), std::string::npos) << raw_v1.response;

  // Tables: each version prints its own columns on its own form of the object.
  auto table_v2 = K({"get", "books.v2.library.example.com"});
  ASSERT_EQ(table_v2.exit_code, 0) << table_v2.err;
  EXPECT_NE(table_v2.out.find("TITLE"), std::string::npos) << table_v2.out;
  EXPECT_NE(table_v2.out.find("dune   Dune"), std::string::npos) << table_v2.out;
  auto table_v1 = K({"get", "books.v1.library.example.com"});
  ASSERT_EQ(table_v1.exit_code, 0) << table_v1.err;
  EXPECT_NE(table_v1.out.find("NAME   NAME"), std::string::npos) << table_v1.out;

  // Lists in both versions (a second book created through v1).
  ASSERT_EQ(K({"apply", "-f", "-"},
              R"({"apiVersion":"library.example.com/v1","kind":"Book","metadata":{"name":"emma","namespace":"default"},
                 "spec":{"name":"Emma"}})").exit_code, 0);
  auto list_v2 = K({"get", "books.v2.library.example.com", "-o", "jsonpath={range .items[*]}{.apiVersion}:{.spec.title};{end}"});
  ASSERT_EQ(list_v2.exit_code, 0) << list_v2.err;
  EXPECT_EQ(list_v2.out, "library.example.com/v2:Dune;library.example.com/v2:Emma;");
  auto list_v1 = K({"get", "books.v1.library.example.com", "-o", "jsonpath={range .items[*]}{.apiVersion}:{.spec.name};{end}"});
  ASSERT_EQ(list_v1.exit_code, 0) << list_v1.err;
  EXPECT_EQ(list_v1.out, "library.example.com/v1:Dune;library.example.com/v1:Emma;");

  // Watches in both versions.
  auto watch_v2 = AdminRequest(server, "GET", "/apis/library.example.com/v2/namespaces/default/books?watch=1&timeoutSeconds=1");
  EXPECT_EQ(HttpStatusOf(watch_v2.response), 200);
  EXPECT_NE(watch_v2.response.find(R"("title":"Dune")"), std::string::npos) << watch_v2.response;
  EXPECT_NE(watch_v2.response.find(R"("title":"Emma")"), std::string::npos) << watch_v2.response;
  EXPECT_EQ(watch_v2.response.find(R"("name":"Dune")"), std::string::npos) << watch_v2.response;
  auto watch_v1 = AdminRequest(server, "GET", "/apis/library.example.com/v1/namespaces/default/books?watch=1&timeoutSeconds=1");
  EXPECT_EQ(HttpStatusOf(watch_v1.response), 200);
  EXPECT_NE(watch_v1.response.find(R"("name":"Dune")"), std::string::npos) << watch_v1.response;
  // An update through v2 while a v2 watch runs: the MODIFIED event comes converted.
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    K({"patch", "books.v2.library.example.com", "dune", "--type=merge", "-p", R"({"spec":{"pages":500}})"});
  });
  auto watch_mod = AdminRequest(server, "GET",
                                "/apis/library.example.com/v2/namespaces/default/books?watch=1&timeoutSeconds=3&fieldSelector=metadata.name%3Ddune");
  later.join();
  EXPECT_NE(watch_mod.response.find(R"("type":"MODIFIED")"), std::string::npos) << watch_mod.response;
  EXPECT_NE(watch_mod.response.find(R"("pages":500)"), std::string::npos) << watch_mod.response;

  // Server-side apply through v2: merged in v2's schema, stored in v1.
  auto ssa = K({"apply", "--server-side", "--field-manager=librarian", "-f", "-"},
               R"({"apiVersion":"library.example.com/v2","kind":"Book","metadata":{"name":"emma","namespace":"default"},
                  "spec":{"title":"Emma","pages":300}})");
  EXPECT_EQ(ssa.exit_code, 0) << ssa.err;
  auto after_ssa = K({"get", "books.v1.library.example.com", "emma", "-o", "jsonpath={.spec.name} {.spec.pages}"});
  EXPECT_EQ(after_ssa.out, "Emma 300") << after_ssa.err;

  // The figure: GET through v2 (stored object converted by the webhook) against GET of v1, the two
  // interleaved so that the machine's load falls on both alike.
  const int n = 200;
  double total_v1 = 0, total_v2 = 0;
  auto time_get = [&](const std::string& version) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = AdminRequest(server, "GET", "/apis/library.example.com/" + version + "/namespaces/default/books/dune");
    if (HttpStatusOf(r.response) != 200) return -1e9;
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  time_get("v1");
  time_get("v2");  // warm up (the webhook's connection)
  for (int i = 0; i < n; ++i) {
    total_v1 += time_get("v1");
    total_v2 += time_get("v2");
  }
  ASSERT_GT(total_v1, 0);
  ASSERT_GT(total_v2, 0);
  std::cout << "[ FIGURE   ] GET custom resource, storage version v1: " << total_v1 / n << " ms; through the conversion "
            << "webhook (v2): " << total_v2 / n << " ms; overhead " << (total_v2 - total_v1) / n << " ms per GET (" << n
            << " GETs each, interleaved, one TLS connection per GET)\n";

  // A default added to the storage version's schema shows on read of the existing object, in both
  // versions.
  auto patched = K({"patch", "crd", "books.library.example.com", "--type=json", "-p",
                    R"([{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/format",
                         "value":{"type":"string","default":"paperback"}},
                        {"op":"add","path":"/spec/versions/1/schema/openAPIV3Schema/properties/spec/properties/format",
                         "value":{"type":"string","default":"paperback"}}])"});
  ASSERT_EQ(patched.exit_code, 0) << patched.err;
  std::string format_v1, format_v2;
  for (int i = 0; i < 50 && (format_v1 != "paperback" || format_v2 != "paperback"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    format_v1 = K({"get", "books.v1.library.example.com", "emma", "-o", "jsonpath={.spec.format}"}).out;
    format_v2 = K({"get", "books.v2.library.example.com", "emma", "-o", "jsonpath={.spec.format}"}).out;
  }
  EXPECT_EQ(format_v1, "paperback");
  EXPECT_EQ(format_v2, "paperback");

  // The webhook goes down (the CRD now names a port nobody listens on): reads through v2 fail with
  // kube's 500; v1 still reads.
  const std::string down_url = "https://127.0.0.1:" + std::to_string(ClosedPort()) + "/convert";
  auto moved = K({"patch", "crd", "books.library.example.com", "--type=json", "-p",
                  R"([{"op":"replace","path":"/spec/conversion/webhook/clientConfig/url","value":")" + down_url + R"("}])"});
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  hook.reset();
  CommandResult down;
  for (int i = 0; i < 50; ++i) {  // until the new CRD generation is served
    down = K({"get", "books.v2.library.example.com", "dune"});
    if (down.err.find(down_url) != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(down.exit_code, 0);
  EXPECT_NE(down.err.find("Error from server: conversion webhook for library.example.com/v1, Kind=Book failed: Post \"" +
                          down_url + "?timeout=30s\": dial tcp 127.0.0.1:"),
            std::string::npos)
      << down.err;
  auto raw_down = AdminRequest(server, "GET", "/apis/library.example.com/v2/namespaces/default/books/dune");
  ASSERT_EQ(HttpStatusOf(raw_down.response), 500) << raw_down.response;
  auto status = json::parse(Body(raw_down)).as_object();
  EXPECT_EQ(status["kind"].as_string(), "Status");
  EXPECT_EQ(status["code"].as_int64(), 500);
  EXPECT_FALSE(status.contains("reason"));
  EXPECT_EQ(std::string(status["message"].as_string()).rfind("conversion webhook for library.example.com/v1, Kind=Book failed: ", 0), 0u);
  auto create_down = K({"apply", "-f", "-"},
                       R"({"apiVersion":"library.example.com/v2","kind":"Book","metadata":{"name":"ulysses","namespace":"default"},
                          "spec":{"title":"Ulysses"}})");
  EXPECT_NE(create_down.exit_code, 0);
  EXPECT_NE(create_down.err.find("conversion webhook for library.example.com/v2, Kind=Book failed: "), std::string::npos)
      << create_down.err;
  auto still = K({"get", "books.v1.library.example.com", "dune", "-o", "jsonpath={.spec.name}"});
  EXPECT_EQ(still.exit_code, 0) << still.err;
  EXPECT_EQ(still.out, "Dune");

  // kube's conversion webhook metrics.
  auto metrics = AdminRequest(server, "GET", "/metrics");
  EXPECT_NE(metrics.response.find("apiserver_conversion_webhook_request_total{failure_type=\"\",result=\"success\"}"),
            std::string::npos);
  EXPECT_NE(metrics.response.find("apiserver_conversion_webhook_request_total{failure_type=\"conversion_webhook_call_failure\",result=\"failure\"}"),
            std::string::npos);
  EXPECT_NE(metrics.response.find("apiserver_crd_conversion_webhook_duration_seconds_bucket{crd_name=\"books.library.example.com\",from_version=\"v1\",succeeded=\"true\",to_version=\"v2\""),
            std::string::npos);
}

}  // namespace
}  // namespace capstan::e2e
