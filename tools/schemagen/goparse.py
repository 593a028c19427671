"""A small reader of Go source files: package clause, imports, type declarations, constants and
method names. It understands exactly the subset of Go that API type packages use for their types
(struct, named, pointer, slice, array, map and interface types, struct tags, doc comments) and
skips function bodies and other declarations without interpreting them.
"""

import re

# ---------------------------------------------------------------------------------------------
# Tokens

_PUNCT = [
    "<<=", ">>=", "&^=", "...", "&&", "||", "<-", "++", "--", "==", "!=", "<=", ">=", ":=", "+=",
    "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<", ">>", "&^",
]


class Tok:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind = kind  # ident, number, string, char, punct, comment, newline
        self.text = text
        self.line = line

    def __repr__(self):
        return "Tok(%s,%r,%d)" % (self.kind, self.text, self.line)


def tokenize(src):
    toks = []
    i, n, line = 0, len(src), 1
    while i < n:
        c = src[i]
        if c == "\n":
            toks.append(Tok("newline", "\n", line))
            line += 1
            i += 1
        elif c in " \t\r":
            i += 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            toks.append(Tok("comment", src[i:j], line))
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            text = src[i:j]
            toks.append(Tok("comment", text, line))
            line += text.count("\n")
            i = j
        elif c == "`":
            j = src.find("`", i + 1)
            if j < 0:
                raise ValueError("unterminated raw string at line %d" % line)
            text = src[i:j + 1]
            toks.append(Tok("string", text, line))
            line += text.count("\n")
            i = j + 1
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            toks.append(Tok("string" if c == '"' else "char", src[i:j + 1], line))
            i = j + 1
        elif c.isalpha() or c == "_" or ord(c) > 127:
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] == "_" or ord(src[j]) > 127):
                j += 1
            toks.append(Tok("ident", src[i:j], line))
            i = j
        elif c.isdigit() or (c == "." and i + 1 < n and src[i + 1].isdigit()):
            m = re.compile(r"[0-9a-fA-FxXoObB_.]+([eEpP][+-]?[0-9_]+)?i?").match(src, i)
            toks.append(Tok("number", m.group(0), line))
            i = m.end()
        else:
            for p in _PUNCT:
                if src.startswith(p, i):
                    toks.append(Tok("punct", p, line))
                    i += len(p)
                    break
            else:
                toks.append(Tok("punct", c, line))
                i += 1
    return toks


def unquote(s):
    """The value of a Go string literal (raw or interpreted; common escapes only)."""
    if s.startswith("`"):
        return s[1:-1]
    body = s[1:-1]
    return bytes(body, "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")


# ---------------------------------------------------------------------------------------------
# Type expressions: small tuples.
#   ("named", pkg_path_or_None, name)  pkg None means "this package or a builtin"
#   ("ptr", elem) ("slice", elem) ("array", len, elem) ("map", key, elem)
#   ("struct", [Field]) ("iface",) ("func",) ("chan", elem)


class Field:
    def __init__(self, name, type_expr, tag, comments, embedded):
        self.name = name            # Go field name (for embedded fields, the type name)
        self.type = type_expr
        self.tag = tag              # struct tag text without the backquotes, or ""
        self.comments = comments    # doc comment lines (text after //, stripped of one space)
        self.embedded = embedded

    def tag_value(self, key):
        """reflect.StructTag.Lookup: (value, present)."""
        m = re.search(r'(?:^|\s)' + re.escape(key) + r':"((?:[^"\\]|\\.)*)"', self.tag)
        if not m:
            return None, False
        return m.group(1), True


class TypeDecl:
    def __init__(self, name, type_expr, comments, second_comments, alias, file):
        self.name = name
        self.type = type_expr
        self.comments = comments              # doc comment directly above
        self.second_comments = second_comments  # the block above that, separated by one blank line
        self.alias = alias                    # "type X = Y"
        self.file = file
        self.pkg = None                       # set by the package loader


class Const:
    def __init__(self, name, type_name, value, comments=()):
        self.name = name
        self.type_name = type_name
        self.value = value    # Python value (str/int/float/bool) or None when not a simple literal
        self.comments = list(comments)  # doc comment lines directly above the spec


class GoFile:
    def __init__(self, path):
        self.path = path
        self.package = None
        self.package_comments = []
        self.build_constraint = None
        self.imports = {}     # local name -> import path
        self.types = []
        self.consts = []
        self.methods = []     # (receiver type name, method name)


def _comment_text(tok):
    t = tok.text
    if t.startswith("//"):
        t = t[2:]
        return [t[1:] if t.startswith(" ") else t]
    lines = t[2:-2].split("\n")
    return [l.strip() for l in lines]


class _Parser:
    def __init__(self, toks, path):
        self.toks = toks
        self.i = 0
        self.path = path

    # -- token helpers
    def peek(self, k=0, skip_nl=True):
        j = self.i
        seen = 0
        while j < len(self.toks):
            t = self.toks[j]
            if t.kind == "comment" or (skip_nl and t.kind == "newline"):
                j += 1
                continue
            if seen == k:
                return t
            seen += 1
            j += 1
        return Tok("eof", "", -1)

    def next(self, skip_nl=True):
        while self.i < len(self.toks):
            t = self.toks[self.i]
            self.i += 1
            if t.kind == "comment" or (skip_nl and t.kind == "newline"):
                continue
            return t
        return Tok("eof", "", -1)

    def expect(self, text):
        t = self.next()
        if t.text != text:
            raise ValueError("%s:%d: expected %r, got %r" % (self.path, t.line, text, t.text))
        return t

    def doc_before(self, idx):
        """Doc comment lines directly above token idx, and the block above that (one blank line gap)."""
        j = idx - 1
        # skip to the start of the line of token idx
        def block(j):
            lines = []
            # j points at the newline ending the previous line (or earlier)
            while j >= 0:
                t = self.toks[j]
                if t.kind == "newline" and j - 1 >= 0 and self.toks[j - 1].kind == "comment" and \
                        (j - 2 < 0 or self.toks[j - 2].kind == "newline"):
                    lines[:0] = _comment_text(self.toks[j - 1])
                    j -= 2
                    continue
                break
            return lines, j
        # move j to the newline right before the token's line
        while j >= 0 and self.toks[j].kind != "newline":
            j -= 1
        first, j = block(j)
        second = []
        if j >= 1 and self.toks[j].kind == "newline" and self.toks[j - 1].kind == "newline":
            second, _ = block(j - 1)
        elif first == [] and j >= 1 and self.toks[j].kind == "newline":
            pass
        return first, second

    def skip_balanced(self, open_, close):
        depth = 0
        while True:
            t = self.next(skip_nl=True)
            if t.kind == "eof":
                raise ValueError("%s: unbalanced %s" % (self.path, open_))
            if t.text == open_:
                depth += 1
            elif t.text == close:
                depth -= 1
                if depth == 0:
                    return

    def skip_statement(self):
        """Skips to the end of a top-level statement (newline or ';' at depth 0)."""
        depth = 0
        while self.i < len(self.toks):
            t = self.toks[self.i]
            self.i += 1
            if t.kind == "punct" and t.text in "([{":
                depth += 1
            elif t.kind == "punct" and t.text in ")]}":
                depth -= 1
            elif depth == 0 and (t.kind == "newline" or t.text == ";"):
                prev = self._prev_significant(self.i - 2)
                # a line ending in an operator or comma continues
                if prev is not None and prev.kind == "punct" and prev.text in (",", "+", "-", "*", "/", "|", "&", "&&", "||", "=", "."):
                    continue
                return

    def _prev_significant(self, j):
        while j >= 0 and self.toks[j].kind in ("comment",):
            j -= 1
        return self.toks[j] if j >= 0 else None

    # -- types
    def parse_type(self):
        t = self.next()
        if t.text == "*":
            return ("ptr", self.parse_type())
        if t.text == "[":
            if self.peek().text == "]":
                self.next()
                return ("slice", self.parse_type())
            n = self.next()
            self.expect("]")
            return ("array", n.text, self.parse_type())
        if t.text == "map":
            self.expect("[")
            k = self.parse_type()
            self.expect("]")
            return ("map", k, self.parse_type())
        if t.text == "struct":
            return ("struct", self.parse_struct_body())
        if t.text == "interface":
            self.skip_balanced_from_open("{", "}")
            return ("iface",)
        if t.text == "func":
            self.skip_balanced_from_open("(", ")")
            # results: a type, or a parenthesized list
            nt = self.peek(skip_nl=False)
            if nt.text == "(":
                self.skip_balanced_from_open("(", ")")
            elif nt.kind == "ident" or nt.text in ("*", "["):
                self.parse_type()
            return ("func",)
        if t.text == "chan":
            if self.peek(skip_nl=False).text == "<-":
                self.next()
            return ("chan", self.parse_type())
        if t.text == "<-":
            self.expect("chan")
            return ("chan", self.parse_type())
        if t.text == "(":
            inner = self.parse_type()
            self.expect(")")
            return inner
        if t.kind == "ident":
            if t.text == "any":
                return ("iface",)
            if self.peek(skip_nl=False).text == ".":
                self.next()
                n2 = self.next()
                return ("named", t.text, n2.text)  # package *name* for now; resolved later
            if self.peek(skip_nl=False).text == "[":
                # generic instantiation: not used by API types
                raise ValueError("%s:%d: generic types are not supported" % (self.path, t.line))
            return ("named", None, t.text)
        raise ValueError("%s:%d: unexpected %r in type" % (self.path, t.line, t.text))

    def skip_balanced_from_open(self, open_, close):
        t = self.next()
        if t.text != open_:
            raise ValueError("%s:%d: expected %r" % (self.path, t.line, open_))
        depth = 1
        while depth:
            t = self.next()
            if t.kind == "eof":
                raise ValueError("unbalanced")
            if t.text == open_:
                depth += 1
            elif t.text == close:
                depth -= 1

    def parse_struct_body(self):
        self.expect("{")
        fields = []
        while True:
            # skip blank lines and semicolons
            t = self.peek()
            if t.text == "}":
                self.next()
                return fields
            start = self._index_of_next_significant()
            comments, _ = self.doc_before(start)
            # Field names or embedded type
            first = self.peek()
            second = self.peek(1, skip_nl=False)
            embedded = False
            if first.text == "*":
                embedded = True
            elif first.kind == "ident":
                nxt = self._peek_raw_after(start)
                if nxt is None or nxt.kind in ("newline", "string") or nxt.text in (".", ";", "}"):
                    embedded = True
            if embedded:
                ty = self.parse_type()
                base = ty[1] if ty[0] == "ptr" else ty
                names = [base[2]]
            else:
                names = [self.next().text]
                while self.peek(skip_nl=False).text == ",":
                    self.next()
                    names.append(self.next().text)
                ty = self.parse_type()
            tag = ""
            nt = self.peek(skip_nl=False)
            if nt.kind == "string":
                tag = unquote(self.next().text)
            for name in names:
                fields.append(Field(name, ty, tag, comments, embedded))
            if self.peek(skip_nl=False).text == ";":
                self.next()

    def _index_of_next_significant(self):
        j = self.i
        while j < len(self.toks) and self.toks[j].kind in ("comment", "newline"):
            j += 1
        return j

    def _peek_raw_after(self, idx):
        j = idx + 1
        while j < len(self.toks) and self.toks[j].kind == "comment":
            j += 1
        return self.toks[j] if j < len(self.toks) else None

    # -- file
    def parse_file(self, gf):
        # build constraint and package comments
        j = 0
        while j < len(self.toks) and self.toks[j].kind in ("comment", "newline"):
            t = self.toks[j]
            if t.kind == "comment" and t.text.startswith("//go:build "):
                gf.build_constraint = t.text[len("//go:build "):].strip()
            j += 1
        pk = self.next()
        if pk.text != "package":
            raise ValueError("%s: no package clause" % self.path)
        # Every comment before the package clause counts (markers may sit apart from the doc).
        for t in self.toks[:self.i - 1]:
            if t.kind == "comment":
                gf.package_comments.extend(_comment_text(t))
        gf.package = self.next().text
        while True:
            t = self.peek()
            if t.kind == "eof":
                return
            start = self._index_of_next_significant()
            t = self.next()
            if t.text == "import":
                self.parse_import(gf)
            elif t.text == "type":
                doc, second = self.doc_before(start)
                if self.peek().text == "(":
                    self.next()
                    while self.peek().text != ")":
                        s = self._index_of_next_significant()
                        d, sec = self.doc_before(s)
                        self.parse_type_spec(gf, d or doc, sec or second)
                    self.next()
                else:
                    self.parse_type_spec(gf, doc, second)
            elif t.text == "const":
                self.parse_const(gf)
            elif t.text == "func":
                self.parse_func(gf)
            elif t.text == "var":
                if self.peek().text == "(":
                    self.skip_balanced("(", ")")
                else:
                    self.skip_statement()
            elif t.text == ";":
                continue
            else:
                raise ValueError("%s:%d: unexpected top-level token %r" % (self.path, t.line, t.text))

    def parse_import(self, gf):
        def one():
            t = self.next()
            alias = None
            if t.kind != "string":
                alias = t.text
                t = self.next()
            path = unquote(t.text)
            if alias is None:
                alias = path.rsplit("/", 1)[-1]
            gf.imports[alias] = path
        if self.peek().text == "(":
            self.next()
            while self.peek().text != ")":
                one()
                if self.peek().text == ";":
                    self.next()
            self.next()
        else:
            one()

    def parse_type_spec(self, gf, doc, second):
        name = self.next().text
        alias = False
        if self.peek(skip_nl=False).text == "=":
            self.next()
            alias = True
        if self.peek(skip_nl=False).text == "[" and self.peek(1, skip_nl=False).kind == "ident" and \
                self.peek(2, skip_nl=False).kind == "ident":
            raise ValueError("%s: generic type %s is not supported" % (self.path, name))
        ty = self.parse_type()
        gf.types.append(TypeDecl(name, ty, doc, second, alias, self.path))
        if self.peek(skip_nl=False).text == ";":
            self.next()

    def parse_const(self, gf):
        def spec(prev_type):
            doc, _ = self.doc_before(self._index_of_next_significant())
            name = self.next().text
            names = [name]
            while self.peek(skip_nl=False).text == ",":
                self.next()
                names.append(self.next().text)
            type_name = None
            value = None
            nt = self.peek(skip_nl=False)
            if nt.kind == "ident":
                type_name = self.next().text
                if self.peek(skip_nl=False).text == ".":
                    self.next()
                    type_name += "." + self.next().text
            if self.peek(skip_nl=False).text == "=":
                self.next()
                # a simple literal value, else skip
                start = self.i
                t = self.next()
                after = self.peek(skip_nl=False)
                if after.kind in ("newline", "eof") or after.text in (";", ")"):
                    if t.kind == "string":
                        value = unquote(t.text)
                    elif t.kind == "number":
                        try:
                            value = int(t.text.replace("_", ""), 0)
                        except ValueError:
                            try:
                                value = float(t.text)
                            except ValueError:
                                value = None
                    elif t.text in ("true", "false"):
                        value = t.text == "true"
                else:
                    self.i = start
                    self.skip_statement()
                    for nm in names:
                        gf.consts.append(Const(nm, type_name, None, doc))
                    return type_name
            for nm in names:
                gf.consts.append(Const(nm, type_name, value, doc))
            return type_name
        if self.peek().text == "(":
            self.next()
            prev = None
            while self.peek().text != ")":
                prev = spec(prev)
                if self.peek().text == ";":
                    self.next()
            self.next()
        else:
            spec(None)

    def parse_func(self, gf):
        recv = None
        if self.peek().text == "(":
            # receiver
            self.next()
            toks = []
            while self.peek().text != ")":
                toks.append(self.next().text)
            self.next()
            recv = [x for x in toks if x not in ("*",)][-1]
        name = self.next().text
        if self.peek(skip_nl=False).text == "[":
            self.skip_balanced("[", "]")
        self.skip_balanced_from_open("(", ")")
        # results
        nt = self.peek(skip_nl=False)
        if nt.text == "(":
            self.skip_balanced_from_open("(", ")")
        elif nt.text != "{" and nt.kind != "newline":
            self.parse_type()
        if self.peek(skip_nl=False).text == "{":
            self.skip_balanced("{", "}")
        if recv is not None:
            gf.methods.append((recv, name))


def parse_go_file(src, path):
    gf = GoFile(path)
    _Parser(tokenize(src), path).parse_file(gf)
    return gf


# ---------------------------------------------------------------------------------------------
# Build constraints (//go:build): evaluated with no tags set.

def leading_build_constraint(src):
    """The //go:build expression of a file (it must precede the package clause), or None."""
    for line in src.splitlines():
        s = line.strip()
        if s.startswith("//go:build "):
            return s[len("//go:build "):].strip()
        if s.startswith("package "):
            return None
    return None


def build_constraint_satisfied(expr, tags=frozenset()):
    toks = re.findall(r"\(|\)|!|&&|\|\||[A-Za-z0-9_.]+", expr)
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else None

    def atom():
        t = peek()
        pos[0] += 1
        if t == "!":
            return not atom()
        if t == "(":
            v = orexpr()
            pos[0] += 1
            return v
        return t in tags

    def andexpr():
        v = atom()
        while peek() == "&&":
            pos[0] += 1
            v = atom() and v
        return v

    def orexpr():
        v = andexpr()
        while peek() == "||":
            pos[0] += 1
            v = andexpr() or v
        return v
    return orexpr()


# ---------------------------------------------------------------------------------------------
# Comment markers, the way Kubernetes' generators read them: lines "+key=value" or "+key".

def extract_markers(lines):
    out = {}
    for line in lines:
        s = line.strip()
        if not s.startswith("+"):
            continue
        s = s[1:]
        if "=" in s:
            k, v = s.split("=", 1)
        else:
            k, v = s, ""
        k = k.strip()
        if " " in k:
            continue
        out.setdefault(k, []).append(v)
    return out
