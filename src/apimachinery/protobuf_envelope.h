// apimachinery/protobuf_envelope.h: the envelope of Kubernetes protobuf bodies and the framing of
// protobuf watch streams.
//
// A body in application/vnd.kubernetes.protobuf is the 4 bytes "k8s\0" followed by a runtime.Unknown
// message: 1 typeMeta {1 apiVersion, 2 kind}, 2 raw (the object's own message), 3 contentEncoding,
// 4 contentType; kube writes all four, in that order, even when empty (docs/schema-format.md, "The
// envelope"). Decoding follows kube's protobuf serializer: "empty data", "provided data does not appear
// to be a protobuf message, expected prefix [107 56 115 0]", "empty body", then the Unknown message.
//
// Watch streams (application/vnd.kubernetes.protobuf;stream=watch) are a sequence of frames, each a
// 4-byte big-endian length followed by that many bytes. kube writes each event with its raw (stream)
// serializer: the frame holds a meta/v1 WatchEvent message *without* the envelope, and the event's
// object (a RawExtension) holds the object with the envelope. WatchFrameReader splits a stream into
// frames with a size limit.
//
// Pure functions and plain values; thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::apimachinery::protobuf {

inline constexpr std::string_view kEnvelopeMagic{"k8s\0", 4};
inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";
inline constexpr std::string_view kProtobufWatchContentType = "application/vnd.kubernetes.protobuf;stream=watch";

// runtime.Unknown. `raw` views the decoded input (or the caller's bytes when encoding).
struct Envelope {
  std::string api_version;
  std::string kind;
  std::string_view raw;
  std::string content_encoding;
  std::string content_type;
};

// Whether bytes start with the magic (kube's RecognizesData).
inline bool HasEnvelopeMagic(std::string_view bytes) { return bytes.substr(0, kEnvelopeMagic.size()) == kEnvelopeMagic; }

// Reads magic + Unknown. Unknown fields are skipped; a malformed message is a 400 BadRequest.
StatusOr<Envelope> DecodeEnvelope(std::string_view bytes);
// Reads a runtime.Unknown message (no magic).
StatusOr<Envelope> DecodeUnknown(std::string_view message);

// Appends magic + Unknown{typeMeta, raw, contentEncoding, contentType}, every field written.
void AppendEnvelope(std::string& out, std::string_view api_version, std::string_view kind, std::string_view raw,
                    std::string_view content_encoding = "", std::string_view content_type = "");
std::string EncodeEnvelope(std::string_view api_version, std::string_view kind, std::string_view raw);

// Starts an envelope whose raw message the caller writes in place into `out` right after this call;
// FinishEnvelope closes it (patching raw's length) and appends the empty contentEncoding/contentType.
// This is how an object is encoded without copying its message.
size_t BeginEnvelope(std::string& out, std::string_view api_version, std::string_view kind);
void FinishEnvelope(std::string& out, size_t mark);

// --- watch stream framing (kube's LengthDelimitedFramer)

// Appends a 4-byte big-endian length and the frame.
void AppendWatchFrame(std::string& out, std::string_view frame);

// Splits a byte stream into frames. Feed bytes as they arrive; Next() yields whole frames.
class WatchFrameReader {
 public:
  explicit WatchFrameReader(size_t max_frame_bytes = 64 * 1024 * 1024) : max_(max_frame_bytes) {}
  void Append(std::string_view bytes) { buf_.append(bytes); }
  // true: the next whole frame is in `frame`; false: more bytes are needed; an error (400) when a
  // frame's length is over the limit (the stream cannot continue).
  StatusOr<bool> Next(std::string& frame);
  size_t buffered() const { return buf_.size() - pos_; }

 private:
  std::string buf_;
  size_t pos_ = 0;
  size_t max_;
};

}  // namespace capstan::apimachinery::protobuf
