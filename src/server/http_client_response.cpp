#include "server/http_client_response.h"

#include "util/strings.h"

namespace capstan::server {

namespace {

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f || c == ':' || c == '(' || c == ')' || c == ',' || c == '/' || c == ';' || c == '<' ||
        c == '=' || c == '>' || c == '?' || c == '@' || c == '[' || c == '\\' || c == ']' || c == '{' || c == '}' ||
        c == '"') {
      return false;
    }
  }
  return true;
}

bool ParseDecimal(std::string_view s, uint64_t& out) {
  if (s.empty() || s.size() > 18) return false;
  out = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<uint64_t>(c - '0');
  }
  return true;
}

}  // namespace

ResponseParser::Result ResponseParser::Fail(std::string msg) {
  state_ = State::kError;
  error_ = std::move(msg);
  keep_alive_ = false;
  return Result::kError;
}

bool ResponseParser::AppendBody(std::string_view data) {
  if (resp_.body.size() + data.size() > max_body_) {
    too_large_ = true;
    return false;
  }
  resp_.body.append(data);
  return true;
}

bool ResponseParser::ParseHead(std::string_view head) {
  // Status line: HTTP/1.x SP 3DIGIT [SP reason]
  size_t eol = head.find("\r\n");
  std::string_view line = head.substr(0, eol);
  if (line.size() < 12 || line.substr(0, 7) != "HTTP/1." || (line[7] != '0' && line[7] != '1') || line[8] != ' ') {
    error_ = "malformed HTTP response " + GoQuote(line.substr(0, 64));
    return false;
  }
  bool http10 = line[7] == '0';
  int code = 0;
  for (size_t i = 9; i < 12; ++i) {
    if (line[i] < '0' || line[i] > '9') {
      error_ = "malformed HTTP status code " + GoQuote(line.substr(9, 3));
      return false;
    }
    code = code * 10 + (line[i] - '0');
  }
  if (code < 100 || (line.size() > 12 && line[12] != ' ')) {
    error_ = "malformed HTTP status code " + GoQuote(line.substr(9));
    return false;
  }
  resp_ = http::ClientResponse();
  resp_.status = code;
  std::string_view rest = eol == std::string_view::npos ? std::string_view() : head.substr(eol + 2);
  size_t count = 0;
  while (!rest.empty()) {
    size_t e = rest.find("\r\n");
    std::string_view field = rest.substr(0, e);
    rest = e == std::string_view::npos ? std::string_view() : rest.substr(e + 2);
    if (field.empty()) continue;
    if (++count > kMaxHeaderCount) {
      error_ = "too many header fields in the response";
      return false;
    }
    size_t colon = field.find(':');
    if (colon == std::string_view::npos || !IsToken(field.substr(0, colon))) {
      error_ = "malformed MIME header line: " + std::string(field.substr(0, 64));
      return false;
    }
    resp_.headers.Add(std::string(field.substr(0, colon)), std::string(TrimSpace(field.substr(colon + 1))));
  }
  keep_alive_ = !http10;
  for (auto v : resp_.headers.GetAll("Connection")) {
    for (const auto& t : Split(v, ',')) {
      if (EqualsIgnoreCase(TrimSpace(t), "close")) keep_alive_ = false;
      if (EqualsIgnoreCase(TrimSpace(t), "keep-alive") && http10) keep_alive_ = true;
    }
  }
  return true;
}

ResponseParser::Result ResponseParser::Feed(std::string_view in, size_t* consumed) {
  *consumed = 0;
  if (!in.empty()) started_ = true;
  while (true) {
    switch (state_) {
      case State::kDone:
        return Result::kDone;
      case State::kError:
        return Result::kError;
      case State::kHead: {
        size_t take = in.size() - *consumed;
        if (buf_.size() + take > kMaxHeadBytes) take = kMaxHeadBytes + 4 - buf_.size();
        buf_.append(in.substr(*consumed, take));
        size_t from = scan_from_ >= 3 ? scan_from_ - 3 : 0;
        size_t end = buf_.find("\r\n\r\n", from);
        if (end == std::string::npos) {
          *consumed += take;
          if (buf_.size() > kMaxHeadBytes) return Fail("the response head is over " + std::to_string(kMaxHeadBytes) + " bytes");
          scan_from_ = buf_.size();
          return Result::kNeedMore;
        }
        // Give back what follows the head.
        size_t head_len = end + 4;
        size_t extra = buf_.size() - head_len;
        *consumed += take - extra;
        std::string head = buf_.substr(0, end);
        buf_.clear();
        scan_from_ = 0;
        if (!ParseHead(head)) return Fail(error_);
        int code = resp_.status;
        if (code >= 100 && code < 200) {
          if (code == 101 && allow_switch_) {
            keep_alive_ = false;
            state_ = State::kDone;
            continue;
          }
          if (code == 101) return Fail("unexpected protocol switch in the response");
          continue;  // interim response: the real one follows
        }
        auto te = resp_.headers.GetAll("Transfer-Encoding");
        auto cl = resp_.headers.GetAll("Content-Length");
        if (head_request_ || code == 204 || code == 304) {
          state_ = State::kDone;
          continue;
        }
        if (!te.empty()) {
          std::string last;
          for (auto v : te) {
            for (const auto& t : Split(v, ',')) {
              auto tt = TrimSpace(t);
              if (!tt.empty()) last = ToLower(tt);
            }
          }
          if (last != "chunked") return Fail("unsupported transfer encoding " + GoQuote(last));
          state_ = State::kChunkSize;
          continue;
        }
        if (!cl.empty()) {
          uint64_t n = 0;
          for (size_t i = 0; i < cl.size(); ++i) {
            uint64_t v = 0;
            if (!ParseDecimal(TrimSpace(cl[i]), v) || (i > 0 && v != n)) return Fail("bad Content-Length " + GoQuote(cl[i]));
            n = v;
          }
          if (n > max_body_) {
            too_large_ = true;
            return Fail("the response body is over " + std::to_string(max_body_) + " bytes");
          }
          remaining_ = n;
          state_ = n == 0 ? State::kDone : State::kBody;
          continue;
        }
        keep_alive_ = false;
        state_ = State::kUntilClose;
        continue;
      }
      case State::kBody: {
        size_t avail = in.size() - *consumed;
        size_t take = static_cast<size_t>(std::min<uint64_t>(avail, remaining_));
        if (take == 0) return Result::kNeedMore;
        AppendBody(in.substr(*consumed, take));
        *consumed += take;
        remaining_ -= take;
        if (remaining_ == 0) state_ = State::kDone;
        continue;
      }
      case State::kUntilClose: {
        size_t avail = in.size() - *consumed;
        if (avail == 0) return Result::kNeedMore;
        if (!AppendBody(in.substr(*consumed, avail))) return Fail("the response body is over " + std::to_string(max_body_) + " bytes");
        *consumed += avail;
        return Result::kNeedMore;
      }
      case State::kChunkSize:
      case State::kChunkDataEnd:
      case State::kTrailer: {
        size_t avail = in.size() - *consumed;
        std::string_view chunk = in.substr(*consumed, avail);
        size_t nl = chunk.find('\n');
        if (nl == std::string_view::npos) {
          if (buf_.size() + avail > 4096) return Fail("malformed chunked encoding");
          buf_.append(chunk);
          *consumed += avail;
          return Result::kNeedMore;
        }
        buf_.append(chunk.substr(0, nl + 1));
        *consumed += nl + 1;
        if (buf_.size() > 4096) return Fail("malformed chunked encoding");
        std::string line = buf_;
        buf_.clear();
        if (line.size() < 2 || line[line.size() - 2] != '\r') return Fail("malformed chunked encoding");
        line.resize(line.size() - 2);
        if (state_ == State::kChunkDataEnd) {
          if (!line.empty()) return Fail("malformed chunked encoding");
          state_ = State::kChunkSize;
          continue;
        }
        if (state_ == State::kTrailer) {
          if (line.empty()) state_ = State::kDone;
          continue;
        }
        std::string_view size_text = std::string_view(line).substr(0, line.find(';'));
        size_text = TrimSpace(size_text);
        if (size_text.empty() || size_text.size() > 15) return Fail("malformed chunked encoding");
        uint64_t n = 0;
        for (char c : size_text) {
          int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
          if (d < 0) return Fail("malformed chunked encoding");
          n = n * 16 + static_cast<uint64_t>(d);
        }
        if (n == 0) {
          state_ = State::kTrailer;
          continue;
        }
        if (resp_.body.size() + n > max_body_) {
          too_large_ = true;
          return Fail("the response body is over " + std::to_string(max_body_) + " bytes");
        }
        remaining_ = n;
        state_ = State::kChunkData;
        continue;
      }
      case State::kChunkData: {
        size_t avail = in.size() - *consumed;
        size_t take = static_cast<size_t>(std::min<uint64_t>(avail, remaining_));
        if (take == 0) return Result::kNeedMore;
        AppendBody(in.substr(*consumed, take));
        *consumed += take;
        remaining_ -= take;
        if (remaining_ == 0) state_ = State::kChunkDataEnd;
        continue;
      }
    }
  }
}

ResponseParser::Result ResponseParser::FinishAtEof() {
  if (state_ == State::kUntilClose) {
    state_ = State::kDone;
    return Result::kDone;
  }
  if (state_ == State::kDone) return Result::kDone;
  if (state_ == State::kError) return Result::kError;
  return Fail(started_ ? "unexpected EOF" : "EOF");
}

}  // namespace capstan::server
