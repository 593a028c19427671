"""The documentation of the definitions: the doc comments of the Go types and their fields, as
Kubernetes' OpenAPI generator turns them into "description" (and the values of +enum string types
into "enum", with their "Possible enum values:" paragraph). Written apart from the schemas
(src/api/schemas/descriptions/), because only the published OpenAPI documents need them: the server
reads them when it builds a document, not at start. docs/schema-format.md describes the files.
"""

import re

from goparse import extract_markers
import schemas
import special

ENUM_HEADER = "Possible enum values:"
_WHITESPACE = re.compile(r"\s+")


def go_comment_lines(lines):
    """The lines of a doc comment as go/ast's CommentGroup.Text() gives them: trailing white space
    trimmed, leading and trailing blank lines dropped, runs of blank lines made one."""
    out = []
    for line in lines:
        line = line.rstrip()
        if line == "" and (not out or out[-1] == ""):
            continue
        out.append(line)
    while out and out[-1] == "":
        out.pop()
    return out


def description(lines):
    """Kubernetes' openapi-gen description of comment lines: paragraphs kept, markers (+...) and
    one-line TODOs left out, indented lines kept on lines of their own, nothing after "---"."""
    buf = []

    def del_prev():
        if buf:
            buf[-1] = buf[-1][:-1]

    for line in lines:
        if line == "---":
            break
        line = line.rstrip(" ")
        leading = line.lstrip(" ")
        if len(line) == 0:
            del_prev()
            buf.append("\n\n")
        elif leading.startswith("TODO") or leading.startswith("+"):
            continue
        elif line.startswith(" ") or line.startswith("\t"):
            del_prev()
            buf.append("\n" + line + "\n")
        else:
            buf.append(line + " ")
    return "".join(buf).strip(" \t\n\r\v\f")


def _go_quote(s):
    """Go's %q of a plain string (the enum values are ASCII)."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Describer:
    def __init__(self, gen):
        self.gen = gen
        self._enums = {}

    def enum_values(self, rt):
        """[(value, comment)] of an +enum string type, or None for other types."""
        while rt is not None and rt.kind == "ptr":
            rt = rt.elem
        if rt is None or rt.kind != "alias" or rt.decl is None:
            return None
        u = rt.underlying
        if not (u.kind == "builtin" and u.name == "string"):
            return None
        if "enum" not in extract_markers(rt.decl.comments):
            return None
        key = (rt.pkg.path, rt.decl.name)
        if key not in self._enums:
            values = {}
            for c in rt.pkg.consts.values():
                if c.type_name != rt.decl.name or not isinstance(c.value, str):
                    continue
                comment = " ".join(go_comment_lines(c.comments))
                old = values.get(c.value)
                # kube keeps the longer comment of two constants with one value
                if old is None or len(old[1]) < len(comment) or (len(old[1]) == len(comment) and old[1] > comment):
                    values[c.value] = (c.name, comment)
            self._enums[key] = values
        return self._enums[key]

    @staticmethod
    def enum_lines(values):
        lines = []
        for value, (name, comment) in values.items():
            c = comment.strip()
            if c.startswith(name):
                c = c[len(name):]
            c = _WHITESPACE.sub(" ", c.strip())
            lines.append(" - `%s` %s" % (_go_quote(value), c))
        lines.sort()
        return ["", ENUM_HEADER] + lines

    @staticmethod
    def enum_list(values):
        return sorted(values, key=_go_quote)

    def definition(self, rt):
        """The documentation of one struct definition: {"description", "properties": {...}}."""
        out = {}
        d = description(go_comment_lines(rt.decl.comments))
        if d:
            out["description"] = d
        sp = special.SPECIAL.get((rt.pkg.path, rt.decl.name))
        if sp is None or sp["schema"] is None:
            props = {}
            self.walk(rt, props)
            if props:
                out["properties"] = props
        return out

    def walk(self, rt, props):
        for f in rt.fsrc.decl.type[1]:
            if "false" in extract_markers(f.comments).get("k8s:openapi-gen", []):
                continue
            mrt = self.gen.resolve(rt.fsrc.pkg, rt.fsrc.decl.file, f.type)
            if schemas.should_inline(f):
                self.walk(mrt.elem if mrt.kind == "ptr" else mrt, props)
                continue
            name = schemas.referable_name(f)
            if name == "":
                continue
            p = {}
            lines = go_comment_lines(f.comments)
            values = self.enum_values(mrt)
            if values:
                lines = lines + self.enum_lines(values)
            d = description(lines)
            if d:
                p["description"] = d
            parts = schemas._json_parts(f)
            if not (len(parts) > 1 and parts[1] == "string"):
                self.add_enums(mrt, values, p)
            if p:
                props[name] = p

    def add_enums(self, mrt, values, p):
        if values:
            p["enum"] = self.enum_list(values)
            return
        t = mrt
        while t.kind == "ptr" or (t.kind == "alias" and t.underlying.kind in ("slice", "array", "map", "ptr")):
            t = t.elem if t.kind == "ptr" else t.underlying
        if t.kind in ("slice", "array", "map"):
            ev = self.enum_values(t.elem)
            if ev:
                p["items" if t.kind != "map" else "additionalProperties"] = {"enum": self.enum_list(ev)}
