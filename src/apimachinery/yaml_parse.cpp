// YAML to JSON: libyaml events -> go-yaml v2's node tree -> JSON with go-yaml's decoding rules.
#include <yaml.h>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <set>

#include "util/go_float.h"
#include "apimachinery/utf8.h"
#include "apimachinery/yaml.h"
#include "apimachinery/yaml_resolve.h"
#include "util/strings.h"

namespace capstan::apimachinery {
namespace {

namespace json = boost::json;
using namespace yaml_internal;

struct Node {
  enum Kind { kScalar, kMapping, kSequence, kAlias } kind = kScalar;
  std::string tag;
  std::string value;     // scalar text; alias: the anchor name
  bool implicit = false;  // a plain scalar without a tag
  int line = 0;           // 0-based
  std::vector<Node*> children;
  Node* alias = nullptr;
};

Status YamlError(std::string msg) { return Status(400, "BadRequest", "yaml: " + msg); }

// go-yaml v2's parser.fail().
Status ParserFailure(const yaml_parser_t& p) {
  int line = 0;
  if (p.problem_mark.line != 0) {
    line = static_cast<int>(p.problem_mark.line);
    if (p.error == YAML_SCANNER_ERROR) ++line;
  } else if (p.context_mark.line != 0) {
    line = static_cast<int>(p.context_mark.line);
  }
  std::string where = line != 0 ? "line " + std::to_string(line) + ": " : "";
  std::string msg = p.problem != nullptr ? p.problem : "unknown problem parsing YAML content";
  return YamlError(where + msg);
}

class Document {
 public:
  // Reads the first document of the stream into a node tree; root is null for an empty stream.
  Status Load(std::string_view text, int max_depth);
  Node* root() const { return root_; }

 private:
  Node* NewNode() { return &arena_.emplace_back(); }
  std::deque<Node> arena_;
  std::map<std::string, Node*> anchors_;
  Node* root_ = nullptr;
};

struct ParserHandle {
  yaml_parser_t p;
  ParserHandle() { yaml_parser_initialize(&p); }
  ~ParserHandle() { yaml_parser_delete(&p); }
};

struct EventHandle {
  yaml_event_t e;
  bool live = false;
  ~EventHandle() { Reset(); }
  void Reset() {
    if (live) yaml_event_delete(&e);
    live = false;
  }
};

Status Document::Load(std::string_view text, int max_depth) {
  ParserHandle ph;
  yaml_parser_set_input_string(&ph.p, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  std::vector<Node*> stack;
  bool in_document = false;
  EventHandle ev;
  while (true) {
    ev.Reset();
    if (!yaml_parser_parse(&ph.p, &ev.e)) return ParserFailure(ph.p);
    ev.live = true;
    const yaml_event_t& e = ev.e;
    int line = static_cast<int>(e.start_mark.line);
    Node* n = nullptr;
    const char* anchor = nullptr;
    switch (e.type) {
      case YAML_STREAM_START_EVENT:
        continue;
      case YAML_STREAM_END_EVENT:
        return Status::Ok();
      case YAML_DOCUMENT_START_EVENT:
        in_document = true;
        continue;
      case YAML_DOCUMENT_END_EVENT:
        return Status::Ok();  // only the first document counts
      case YAML_SCALAR_EVENT:
        n = NewNode();
        n->kind = Node::kScalar;
        n->value.assign(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
        if (e.data.scalar.tag) n->tag = reinterpret_cast<const char*>(e.data.scalar.tag);
        n->implicit = e.data.scalar.plain_implicit != 0;
        anchor = reinterpret_cast<const char*>(e.data.scalar.anchor);
        break;
      case YAML_ALIAS_EVENT: {
        n = NewNode();
        n->kind = Node::kAlias;
        n->value = reinterpret_cast<const char*>(e.data.alias.anchor);
        auto it = anchors_.find(n->value);
        if (it == anchors_.end()) return YamlError("unknown anchor '" + n->value + "' referenced");
        n->alias = it->second;
        break;
      }
      case YAML_MAPPING_START_EVENT:
      case YAML_SEQUENCE_START_EVENT: {
        bool map = e.type == YAML_MAPPING_START_EVENT;
        if (static_cast<int>(stack.size()) + 1 > max_depth) {
          std::string where = line != 0 ? "line " + std::to_string(line + 1) + ": " : "";
          return YamlError(where + "exceeded max depth of " + std::to_string(max_depth));
        }
        n = NewNode();
        n->kind = map ? Node::kMapping : Node::kSequence;
        const unsigned char* tag = map ? e.data.mapping_start.tag : e.data.sequence_start.tag;
        if (tag) n->tag = reinterpret_cast<const char*>(tag);
        anchor = reinterpret_cast<const char*>(map ? e.data.mapping_start.anchor : e.data.sequence_start.anchor);
        break;
      }
      case YAML_MAPPING_END_EVENT:
      case YAML_SEQUENCE_END_EVENT:
        stack.pop_back();
        continue;
      default:
        continue;
    }
    n->line = line;
    if (anchor != nullptr) anchors_[anchor] = n;  // registered before its children, as go-yaml does
    if (stack.empty()) {
      if (!in_document || root_ != nullptr) return YamlError("did not find expected node content");
      root_ = n;
    } else {
      stack.back()->children.push_back(n);
    }
    if (n->kind == Node::kMapping || n->kind == Node::kSequence) stack.push_back(n);
  }
}

// go-yaml v2's allowedAliasRatio.
double AllowedAliasRatio(int64_t decode_count) {
  constexpr double kLow = 400000, kHigh = 4000000;
  if (decode_count <= kLow) return 0.99;
  if (decode_count >= kHigh) return 0.10;
  return 0.99 - 0.89 * ((decode_count - kLow) / (kHigh - kLow));
}

// Go's %#v of a map key, for strict-mode messages.
std::string GoSharpV(const json::value& k, const Resolved& r, bool is_string) {
  if (is_string) return GoQuote(std::string_view(k.get_string()));
  switch (r.kind) {
    case ScalarKind::kNull: return "<nil>";
    case ScalarKind::kBool: return r.b ? "true" : "false";
    case ScalarKind::kInt: return std::to_string(r.i);
    case ScalarKind::kUint: return "0x" + [&] {
      static const char* kHex = "0123456789abcdef";
      std::string s;
      uint64_t u = r.u;
      do {
        s.insert(s.begin(), kHex[u & 0xf]);
        u >>= 4;
      } while (u);
      return s;
    }();
    case ScalarKind::kFloat: return FormatFloatG(r.f);
    default: return GoQuote(std::string_view(k.get_string()));
  }
}

class Decoder {
 public:
  Decoder(const YamlParseOptions& opts, std::vector<std::string>& strict_errors)
      : opts_(opts), strict_errors_(strict_errors) {}

  Status Decode(const Node* n, json::value& out, int depth);
  // One decoded node, with go-yaml's excessive-aliasing check.
  Status Count() {
    ++decode_count_;
    if (alias_depth_ > 0) ++alias_count_;
    if (alias_count_ > 100 && decode_count_ > 1000 &&
        static_cast<double>(alias_count_) / static_cast<double>(decode_count_) > AllowedAliasRatio(decode_count_)) {
      return YamlError("document contains excessive aliasing");
    }
    return Status::Ok();
  }

 private:
  // A decoded scalar: the JSON value plus what go-yaml resolved (for key conversion).
  Status Scalar(const Node* n, json::value& out, Resolved& r, bool& is_string);
  Status Mapping(const Node* n, json::object& out, int depth);
  Status Merge(const Node* n, json::object& out, int depth);
  // Resolves an alias chain to a concrete node, counting as go-yaml's decoder does.
  Status Follow(const Node*& n, std::vector<const Node*>& entered);

  const YamlParseOptions& opts_;
  std::vector<std::string>& strict_errors_;
  std::set<const Node*> active_aliases_;
  int64_t decode_count_ = 0, alias_count_ = 0;
  int alias_depth_ = 0;
};

Status Decoder::Follow(const Node*& n, std::vector<const Node*>& entered) {
  while (n->kind == Node::kAlias) {
    if (active_aliases_.count(n)) return YamlError("anchor '" + n->value + "' value contains itself");
    active_aliases_.insert(n);
    entered.push_back(n);
    ++alias_depth_;
    n = n->alias;
    RETURN_IF_ERROR(Count());
  }
  return Status::Ok();
}

Status Decoder::Scalar(const Node* n, json::value& out, Resolved& r, bool& is_string) {
  is_string = false;
  std::string tag = n->tag;
  if (tag.empty() && !n->implicit) {
    out = json::string(n->value);
    is_string = true;
    r.kind = ScalarKind::kString;
    return Status::Ok();
  }
  std::string short_tag = StartsWith(tag, kTagPrefix) ? "!!" + tag.substr(kTagPrefix.size()) : tag;
  bool resolvable = tag.empty() || short_tag == "!!str" || short_tag == "!!bool" || short_tag == "!!int" ||
                    short_tag == "!!float" || short_tag == "!!null" || short_tag == "!!timestamp";
  if (!resolvable) {
    if (short_tag == "!!binary") {
      std::string clean;
      for (char c : n->value) {
        if (c != '\n' && c != '\r') clean.push_back(c);
      }
      std::string data;
      if (!Base64Decode(clean, data)) return YamlError("!!binary value contains invalid base64 data");
      std::string valid;
      for (size_t i = 0; i < data.size();) {
        size_t len = 1;
        uint32_t cp = DecodeUtf8(std::string_view(data).substr(i), len);
        AppendUtf8(valid, cp);  // encoding/json writes invalid bytes as U+FFFD
        i += len;
      }
      out = json::string(valid);
    } else {
      out = json::string(n->value);
    }
    is_string = true;
    r.kind = ScalarKind::kString;
    return Status::Ok();
  }
  if (short_tag == "!!str") {
    r.kind = ScalarKind::kString;
  } else {
    r = ResolvePlain(n->value);
    if (r.kind == ScalarKind::kMerge) r.kind = ScalarKind::kString;
  }
  // An explicit tag must agree with what the text resolves to (an int may serve as a float).
  if (!tag.empty() && short_tag != "!!str") {
    std::string_view got;
    switch (r.kind) {
      case ScalarKind::kNull: got = "!!null"; break;
      case ScalarKind::kBool: got = "!!bool"; break;
      case ScalarKind::kInt:
      case ScalarKind::kUint: got = "!!int"; break;
      case ScalarKind::kFloat: got = "!!float"; break;
      case ScalarKind::kTimestamp: got = "!!timestamp"; break;
      default: got = "!!str"; break;
    }
    if (got != short_tag) {
      if (short_tag == "!!float" && got == "!!int") {
        r.f = r.kind == ScalarKind::kInt ? static_cast<double>(r.i) : static_cast<double>(r.u);
        r.kind = ScalarKind::kFloat;
      } else {
        return YamlError("cannot decode " + std::string(got) + " `" + n->value + "` as a " + short_tag);
      }
    }
  }
  switch (r.kind) {
    case ScalarKind::kNull: out = nullptr; break;
    case ScalarKind::kBool: out = r.b; break;
    case ScalarKind::kInt: out = r.i; break;
    case ScalarKind::kUint:
      // kube's JSON decoder reads an integer past int64 as a float64.
      if (r.u <= static_cast<uint64_t>(INT64_MAX)) out = static_cast<int64_t>(r.u);
      else out = static_cast<double>(r.u);
      break;
    case ScalarKind::kFloat: {
      if (std::isnan(r.f)) return Status(400, "BadRequest", "json: unsupported value: NaN");
      if (std::isinf(r.f)) {
        return Status(400, "BadRequest", std::string("json: unsupported value: ") + (r.f > 0 ? "+Inf" : "-Inf"));
      }
      // The JSON text sigs.k8s.io/yaml writes, read back as kube's decoder reads it.
      std::string text = FormatFloatJson(r.f);
      int64_t i;
      if (text.find('.') == std::string::npos && GoParseInt(text, 10, i)) out = i;
      else out = r.f;
      break;
    }
    default:
      out = json::string(n->value);
      is_string = true;
  }
  return Status::Ok();
}

Status Decoder::Merge(const Node* n, json::object& out, int depth) {
  auto want_map = [] { return YamlError("map merge requires map or sequence of maps as the value"); };
  if (n->kind == Node::kMapping) {
    RETURN_IF_ERROR(Count());
    return Mapping(n, out, depth);
  }
  if (n->kind == Node::kAlias) {
    if (n->alias != nullptr && n->alias->kind != Node::kMapping) return want_map();
    RETURN_IF_ERROR(Count());
    std::vector<const Node*> entered;
    const Node* target = n;
    Status st = Follow(target, entered);
    if (st.ok()) st = Mapping(target, out, depth);
    for (const Node* a : entered) active_aliases_.erase(a);
    alias_depth_ -= static_cast<int>(entered.size());
    return st;
  }
  if (n->kind == Node::kSequence) {
    for (auto it = n->children.rbegin(); it != n->children.rend(); ++it) {
      const Node* c = *it;
      if (c->kind == Node::kAlias) {
        if (c->alias != nullptr && c->alias->kind != Node::kMapping) return want_map();
      } else if (c->kind != Node::kMapping) {
        return want_map();
      }
      json::value v = json::object();
      RETURN_IF_ERROR(Decode(c, v, depth));
      if (v.is_object()) {
        for (auto& kv : v.get_object()) out[kv.key()] = std::move(kv.value());
      }
    }
    return Status::Ok();
  }
  return want_map();
}

Status Decoder::Mapping(const Node* n, json::object& out, int depth) {
  std::set<std::string> typed_keys;  // strict mode: go-yaml's map identity (type + value)
  for (const auto& kv : out) typed_keys.insert("s" + std::string(kv.key()));
  for (size_t i = 0; i + 1 < n->children.size(); i += 2) {
    const Node* k = n->children[i];
    const Node* v = n->children[i + 1];
    if (k->kind == Node::kScalar && k->value == "<<" && (k->implicit || k->tag == "tag:yaml.org,2002:merge")) {
      RETURN_IF_ERROR(Merge(v, out, depth));
      continue;
    }
    // The key.
    RETURN_IF_ERROR(Count());
    std::vector<const Node*> entered;
    const Node* kn = k;
    Status st = Follow(kn, entered);
    json::value key;
    Resolved r;
    bool is_string = false;
    if (st.ok()) {
      if (kn->kind != Node::kScalar) {
        st = YamlError(std::string("invalid map key: ") +
                       (kn->kind == Node::kMapping ? "map[interface {}]interface {}{}" : "[]interface {}{}"));
      } else {
        st = Scalar(kn, key, r, is_string);
        if (st.ok() && !is_string && r.kind == ScalarKind::kFloat) {
          // Scalar() gives JSON's view of a float; keys need go-yaml's float64 value.
          key = r.f;
        }
      }
    }
    for (const Node* a : entered) active_aliases_.erase(a);
    alias_depth_ -= static_cast<int>(entered.size());
    RETURN_IF_ERROR(st);
    // sigs.k8s.io/yaml's key conversion.
    std::string key_string;
    std::string identity;
    if (is_string) {
      key_string = std::string(key.get_string());
      identity = "s" + key_string;
    } else {
      switch (r.kind) {
        case ScalarKind::kInt: key_string = std::to_string(r.i); identity = "i" + key_string; break;
        case ScalarKind::kBool: key_string = r.b ? "true" : "false"; identity = "b" + key_string; break;
        case ScalarKind::kFloat: {
          key_string = FormatFloatG(r.f, true);
          if (key_string == "+Inf") key_string = ".inf";
          else if (key_string == "-Inf") key_string = "-.inf";
          else if (key_string == "NaN") key_string = ".nan";
          identity = "f" + FormatFloatG(r.f);
          break;
        }
        case ScalarKind::kNull:
          return Status(400, "BadRequest", "unsupported map key of type: <nil>, key: <nil>, value: <value>");
        default:
          return Status(400, "BadRequest", "unsupported map key of type: uint64, key: 0x" + std::to_string(r.u));
      }
    }
    json::value val;
    RETURN_IF_ERROR(Decode(v, val, depth));
    if (opts_.strict && typed_keys.count(identity)) {
      // Reported as go-yaml's strict decoder does; the value is the lenient decoder's (the last one),
      // which is what kube keeps under fieldValidation=Warn.
      strict_errors_.push_back("line " + std::to_string(v->line + 1) + ": key " + GoSharpV(key, r, is_string) +
                               " already set in map");
    }
    typed_keys.insert(identity);
    out[key_string] = std::move(val);
  }
  return Status::Ok();
}

Status Decoder::Decode(const Node* n, json::value& out, int depth) {
  if (depth > opts_.max_depth) return YamlError("exceeded max depth of " + std::to_string(opts_.max_depth));
  RETURN_IF_ERROR(Count());
  std::vector<const Node*> entered;
  Status st = Follow(n, entered);
  if (st.ok()) {
    switch (n->kind) {
      case Node::kScalar: {
        Resolved r;
        bool is_string;
        st = Scalar(n, out, r, is_string);
        break;
      }
      case Node::kMapping: {
        json::object o;
        st = Mapping(n, o, depth + 1);
        out = std::move(o);
        break;
      }
      case Node::kSequence: {
        json::array a;
        for (const Node* c : n->children) {
          json::value v;
          st = Decode(c, v, depth + 1);
          if (!st.ok()) break;
          a.push_back(std::move(v));
        }
        out = std::move(a);
        break;
      }
      default:
        break;
    }
  }
  for (const Node* a : entered) active_aliases_.erase(a);
  alias_depth_ -= static_cast<int>(entered.size());
  return st;
}

}  // namespace

StatusOr<YamlParseResult> YamlToJson(std::string_view yaml, const YamlParseOptions& opts) {
  if (opts.max_bytes != 0 && yaml.size() > opts.max_bytes) {
    return Status(413, "RequestEntityTooLarge", "Request entity too large: limit is " + std::to_string(opts.max_bytes));
  }
  Document doc;
  RETURN_IF_ERROR(doc.Load(yaml, opts.max_depth));
  YamlParseResult out;
  if (doc.root() == nullptr) return out;
  Decoder d(opts, out.strict_errors);
  json::value v;
  RETURN_IF_ERROR(d.Count());  // go-yaml counts the document node too
  RETURN_IF_ERROR(d.Decode(doc.root(), v, 0));
  out.value = std::move(v);
  return out;
}

std::string YamlStrictErrorMessage(const std::vector<std::string>& strict_errors) {
  return "yaml: unmarshal errors:\n  " + Join(strict_errors, "\n  ");
}

StatusOr<std::vector<std::string>> SplitYamlDocuments(std::string_view stream) {
  std::vector<std::string> docs;
  std::string cur;
  size_t pos = 0;
  while (pos < stream.size()) {
    size_t nl = stream.find('\n', pos);
    size_t end = nl == std::string_view::npos ? stream.size() : nl + 1;
    std::string_view line = stream.substr(pos, end - pos);
    pos = end;
    if (line.substr(0, 3) == "---") {
      std::string_view rest = TrimSpace(line.substr(3));
      if (!rest.empty() && rest[0] != '#') {
        return Status(400, "BadRequest", "invalid Yaml document separator: " + std::string(rest));
      }
      if (!cur.empty()) docs.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    cur.append(line);
  }
  if (!cur.empty()) docs.push_back(std::move(cur));
  return docs;
}

}  // namespace capstan::apimachinery
