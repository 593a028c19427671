#include "util/strings.h"

#include <cctype>
#include <cstdint>
#include <cstdio>

namespace capstan {

namespace {
// Decodes one UTF-8 sequence at s[i]; returns the code point and its length, or -1 when invalid.
int DecodeUtf8(std::string_view s, size_t i, size_t& len) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    len = 1;
    return c;
  }
  int need;
  uint32_t cp;
  if ((c & 0xe0) == 0xc0) {
    need = 1;
    cp = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    need = 2;
    cp = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    need = 3;
    cp = c & 0x07;
  } else {
    return -1;
  }
  for (int k = 1; k <= need; ++k) {
    if (i + k >= s.size()) return -1;
    unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xc0) != 0x80) return -1;
    cp = (cp << 6) | (cc & 0x3f);
  }
  static const uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
  if (cp < kMin[need] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return -1;
  len = need + 1;
  return static_cast<int>(cp);
}
}  // namespace

std::optional<bool> GoParseBool(std::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True") return true;
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False") return false;
  return std::nullopt;
}

std::string GoQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (size_t i = 0; i < s.size();) {
    size_t len = 1;
    int cp = DecodeUtf8(s, i, len);
    if (cp < 0) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(s[i]));
      out += buf;
      i += 1;
      continue;
    }
    switch (cp) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      default:
        if (cp < 0x20 || cp == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", cp);
          out += buf;
        } else if (cp >= 0x80 && cp < 0xa0) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", cp);
          out += buf;
        } else {
          out.append(s.substr(i, len));
        }
    }
    i += len;
  }
  out.push_back('"');
  return out;
}

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return out;
    }
    out.emplace_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

namespace {
int HexVal(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

bool PercentDecode(std::string_view in, std::string& out, bool plus_as_space) {
  out.clear();
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return false;
      int h = HexVal(in[i + 1]), l = HexVal(in[i + 2]);
      if (h < 0 || l < 0) return false;
      out.push_back(static_cast<char>(h * 16 + l));
      i += 2;
    } else if (c == '+' && plus_as_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return true;
}

std::string PercentEncode(std::string_view in, std::string_view also_keep) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : in) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || also_keep.find(static_cast<char>(c)) != std::string_view::npos) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string EscapeUrlPath(std::string_view path) { return PercentEncode(path, "$&+,/:;=@"); }

namespace {
const char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const char kB64Url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Encode64(std::string_view in, const char* alphabet, bool pad) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  while (i + 3 <= in.size()) {
    uint32_t v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                 static_cast<unsigned char>(in[i + 2]);
    out.push_back(alphabet[(v >> 18) & 63]);
    out.push_back(alphabet[(v >> 12) & 63]);
    out.push_back(alphabet[(v >> 6) & 63]);
    out.push_back(alphabet[v & 63]);
    i += 3;
  }
  size_t rest = in.size() - i;
  if (rest == 1) {
    uint32_t v = static_cast<unsigned char>(in[i]) << 16;
    out.push_back(alphabet[(v >> 18) & 63]);
    out.push_back(alphabet[(v >> 12) & 63]);
    if (pad) out += "==";
  } else if (rest == 2) {
    uint32_t v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8);
    out.push_back(alphabet[(v >> 18) & 63]);
    out.push_back(alphabet[(v >> 12) & 63]);
    out.push_back(alphabet[(v >> 6) & 63]);
    if (pad) out.push_back('=');
  }
  return out;
}

bool Decode64(std::string_view in, std::string& out, bool url, bool padded) {
  int table[256];
  for (int& t : table) t = -1;
  const char* alphabet = url ? kB64Url : kB64;
  for (int k = 0; k < 64; ++k) table[static_cast<unsigned char>(alphabet[k])] = k;
  if (padded) {
    if (in.size() % 4 != 0) return false;
    size_t pads = 0;
    while (!in.empty() && in.back() == '=' && pads < 2) {
      in.remove_suffix(1);
      ++pads;
    }
  }
  if (in.size() % 4 == 1) return false;
  out.clear();
  out.reserve(in.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v = table[static_cast<unsigned char>(c)];
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  // Go rejects non-zero trailing bits in strict mode; be as lenient as StdEncoding (which accepts them).
  return true;
}
}  // namespace

std::string Base64Encode(std::string_view in) { return Encode64(in, kB64, true); }
bool Base64Decode(std::string_view in, std::string& out) { return Decode64(in, out, false, true); }
std::string Base64UrlEncode(std::string_view in) { return Encode64(in, kB64Url, false); }
bool Base64UrlDecode(std::string_view in, std::string& out) { return Decode64(in, out, true, false); }

}  // namespace capstan
