#include "apimachinery/status_json.h"

#include <boost/json/array.hpp>
#include <boost/json/string.hpp>

#include "apimachinery/json_write.h"

namespace capstan::apimachinery {
namespace {

namespace json = boost::json;

void PutString(json::object& o, std::string_view k, std::string_view v) {
  if (!v.empty()) o.emplace(k, v);
}

json::object DetailsToJson(const StatusDetails& d) {
  json::object o;
  PutString(o, "name", d.name);
  PutString(o, "group", d.group);
  PutString(o, "kind", d.kind);
  PutString(o, "uid", d.uid);
  if (!d.causes.empty()) {
    json::array causes;
    for (const StatusCause& c : d.causes) {
      json::object co;
      PutString(co, "reason", c.type);
      PutString(co, "message", c.message);
      PutString(co, "field", c.field);
      causes.push_back(std::move(co));
    }
    o.emplace("causes", std::move(causes));
  }
  if (d.retry_after_seconds != 0) o.emplace("retryAfterSeconds", d.retry_after_seconds);
  return o;
}

json::object Header() {
  json::object o;
  o.emplace("kind", "Status");
  o.emplace("apiVersion", "v1");
  o.emplace("metadata", json::object());
  return o;
}

std::string StringField(const json::object& o, std::string_view k) {
  auto it = o.find(k);
  if (it == o.end() || !it->value().is_string()) return "";
  return std::string(it->value().get_string());
}

int64_t IntField(const json::object& o, std::string_view k) {
  auto it = o.find(k);
  if (it == o.end()) return 0;
  if (it->value().is_int64()) return it->value().get_int64();
  if (it->value().is_uint64()) return static_cast<int64_t>(it->value().get_uint64());
  if (it->value().is_double()) return static_cast<int64_t>(it->value().get_double());
  return 0;
}

}  // namespace

json::object StatusToJson(const Status& s) {
  if (s.ok()) return SuccessStatusToJson(nullptr, 200);
  json::object o = Header();
  if (!s.list_continue().empty()) o["metadata"] = json::object{{"continue", s.list_continue()}};
  o.emplace("status", "Failure");
  PutString(o, "message", s.message());
  PutString(o, "reason", s.reason());
  if (s.has_details()) o.emplace("details", DetailsToJson(s.details()));
  o.emplace("code", s.code() != 0 ? s.code() : 500);
  return o;
}

std::string StatusToJsonString(const Status& s) { return ToJson(StatusToJson(s)); }

json::object SuccessStatusToJson(const StatusDetails* details, int code) {
  json::object o = Header();
  o.emplace("status", "Success");
  if (details != nullptr) o.emplace("details", DetailsToJson(*details));
  if (code != 0) o.emplace("code", code);
  return o;
}

std::optional<Status> StatusFromJson(const json::value& v) {
  if (!v.is_object()) return std::nullopt;
  const json::object& o = v.get_object();
  std::string api_version = StringField(o, "apiVersion");
  if (StringField(o, "kind") != "Status" || (api_version != "v1" && api_version != "meta.k8s.io/v1")) {
    return std::nullopt;
  }
  if (StringField(o, "status") == "Success") return Status::Ok();
  int code = static_cast<int>(IntField(o, "code"));
  Status s(code != 0 ? code : 500, StringField(o, "reason"), StringField(o, "message"));
  auto it = o.find("details");
  if (it != o.end() && it->value().is_object()) {
    const json::object& d = it->value().get_object();
    StatusDetails details;
    details.name = StringField(d, "name");
    details.group = StringField(d, "group");
    details.kind = StringField(d, "kind");
    details.uid = StringField(d, "uid");
    details.retry_after_seconds = static_cast<int>(IntField(d, "retryAfterSeconds"));
    auto causes = d.find("causes");
    if (causes != d.end() && causes->value().is_array()) {
      for (const json::value& c : causes->value().get_array()) {
        if (!c.is_object()) continue;
        const json::object& co = c.get_object();
        details.causes.push_back(
            StatusCause{StringField(co, "reason"), StringField(co, "message"), StringField(co, "field")});
      }
    }
    s.WithDetails(std::move(details));
  }
  if (auto md = o.find("metadata"); md != o.end() && md->value().is_object()) {
    s.WithListContinue(StringField(md->value().get_object(), "continue"));
  }
  return s;
}

}  // namespace capstan::apimachinery
