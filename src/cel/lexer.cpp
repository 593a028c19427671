#include "cel/lexer.h"

#include <cctype>

#include "apimachinery/utf8.h"

namespace capstan::cel {

namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
int HexVal(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

// cel-go's unescape: the body between the quotes. Bytes literals keep \x and octal escapes as raw
// bytes; strings encode them as code points.
bool Unescape(std::string_view body, bool bytes, std::string& out, std::string& err) {
  for (size_t i = 0; i < body.size();) {
    char c = body[i];
    if (c != '\\') {
      out.push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= body.size()) {
      err = "unable to unescape string, found '\\' as last character";
      return false;
    }
    char e = body[i + 1];
    i += 2;
    switch (e) {
      case 'a': out.push_back('\a'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'v': out.push_back('\v'); break;
      case '\\': out.push_back('\\'); break;
      case '\'': out.push_back('\''); break;
      case '"': out.push_back('"'); break;
      case '`': out.push_back('`'); break;
      case '?': out.push_back('?'); break;
      case 'x': case 'X': case 'u': case 'U': {
        size_t n = (e == 'x' || e == 'X') ? 2 : (e == 'u' ? 4 : 8);
        if ((e == 'u' || e == 'U') && bytes) {
          err = "unable to unescape string";
          return false;
        }
        if (i + n > body.size()) {
          err = "unable to unescape string";
          return false;
        }
        uint32_t v = 0;
        for (size_t k = 0; k < n; ++k) {
          if (!IsHex(body[i + k])) {
            err = "unable to unescape string";
            return false;
          }
          v = v * 16 + static_cast<uint32_t>(HexVal(body[i + k]));
        }
        i += n;
        if (bytes) {
          out.push_back(static_cast<char>(v));
        } else {
          if (v > 0x10FFFF || (v >= 0xD800 && v < 0xE000)) {
            err = "invalid unicode code point";
            return false;
          }
          apimachinery::AppendUtf8(out, v);
        }
        break;
      }
      case '0': case '1': case '2': case '3': {
        if (i + 2 > body.size() || body[i] < '0' || body[i] > '7' || body[i + 1] < '0' || body[i + 1] > '7') {
          err = "unable to unescape octal sequence in string";
          return false;
        }
        uint32_t v = static_cast<uint32_t>((e - '0') * 64 + (body[i] - '0') * 8 + (body[i + 1] - '0'));
        i += 2;
        if (bytes) {
          out.push_back(static_cast<char>(v));
        } else {
          apimachinery::AppendUtf8(out, v);
        }
        break;
      }
      default:
        err = "unable to unescape string";
        return false;
    }
  }
  return true;
}

}  // namespace

std::vector<Token> Lex(std::string_view s, std::vector<LexIssue>& issues) {
  std::vector<Token> out;
  size_t i = 0;
  auto push = [&](Tok k, size_t start, size_t len) {
    Token t;
    t.kind = k;
    t.offset = static_cast<int32_t>(start);
    t.text = std::string(s.substr(start, len));
    out.push_back(std::move(t));
    i = start + len;
  };
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    size_t start = i;
    // String and bytes literals, with optional r/b prefixes in either order.
    {
      size_t j = i;
      bool raw = false, bytes = false;
      for (int k = 0; k < 2 && j < s.size(); ++k) {
        char p = s[j];
        if ((p == 'r' || p == 'R') && !raw) {
          raw = true;
          ++j;
        } else if ((p == 'b' || p == 'B') && !bytes) {
          bytes = true;
          ++j;
        } else {
          break;
        }
      }
      if (j < s.size() && (s[j] == '"' || s[j] == '\'')) {
        char q = s[j];
        bool triple = j + 2 < s.size() && s[j + 1] == q && s[j + 2] == q;
        size_t body_start = j + (triple ? 3 : 1);
        size_t k = body_start;
        bool closed = false;
        while (k < s.size()) {
          if (s[k] == '\\' && !raw) {
            k += 2;
            continue;
          }
          if (s[k] == '\\' && raw) {  // a raw string still cannot end at an escaped quote
            k += (k + 1 < s.size() && s[k + 1] == q) ? 2 : 1;
            continue;
          }
          if (!triple && (s[k] == '\n' || s[k] == '\r')) break;
          if (s[k] == q && (!triple || (k + 2 < s.size() && s[k + 1] == q && s[k + 2] == q))) {
            closed = true;
            break;
          }
          ++k;
        }
        if (!closed) {
          // ANTLR reports the unmatched quote at the start and lexes on from the next character.
          size_t stop = k < s.size() ? k + 1 : s.size();
          issues.push_back({static_cast<int32_t>(start), "token recognition error at: '" + std::string(s.substr(start, stop - start)) + "'"});
          i = start + 1;
          continue;
        }
        std::string_view body = s.substr(body_start, k - body_start);
        size_t end = k + (triple ? 3 : 1);
        Token t;
        t.kind = bytes ? Tok::kBytes : Tok::kString;
        t.offset = static_cast<int32_t>(start);
        t.text = std::string(s.substr(start, end - start));
        if (raw) {
          t.value = std::string(body);
        } else {
          std::string err;
          if (!Unescape(body, bytes, t.value, err)) {
            t.kind = Tok::kError;
            t.value = err;
          }
        }
        out.push_back(std::move(t));
        i = end;
        continue;
      }
    }
    if (IsIdentStart(c)) {
      size_t j = i;
      while (j < s.size() && IsIdentChar(s[j])) ++j;
      std::string_view w = s.substr(i, j - i);
      Tok k = Tok::kIdent;
      if (w == "true") k = Tok::kTrue;
      else if (w == "false") k = Tok::kFalse;
      else if (w == "null") k = Tok::kNull;
      else if (w == "in") k = Tok::kIn;
      push(k, i, j - i);
      continue;
    }
    if (IsDigit(c) || (c == '.' && i + 1 < s.size() && IsDigit(s[i + 1]))) {
      size_t j = i;
      if (c == '0' && j + 1 < s.size() && (s[j + 1] == 'x' || s[j + 1] == 'X') && j + 2 < s.size() && IsHex(s[j + 2])) {
        j += 2;
        while (j < s.size() && IsHex(s[j])) ++j;
        if (j < s.size() && (s[j] == 'u' || s[j] == 'U')) {
          push(Tok::kUint, i, j + 1 - i);
        } else {
          push(Tok::kInt, i, j - i);
        }
        continue;
      }
      bool is_float = false;
      while (j < s.size() && IsDigit(s[j])) ++j;
      if (j + 1 < s.size() && s[j] == '.' && IsDigit(s[j + 1])) {
        is_float = true;
        ++j;
        while (j < s.size() && IsDigit(s[j])) ++j;
      }
      if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
        if (k < s.size() && IsDigit(s[k])) {
          is_float = true;
          while (k < s.size() && IsDigit(s[k])) ++k;
          j = k;
        }
      }
      if (is_float) {
        push(Tok::kDouble, i, j - i);
      } else if (j < s.size() && (s[j] == 'u' || s[j] == 'U')) {
        push(Tok::kUint, i, j + 1 - i);
      } else {
        push(Tok::kInt, i, j - i);
      }
      continue;
    }
    auto two = [&](char a, char b) { return c == a && i + 1 < s.size() && s[i + 1] == b; };
    if (two('|', '|')) { push(Tok::kOr, i, 2); continue; }
    if (two('&', '&')) { push(Tok::kAnd, i, 2); continue; }
    if (two('=', '=')) { push(Tok::kEq, i, 2); continue; }
    if (two('!', '=')) { push(Tok::kNe, i, 2); continue; }
    if (two('<', '=')) { push(Tok::kLe, i, 2); continue; }
    if (two('>', '=')) { push(Tok::kGe, i, 2); continue; }
    Tok k = Tok::kEof;
    switch (c) {
      case '(': k = Tok::kLParen; break;
      case ')': k = Tok::kRParen; break;
      case '[': k = Tok::kLBracket; break;
      case ']': k = Tok::kRBracket; break;
      case '{': k = Tok::kLBrace; break;
      case '}': k = Tok::kRBrace; break;
      case '.': k = Tok::kDot; break;
      case ',': k = Tok::kComma; break;
      case ':': k = Tok::kColon; break;
      case '?': k = Tok::kQuestion; break;
      case '!': k = Tok::kNot; break;
      case '<': k = Tok::kLt; break;
      case '>': k = Tok::kGt; break;
      case '+': k = Tok::kPlus; break;
      case '-': k = Tok::kMinus; break;
      case '*': k = Tok::kStar; break;
      case '/': k = Tok::kSlash; break;
      case '%': k = Tok::kPercent; break;
      default: break;
    }
    if (k != Tok::kEof) {
      push(k, i, 1);
      continue;
    }
    // One code point that starts no token.
    size_t len = 1;
    unsigned char uc = static_cast<unsigned char>(c);
    if (uc >= 0xC0) len = uc >= 0xF0 ? 4 : (uc >= 0xE0 ? 3 : 2);
    if (i + len > s.size()) len = s.size() - i;
    issues.push_back({static_cast<int32_t>(i), "token recognition error at: '" + std::string(s.substr(i, len)) + "'"});
    i += len;
  }
  Token eof;
  eof.kind = Tok::kEof;
  eof.offset = static_cast<int32_t>(s.size());
  out.push_back(eof);
  return out;
}

std::string TokenDisplay(const Token& t) {
  if (t.kind == Tok::kEof) return "<EOF>";
  return t.text;
}

}  // namespace capstan::cel
