#include "server/http/http_parser.h"

#include <cctype>
#include <cstring>

#include "util/strings.h"

namespace capstan::http {
namespace {

bool IsTokenChar(unsigned char c) {
  if (std::isalnum(c)) return true;
  return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != 0;
}

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (!IsTokenChar(c)) return false;
  }
  return true;
}

bool ValidHeaderValue(std::string_view v) {
  for (unsigned char c : v) {
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  return true;
}

// Finds the blank line ending the head ("\r\n\r\n" or "\n\n"); returns the index just past it.
size_t FindHeadEnd(std::string_view buf, size_t from) {
  for (size_t i = from; i < buf.size(); ++i) {
    if (buf[i] != '\n') continue;
    if (i + 1 < buf.size() && buf[i + 1] == '\n') return i + 2;
    if (i + 2 < buf.size() && buf[i + 1] == '\r' && buf[i + 2] == '\n') return i + 3;
  }
  return std::string_view::npos;
}

bool ParseDecimal(std::string_view s, uint64_t& out) {
  if (s.empty() || s.size() > 19) return false;
  out = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<uint64_t>(c - '0');
  }
  return true;
}

}  // namespace

RequestParser::Result RequestParser::Fail(int status, std::string msg) {
  state_ = State::kError;
  error_status_ = status;
  error_message_ = std::move(msg);
  return Result::kError;
}

bool RequestParser::ParseHead(std::string_view head) {
  // Split into lines, tolerating bare LF as Go's textproto does.
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < head.size()) {
    size_t nl = head.find('\n', start);
    if (nl == std::string_view::npos) nl = head.size();
    std::string_view line = head.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = nl + 1;
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.empty()) {
    Fail(400, "empty request line");
    return false;
  }
  // Request line: METHOD SP target SP HTTP/1.x
  std::string_view rl = lines[0];
  size_t sp1 = rl.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : rl.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos || rl.find(' ', sp2 + 1) != std::string_view::npos) {
    Fail(400, "malformed request line");
    return false;
  }
  std::string_view method = rl.substr(0, sp1);
  std::string_view target = rl.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = rl.substr(sp2 + 1);
  if (!IsToken(method)) {
    Fail(400, "invalid method");
    return false;
  }
  if (version == "HTTP/1.1") {
    req_.version_minor = 1;
  } else if (version == "HTTP/1.0") {
    req_.version_minor = 0;
  } else if (StartsWith(version, "HTTP/")) {
    Fail(505, "HTTP version not supported");
    return false;
  } else {
    Fail(400, "malformed HTTP version");
    return false;
  }
  if (target.empty()) {
    Fail(400, "empty request target");
    return false;
  }
  for (unsigned char c : target) {
    if (c <= 0x20 || c == 0x7f) {
      Fail(400, "invalid request target");
      return false;
    }
  }
  req_.method = std::string(method);
  req_.target = std::string(target);
  std::string_view path_and_query = target;
  if (target[0] != '/') {
    if (target == "*" && method == "OPTIONS") {
      path_and_query = "*";
    } else {
      // absolute-form: scheme://authority/path
      size_t scheme_end = target.find("://");
      if (scheme_end == std::string_view::npos) {
        Fail(400, "invalid request target");
        return false;
      }
      size_t path_start = target.find('/', scheme_end + 3);
      path_and_query = path_start == std::string_view::npos ? std::string_view("/") : target.substr(path_start);
    }
  }
  size_t q = path_and_query.find('?');
  req_.raw_path = std::string(path_and_query.substr(0, q));
  if (q != std::string_view::npos) req_.raw_query = std::string(path_and_query.substr(q + 1));
  if (!PercentDecode(req_.raw_path, req_.path, false)) {
    Fail(400, "invalid URL escape in path");
    return false;
  }
  req_.query = Query::Parse(req_.raw_query);

  if (lines.size() - 1 > limits_.max_header_count) {
    Fail(431, "too many header fields");
    return false;
  }
  bool have_length = false;
  uint64_t length = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.empty()) continue;
    if (line[0] == ' ' || line[0] == '\t') {
      Fail(400, "obsolete line folding is not supported");
      return false;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) {
      Fail(400, "malformed header field");
      return false;
    }
    std::string_view name = line.substr(0, colon);
    std::string_view value = TrimSpace(line.substr(colon + 1));
    if (!ValidHeaderValue(value)) {
      Fail(400, "invalid header field value");
      return false;
    }
    if (EqualsIgnoreCase(name, "Content-Length")) {
      uint64_t n;
      if (!ParseDecimal(value, n) || (have_length && n != length)) {
        Fail(400, "invalid Content-Length");
        return false;
      }
      have_length = true;
      length = n;
    } else if (EqualsIgnoreCase(name, "Transfer-Encoding")) {
      if (EqualsIgnoreCase(value, "chunked")) {
        chunked_ = true;
      } else if (!EqualsIgnoreCase(value, "identity")) {
        Fail(501, "unsupported transfer encoding");
        return false;
      }
    } else if (EqualsIgnoreCase(name, "Expect")) {
      if (EqualsIgnoreCase(value, "100-continue")) {
        expect_continue_ = true;
      } else {
        Fail(417, "unsupported Expect header");
        return false;
      }
    }
    req_.headers.Add(std::string(name), std::string(value));
  }
  std::string_view conn = req_.headers.Get("Connection");
  if (req_.version_minor == 0) {
    req_.keep_alive = EqualsIgnoreCase(conn, "keep-alive");
  } else {
    req_.keep_alive = !EqualsIgnoreCase(conn, "close");
  }
  if (chunked_) {
    req_.headers.Remove("Content-Length");
    state_ = State::kChunkSize;
  } else {
    if (length > limits_.max_body_bytes) {
      Fail(413, "request body too large");
      return false;
    }
    body_remaining_ = length;
    req_.body.reserve(length);
    state_ = State::kBody;
  }
  return true;
}

RequestParser::Result RequestParser::Feed(std::string_view in, size_t* consumed) {
  *consumed = 0;
  if (state_ == State::kError) return Result::kError;
  if (state_ == State::kDone) return Result::kDone;
  if (state_ == State::kHead) {
    size_t old = buf_.size();
    size_t take = in.size();
    // Never buffer more than the head limit (plus a little to find the terminator).
    if (old + take > limits_.max_header_bytes + 4) take = limits_.max_header_bytes + 4 - old;
    buf_.append(in.substr(0, take));
    size_t end = FindHeadEnd(buf_, scan_from_ > 2 ? scan_from_ - 2 : 0);
    if (end == std::string::npos) {
      scan_from_ = buf_.size();
      *consumed = take;
      if (buf_.size() > limits_.max_header_bytes) return Fail(431, "request header fields too large");
      return Result::kNeedMore;
    }
    if (end > limits_.max_header_bytes) return Fail(431, "request header fields too large");
    *consumed = end - old;
    std::string head = buf_.substr(0, end);
    buf_.clear();
    scan_from_ = 0;
    if (!ParseHead(head)) return Result::kError;
    size_t more = 0;
    Result r = Feed(in.substr(*consumed), &more);
    *consumed += more;
    return r;
  }
  if (state_ == State::kBody) {
    size_t take = static_cast<size_t>(std::min<uint64_t>(body_remaining_, in.size()));
    req_.body.append(in.substr(0, take));
    body_remaining_ -= take;
    *consumed = take;
    if (body_remaining_ == 0) {
      state_ = State::kDone;
      return Result::kDone;
    }
    return Result::kNeedMore;
  }
  return FeedChunked(in, consumed);
}

RequestParser::Result RequestParser::FeedChunked(std::string_view in, size_t* consumed) {
  size_t pos = 0;
  while (pos < in.size() || state_ == State::kDone) {
    switch (state_) {
      case State::kChunkSize:
      case State::kTrailer: {
        size_t nl = in.find('\n', pos);
        if (nl == std::string_view::npos) {
          buf_.append(in.substr(pos));
          pos = in.size();
          if (buf_.size() > 4096) {
            *consumed = pos;
            return Fail(400, "chunk line too long");
          }
          break;
        }
        buf_.append(in.substr(pos, nl - pos));
        pos = nl + 1;
        if (buf_.size() > 4096) {
          *consumed = pos;
          return Fail(400, "chunk line too long");
        }
        std::string line = std::move(buf_);
        buf_.clear();
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (state_ == State::kTrailer) {
          if (line.empty()) {
            state_ = State::kDone;
            *consumed = pos;
            return Result::kDone;
          }
          continue;  // trailer fields are ignored
        }
        std::string_view size_part = TrimSpace(std::string_view(line).substr(0, line.find(';')));
        if (size_part.empty() || size_part.size() > 15) {
          *consumed = pos;
          return Fail(400, "invalid chunk size");
        }
        uint64_t n = 0;
        for (char c : size_part) {
          int d;
          if (c >= '0' && c <= '9') d = c - '0';
          else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
          else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
          else {
            *consumed = pos;
            return Fail(400, "invalid chunk size");
          }
          n = n * 16 + static_cast<uint64_t>(d);
        }
        if (n == 0) {
          state_ = State::kTrailer;
          continue;
        }
        if (req_.body.size() + n > limits_.max_body_bytes) {
          *consumed = pos;
          return Fail(413, "request body too large");
        }
        body_remaining_ = n;
        state_ = State::kChunkData;
        break;
      }
      case State::kChunkData: {
        size_t take = static_cast<size_t>(std::min<uint64_t>(body_remaining_, in.size() - pos));
        req_.body.append(in.substr(pos, take));
        body_remaining_ -= take;
        pos += take;
        if (body_remaining_ == 0) state_ = State::kChunkDataEnd;
        break;
      }
      case State::kChunkDataEnd: {
        // Expect CRLF (or LF) after the chunk data.
        char c = in[pos];
        if (c == '\r' && buf_.empty()) {
          buf_ = "\r";
          ++pos;
        } else if (c == '\n') {
          buf_.clear();
          ++pos;
          state_ = State::kChunkSize;
        } else {
          *consumed = pos;
          return Fail(400, "malformed chunk terminator");
        }
        break;
      }
      case State::kDone:
        *consumed = pos;
        return Result::kDone;
      default:
        *consumed = pos;
        return Fail(400, "parser state error");
    }
  }
  *consumed = pos;
  return Result::kNeedMore;
}

HttpRequest RequestParser::TakeRequest() {
  HttpRequest out = std::move(req_);
  req_ = HttpRequest();
  state_ = State::kHead;
  buf_.clear();
  scan_from_ = 0;
  body_remaining_ = 0;
  chunked_ = false;
  expect_continue_ = false;
  return out;
}

}  // namespace capstan::http
