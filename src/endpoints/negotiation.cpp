#include "endpoints/negotiation.h"

#include <algorithm>
#include <map>
#include <vector>

#include "apimachinery/errors.h"
#include "util/strings.h"

namespace capstan::endpoints {

namespace am = capstan::apimachinery;

namespace {

struct MediaRange {
  std::string type;  // "application/json"
  std::map<std::string, std::string> params;
  double q = 1.0;
  size_t order = 0;
};

std::vector<MediaRange> ParseAccept(std::string_view accept) {
  std::vector<MediaRange> out;
  size_t order = 0;
  for (const auto& part : Split(accept, ',')) {
    std::string_view p = TrimSpace(part);
    if (p.empty()) continue;
    MediaRange r;
    r.order = order++;
    auto pieces = Split(p, ';');
    r.type = ToLower(TrimSpace(pieces[0]));
    for (size_t i = 1; i < pieces.size(); ++i) {
      std::string_view kv = TrimSpace(pieces[i]);
      size_t eq = kv.find('=');
      if (eq == std::string_view::npos) continue;
      std::string k = ToLower(TrimSpace(kv.substr(0, eq)));
      std::string v(TrimSpace(kv.substr(eq + 1)));
      if (k == "q") {
        try {
          r.q = std::stod(v);
        } catch (...) {
          r.q = 0;
        }
      } else {
        r.params[k] = v;
      }
    }
    if (r.q > 0) out.push_back(std::move(r));
  }
  std::stable_sort(out.begin(), out.end(), [](const MediaRange& a, const MediaRange& b) { return a.q > b.q; });
  return out;
}

std::vector<std::string> Accepted(bool protobuf) {
  std::vector<std::string> v = {"application/json", "application/yaml"};
  if (protobuf) v.push_back("application/vnd.kubernetes.protobuf");
  return v;
}

}  // namespace

std::string MediaTypeOf(std::string_view v) {
  size_t semi = v.find(';');
  return ToLower(TrimSpace(v.substr(0, semi)));
}

std::string OutputFormat::ContentType() const {
  std::string base;
  switch (format) {
    case MediaFormat::kJson: base = "application/json"; break;
    case MediaFormat::kYaml: base = "application/yaml"; break;
    case MediaFormat::kProtobuf: base = "application/vnd.kubernetes.protobuf"; break;
  }
  switch (conversion) {
    case Conversion::kNone: return base;
    case Conversion::kTable: return base + ";as=Table;v=" + conversion_version + ";g=meta.k8s.io";
    case Conversion::kPartialObjectMetadata:
      return base + ";as=PartialObjectMetadata;v=" + conversion_version + ";g=meta.k8s.io";
    case Conversion::kPartialObjectMetadataList:
      return base + ";as=PartialObjectMetadataList;v=" + conversion_version + ";g=meta.k8s.io";
  }
  return base;
}

std::string OutputFormat::WatchContentType() const {
  switch (format) {
    case MediaFormat::kProtobuf: return "application/vnd.kubernetes.protobuf;stream=watch";
    case MediaFormat::kYaml: return "application/yaml";
    default: return "application/json";
  }
}

StatusOr<OutputFormat> NegotiateOutput(std::string_view accept, bool protobuf) {
  if (TrimSpace(accept).empty()) return OutputFormat();
  for (const auto& r : ParseAccept(accept)) {
    OutputFormat f;
    if (r.type == "application/json" || r.type == "*/*" || r.type == "application/*") {
      f.format = MediaFormat::kJson;
    } else if (r.type == "application/yaml") {
      f.format = MediaFormat::kYaml;
    } else if (r.type == "application/vnd.kubernetes.protobuf" && protobuf) {
      f.format = MediaFormat::kProtobuf;
    } else {
      continue;
    }
    if (auto it = r.params.find("pretty"); it != r.params.end()) f.pretty = it->second == "1" || it->second == "true";
    auto as = r.params.find("as");
    if (as != r.params.end()) {
      auto g = r.params.find("g");
      auto v = r.params.find("v");
      if (g == r.params.end() || g->second != "meta.k8s.io" || v == r.params.end() ||
          (v->second != "v1" && v->second != "v1beta1")) {
        continue;
      }
      if (as->second == "Table") {
        f.conversion = Conversion::kTable;
      } else if (as->second == "PartialObjectMetadata") {
        f.conversion = Conversion::kPartialObjectMetadata;
      } else if (as->second == "PartialObjectMetadataList") {
        f.conversion = Conversion::kPartialObjectMetadataList;
      } else {
        continue;
      }
      if (f.format == MediaFormat::kProtobuf) continue;  // conversions are served as JSON or YAML
      f.conversion_version = v->second;
    }
    return f;
  }
  return am::NewNotAcceptable(Accepted(protobuf));
}

StatusOr<BodyFormat> NegotiateBody(std::string_view content_type, bool protobuf, bool patch) {
  std::string t = MediaTypeOf(content_type);
  if (patch) {
    if (t == "application/json-patch+json") return BodyFormat::kJsonPatch;
    if (t == "application/merge-patch+json") return BodyFormat::kMergePatch;
    if (t == "application/strategic-merge-patch+json") return BodyFormat::kStrategicMergePatch;
    if (t == "application/apply-patch+yaml") return BodyFormat::kApplyPatchYaml;
    return am::NewUnsupportedMediaType({"application/json-patch+json", "application/merge-patch+json",
                                        "application/apply-patch+yaml", "application/strategic-merge-patch+json"});
  }
  // No Content-Type: the first supported media type, JSON, as kube's NegotiateInputSerializer does.
  if (t == "application/json" || t.empty()) return BodyFormat::kJson;
  if (t == "application/yaml") return BodyFormat::kYaml;
  if (t == "application/vnd.kubernetes.protobuf" && protobuf) return BodyFormat::kProtobuf;
  return am::NewUnsupportedMediaType(Accepted(protobuf));
}

}  // namespace capstan::endpoints
