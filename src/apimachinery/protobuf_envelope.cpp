#include "apimachinery/protobuf_envelope.h"

#include "apimachinery/protobuf_wire.h"

namespace capstan::apimachinery::protobuf {

namespace {

Status BadRequest(std::string message) { return Status(400, "BadRequest", std::move(message)); }

Status WrongWireType(WireType wt, std::string_view field) {
  return BadRequest("proto: wrong wireType = " + std::to_string(static_cast<int>(wt)) + " for field " + std::string(field));
}

Status DecodeTypeMeta(std::string_view message, Envelope& env) {
  WireReader r(message);
  while (!r.done()) {
    int32_t field;
    WireType wt;
    if (!r.ReadKey(field, wt)) return WireErrorStatus(r, "TypeMeta");
    if (field == 1 || field == 2) {
      if (wt != WireType::kLengthDelimited) return WrongWireType(wt, field == 1 ? "APIVersion" : "Kind");
      std::string_view s;
      if (!r.ReadLengthDelimited(s)) return WireErrorStatus(r, "TypeMeta");
      (field == 1 ? env.api_version : env.kind).assign(s);
    } else if (!r.SkipValue(wt)) {
      return WireErrorStatus(r, "TypeMeta");
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<Envelope> DecodeUnknown(std::string_view message) {
  Envelope env;
  WireReader r(message);
  while (!r.done()) {
    int32_t field;
    WireType wt;
    if (!r.ReadKey(field, wt)) return WireErrorStatus(r, "Unknown");
    if (field >= 1 && field <= 4) {
      static constexpr std::string_view kNames[] = {"TypeMeta", "Raw", "ContentEncoding", "ContentType"};
      if (wt != WireType::kLengthDelimited) return WrongWireType(wt, kNames[field - 1]);
      std::string_view s;
      if (!r.ReadLengthDelimited(s)) return WireErrorStatus(r, "Unknown");
      switch (field) {
        case 1: RETURN_IF_ERROR(DecodeTypeMeta(s, env)); break;  // a repeated typeMeta merges, as in Go
        case 2: env.raw = s; break;
        case 3: env.content_encoding.assign(s); break;
        case 4: env.content_type.assign(s); break;
      }
    } else if (!r.SkipValue(wt)) {
      return WireErrorStatus(r, "Unknown");
    }
  }
  return env;
}

StatusOr<Envelope> DecodeEnvelope(std::string_view bytes) {
  if (bytes.empty()) return BadRequest("empty data");
  if (!HasEnvelopeMagic(bytes)) {
    return BadRequest("provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
  }
  if (bytes.size() == kEnvelopeMagic.size()) return BadRequest("empty body");
  return DecodeUnknown(bytes.substr(kEnvelopeMagic.size()));
}

size_t BeginEnvelope(std::string& out, std::string_view api_version, std::string_view kind) {
  out.append(kEnvelopeMagic);
  const size_t type_meta = BeginLengthDelimited(out, 1);
  AppendLengthDelimited(out, 1, api_version);
  AppendLengthDelimited(out, 2, kind);
  EndLengthDelimited(out, type_meta);
  return BeginLengthDelimited(out, 2);
}

void FinishEnvelope(std::string& out, size_t mark) {
  EndLengthDelimited(out, mark);
  AppendLengthDelimited(out, 3, "");
  AppendLengthDelimited(out, 4, "");
}

void AppendEnvelope(std::string& out, std::string_view api_version, std::string_view kind, std::string_view raw,
                    std::string_view content_encoding, std::string_view content_type) {
  out.append(kEnvelopeMagic);
  const size_t type_meta = BeginLengthDelimited(out, 1);
  AppendLengthDelimited(out, 1, api_version);
  AppendLengthDelimited(out, 2, kind);
  EndLengthDelimited(out, type_meta);
  AppendLengthDelimited(out, 2, raw);
  AppendLengthDelimited(out, 3, content_encoding);
  AppendLengthDelimited(out, 4, content_type);
}

std::string EncodeEnvelope(std::string_view api_version, std::string_view kind, std::string_view raw) {
  std::string out;
  out.reserve(raw.size() + api_version.size() + kind.size() + 24);
  AppendEnvelope(out, api_version, kind, raw);
  return out;
}

void AppendWatchFrame(std::string& out, std::string_view frame) {
  const auto n = static_cast<uint32_t>(frame.size());
  out.push_back(static_cast<char>((n >> 24) & 0xff));
  out.push_back(static_cast<char>((n >> 16) & 0xff));
  out.push_back(static_cast<char>((n >> 8) & 0xff));
  out.push_back(static_cast<char>(n & 0xff));
  out.append(frame);
}

StatusOr<bool> WatchFrameReader::Next(std::string& frame) {
  if (buf_.size() - pos_ < 4) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(buf_.data() + pos_);
  const uint32_t n = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
  if (n > max_) {
    return BadRequest("watch frame of " + std::to_string(n) + " bytes is over the limit of " + std::to_string(max_));
  }
  if (buf_.size() - pos_ - 4 < n) return false;
  frame.assign(buf_, pos_ + 4, n);
  pos_ += 4 + n;
  // Drop consumed bytes once they dominate the buffer.
  if (pos_ > 4096 && pos_ * 2 > buf_.size()) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  return true;
}

}  // namespace capstan::apimachinery::protobuf
