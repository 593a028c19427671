#include "apimachinery/errors.h"

#include <gtest/gtest.h>

#include "apimachinery/json.h"
#include "apimachinery/status_json.h"

namespace capstan::apimachinery {
namespace {

const GroupResource kConfigMaps{"", "configmaps"};
const GroupResource kDeployments{"apps", "deployments"};

TEST(ErrorsTest, NotFoundJsonMatchesKube) {
  Status s = NewNotFound(kConfigMaps, "x");
  EXPECT_EQ(s.code(), 404);
  EXPECT_TRUE(IsNotFound(s));
  EXPECT_EQ(StatusToJsonString(s),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"x\" not found","reason":"NotFound","details":{"name":"x","kind":"configmaps"},"code":404})");
  EXPECT_EQ(StatusToJsonString(NewNotFound(kDeployments, "web")),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \"web\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"deployments"},"code":404})");
}

TEST(ErrorsTest, AlreadyExistsAndGenerateNameConflict) {
  EXPECT_EQ(NewAlreadyExists(kConfigMaps, "x").message(), "configmaps \"x\" already exists");
  EXPECT_EQ(NewAlreadyExists(kConfigMaps, "x").code(), 409);
  Status g = NewGenerateNameConflict(kConfigMaps, "x-abcde", 1);
  EXPECT_EQ(g.reason(), "AlreadyExists");
  EXPECT_EQ(g.message(),
            "configmaps \"x-abcde\" already exists, the server was not able to generate a unique name for the object");
  EXPECT_EQ(ToJson(StatusToJson(g)["details"]), R"({"name":"x-abcde","kind":"configmaps","retryAfterSeconds":1})");
}

TEST(ErrorsTest, OptimisticLockConflict) {
  Status s = NewOptimisticLockConflict(kConfigMaps, "x");
  EXPECT_EQ(s.code(), 409);
  EXPECT_EQ(s.reason(), "Conflict");
  EXPECT_EQ(s.message(),
            "Operation cannot be fulfilled on configmaps \"x\": the object has been modified; please apply your "
            "changes to the latest version and try again");
  EXPECT_TRUE(IsConflict(s));
  EXPECT_FALSE(IsAlreadyExists(s));
}

TEST(ErrorsTest, InvalidWithCauses) {
  ErrorList errs;
  errs.push_back(RequiredError(FieldPath("metadata").Child("name"), "name or generateName is required"));
  errs.push_back(InvalidError(FieldPath("data"), "a b", "bad key"));
  Status s = NewInvalid({"", "ConfigMap"}, "x", errs);
  EXPECT_EQ(s.code(), 422);
  EXPECT_EQ(s.message(),
            "ConfigMap \"x\" is invalid: [metadata.name: Required value: name or generateName is required, data: "
            "Invalid value: \"a b\": bad key]");
  EXPECT_EQ(ToJson(StatusToJson(s)["details"]),
            R"({"name":"x","kind":"ConfigMap","causes":[{"reason":"FieldValueRequired","message":"Required value: name or generateName is required","field":"metadata.name"},{"reason":"FieldValueInvalid","message":"Invalid value: \"a b\": bad key","field":"data"}]})");
  EXPECT_EQ(NewInvalid({"apps", "Deployment"}, "d", {}).message(), "Deployment.apps \"d\" is invalid");
}

TEST(ErrorsTest, ForbiddenForms) {
  EXPECT_EQ(NewForbidden(kConfigMaps, "x", "User \"bob\" cannot get resource \"configmaps\"").message(),
            "configmaps \"x\" is forbidden: User \"bob\" cannot get resource \"configmaps\"");
  EXPECT_EQ(NewForbidden(kConfigMaps, "", "no").message(), "configmaps is forbidden: no");
  EXPECT_EQ(NewForbidden({}, "", "no").message(), "forbidden: no");
  Status s = NewForbidden(kDeployments, "", "nope");
  EXPECT_EQ(ToJson(StatusToJson(s)), R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps is forbidden: nope","reason":"Forbidden","details":{"group":"apps","kind":"deployments"},"code":403})");
}

TEST(ErrorsTest, SimpleConstructors) {
  EXPECT_EQ(StatusToJsonString(NewBadRequest("bad")),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"bad","reason":"BadRequest","code":400})");
  EXPECT_EQ(NewUnauthorized("").message(), "not authorized");
  EXPECT_EQ(NewUnauthorized("").code(), 401);
  EXPECT_EQ(NewMethodNotSupported(kConfigMaps, "create").message(),
            "create is not supported on resources of kind \"configmaps\"");
  EXPECT_EQ(NewMethodNotSupported(kConfigMaps, "create").code(), 405);
  Status ie = NewInternalError("boom");
  EXPECT_EQ(StatusToJsonString(ie),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: boom","reason":"InternalError","details":{"causes":[{"message":"boom"}]},"code":500})");
  Status st = NewServerTimeout(kConfigMaps, "list", 2);
  EXPECT_EQ(st.code(), 500);
  EXPECT_EQ(st.message(), "The list operation against configmaps could not be completed at this time, please try again.");
  EXPECT_EQ(ToJson(StatusToJson(st)["details"]), R"({"name":"list","kind":"configmaps","retryAfterSeconds":2})");
  Status to = NewTimeoutError("request did not complete within requested timeout - context deadline exceeded", 0);
  EXPECT_EQ(StatusToJsonString(to),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: request did not complete within requested timeout - context deadline exceeded","reason":"Timeout","details":{},"code":504})");
  Status tm = NewTooManyRequests("slow down", 3);
  EXPECT_EQ(ToJson(StatusToJson(tm)["details"]), R"({"retryAfterSeconds":3})");
  EXPECT_EQ(NewTooManyRequestsError("limit reached").message(), "Too many requests: limit reached");
  EXPECT_FALSE(NewTooManyRequestsError("x").has_details());
  EXPECT_EQ(NewResourceExpired("too old resource version: 1 (5)").reason(), "Expired");
  EXPECT_EQ(NewResourceExpired("x").code(), 410);
  EXPECT_EQ(NewGone("x").reason(), "Gone");
  EXPECT_TRUE(IsGone(NewGone("x")));
  EXPECT_FALSE(IsGone(NewResourceExpired("x")));
  EXPECT_TRUE(IsResourceExpired(NewResourceExpired("x")));
  EXPECT_EQ(NewServiceUnavailable("down").code(), 503);
  EXPECT_EQ(NewRequestEntityTooLargeError("limit is 3145728").message(),
            "Request entity too large: limit is 3145728");
  EXPECT_EQ(NewUnsupportedMediaType({"application/json", "application/yaml"}).message(),
            "the body of the request was in an unknown format - accepted media types include: application/json, "
            "application/yaml");
  EXPECT_EQ(NewUnsupportedMediaType({"a"}).code(), 415);
  EXPECT_EQ(NewNotAcceptable({"application/json"}).message(),
            "only the following media types are accepted: application/json");
  EXPECT_EQ(NewNotAcceptableConversion("Table", {"application/json"}).message(),
            "only the following media types are accepted when converting to Table: application/json");
}

TEST(ErrorsTest, IsHelpersFallBackToCodeForUnknownReasons) {
  EXPECT_TRUE(IsNotFound(Status(404, "", "x")));
  EXPECT_TRUE(IsNotFound(Status(404, "Weird", "x")));
  EXPECT_FALSE(IsNotFound(Status(404, "Conflict", "x")));
  EXPECT_FALSE(IsNotFound(Status::Ok()));
}

TEST(ErrorsTest, DecodeError) {
  GroupVersionKind gvk{"", "v1", "Pod"};
  EXPECT_EQ(NewDecodeError("ConfigMap", &gvk, "json: bad", "{}").message(),
            "Pod in version \"v1\" cannot be handled as a ConfigMap: json: bad");
  EXPECT_EQ(NewDecodeError("ConfigMap", nullptr,
                           std::string(kFindKindErrorPrefix) + "unexpected end of JSON input",
                           R"({"apiVersion":"v1","kind":"ConfigMap","metadata")")
                .message(),
            "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse "
            "error: unexpected end of JSON input ({\"apiVersion\":\"v1\",\"kind\":\"Con ...)");
  EXPECT_EQ(NewDecodeError("ConfigMap", nullptr, "e", "ab").message(),
            "the object provided is unrecognized (must be of type ConfigMap): e (6162)");
  EXPECT_EQ(NewDecodeError("ConfigMap", nullptr, "e", "").message(),
            "the object provided is unrecognized (must be of type ConfigMap): e (<empty>)");
}

TEST(StatusJsonTest, SuccessAndRoundTrip) {
  StatusDetails d;
  d.name = "x";
  d.kind = "configmaps";
  d.uid = "u-1";
  EXPECT_EQ(ToJson(SuccessStatusToJson(&d, 0)),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"x","kind":"configmaps","uid":"u-1"}})");
  EXPECT_EQ(ToJson(SuccessStatusToJson(nullptr, 200)),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":200})");

  ErrorList errs{InvalidError(FieldPath("spec").Child("x"), 5, "too big")};
  Status in = NewInvalid({"example.com", "Widget"}, "w", errs);
  auto back = StatusFromJson(StatusToJson(in));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->code(), 422);
  EXPECT_EQ(back->reason(), "Invalid");
  EXPECT_EQ(back->message(), in.message());
  EXPECT_EQ(back->details().group, "example.com");
  ASSERT_EQ(back->details().causes.size(), 1u);
  EXPECT_EQ(back->details().causes[0], in.details().causes[0]);
  EXPECT_EQ(StatusToJsonString(*back), StatusToJsonString(in));

  auto ok = StatusFromJson(SuccessStatusToJson(nullptr, 200));
  ASSERT_TRUE(ok.has_value());
  EXPECT_TRUE(ok->ok());
  EXPECT_FALSE(StatusFromJson(boost::json::value(1)).has_value());
  auto pod = ParseJsonValue(R"({"kind":"Pod","apiVersion":"v1"})");
  EXPECT_FALSE(StatusFromJson(*pod).has_value());
}

TEST(StatusJsonTest, AListContinueGoesInTheStatusListMeta) {
  Status s = NewResourceExpired("too old");
  s.WithListContinue("tok");
  EXPECT_EQ(StatusToJsonString(s),
            R"({"kind":"Status","apiVersion":"v1","metadata":{"continue":"tok"},"status":"Failure","message":"too old",)"
            R"("reason":"Expired","code":410})");
  auto back = StatusFromJson(StatusToJson(s));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->list_continue(), "tok");
}

}  // namespace
}  // namespace capstan::apimachinery
