#include "cel/parser.h"

#include <cerrno>
#include <cstdlib>
#include <set>

#include "cel/lexer.h"

namespace capstan::cel {

namespace {

constexpr const char* kPrimaryStart =
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

const std::set<std::string, std::less<>> kReserved = {
    "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop",
    "package", "namespace", "return", "var", "void", "while"};

struct Failure {
  int32_t offset;
  std::string message;
  bool syntax = true;
  bool no_location = false;
};

bool StartsPrimary(Tok k) {
  switch (k) {
    case Tok::kLBracket: case Tok::kLBrace: case Tok::kLParen: case Tok::kDot: case Tok::kMinus:
    case Tok::kNot: case Tok::kTrue: case Tok::kFalse: case Tok::kNull: case Tok::kDouble:
    case Tok::kInt: case Tok::kUint: case Tok::kString: case Tok::kBytes: case Tok::kIdent:
      return true;
    default:
      return false;
  }
}

std::string Quote(const Token& t) { return "'" + TokenDisplay(t) + "'"; }

std::unique_ptr<Expr> NewExpr(ExprKind k, int32_t off) {
  auto e = std::make_unique<Expr>();
  e->kind = k;
  e->offset = off;
  return e;
}

std::unique_ptr<Expr> Call(std::string fn, int32_t off, std::vector<std::unique_ptr<Expr>> args) {
  auto e = NewExpr(ExprKind::kCall, off);
  e->name = std::move(fn);
  e->args = std::move(args);
  return e;
}

std::unique_ptr<Expr> Call(std::string fn, int32_t off, std::unique_ptr<Expr> a) {
  std::vector<std::unique_ptr<Expr>> v;
  v.push_back(std::move(a));
  return Call(std::move(fn), off, std::move(v));
}

std::unique_ptr<Expr> Call(std::string fn, int32_t off, std::unique_ptr<Expr> a, std::unique_ptr<Expr> b) {
  std::vector<std::unique_ptr<Expr>> v;
  v.push_back(std::move(a));
  v.push_back(std::move(b));
  return Call(std::move(fn), off, std::move(v));
}

// Marks identifier/select/index chains that start at a variable as attributes.
void MarkAttribute(Expr& e) {
  if (e.kind == ExprKind::kIdent) {
    e.attribute = true;
  } else if (e.kind == ExprKind::kSelect && !e.test_only && e.target) {
    e.attribute = e.target->attribute;
  } else if (e.kind == ExprKind::kCall && (e.name == "_[_]" || e.name == "_[?_]" || e.name == "_?._") && !e.target) {
    e.attribute = e.args[0]->attribute;
  }
}

class Parser {
 public:
  Parser(std::vector<Token> toks, const ParseOptions& o) : t_(std::move(toks)), o_(o) {}

  std::unique_ptr<Expr> ParseAll() {
    auto e = ParseExpr();
    if (Peek().kind != Tok::kEof) {
      Fail(Peek().offset, "mismatched input " + Quote(Peek()) + " expecting <EOF>");
    }
    return e;
  }

 private:
  const Token& Peek(size_t k = 0) const {
    size_t i = pos_ + k;
    return i < t_.size() ? t_[i] : t_.back();
  }
  const Token& Next() {
    const Token& t = Peek();
    if (pos_ < t_.size() - 1) ++pos_;
    return t;
  }
  [[noreturn]] void Fail(int32_t off, std::string msg, bool syntax = true) { throw Failure{off, std::move(msg), syntax}; }

  void Expect(Tok k, const char* display) {
    if (Peek().kind == k) {
      Next();
      return;
    }
    if (Peek(1).kind == k) {
      Fail(Peek().offset, "extraneous input " + Quote(Peek()) + " expecting " + display);
    }
    if (Peek().kind == Tok::kEof || Peek().kind == Tok::kRParen || Peek().kind == Tok::kRBracket ||
        Peek().kind == Tok::kRBrace || Peek().kind == Tok::kComma) {
      Fail(Peek().offset, std::string("missing ") + display + " at " + Quote(Peek()));
    }
    Fail(Peek().offset, "mismatched input " + Quote(Peek()) + " expecting " + display);
  }

  struct Depth {
    explicit Depth(Parser& p) : p_(p) {
      if (++p_.depth_ > p_.o_.max_recursion_depth) {
        throw Failure{0, "expression recursion limit exceeded: " + std::to_string(p_.o_.max_recursion_depth), true, true};
      }
    }
    ~Depth() { --p_.depth_; }
    Parser& p_;
  };

  std::unique_ptr<Expr> ParseExpr() {
    Depth d(*this);
    auto c = ParseOr();
    if (Peek().kind == Tok::kQuestion) {
      int32_t off = Next().offset;
      auto a = ParseOr();
      Expect(Tok::kColon, "':'");
      auto b = ParseExpr();
      std::vector<std::unique_ptr<Expr>> v;
      v.push_back(std::move(c));
      v.push_back(std::move(a));
      v.push_back(std::move(b));
      return Call("_?_:_", off, std::move(v));
    }
    return c;
  }

  // cel-go builds balanced trees for chains of || and && (same semantics, bounded depth).
  std::unique_ptr<Expr> Balance(const std::string& fn, std::vector<std::unique_ptr<Expr>>& terms,
                                std::vector<int32_t>& ops, size_t lo, size_t hi) {
    if (lo == hi) return std::move(terms[lo]);
    size_t mid = (lo + hi + 1) / 2;
    auto l = Balance(fn, terms, ops, lo, mid - 1);
    auto r = Balance(fn, terms, ops, mid, hi);
    return Call(fn, ops[mid - 1], std::move(l), std::move(r));
  }

  std::unique_ptr<Expr> ParseOr() {
    std::vector<std::unique_ptr<Expr>> terms;
    std::vector<int32_t> ops;
    terms.push_back(ParseAnd());
    while (Peek().kind == Tok::kOr) {
      ops.push_back(Next().offset);
      terms.push_back(ParseAnd());
    }
    return Balance("_||_", terms, ops, 0, terms.size() - 1);
  }

  std::unique_ptr<Expr> ParseAnd() {
    std::vector<std::unique_ptr<Expr>> terms;
    std::vector<int32_t> ops;
    terms.push_back(ParseRelation());
    while (Peek().kind == Tok::kAnd) {
      ops.push_back(Next().offset);
      terms.push_back(ParseRelation());
    }
    return Balance("_&&_", terms, ops, 0, terms.size() - 1);
  }

  // One left-associative level of binary operators: `ops` maps tokens to function names.
  using Level = std::unique_ptr<Expr> (Parser::*)();
  std::unique_ptr<Expr> ParseLeftAssoc(std::initializer_list<std::pair<Tok, const char*>> ops, Level next) {
    auto l = (this->*next)();
    for (;;) {
      const char* fn = nullptr;
      for (const auto& [t, f] : ops) {
        if (Peek().kind == t) fn = f;
      }
      if (!fn) return l;
      int32_t off = Next().offset;
      Depth d(*this);
      auto r = (this->*next)();
      l = Call(fn, off, std::move(l), std::move(r));
    }
  }

  std::unique_ptr<Expr> ParseRelation() {
    return ParseLeftAssoc({{Tok::kLt, "_<_"}, {Tok::kLe, "_<=_"}, {Tok::kGt, "_>_"}, {Tok::kGe, "_>=_"},
                           {Tok::kEq, "_==_"}, {Tok::kNe, "_!=_"}, {Tok::kIn, "@in"}},
                          &Parser::ParseAdd);
  }
  std::unique_ptr<Expr> ParseAdd() {
    return ParseLeftAssoc({{Tok::kPlus, "_+_"}, {Tok::kMinus, "_-_"}}, &Parser::ParseMul);
  }
  std::unique_ptr<Expr> ParseMul() {
    return ParseLeftAssoc({{Tok::kStar, "_*_"}, {Tok::kSlash, "_/_"}, {Tok::kPercent, "_%_"}}, &Parser::ParseUnary);
  }

  std::unique_ptr<Expr> ParseUnary() {
    Depth d(*this);
    if (Peek().kind == Tok::kNot) {
      int32_t off = Peek().offset;
      int n = 0;
      while (Peek().kind == Tok::kNot) {
        Next();
        ++n;
      }
      auto m = ParseMember();
      if (n % 2 == 0) return m;
      return Call("!_", off, std::move(m));
    }
    if (Peek().kind == Tok::kMinus) {
      // One `-` directly before a number literal is part of the literal (so
      // -9223372036854775808 parses); a run of them negates, as ANTLR's greedy loop does.
      if (IsNumber(Peek(1).kind)) return ParseMember();
      int32_t off = Peek().offset;
      int n = 0;
      while (Peek().kind == Tok::kMinus) {
        Next();
        ++n;
      }
      auto m = ParseMember();
      if (n % 2 == 0) return m;
      return Call("-_", off, std::move(m));
    }
    return ParseMember();
  }

  static bool IsNumber(Tok k) { return k == Tok::kInt || k == Tok::kUint || k == Tok::kDouble; }

  std::unique_ptr<Expr> ParseMember() {
    auto e = ParsePrimary();
    for (;;) {
      if (Peek().kind == Tok::kDot) {
        int32_t off = Next().offset;
        bool opt = false;
        if (Peek().kind == Tok::kQuestion) {
          if (!o_.enable_optional_syntax) Fail(Peek().offset, "unsupported syntax '.?'", false);
          Next();
          opt = true;
        }
        if (Peek().kind != Tok::kIdent) {
          Fail(Peek().offset, "mismatched input " + Quote(Peek()) + " expecting IDENTIFIER");
        }
        Token id = Next();
        if (!opt && Peek().kind == Tok::kLParen) {
          int32_t loff = Next().offset;
          auto args = ParseArgs(Tok::kRParen, "')'");
          e = MakeMethodCall(std::move(e), id.text, loff, std::move(args));
          continue;
        }
        if (opt) {
          auto f = NewExpr(ExprKind::kConst, id.offset);
          f->value = Value::String(id.text);
          e = Call("_?._", off, std::move(e), std::move(f));
        } else {
          auto s = NewExpr(ExprKind::kSelect, off);
          s->name = id.text;
          s->target = std::move(e);
          e = std::move(s);
        }
        MarkAttribute(*e);
        continue;
      }
      if (Peek().kind == Tok::kLBracket) {
        int32_t off = Next().offset;
        bool opt = false;
        if (Peek().kind == Tok::kQuestion) {
          if (!o_.enable_optional_syntax) Fail(Peek().offset, "unsupported syntax '[?'", false);
          Next();
          opt = true;
        }
        auto idx = ParseExpr();
        Expect(Tok::kRBracket, "']'");
        e = Call(opt ? "_[?_]" : "_[_]", off, std::move(e), std::move(idx));
        MarkAttribute(*e);
        continue;
      }
      if (Peek().kind == Tok::kLBrace && IsQualifiedName(*e)) {
        e = ParseStruct(QualifiedName(*e), e->offset);
        continue;
      }
      return e;
    }
  }

  static bool IsQualifiedName(const Expr& e) {
    if (e.kind == ExprKind::kIdent) return true;
    return e.kind == ExprKind::kSelect && !e.test_only && IsQualifiedName(*e.target);
  }
  static std::string QualifiedName(const Expr& e) {
    if (e.kind == ExprKind::kIdent) return e.name;
    return QualifiedName(*e.target) + "." + e.name;
  }

  std::vector<std::unique_ptr<Expr>> ParseArgs(Tok close, const char* close_display) {
    std::vector<std::unique_ptr<Expr>> args;
    if (Peek().kind == close) {
      Next();
      return args;
    }
    for (;;) {
      args.push_back(ParseExpr());
      if (Peek().kind == Tok::kComma) {
        Next();
        continue;
      }
      Expect(close, close_display);
      return args;
    }
  }

  std::unique_ptr<Expr> ParsePrimary() {
    Depth d(*this);
    const Token& t = Peek();
    switch (t.kind) {
      case Tok::kInt: case Tok::kUint: case Tok::kDouble: return ParseNumber(false);
      case Tok::kMinus: {
        int32_t off = Next().offset;
        auto e = ParseNumber(true);
        e->offset = off;
        return e;
      }
      case Tok::kString: case Tok::kBytes: {
        Token s = Next();
        auto e = NewExpr(ExprKind::kConst, s.offset);
        e->value = s.kind == Tok::kString ? Value::String(s.value) : Value::Bytes(s.value);
        return e;
      }
      case Tok::kError: {
        Token s = Next();
        Fail(s.offset, s.value, false);
      }
      case Tok::kTrue: case Tok::kFalse: {
        Token s = Next();
        auto e = NewExpr(ExprKind::kConst, s.offset);
        e->value = Value::Bool(s.kind == Tok::kTrue);
        return e;
      }
      case Tok::kNull: {
        Token s = Next();
        return NewExpr(ExprKind::kConst, s.offset);
      }
      case Tok::kLParen: {
        Next();
        auto e = ParseExpr();
        Expect(Tok::kRParen, "')'");
        return e;
      }
      case Tok::kLBracket: return ParseList();
      case Tok::kLBrace: return ParseMap();
      case Tok::kDot:
      case Tok::kIdent: {
        int32_t off = t.offset;
        bool leading_dot = false;
        if (t.kind == Tok::kDot) {
          Next();
          leading_dot = true;
          if (Peek().kind != Tok::kIdent) {
            Fail(Peek().offset, "no viable alternative at input '." + TokenDisplay(Peek()) + "'");
          }
        }
        Token id = Next();
        if (kReserved.count(id.text)) Fail(id.offset, "reserved identifier: " + id.text, false);
        if (Peek().kind == Tok::kLParen) {
          Next();
          auto args = ParseArgs(Tok::kRParen, "')'");
          return MakeGlobalCall((leading_dot ? "." : "") + id.text, id.offset, std::move(args));
        }
        auto e = NewExpr(ExprKind::kIdent, off);
        e->name = leading_dot ? "." + id.text : id.text;
        e->attribute = true;
        return e;
      }
      default:
        if (StartsPrimary(Peek(1).kind) && t.kind != Tok::kEof) {
          Fail(t.offset, "extraneous input " + Quote(t) + " expecting " + kPrimaryStart);
        }
        Fail(t.offset, "mismatched input " + Quote(t) + " expecting " + kPrimaryStart);
    }
  }

  std::unique_ptr<Expr> ParseNumber(bool negative) {
    Token t = Next();
    if (!IsNumber(t.kind)) {
      Fail(t.offset, "mismatched input " + Quote(t) + " expecting " + kPrimaryStart);
    }
    auto e = NewExpr(ExprKind::kConst, t.offset);
    std::string txt = (negative ? "-" : "") + t.text;
    errno = 0;
    if (t.kind == Tok::kDouble) {
      char* end = nullptr;
      double d = std::strtod(txt.c_str(), &end);
      e->value = Value::Double(d);
      return e;
    }
    bool hex = t.text.size() > 2 && t.text[0] == '0' && (t.text[1] == 'x' || t.text[1] == 'X');
    std::string digits = t.kind == Tok::kUint ? t.text.substr(0, t.text.size() - 1) : t.text;
    if (t.kind == Tok::kUint) {
      if (negative) Fail(t.offset, "invalid uint literal", false);
      char* end = nullptr;
      unsigned long long u = std::strtoull(hex ? digits.c_str() + 2 : digits.c_str(), &end, hex ? 16 : 10);
      if (errno == ERANGE) Fail(t.offset, "invalid uint literal", false);
      e->value = Value::Uint(u);
      return e;
    }
    char* end = nullptr;
    std::string s = (negative ? "-" : "") + (hex ? digits.substr(2) : digits);
    long long i = std::strtoll(s.c_str(), &end, hex ? 16 : 10);
    if (errno == ERANGE) Fail(t.offset, "invalid int literal", false);
    e->value = Value::Int(i);
    return e;
  }

  std::unique_ptr<Expr> ParseList() {
    auto e = NewExpr(ExprKind::kList, Next().offset);
    for (;;) {
      if (Peek().kind == Tok::kRBracket) {
        Next();
        return e;
      }
      bool opt = false;
      if (Peek().kind == Tok::kQuestion) {
        if (!o_.enable_optional_syntax) Fail(Peek().offset, "unsupported syntax '?'", false);
        Next();
        opt = true;
      }
      e->args.push_back(ParseExpr());
      e->optional_entries.push_back(opt);
      if (Peek().kind == Tok::kComma) {
        Next();
        continue;
      }
      Expect(Tok::kRBracket, "']'");
      return e;
    }
  }

  std::unique_ptr<Expr> ParseMap() {
    auto e = NewExpr(ExprKind::kMap, Next().offset);
    for (;;) {
      if (Peek().kind == Tok::kRBrace) {
        Next();
        return e;
      }
      bool opt = false;
      if (Peek().kind == Tok::kQuestion) {
        if (!o_.enable_optional_syntax) Fail(Peek().offset, "unsupported syntax '?'", false);
        Next();
        opt = true;
      }
      e->args.push_back(ParseExpr());
      Expect(Tok::kColon, "':'");
      e->args.push_back(ParseExpr());
      e->optional_entries.push_back(opt);
      if (Peek().kind == Tok::kComma) {
        Next();
        continue;
      }
      Expect(Tok::kRBrace, "'}'");
      return e;
    }
  }

  std::unique_ptr<Expr> ParseStruct(std::string name, int32_t off) {
    auto e = NewExpr(ExprKind::kStruct, off);
    e->name = std::move(name);
    Next();  // {
    for (;;) {
      if (Peek().kind == Tok::kRBrace) {
        Next();
        return e;
      }
      bool opt = false;
      if (Peek().kind == Tok::kQuestion) {
        Next();
        opt = true;
      }
      if (Peek().kind != Tok::kIdent) {
        Fail(Peek().offset, "mismatched input " + Quote(Peek()) + " expecting {'}', ',', '?', IDENTIFIER}");
      }
      e->field_names.push_back(Next().text);
      Expect(Tok::kColon, "':'");
      e->args.push_back(ParseExpr());
      e->optional_entries.push_back(opt);
      if (Peek().kind == Tok::kComma) {
        Next();
        continue;
      }
      Expect(Tok::kRBrace, "'}'");
      return e;
    }
  }

  // Global functions and the has() macro.
  std::unique_ptr<Expr> MakeGlobalCall(std::string fn, int32_t off, std::vector<std::unique_ptr<Expr>> args) {
    if (fn == "has" && args.size() == 1) {
      Expr& a = *args[0];
      if (a.kind != ExprKind::kSelect) Fail(a.offset, "invalid argument to has() macro", false);
      a.test_only = true;
      a.attribute = false;
      return std::move(args[0]);
    }
    return Call(std::move(fn), off, std::move(args));
  }

  std::unique_ptr<Expr> MakeMethodCall(std::unique_ptr<Expr> target, const std::string& fn, int32_t off,
                                       std::vector<std::unique_ptr<Expr>> args) {
    struct M { const char* name; size_t nargs; MacroKind kind; };
    static const M kMacros[] = {
        {"all", 2, MacroKind::kAll}, {"exists", 2, MacroKind::kExists},
        {"exists_one", 2, MacroKind::kExistsOne}, {"map", 2, MacroKind::kMap},
        {"map", 3, MacroKind::kMapFilter}, {"filter", 2, MacroKind::kFilter},
        {"optMap", 2, MacroKind::kOptMap}, {"optFlatMap", 2, MacroKind::kOptFlatMap},
    };
    for (const auto& m : kMacros) {
      if (fn != m.name || args.size() != m.nargs) continue;
      if (args[0]->kind != ExprKind::kIdent) Fail(args[0]->offset, "argument must be a simple name", false);
      auto e = NewExpr(ExprKind::kMacro, off);
      e->macro = m.kind;
      e->name = args[0]->name;
      e->target = std::move(target);
      for (size_t i = 1; i < args.size(); ++i) e->args.push_back(std::move(args[i]));
      return e;
    }
    // Qualified global functions written as calls on a namespace: optional.of(x), sets.contains(a, b),
    // format.dns1123Label(), strings.quote(s).
    if (target->kind == ExprKind::kIdent || (target->kind == ExprKind::kSelect && IsQualifiedName(*target))) {
      std::string q = QualifiedName(*target) + "." + fn;
      static const std::set<std::string, std::less<>> kQualified = {
          "optional.of", "optional.none", "optional.ofNonZeroValue", "sets.contains", "sets.equivalent",
          "sets.intersects", "strings.quote", "ip.isCanonical", "format.named", "format.dns1123Label", "format.dns1123Subdomain",
          "format.dns1035Label", "format.qualifiedName", "format.dns1123LabelPrefix",
          "format.dns1123SubdomainPrefix", "format.dns1035LabelPrefix", "format.labelValue", "format.uri",
          "format.uuid", "format.byte", "format.date", "format.datetime"};
      if (kQualified.count(q)) return Call(q, off, std::move(args));
    }
    auto e = Call(fn, off, std::move(args));
    e->target = std::move(target);
    return e;
  }

  std::vector<Token> t_;
  const ParseOptions& o_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

void OffsetToLocation(std::string_view source, int32_t offset, int* line, int* column) {
  int l = 1, c = 0;
  for (int32_t i = 0; i < offset && i < static_cast<int32_t>(source.size()); ++i) {
    unsigned char ch = static_cast<unsigned char>(source[i]);
    if (ch == '\n') {
      ++l;
      c = 0;
    } else if ((ch & 0xC0) != 0x80) {
      ++c;
    }
  }
  *line = l;
  *column = c;
}

std::string FormatIssues(std::string_view source, const std::vector<Issue>& issues) {
  std::string out;
  for (const auto& is : issues) {
    if (!out.empty()) out += "\n";
    out += "ERROR: <input>:" + std::to_string(is.line) + ":" + std::to_string(is.column + 1) + ": " + is.message;
    if (is.line < 1) continue;
    // The source line and a caret under the column ('.' per code point, wide ones for multi-byte).
    size_t start = 0;
    for (int l = 1; l < is.line; ++l) {
      size_t nl = source.find('\n', start);
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
    size_t end = source.find('\n', start);
    std::string snippet(source.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    for (auto& ch : snippet) {
      if (ch == '\t') ch = ' ';
    }
    out += "\n | " + snippet + "\n | ";
    size_t b = 0;
    for (int i = 0; i < is.column && b < snippet.size(); ++i) {
      unsigned char ch = static_cast<unsigned char>(snippet[b]);
      size_t sz = ch < 0x80 ? 1 : (ch >= 0xF0 ? 4 : (ch >= 0xE0 ? 3 : 2));
      out += sz > 1 ? "\xef\xbc\x8e" : ".";
      b += sz;
    }
    unsigned char ch = b < snippet.size() ? static_cast<unsigned char>(snippet[b]) : 0;
    out += ch >= 0x80 ? "\xef\xbc\xbe" : "^";
  }
  return out;
}

ParseResult Parse(std::string_view source, const ParseOptions& opts) {
  ParseResult r;
  int64_t cps = CodePointCount(source);
  if (cps > opts.expression_size_code_point_limit) {
    r.issues.push_back({-1, -1, "expression code point size exceeds limit: size: " + std::to_string(cps) +
                                    ", limit " + std::to_string(opts.expression_size_code_point_limit)});
    return r;
  }
  std::vector<LexIssue> lex_issues;
  std::vector<Token> toks = Lex(source, lex_issues);
  for (const auto& li : lex_issues) {
    Issue is;
    OffsetToLocation(source, li.offset, &is.line, &is.column);
    is.message = "Syntax error: " + li.message;
    r.issues.push_back(std::move(is));
  }
  try {
    Parser p(std::move(toks), opts);
    auto e = p.ParseAll();
    if (r.issues.empty()) r.expr = std::move(e);
  } catch (const Failure& f) {
    Issue is;
    if (f.no_location) {
      is.line = -1;
      is.column = -1;
    } else {
      OffsetToLocation(source, f.offset, &is.line, &is.column);
    }
    is.message = (f.syntax ? "Syntax error: " : "") + f.message;
    r.issues.push_back(std::move(is));
  }
  return r;
}

}  // namespace capstan::cel
