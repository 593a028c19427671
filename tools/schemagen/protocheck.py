"""Cross-checks the generated x-proto descriptions against the packages' generated.proto files.

The protobuf description is derived from the Go declarations (field types and struct-tag numbers);
generated.proto, where a package ships one, is an independent statement of the same messages, so
every difference is reported as an error.
"""

import re

SCALARS = {"string", "bytes", "bool", "int32", "int64", "uint32", "uint64", "double", "float",
           "sint32", "sint64", "fixed32", "fixed64", "sfixed32", "sfixed64"}


def parse_proto(text):
    """{message name: {tag: (label, type, name)}}; map fields get type ("map", K, V)."""
    text = re.sub(r"//[^\n]*", "", text)
    out = {}
    for m in re.finditer(r"\bmessage\s+(\w+)\s*\{", text):
        i, depth = m.end(), 1
        while depth:
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
            i += 1
        body = text[m.end():i - 1]
        fields = {}
        for fm in re.finditer(r"(optional|repeated|required)?\s*(map<\s*([\w.]+)\s*,\s*([\w.]+)\s*>|[\w.]+)"
                              r"\s+(\w+)\s*=\s*(\d+)\s*;", body):
            label, typ, k, v, name, num = fm.groups()
            if fm.group(2).startswith("map<"):
                t = ("map", k, v.rsplit(".", 1)[-1] if v not in SCALARS else v)
            else:
                t = typ if typ in SCALARS else typ.rsplit(".", 1)[-1]
            fields[int(num)] = (label or "optional", t, name)
        out[m.group(1)] = fields
    return out


def _ref_name(ref):
    return ref.rsplit(".", 1)[-1]


def expected_fields(schema):
    """{tag: (label, type)} that a definition's x-proto description implies for its message."""
    exp = {}
    for e in schema.get("x-proto-embedded", []):
        exp[e["tag"]] = ("optional", _ref_name(e["$ref"]))
    for name, p in schema.get("properties", {}).items():
        xp = p.get("x-proto")
        if xp is None or xp.get("in"):
            continue
        t = xp["type"]
        repeated = p.get("type") == "array"
        if t == "message":
            ref = p["items"]["$ref"] if repeated else p["$ref"]
            t = _ref_name(ref)
        elif t == "map":
            v = xp["value"]
            if v == "message":
                v = _ref_name(p["additionalProperties"]["$ref"])
            t = ("map", xp["key"], v)
        exp[xp["tag"]] = ("repeated" if repeated else "optional", t)
    pm = schema.get("x-proto-message")
    if pm and pm.get("fields") is not None:
        exp = {}
        for f in pm["fields"]:
            t = f["type"]
            if t == "message":
                t = _ref_name(f["$ref"])
            exp[f["tag"]] = ("repeated" if f.get("repeated") else "optional", t)
    return exp


def check_package(defs, proto_text, go_names):
    """Compares definitions with the messages of generated.proto. go_names maps definition name
    to the Go type name (the message name). Returns (error strings, messages compared)."""
    msgs = parse_proto(proto_text)
    errors = []
    compared = 0
    for dname, schema in sorted(defs.items()):
        pm = schema.get("x-proto-message", {})
        if pm.get("kind") == "none":
            continue
        msg = msgs.get(go_names[dname])
        if msg is None:
            if pm.get("kind") in ("timestamp",) or pm.get("kind") == "list-wrapper":
                continue
            errors.append("%s: no message %s in generated.proto" % (dname, go_names[dname]))
            continue
        compared += 1
        exp = expected_fields(schema)
        got = {tag: (lab, typ) for tag, (lab, typ, _) in msg.items()}
        # proto2 maps are written "map<>" without a label; a label-less map matches "repeated".
        for tag in sorted(set(exp) | set(got)):
            e, g = exp.get(tag), got.get(tag)
            if e is None or g is None:
                errors.append("%s: field %d: schema %r, generated.proto %r" % (dname, tag, e, g))
                continue
            elab, etyp = e
            glab, gtyp = g
            if isinstance(gtyp, tuple):
                glab = "repeated"
            if isinstance(etyp, tuple):
                elab = "repeated"
            if (elab, etyp) != (glab, gtyp):
                errors.append("%s: field %d: schema %r, generated.proto %r" % (dname, tag, e, g))
    return errors, compared
