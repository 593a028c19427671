#include "apimachinery/json_parse.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>
#include <utility>

#include "apimachinery/utf8.h"
#include "util/strings.h"

namespace capstan::apimachinery {
namespace {

namespace json = boost::json;

// Go's quoteChar: the byte as a rune in single quotes, with Go escapes.
std::string QuoteChar(unsigned char c) {
  if (c == '\'') return "'\\''";
  if (c == '"') return "'\"'";
  std::string rune;
  AppendUtf8(rune, c);  // Go's string(byte) is the rune U+00XX
  std::string q;
  if (c == 0xa0 || c == 0xad) {
    q = c == 0xa0 ? "\\u00a0" : "\\u00ad";  // Latin-1 runes Go does not count as printable
  } else {
    q = GoQuote(rune);
    q = q.substr(1, q.size() - 2);
  }
  return "'" + q + "'";
}

bool IsSpace(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

int HexVal(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Parser {
 public:
  Parser(std::string_view in, const JsonParseOptions& opts) : in_(in), opts_(opts) {}

  bool Run(JsonParseResult& out);
  Status TakeError() { return std::move(err_); }

 private:
  struct Frame {
    json::value v;     // an object or an array under construction
    std::string key;   // objects: the key whose value is being parsed
    size_t path_len = 0;  // strict mode: path_ length before this frame's child component
  };

  bool AtEnd() const { return pos_ >= in_.size(); }
  unsigned char Cur() const { return static_cast<unsigned char>(in_[pos_]); }
  void SkipSpace() {
    while (pos_ < in_.size() && IsSpace(Cur())) ++pos_;
  }
  // Go's scanner error for byte c; at the end of input Go feeds a space.
  bool ErrAt(unsigned char c, std::string_view context) {
    std::string msg = "invalid character " + QuoteChar(c);
    if (!context.empty()) {
      msg += ' ';
      msg += context;
    }
    return Fail(std::move(msg));
  }
  bool UnexpectedEnd() { return Fail("unexpected end of JSON input"); }
  bool Fail(std::string msg) {
    err_ = Status(400, "BadRequest", std::move(msg));
    return false;
  }

  bool ParseString(std::string& out);
  bool ParseNumber(json::value& out);
  bool ParseLiteral(json::value& out);
  bool BeginKey(Frame& f);
  void AddStrictError(std::string_view key);

  std::string_view in_;
  const JsonParseOptions& opts_;
  size_t pos_ = 0;
  Status err_;
  std::string scratch_;      // string values are unescaped here before they are stored
  std::string value_error_;  // first value error (number out of range); reported after syntax
  // Strict mode bookkeeping: the current path ("spec.items[0]") and the errors.
  std::string path_;
  std::vector<std::string> strict_errors_;
  std::set<std::string> seen_strict_;
};

void Parser::AddStrictError(std::string_view key) {
  if (strict_errors_.size() >= 100) return;
  std::string path = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  std::string msg = "duplicate field " + GoQuote(path);
  if (seen_strict_.insert(msg).second) strict_errors_.push_back(std::move(msg));
}

bool Parser::ParseString(std::string& out) {
  // At the opening quote.
  ++pos_;
  out.clear();
  while (true) {
    size_t start = pos_;
    while (pos_ < in_.size()) {
      unsigned char c = Cur();
      if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
      ++pos_;
    }
    out.append(in_.data() + start, pos_ - start);
    if (AtEnd()) return UnexpectedEnd();
    unsigned char c = Cur();
    if (c == '"') {
      ++pos_;
      return true;
    }
    if (c < 0x20) return ErrAt(c, "in string literal");
    if (c >= 0x80) {
      size_t n = Utf8SequenceLength(in_.substr(pos_));
      if (n == 0) {
        AppendUtf8(out, 0xfffd);  // Go's decoder replaces each invalid byte
        ++pos_;
      } else {
        out.append(in_.data() + pos_, n);
        pos_ += n;
      }
      continue;
    }
    // Backslash escape.
    ++pos_;
    if (AtEnd()) return UnexpectedEnd();
    c = Cur();
    ++pos_;
    switch (c) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '/': out.push_back('/'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        auto read4 = [&](uint32_t& r) -> bool {
          r = 0;
          for (int i = 0; i < 4; ++i) {
            if (AtEnd()) return UnexpectedEnd();
            int h = HexVal(Cur());
            if (h < 0) return ErrAt(Cur(), "in \\u hexadecimal character escape");
            r = r * 16 + h;
            ++pos_;
          }
          return true;
        };
        uint32_t r;
        if (!read4(r)) return false;
        if (r >= 0xd800 && r < 0xe000) {
          // A surrogate: valid only as a high one followed by an escaped low one.
          uint32_t r2 = 0;
          bool paired = false;
          if (r < 0xdc00 && pos_ + 6 <= in_.size() && in_[pos_] == '\\' && in_[pos_ + 1] == 'u') {
            size_t save = pos_;
            pos_ += 2;
            bool hex_ok = true;
            for (int i = 0; i < 4; ++i) {
              int h = HexVal(static_cast<unsigned char>(in_[pos_ + i]));
              if (h < 0) hex_ok = false;
              else r2 = r2 * 16 + h;
            }
            if (hex_ok && r2 >= 0xdc00 && r2 < 0xe000) {
              pos_ += 4;
              paired = true;
            } else {
              pos_ = save;  // the next escape is scanned on its own
            }
          }
          r = paired ? 0x10000 + ((r - 0xd800) << 10) + (r2 - 0xdc00) : 0xfffd;
        }
        AppendUtf8(out, r);
        break;
      }
      default:
        return ErrAt(c, "in string escape code");
    }
  }
}

bool Parser::ParseNumber(json::value& out) {
  size_t start = pos_;
  auto digit = [&] { return !AtEnd() && Cur() >= '0' && Cur() <= '9'; };
  auto err_or_end = [&](std::string_view ctx) { return AtEnd() ? ErrAt(' ', ctx) : ErrAt(Cur(), ctx); };
  if (Cur() == '-') {
    ++pos_;
    if (!digit()) return err_or_end("in numeric literal");
  }
  if (Cur() == '0') {
    ++pos_;
  } else {
    while (digit()) ++pos_;
  }
  bool has_dot = false;
  if (!AtEnd() && Cur() == '.') {
    has_dot = true;
    ++pos_;
    if (!digit()) return err_or_end("after decimal point in numeric literal");
    while (digit()) ++pos_;
  }
  if (!AtEnd() && (Cur() == 'e' || Cur() == 'E')) {
    ++pos_;
    if (!AtEnd() && (Cur() == '+' || Cur() == '-')) ++pos_;
    if (!digit()) return err_or_end("in exponent of numeric literal");
    while (digit()) ++pos_;
  }
  std::string_view text = in_.substr(start, pos_ - start);
  if (!has_dot) {
    int64_t i = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), i);
    if (r.ec == std::errc() && r.ptr == text.data() + text.size()) {
      out = i;
      return true;
    }
  }
  std::string copy(text);
  double d = std::strtod(copy.c_str(), nullptr);
  if (std::isinf(d)) {
    if (value_error_.empty()) {
      value_error_ = "json: cannot unmarshal number " + copy + " into Go value of type float64";
    }
    out = nullptr;
    return true;
  }
  out = d;
  return true;
}

bool Parser::ParseLiteral(json::value& out) {
  std::string_view word;
  std::string_view name;
  switch (Cur()) {
    case 't': word = "true", name = "true"; break;
    case 'f': word = "false", name = "false"; break;
    default: word = "null", name = "null"; break;
  }
  ++pos_;
  for (size_t i = 1; i < word.size(); ++i, ++pos_) {
    unsigned char c = AtEnd() ? ' ' : Cur();
    if (c != static_cast<unsigned char>(word[i])) {
      std::string ctx = "in literal " + std::string(name) + " (expecting '" + word[i] + "')";
      return ErrAt(c, ctx);
    }
  }
  if (name == "true") out = true;
  else if (name == "false") out = false;
  else out = nullptr;
  return true;
}

// After '{' or ',': expects a key string, then ':'.
bool Parser::BeginKey(Frame& f) {
  SkipSpace();
  if (AtEnd()) return UnexpectedEnd();
  if (Cur() != '"') return ErrAt(Cur(), "looking for beginning of object key string");
  if (!ParseString(f.key)) return false;
  SkipSpace();
  if (AtEnd()) return UnexpectedEnd();
  if (Cur() != ':') return ErrAt(Cur(), "after object key");
  ++pos_;
  return true;
}

bool Parser::Run(JsonParseResult& out) {
  std::vector<Frame> stack;
  json::value v;
  while (true) {
    // Parse one value into v, or open a container and continue with its first member.
    SkipSpace();
    if (AtEnd()) return UnexpectedEnd();
    unsigned char c = Cur();
    bool complete = true;
    if (c == '{' || c == '[') {
      if (static_cast<int>(stack.size()) + 1 > opts_.max_depth) return ErrAt(c, "exceeded max depth");
      ++pos_;
      Frame f;
      f.path_len = path_.size();
      SkipSpace();
      if (AtEnd()) return UnexpectedEnd();
      if (c == '{') {
        f.v = json::object();
        if (Cur() == '}') {
          ++pos_;
          v = std::move(f.v);
        } else {
          if (!BeginKey(f)) return false;
          if (opts_.strict) {
            if (!path_.empty()) path_ += '.';
            path_ += f.key;
          }
          stack.push_back(std::move(f));
          complete = false;
        }
      } else {
        f.v = json::array();
        if (Cur() == ']') {
          ++pos_;
          v = std::move(f.v);
        } else {
          if (opts_.strict) path_ += "[0]";
          stack.push_back(std::move(f));
          complete = false;
        }
      }
    } else if (c == '"') {
      if (!ParseString(scratch_)) return false;
      v = json::string(scratch_);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      if (!ParseNumber(v)) return false;
    } else if (c == 't' || c == 'f' || c == 'n') {
      if (!ParseLiteral(v)) return false;
    } else {
      return ErrAt(c, "looking for beginning of value");
    }
    if (!complete) continue;

    // Attach the completed value to its parent, closing parents as far as possible.
    while (true) {
      if (stack.empty()) {
        SkipSpace();
        if (!AtEnd()) return ErrAt(Cur(), "after top-level value");
        if (!value_error_.empty()) return Fail(value_error_);
        out.value = std::move(v);
        out.strict_errors = std::move(strict_errors_);
        return true;
      }
      Frame& f = stack.back();
      if (opts_.strict) path_.resize(f.path_len);
      SkipSpace();
      if (f.v.is_object()) {
        json::object& o = f.v.get_object();
        if (opts_.strict && o.contains(f.key)) AddStrictError(f.key);
        o.insert_or_assign(f.key, std::move(v));
        if (AtEnd()) return UnexpectedEnd();
        if (Cur() == ',') {
          ++pos_;
          if (!BeginKey(f)) return false;
          if (opts_.strict) {
            if (!path_.empty()) path_ += '.';
            path_ += f.key;
          }
          break;
        }
        if (Cur() != '}') return ErrAt(Cur(), "after object key:value pair");
      } else {
        json::array& a = f.v.get_array();
        a.push_back(std::move(v));
        if (AtEnd()) return UnexpectedEnd();
        if (Cur() == ',') {
          ++pos_;
          if (opts_.strict) path_ += "[" + std::to_string(a.size()) + "]";
          break;
        }
        if (Cur() != ']') return ErrAt(Cur(), "after array element");
      }
      ++pos_;
      v = std::move(f.v);
      stack.pop_back();
    }
  }
}

}  // namespace

StatusOr<JsonParseResult> ParseJson(std::string_view text, const JsonParseOptions& opts) {
  if (opts.max_bytes != 0 && text.size() > opts.max_bytes) {
    return Status(413, "RequestEntityTooLarge",
                  "Request entity too large: limit is " + std::to_string(opts.max_bytes));
  }
  JsonParseResult out;
  Parser p(text, opts);
  if (!p.Run(out)) return p.TakeError();
  return out;
}

std::string UnknownFieldError(std::string_view path) { return "unknown field " + GoQuote(path); }

std::string StrictDecodingMessage(const std::vector<std::string>& errors) {
  return "strict decoding error: " + Join(errors, ", ");
}

StatusOr<boost::json::value> ParseJsonValue(std::string_view text) {
  ASSIGN_OR_RETURN(JsonParseResult r, ParseJson(text));
  return std::move(r.value);
}

}  // namespace capstan::apimachinery
