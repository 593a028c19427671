#include "server/http/spdy_framer.h"

#include <zlib.h>

#include <algorithm>
#include <array>

#include "apimachinery/errors.h"
#include "util/check.h"

namespace capstan::http::spdy {
namespace {

constexpr size_t kFrameHeaderBytes = 8;
constexpr uint32_t kStreamIdMask = 0x7fffffff;

// The SPDY/3 dictionary: these words, each after its 32-bit length, then the tail as it is.
constexpr std::array<std::string_view, 65> kDictionaryWords = {
    "options", "head", "post", "put", "delete", "trace", "accept", "accept-charset", "accept-encoding",
    "accept-language", "accept-ranges", "age", "allow", "authorization", "cache-control", "connection",
    "content-base", "content-encoding", "content-language", "content-length", "content-location",
    "content-md5", "content-range", "content-type", "date", "etag", "expect", "expires", "from", "host",
    "if-match", "if-modified-since", "if-none-match", "if-range", "if-unmodified-since", "last-modified",
    "location", "max-forwards", "pragma", "proxy-authenticate", "proxy-authorization", "range", "referer",
    "retry-after", "server", "te", "trailer", "transfer-encoding", "upgrade", "user-agent", "vary", "via",
    "warning", "www-authenticate", "method", "get", "status", "200 OK", "version", "HTTP/1.1", "url",
    "public", "set-cookie", "keep-alive", "origin"};
constexpr std::string_view kDictionaryTail =
    "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505"
    "203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized"
    "403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable"
    "Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT"
    "chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,"
    "text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.";

void PutU32(std::string& out, uint32_t v) {
  out.push_back(static_cast<char>(v >> 24));
  out.push_back(static_cast<char>(v >> 16));
  out.push_back(static_cast<char>(v >> 8));
  out.push_back(static_cast<char>(v));
}

uint32_t GetU32(std::string_view in, size_t at) {
  auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(in[at + i])); };
  return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}

std::string ControlFrameHead(FrameType type, uint8_t flags, size_t length) {
  CAPSTAN_CHECK(length <= kMaxFrameLength);
  std::string out;
  out.reserve(kFrameHeaderBytes + length);
  PutU32(out, 0x80000000u | uint32_t{kVersion} << 16 | static_cast<uint16_t>(type));
  PutU32(out, uint32_t{flags} << 24 | static_cast<uint32_t>(length));
  return out;
}

std::string FixedControlFrame(FrameType type, uint32_t a, uint32_t b) {
  std::string out = ControlFrameHead(type, 0, 8);
  PutU32(out, a);
  PutU32(out, b);
  return out;
}

char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// The uncompressed header block: lower-cased names, repeated names merged in first-seen order.
std::string SerializeHeaderBlock(const HeaderBlock& headers) {
  HeaderBlock merged;
  for (const auto& [name, value] : headers) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(), LowerAscii);
    auto it = std::find_if(merged.begin(), merged.end(), [&](const auto& p) { return p.first == lower; });
    if (it == merged.end()) {
      merged.emplace_back(std::move(lower), value);
    } else {
      it->second.push_back('\0');
      it->second += value;
    }
  }
  std::string out;
  PutU32(out, static_cast<uint32_t>(merged.size()));
  for (const auto& [name, value] : merged) {
    PutU32(out, static_cast<uint32_t>(name.size()));
    out += name;
    PutU32(out, static_cast<uint32_t>(value.size()));
    out += value;
  }
  return out;
}

Status Malformed(std::string_view what) { return apimachinery::NewBadRequest("spdy: " + std::string(what)); }

}  // namespace

std::string_view HeaderDictionary() {
  static const std::string dictionary = [] {
    std::string d;
    for (std::string_view word : kDictionaryWords) {
      PutU32(d, static_cast<uint32_t>(word.size()));
      d += word;
    }
    d += kDictionaryTail;
    return d;
  }();
  return dictionary;
}

std::string_view Frame::Header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (n.size() == name.size() && std::equal(n.begin(), n.end(), name.begin(), [](char a, char b) {
          return LowerAscii(a) == LowerAscii(b);
        })) {
      std::string_view value = v;
      return value.substr(0, value.find('\0'));
    }
  }
  return {};
}

// ---- Encoder ----

// spdystream's writer: zlib at best compression with the dictionary, one sync flush per header block.
// Header blocks are a few hundred bytes, so a 2 KiB window (the dictionary fits) and the smallest
// hash tables compress them as well as zlib's defaults, in about 10 KiB per connection instead of
// 256 KiB; any zlib reader (Go's included) takes the smaller window.
struct Encoder::Deflater {
  z_stream z{};
  Deflater() {
    CAPSTAN_CHECK(deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 11, 1, Z_DEFAULT_STRATEGY) == Z_OK);
    std::string_view dict = HeaderDictionary();
    CAPSTAN_CHECK(deflateSetDictionary(&z, reinterpret_cast<const Bytef*>(dict.data()),
                                       static_cast<uInt>(dict.size())) == Z_OK);
  }
  ~Deflater() { deflateEnd(&z); }

  void Compress(std::string_view in, std::string& out) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    std::array<char, 4096> chunk;
    do {
      z.next_out = reinterpret_cast<Bytef*>(chunk.data());
      z.avail_out = static_cast<uInt>(chunk.size());
      int rc = deflate(&z, Z_SYNC_FLUSH);
      CAPSTAN_CHECK(rc == Z_OK || rc == Z_BUF_ERROR);
      out.append(chunk.data(), chunk.size() - z.avail_out);
    } while (z.avail_out == 0);
    CAPSTAN_CHECK(z.avail_in == 0);
  }
};

Encoder::Encoder() : deflater_(std::make_unique<Deflater>()) {}
Encoder::~Encoder() = default;

std::string Encoder::HeaderFrame(FrameType type, uint8_t flags, std::string_view prefix,
                                 const HeaderBlock& headers) {
  std::string compressed;
  deflater_->Compress(SerializeHeaderBlock(headers), compressed);
  std::string out = ControlFrameHead(type, flags, prefix.size() + compressed.size());
  out += prefix;
  out += compressed;
  return out;
}

std::string Encoder::SynStream(uint32_t stream_id, uint32_t associated_id, uint8_t priority, uint8_t flags,
                               const HeaderBlock& headers) {
  std::string prefix;
  PutU32(prefix, stream_id & kStreamIdMask);
  PutU32(prefix, associated_id & kStreamIdMask);
  prefix.push_back(static_cast<char>((priority & 0x07) << 5));
  prefix.push_back('\0');  // credential slot, unused in SPDY/3.1
  return HeaderFrame(FrameType::kSynStream, flags, prefix, headers);
}

std::string Encoder::SynReply(uint32_t stream_id, uint8_t flags, const HeaderBlock& headers) {
  std::string prefix;
  PutU32(prefix, stream_id & kStreamIdMask);
  return HeaderFrame(FrameType::kSynReply, flags, prefix, headers);
}

std::string Encoder::Headers(uint32_t stream_id, uint8_t flags, const HeaderBlock& headers) {
  std::string prefix;
  PutU32(prefix, stream_id & kStreamIdMask);
  return HeaderFrame(FrameType::kHeaders, flags, prefix, headers);
}

std::string Encoder::Data(uint32_t stream_id, uint8_t flags, std::string_view data) {
  CAPSTAN_CHECK(data.size() <= kMaxFrameLength);
  std::string out;
  out.reserve(kFrameHeaderBytes + data.size());
  PutU32(out, stream_id & kStreamIdMask);
  PutU32(out, uint32_t{flags} << 24 | static_cast<uint32_t>(data.size()));
  out += data;
  return out;
}

std::string Encoder::RstStream(uint32_t stream_id, uint32_t status) {
  return FixedControlFrame(FrameType::kRstStream, stream_id & kStreamIdMask, status);
}

std::string Encoder::Settings(const std::vector<Setting>& settings, uint8_t flags) {
  std::string out = ControlFrameHead(FrameType::kSettings, flags, 4 + 8 * settings.size());
  PutU32(out, static_cast<uint32_t>(settings.size()));
  for (const Setting& s : settings) {
    PutU32(out, uint32_t{s.flags} << 24 | (s.id & 0xffffff));
    PutU32(out, s.value);
  }
  return out;
}

std::string Encoder::Ping(uint32_t id) {
  std::string out = ControlFrameHead(FrameType::kPing, 0, 4);
  PutU32(out, id);
  return out;
}

std::string Encoder::GoAway(uint32_t last_good_stream_id, uint32_t status) {
  return FixedControlFrame(FrameType::kGoAway, last_good_stream_id & kStreamIdMask, status);
}

std::string Encoder::WindowUpdate(uint32_t stream_id, uint32_t delta) {
  return FixedControlFrame(FrameType::kWindowUpdate, stream_id & kStreamIdMask, delta & kStreamIdMask);
}

// ---- Decoder ----

// spdystream's reader: one zlib stream for the connection, given the dictionary when its header asks.
struct Decoder::Inflater {
  z_stream z{};
  bool ok = false;
  Inflater() { ok = inflateInit(&z) == Z_OK; }
  ~Inflater() {
    if (ok) inflateEnd(&z);
  }

  // Inflates one frame's compressed block, which must end on a flush: all of it is consumed and all
  // its output produced.
  Status Decompress(std::string_view in, size_t limit, std::string& out) {
    if (!ok) return apimachinery::NewInternalError("spdy: zlib inflateInit failed");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    std::array<char, 4096> chunk;
    while (true) {
      z.next_out = reinterpret_cast<Bytef*>(chunk.data());
      z.avail_out = static_cast<uInt>(chunk.size());
      int rc = inflate(&z, Z_SYNC_FLUSH);
      if (rc == Z_NEED_DICT) {
        std::string_view dict = HeaderDictionary();
        if (inflateSetDictionary(&z, reinterpret_cast<const Bytef*>(dict.data()),
                                 static_cast<uInt>(dict.size())) != Z_OK) {
          return Malformed("header block compressed with an unknown dictionary");
        }
        continue;
      }
      if (rc == Z_STREAM_END) return Malformed("header compression stream ended");
      if (rc != Z_OK && rc != Z_BUF_ERROR) return Malformed("bad compressed header block");
      out.append(chunk.data(), chunk.size() - z.avail_out);
      if (out.size() > limit) return Malformed("header block too large");
      if (z.avail_out != 0) break;  // everything available was produced
    }
    if (z.avail_in != 0) return Malformed("bad compressed header block");
    return Status::Ok();
  }
};

Decoder::Decoder(DecoderLimits limits) : limits_(limits), inflater_(std::make_unique<Inflater>()) {}
Decoder::~Decoder() = default;

Status Decoder::Feed(std::string_view bytes, std::vector<Frame>* out) {
  if (!failed_.ok()) return failed_;
  buffer_.append(bytes);
  std::string_view in = buffer_;
  size_t pos = 0;
  Status st;
  while (in.size() - pos >= kFrameHeaderBytes) {
    size_t length = GetU32(in, pos + 4) & 0xffffff;
    if (length > limits_.max_frame_bytes) {
      st = Malformed("frame too large");
      break;
    }
    if (in.size() - pos - kFrameHeaderBytes < length) break;
    st = DecodeFrame(in.substr(pos, kFrameHeaderBytes), in.substr(pos + kFrameHeaderBytes, length), out);
    if (!st.ok()) break;
    pos += kFrameHeaderBytes + length;
  }
  if (!st.ok()) {
    failed_ = st;
    buffer_.clear();
    return st;
  }
  buffer_.erase(0, pos);
  return Status::Ok();
}

Status Decoder::DecodeFrame(std::string_view head, std::string_view body, std::vector<Frame>* out) {
  uint32_t first = GetU32(head, 0);
  uint8_t flags = static_cast<uint8_t>(head[4]);
  if (first & 0x80000000u) {
    uint16_t version = static_cast<uint16_t>((first >> 16) & 0x7fff);
    if (version != kVersion) return Malformed("unsupported version " + std::to_string(version));
    return DecodeControlFrame(static_cast<uint16_t>(first & 0xffff), flags, body, out);
  }
  Frame f;
  f.type = FrameType::kData;
  f.flags = flags;
  f.stream_id = first;
  if (f.stream_id == 0) return Malformed("DATA frame on stream 0");
  f.data = body;
  out->push_back(std::move(f));
  return Status::Ok();
}

Status Decoder::DecodeControlFrame(uint16_t type, uint8_t flags, std::string_view body,
                                   std::vector<Frame>* out) {
  Frame f;
  f.type = static_cast<FrameType>(type);
  f.flags = flags;
  auto fixed_length = [&](size_t want) {
    return body.size() == want ? Status::Ok() : Malformed("control frame of type " + std::to_string(type) +
                                                          " has length " + std::to_string(body.size()));
  };
  switch (f.type) {
    case FrameType::kSynStream: {
      if (body.size() < 10) return Malformed("SYN_STREAM too short");
      f.stream_id = GetU32(body, 0) & kStreamIdMask;
      f.associated_id = GetU32(body, 4) & kStreamIdMask;
      f.priority = static_cast<uint8_t>(static_cast<unsigned char>(body[8]) >> 5);
      if (Status st = DecodeHeaderBlock(body.substr(10), &f.headers); !st.ok()) return st;
      break;
    }
    case FrameType::kSynReply:
    case FrameType::kHeaders: {
      if (body.size() < 4) return Malformed("header frame too short");
      f.stream_id = GetU32(body, 0) & kStreamIdMask;
      if (Status st = DecodeHeaderBlock(body.substr(4), &f.headers); !st.ok()) return st;
      break;
    }
    case FrameType::kRstStream: {
      if (Status st = fixed_length(8); !st.ok()) return st;
      f.stream_id = GetU32(body, 0) & kStreamIdMask;
      f.status = GetU32(body, 4);
      if (f.status == 0) return Malformed("RST_STREAM with status 0");
      break;
    }
    case FrameType::kSettings: {
      if (body.size() < 4) return Malformed("SETTINGS too short");
      uint32_t n = GetU32(body, 0);
      if (n > (body.size() - 4) / 8 || body.size() != 4 + size_t{n} * 8) {
        return Malformed("SETTINGS length does not match its count");
      }
      for (uint32_t i = 0; i < n; ++i) {
        uint32_t flag_id = GetU32(body, 4 + i * 8);
        f.settings.push_back({static_cast<uint8_t>(flag_id >> 24), flag_id & 0xffffff, GetU32(body, 8 + i * 8)});
      }
      break;
    }
    case FrameType::kPing: {
      if (Status st = fixed_length(4); !st.ok()) return st;
      f.ping_id = GetU32(body, 0);
      if (f.ping_id == 0) return Malformed("PING with id 0");
      if (flags != 0) return Malformed("PING with flags");
      break;
    }
    case FrameType::kGoAway: {
      if (Status st = fixed_length(8); !st.ok()) return st;
      if (flags != 0) return Malformed("GOAWAY with flags");
      f.last_good_stream_id = GetU32(body, 0) & kStreamIdMask;
      f.status = GetU32(body, 4);
      break;
    }
    case FrameType::kWindowUpdate: {
      if (Status st = fixed_length(8); !st.ok()) return st;
      if (flags != 0) return Malformed("WINDOW_UPDATE with flags");
      f.stream_id = GetU32(body, 0) & kStreamIdMask;
      f.delta_window = GetU32(body, 4) & kStreamIdMask;
      break;
    }
    default:
      return Status::Ok();  // an unknown control frame is ignored (its payload was never compressed state)
  }
  bool needs_stream = f.type == FrameType::kSynStream || f.type == FrameType::kSynReply ||
                      f.type == FrameType::kHeaders || f.type == FrameType::kRstStream;
  if (needs_stream && f.stream_id == 0) return Malformed("stream id 0");
  out->push_back(std::move(f));
  return Status::Ok();
}

Status Decoder::DecodeHeaderBlock(std::string_view compressed, HeaderBlock* headers) {
  std::string block;
  if (Status st = inflater_->Decompress(compressed, limits_.max_header_block_bytes, block); !st.ok()) return st;
  std::string_view in = block;
  size_t pos = 0;
  auto take = [&](std::string_view* field) {
    if (in.size() - pos < 4) return false;
    uint32_t n = GetU32(in, pos);
    pos += 4;
    if (in.size() - pos < n) return false;
    *field = in.substr(pos, n);
    pos += n;
    return true;
  };
  if (in.size() < 4) return Malformed("truncated header block");
  uint32_t count = GetU32(in, 0);
  pos = 4;
  if (count > limits_.max_header_count) return Malformed("too many headers");
  if (count > (in.size() - 4) / 8) return Malformed("truncated header block");
  headers->reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    std::string_view name, value;
    if (!take(&name) || !take(&value)) return Malformed("truncated header block");
    if (name.empty()) return Malformed("empty header name");
    if (std::any_of(name.begin(), name.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {
      return Malformed("header name not lower-case");
    }
    headers->emplace_back(std::string(name), std::string(value));
  }
  if (pos != in.size()) return Malformed("trailing bytes after header block");
  std::vector<std::string_view> names;
  names.reserve(headers->size());
  for (const auto& h : *headers) names.push_back(h.first);
  std::sort(names.begin(), names.end());
  if (std::adjacent_find(names.begin(), names.end()) != names.end()) return Malformed("repeated header name");
  return Status::Ok();
}

}  // namespace capstan::http::spdy
