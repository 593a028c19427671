#include "endpoints/proxy_html.h"

#include <zlib.h>

#include <array>
#include <cstring>
#include <optional>

#include "apimachinery/utf8.h"

namespace capstan::endpoints {

namespace {

// kube's atomsToAttrs: the URL-valued attributes of each element.
bool IsUrlAttribute(std::string_view tag, std::string_view attr) {
  struct Entry {
    const char* tag;
    std::array<const char*, 4> attrs;
  };
  static constexpr Entry kTable[] = {
      {"a", {"href"}},         {"applet", {"codebase"}},   {"area", {"href"}},
      {"audio", {"src"}},      {"base", {"href"}},         {"blockquote", {"cite"}},
      {"body", {"background"}}, {"button", {"formaction"}}, {"command", {"icon"}},
      {"del", {"cite"}},       {"embed", {"src"}},         {"form", {"action"}},
      {"frame", {"longdesc", "src"}}, {"head", {"profile"}}, {"html", {"manifest"}},
      {"iframe", {"longdesc", "src"}}, {"img", {"longdesc", "src", "usemap"}},
      {"input", {"src", "usemap", "formaction"}}, {"ins", {"cite"}}, {"link", {"href"}},
      {"object", {"classid", "codebase", "data", "usemap"}}, {"q", {"cite"}}, {"script", {"src"}},
      {"source", {"src"}},     {"video", {"poster", "src"}},
  };
  for (const auto& e : kTable) {
    if (tag != e.tag) continue;
    for (const char* a : e.attrs) {
      if (a && attr == a) return true;
    }
    return false;
  }
  return false;
}

// Elements whose content the HTML tokenizer reads as text up to their end tag.
bool IsRawTextElement(std::string_view tag) {
  for (const char* t : {"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript"}) {
    if (tag == t) return true;
  }
  return false;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
std::string LowerString(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

// The value with its character references decoded; nullopt for a named one this does not know.
std::optional<std::string> Unescape(std::string_view v) {
  std::string out;
  for (size_t i = 0; i < v.size();) {
    if (v[i] != '&') {
      out += v[i++];
      continue;
    }
    size_t semi = v.find(';', i);
    if (semi == std::string_view::npos || semi - i > 12) return std::nullopt;
    std::string_view ref = v.substr(i + 1, semi - i - 1);
    if (!ref.empty() && ref[0] == '#') {
      bool hex = ref.size() > 1 && (ref[1] == 'x' || ref[1] == 'X');
      std::string_view digits = ref.substr(hex ? 2 : 1);
      if (digits.empty()) return std::nullopt;
      uint32_t cp = 0;
      for (char c : digits) {
        int d = c >= '0' && c <= '9' ? c - '0' : hex && Lower(c) >= 'a' && Lower(c) <= 'f' ? Lower(c) - 'a' + 10 : -1;
        if (d < 0) return std::nullopt;
        cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);
        if (cp > 0x10FFFF) cp = 0x110000;
      }
      // Go's html package: NUL, surrogates and values past U+10FFFF become U+FFFD.
      if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
      apimachinery::AppendUtf8(out, cp);
    } else if (ref == "amp") {
      out += '&';
    } else if (ref == "lt") {
      out += '<';
    } else if (ref == "gt") {
      out += '>';
    } else if (ref == "quot") {
      out += '"';
    } else if (ref == "apos") {
      out += '\'';
    } else {
      return std::nullopt;
    }
    i = semi + 1;
  }
  return out;
}

// Go's html.EscapeString.
std::string Escape(std::string_view v) {
  std::string out;
  for (char c : v) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '\'': out += "&#39;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\r': out += "&#13;"; break;
      default: out += c;
    }
  }
  return out;
}

struct Attribute {
  std::string_view raw;    // as written, with the whitespace before it
  std::string name;        // lowercased
  std::string_view value;  // as written, without quotes
  bool has_value = false;
};

// Reads a start tag at html[i] == '<' followed by a letter. Returns the index after '>' (npos when the
// tag does not end) and fills name, attributes and self_closing.
size_t ReadStartTag(std::string_view html, size_t i, std::string& name, std::vector<Attribute>& attrs, bool& self_closing) {
  size_t p = i + 1;
  size_t start = p;
  while (p < html.size() && !IsSpace(html[p]) && html[p] != '/' && html[p] != '>') ++p;
  name = LowerString(html.substr(start, p - start));
  self_closing = false;
  while (p < html.size()) {
    size_t attr_start = p;
    while (p < html.size() && (IsSpace(html[p]) || html[p] == '/')) {
      if (html[p] == '/' && p + 1 < html.size() && html[p + 1] == '>') {
        self_closing = true;
        return p + 2;
      }
      ++p;
    }
    if (p >= html.size()) return std::string_view::npos;
    if (html[p] == '>') return p + 1;
    Attribute a;
    size_t name_start = p;
    ++p;  // the first character may be '=' (as in Go's tokenizer)
    while (p < html.size() && !IsSpace(html[p]) && html[p] != '/' && html[p] != '>' && html[p] != '=') ++p;
    a.name = LowerString(html.substr(name_start, p - name_start));
    size_t q = p;
    while (q < html.size() && IsSpace(html[q])) ++q;
    if (q < html.size() && html[q] == '=') {
      ++q;
      while (q < html.size() && IsSpace(html[q])) ++q;
      if (q >= html.size()) return std::string_view::npos;
      a.has_value = true;
      if (html[q] == '"' || html[q] == '\'') {
        size_t close = html.find(html[q], q + 1);
        if (close == std::string_view::npos) return std::string_view::npos;
        a.value = html.substr(q + 1, close - q - 1);
        p = close + 1;
      } else {
        size_t v = q;
        while (q < html.size() && !IsSpace(html[q]) && html[q] != '>') ++q;
        a.value = html.substr(v, q - v);
        p = q;
      }
    }
    a.raw = html.substr(attr_start, p - attr_start);
    attrs.push_back(std::move(a));
  }
  return std::string_view::npos;
}

// The index of the end tag "</name" that closes a raw-text element's content (npos: none).
size_t FindEndTag(std::string_view html, size_t from, const std::string& name) {
  for (size_t p = html.find("</", from); p != std::string_view::npos; p = html.find("</", p + 2)) {
    if (p + 2 + name.size() > html.size()) return std::string_view::npos;
    if (LowerString(html.substr(p + 2, name.size())) != name) continue;
    size_t after = p + 2 + name.size();
    if (after == html.size() || IsSpace(html[after]) || html[after] == '/' || html[after] == '>') return p;
  }
  return std::string_view::npos;
}

// Runs a zlib step until the stream ends, fails, stops making progress (a truncated input: what
// arrived is kept) or the output passes max_bytes; returns the last step's code.
template <class Step>
int Pump(z_stream& zs, std::string& out, Step step, size_t max_bytes) {
  char buf[16384];
  int rc = Z_OK;
  while (rc == Z_OK && out.size() <= max_bytes) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = step(zs);
    out.append(buf, sizeof buf - zs.avail_out);
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) break;
  }
  return rc;
}

}  // namespace

std::string RewriteHtmlLinks(std::string_view html, const std::function<std::string(std::string_view)>& rewrite) {
  std::string out;
  out.reserve(html.size() + html.size() / 16);
  size_t i = 0;
  while (i < html.size()) {
    size_t lt = html.find('<', i);
    if (lt == std::string_view::npos) break;
    out.append(html.substr(i, lt - i));
    i = lt;
    std::string_view rest = html.substr(i);
    size_t end = std::string_view::npos;
    if (rest.starts_with("<!--")) {
      size_t close = html.find("-->", i + 4);
      end = close == std::string_view::npos ? html.size() : close + 3;
    } else if (rest.starts_with("<!") || rest.starts_with("<?") || (rest.starts_with("</") && rest.size() > 2 && IsAlpha(rest[2]))) {
      size_t close = html.find('>', i + 2);
      end = close == std::string_view::npos ? html.size() : close + 1;
    } else if (rest.size() > 1 && IsAlpha(rest[1])) {
      std::string name;
      std::vector<Attribute> attrs;
      bool self_closing = false;
      end = ReadStartTag(html, i, name, attrs, self_closing);
      if (end == std::string_view::npos) {
        out.append(rest);  // a tag that never ends: copied
        return out;
      }
      bool changed = false;
      std::vector<std::optional<std::string>> rewritten(attrs.size());
      for (size_t k = 0; k < attrs.size(); ++k) {
        if (!attrs[k].has_value || !IsUrlAttribute(name, attrs[k].name)) continue;
        auto value = Unescape(attrs[k].value);
        if (!value) continue;
        std::string next = rewrite(*value);
        if (next != *value) {
          rewritten[k] = std::move(next);
          changed = true;
        }
      }
      if (!changed) {
        out.append(html.substr(i, end - i));
      } else {
        // The tag again: its name, every attribute as written except the rewritten ones.
        out += '<';
        out += name;
        for (size_t k = 0; k < attrs.size(); ++k) {
          if (!rewritten[k]) {
            if (!attrs[k].raw.empty() && !IsSpace(attrs[k].raw.front())) out += ' ';
            out.append(attrs[k].raw);
            continue;
          }
          out += ' ';
          out += attrs[k].name;
          out += "=\"";
          out += Escape(*rewritten[k]);
          out += '"';
        }
        out += self_closing ? "/>" : ">";
      }
      i = end;
      if (!self_closing && IsRawTextElement(name)) {
        size_t close = FindEndTag(html, i, name);
        size_t stop = close == std::string_view::npos ? html.size() : close;
        out.append(html.substr(i, stop - i));
        i = stop;
      }
      continue;
    } else {
      out += '<';
      ++i;
      continue;
    }
    out.append(html.substr(i, end - i));
    i = end;
  }
  if (i < html.size()) out.append(html.substr(i));
  return out;
}

StatusOr<std::string> DecodeContent(std::string_view body, std::string_view encoding, size_t max_bytes) {
  z_stream zs{};
  // gzip: a gzip header (15 + 16). deflate: kube reads raw DEFLATE (Go's flate, -15); a zlib-wrapped
  // stream (its header's check bits hold) is read as such (15).
  int window = encoding == "gzip" ? 15 + 16 : 15;
  if (encoding == "deflate" && (body.size() < 2 || ((static_cast<unsigned char>(body[0]) << 8) | static_cast<unsigned char>(body[1])) % 31 != 0)) {
    window = -15;
  }
  if (inflateInit2(&zs, window) != Z_OK) return Status(500, "InternalError", "inflateInit2 failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  zs.avail_in = static_cast<uInt>(body.size());
  std::string out;
  int rc = Pump(zs, out, [](z_stream& z) { return inflate(&z, Z_NO_FLUSH); }, max_bytes);
  inflateEnd(&zs);
  if (out.size() > max_bytes) return Status(502, "InternalError", "the body is too large to rewrite");
  if (rc != Z_OK && rc != Z_STREAM_END) {
    return Status(502, "InternalError", std::string("error reading the ") + std::string(encoding) + " body");
  }
  return out;
}

std::string EncodeContent(std::string_view body, std::string_view encoding) {
  z_stream zs{};
  // kube writes deflate with Go's flate (raw DEFLATE, best compression); gzip with the default level.
  const bool gzip = encoding == "gzip";
  deflateInit2(&zs, gzip ? Z_DEFAULT_COMPRESSION : Z_BEST_COMPRESSION, Z_DEFLATED, gzip ? 15 + 16 : -15, 8,
               Z_DEFAULT_STRATEGY);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  zs.avail_in = static_cast<uInt>(body.size());
  std::string out;
  Pump(zs, out, [](z_stream& z) { return deflate(&z, Z_FINISH); }, std::string::npos);
  deflateEnd(&zs);
  return out;
}

}  // namespace capstan::endpoints
