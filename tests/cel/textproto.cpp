#include "textproto.h"

#include <cctype>

#include "apimachinery/utf8.h"

namespace capstan::cel::testing {

namespace {

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  bool Message(TextNode& m, char close, std::string& err) {
    for (;;) {
      Skip();
      if (i_ >= s_.size()) {
        if (close == 0) return true;
        err = "unexpected end";
        return false;
      }
      if (s_[i_] == close) {
        ++i_;
        return true;
      }
      if (s_[i_] == ',' || s_[i_] == ';') {
        ++i_;
        continue;
      }
      TextNode f;
      if (!Ident(f.name)) {
        err = "expected field name at " + std::to_string(i_);
        return false;
      }
      Skip();
      bool colon = false;
      if (i_ < s_.size() && s_[i_] == ':') {
        ++i_;
        colon = true;
        Skip();
      }
      if (i_ < s_.size() && (s_[i_] == '{' || s_[i_] == '<')) {
        char c = s_[i_] == '{' ? '}' : '>';
        ++i_;
        f.is_message = true;
        if (!Message(f, c, err)) return false;
        m.fields.push_back(std::move(f));
        continue;
      }
      if (i_ < s_.size() && s_[i_] == '[') {  // a list of values: one field per element
        ++i_;
        for (;;) {
          Skip();
          if (i_ < s_.size() && s_[i_] == ']') {
            ++i_;
            break;
          }
          if (i_ < s_.size() && s_[i_] == ',') {
            ++i_;
            continue;
          }
          TextNode e;
          e.name = f.name;
          if (i_ < s_.size() && s_[i_] == '{') {
            ++i_;
            e.is_message = true;
            if (!Message(e, '}', err)) return false;
          } else if (!Scalar(e, err)) {
            return false;
          }
          m.fields.push_back(std::move(e));
        }
        continue;
      }
      if (!colon) {
        err = "expected ':' after " + f.name;
        return false;
      }
      if (!Scalar(f, err)) return false;
      m.fields.push_back(std::move(f));
    }
  }

 private:
  void Skip() {
    while (i_ < s_.size()) {
      if (std::isspace(static_cast<unsigned char>(s_[i_]))) {
        ++i_;
      } else if (s_[i_] == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        break;
      }
    }
  }

  bool Ident(std::string& out) {
    size_t b = i_;
    if (i_ < s_.size() && s_[i_] == '[') {  // extension names [a.b.c]
      while (i_ < s_.size() && s_[i_] != ']') ++i_;
      ++i_;
      out = std::string(s_.substr(b, i_ - b));
      return true;
    }
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '.' || s_[i_] == '/')) ++i_;
    out = std::string(s_.substr(b, i_ - b));
    return !out.empty();
  }

  bool Scalar(TextNode& f, std::string& err) {
    Skip();
    if (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'')) {
      f.is_string = true;
      // Adjacent string literals concatenate.
      while (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'')) {
        if (!Quoted(f.scalar, err)) return false;
        Skip();
      }
      return true;
    }
    size_t b = i_;
    while (i_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[i_])) && s_[i_] != '}' && s_[i_] != ']' &&
           s_[i_] != ',' && s_[i_] != ';' && s_[i_] != '>') {
      ++i_;
    }
    f.scalar = std::string(s_.substr(b, i_ - b));
    if (f.scalar.empty()) {
      err = "expected a value for " + f.name;
      return false;
    }
    return true;
  }

  static int Hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  bool Quoted(std::string& out, std::string& err) {
    char q = s_[i_++];
    while (i_ < s_.size() && s_[i_] != q) {
      char c = s_[i_++];
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (i_ >= s_.size()) break;
      char e = s_[i_++];
      switch (e) {
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case 'a': out.push_back('\a'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'v': out.push_back('\v'); break;
        case 'x': {
          int v = 0, n = 0;
          while (n < 2 && i_ < s_.size() && Hex(s_[i_]) >= 0) v = v * 16 + Hex(s_[i_++]), ++n;
          out.push_back(static_cast<char>(v));
          break;
        }
        case 'u': case 'U': {
          int want = e == 'u' ? 4 : 8;
          uint32_t v = 0;
          for (int n = 0; n < want && i_ < s_.size(); ++n) v = v * 16 + static_cast<uint32_t>(Hex(s_[i_++]));
          apimachinery::AppendUtf8(out, v);
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            int v = e - '0';
            for (int n = 0; n < 2 && i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '7'; ++n) v = v * 8 + (s_[i_++] - '0');
            out.push_back(static_cast<char>(v));
          } else {
            out.push_back(e);
          }
      }
    }
    if (i_ >= s_.size()) {
      err = "unterminated string";
      return false;
    }
    ++i_;
    return true;
  }

  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

bool ParseTextProto(std::string_view text, TextNode& root, std::string& err) {
  root.is_message = true;
  Reader r(text);
  return r.Message(root, 0, err);
}

}  // namespace capstan::cel::testing
