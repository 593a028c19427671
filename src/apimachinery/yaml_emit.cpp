// JSON to YAML: go-yaml v2's encoder decisions (key order, scalar styles) driving libyaml's emitter,
// of which go-yaml's emitter is a port (indentation, quoting fallbacks, folding at 80 columns).
#include <yaml.h>

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "util/go_float.h"
#include "apimachinery/utf8.h"
#include "apimachinery/yaml.h"
#include "apimachinery/yaml_resolve.h"
#include "util/check.h"

namespace capstan::apimachinery {
namespace {

namespace json = boost::json;
using namespace yaml_internal;

bool IsDigitRune(uint32_t r) { return r >= '0' && r <= '9'; }

// Go's unicode.IsLetter, exact for ASCII and Latin-1, approximate beyond (punctuation and symbol
// blocks are not letters).
bool IsLetterRune(uint32_t r) {
  if (r < 0x80) return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z');
  if (r < 0x100) return r == 0xaa || r == 0xb5 || r == 0xba || (r >= 0xc0 && r != 0xd7 && r != 0xf7);
  if ((r >= 0x2000 && r <= 0x2bff) || (r >= 0x3000 && r <= 0x303f) || (r >= 0xfe30 && r <= 0xfe4f) ||
      (r >= 0xff00 && r <= 0xff20) || r >= 0xfff0) {
    return false;
  }
  return true;
}

std::vector<uint32_t> Runes(std::string_view s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    size_t len = 1;
    out.push_back(DecodeUtf8(s.substr(i), len));
    i += len;
  }
  return out;
}

// go-yaml v2's keyList.Less for two string keys: a "natural" order where digit runs compare as numbers.
bool KeyLess(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  bool digits = false;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] == b[i]) {
      digits = IsDigitRune(a[i]);
      continue;
    }
    bool al = IsLetterRune(a[i]), bl = IsLetterRune(b[i]);
    if (al && bl) return a[i] < b[i];
    if (al || bl) return digits ? al : bl;
    uint64_t an = 0, bn = 0;  // Go's int64 arithmetic, wrapping
    if (a[i] == '0' || b[i] == '0') {
      for (size_t j = i; j-- > 0 && IsDigitRune(a[j]);) {
        if (a[j] != '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    size_t ai = i, bi = i;
    for (; ai < a.size() && IsDigitRune(a[ai]); ++ai) an = an * 10 + (a[ai] - '0');
    for (; bi < b.size() && IsDigitRune(b[bi]); ++bi) bn = bn * 10 + (b[bi] - '0');
    if (an != bn) return static_cast<int64_t>(an) < static_cast<int64_t>(bn);
    if (ai != bi) return ai < bi;
    return a[i] < b[i];
  }
  return a.size() < b.size();
}

class Emitter {
 public:
  Emitter() {
    CAPSTAN_CHECK(yaml_emitter_initialize(&e_));
    yaml_emitter_set_output(&e_, &Emitter::Write, this);
    yaml_emitter_set_unicode(&e_, 1);
  }
  ~Emitter() { yaml_emitter_delete(&e_); }
  Emitter(const Emitter&) = delete;
  Emitter& operator=(const Emitter&) = delete;

  std::string Run(const json::value& root) {
    yaml_event_t ev;
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    Emit(ev);
    yaml_document_start_event_initialize(&ev, nullptr, nullptr, nullptr, 1);
    Emit(ev);
    Value(root);
    yaml_document_end_event_initialize(&ev, 1);
    Emit(ev);
    yaml_stream_end_event_initialize(&ev);
    Emit(ev);
    return std::move(out_);
  }

 private:
  static int Write(void* self, unsigned char* buf, size_t n) {
    static_cast<Emitter*>(self)->out_.append(reinterpret_cast<const char*>(buf), n);
    return 1;
  }
  void Emit(yaml_event_t& ev) { CAPSTAN_CHECK(yaml_emitter_emit(&e_, &ev)); }

  void Scalar(std::string_view s, yaml_scalar_style_t style) {
    yaml_event_t ev;
    CAPSTAN_CHECK(yaml_scalar_event_initialize(&ev, nullptr, nullptr,
                                               reinterpret_cast<yaml_char_t*>(const_cast<char*>(s.data())),
                                               static_cast<int>(s.size()), 1, 1, style));
    Emit(ev);
  }

  // go-yaml v2's stringv.
  void String(std::string_view raw) {
    std::string s;
    for (size_t i = 0; i < raw.size();) {
      size_t len = 1;
      AppendUtf8(s, DecodeUtf8(raw.substr(i), len));  // encoding/json's U+FFFD for invalid bytes
      i += len;
    }
    bool plain = ResolvePlain(s).kind == ScalarKind::kString && !IsBase60Float(s);
    yaml_scalar_style_t style = s.find('\n') != std::string::npos ? YAML_LITERAL_SCALAR_STYLE
                                : plain                           ? YAML_PLAIN_SCALAR_STYLE
                                                                  : YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    Scalar(s, style);
  }

  // A number as go-yaml sees it after reading kube's JSON text back: an int, or a float in 'g' form.
  void Number(const json::value& v) {
    std::string text;
    if (v.is_int64()) {
      text = std::to_string(v.get_int64());
    } else if (v.is_uint64()) {
      text = std::to_string(v.get_uint64());
    } else {
      Resolved r = ResolvePlain(FormatFloatJson(v.get_double()));
      if (r.kind == ScalarKind::kInt) text = std::to_string(r.i);
      else if (r.kind == ScalarKind::kUint) text = std::to_string(r.u);
      else if (r.kind == ScalarKind::kFloat) text = FormatFloatG(r.f);
      else text = "null";  // NaN/Inf have no JSON form
    }
    Scalar(text, YAML_PLAIN_SCALAR_STYLE);
  }

  void Value(const json::value& root) {
    // Iterative walk: (container, next index, sorted keys).
    struct Level {
      const json::value* v;
      size_t next = 0;
      std::vector<const json::key_value_pair*> keys;
    };
    std::vector<Level> stack;
    auto open = [&](const json::value& v) -> bool {
      yaml_event_t ev;
      if (v.is_object()) {
        yaml_mapping_start_event_initialize(&ev, nullptr, nullptr, 1, YAML_BLOCK_MAPPING_STYLE);
        Emit(ev);
        Level l{&v};
        std::vector<std::pair<std::vector<uint32_t>, const json::key_value_pair*>> keyed;
        for (const auto& kv : v.get_object()) keyed.emplace_back(Runes(kv.key()), &kv);
        std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return KeyLess(a.first, b.first); });
        for (auto& k : keyed) l.keys.push_back(k.second);
        stack.push_back(std::move(l));
        return true;
      }
      if (v.is_array()) {
        yaml_sequence_start_event_initialize(&ev, nullptr, nullptr, 1, YAML_BLOCK_SEQUENCE_STYLE);
        Emit(ev);
        stack.push_back(Level{&v});
        return true;
      }
      switch (v.kind()) {
        case json::kind::null: Scalar("null", YAML_PLAIN_SCALAR_STYLE); break;
        case json::kind::bool_: Scalar(v.get_bool() ? "true" : "false", YAML_PLAIN_SCALAR_STYLE); break;
        case json::kind::string: String(v.get_string()); break;
        default: Number(v); break;
      }
      return false;
    };
    open(root);
    while (!stack.empty()) {
      Level& l = stack.back();
      yaml_event_t ev;
      if (l.v->is_object()) {
        if (l.next == l.keys.size()) {
          yaml_mapping_end_event_initialize(&ev);
          Emit(ev);
          stack.pop_back();
          continue;
        }
        const json::key_value_pair* kv = l.keys[l.next++];
        String(kv->key());
        open(kv->value());  // may grow the stack: l is not used after this
      } else {
        const json::array& a = l.v->get_array();
        if (l.next == a.size()) {
          yaml_sequence_end_event_initialize(&ev);
          Emit(ev);
          stack.pop_back();
          continue;
        }
        open(a[l.next++]);
      }
    }
  }

  yaml_emitter_t e_;
  std::string out_;
};

}  // namespace

std::string JsonToYaml(const boost::json::value& v) {
  Emitter e;
  return e.Run(v);
}

}  // namespace capstan::apimachinery
