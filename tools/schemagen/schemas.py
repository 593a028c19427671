"""Builds the definitions of one Go package: a structural schema per API struct type, the way
Kubernetes' OpenAPI generator derives it from the declarations (property names from json tags,
inlined embedded structs, required lists, defaults, x-kubernetes-* extensions from comment markers),
plus Capstan's protobuf description (x-proto on every property, x-proto-message and
x-proto-embedded on definitions). docs/schema-format.md is the reference for the output.
"""

import json

from goparse import extract_markers
import special

# Comment marker -> (OpenAPI extension, always an array)
EXTENSIONS = {
    "patchMergeKey": ("x-kubernetes-patch-merge-key", False),
    "patchStrategy": ("x-kubernetes-patch-strategy", False),
    "listMapKey": ("x-kubernetes-list-map-keys", True),
    "listType": ("x-kubernetes-list-type", False),
    "mapType": ("x-kubernetes-map-type", False),
    "structType": ("x-kubernetes-map-type", False),
}

# Go builtin -> (OpenAPI type, format, zero value)
TYPE_FORMAT = {
    "uint": ("integer", "int32", 0), "uint8": ("integer", "byte", 0),
    "uint16": ("integer", "int32", 0), "uint32": ("integer", "int64", 0),
    "uint64": ("integer", "int64", 0), "int": ("integer", "int32", 0),
    "int8": ("integer", "byte", 0), "int16": ("integer", "int32", 0),
    "int32": ("integer", "int32", 0), "int64": ("integer", "int64", 0),
    "byte": ("integer", "byte", 0), "float64": ("number", "double", 0),
    "float32": ("number", "float", 0), "bool": ("boolean", "", False),
    "string": ("string", "", ""),
}

# Go builtin -> protobuf scalar type (what Kubernetes' go-to-protobuf emits)
PROTO_SCALAR = {
    "string": "string", "bool": "bool", "int32": "int32", "int64": "int64",
    "uint32": "uint32", "uint64": "uint64", "float64": "double", "float32": "float",
}

BUILTINS = set(TYPE_FORMAT) | {"rune", "error", "uintptr", "complex64", "complex128"}


class GenError(Exception):
    pass


class RT:
    """A resolved Go type."""
    __slots__ = ("kind", "name", "decl", "pkg", "elem", "key", "underlying", "fsrc")

    def __init__(self, kind, name=None, decl=None, pkg=None, elem=None, key=None, underlying=None):
        self.kind = kind      # builtin struct alias ptr slice array map iface external
        self.name = name
        self.decl = decl
        self.pkg = pkg
        self.elem = elem
        self.key = key
        self.underlying = underlying
        self.fsrc = self       # for structs: the struct type whose declaration lists the fields

    def __repr__(self):
        return "RT(%s %s)" % (self.kind, self.name)


def _json_tag(field):
    v, present = field.tag_value("json")
    return v, present


def _json_parts(field):
    v, present = _json_tag(field)
    return v.split(",") if present and v != "" else []


def has_omitempty(field):
    v, present = _json_tag(field)
    return present and (v.endswith(",omitempty") or ",omitempty," in v)


def referable_name(field):
    parts = _json_parts(field)
    if parts:
        return "" if parts[0] == "-" else parts[0]
    return field.name


def should_inline(field):
    v, present = _json_tag(field)
    return field.embedded and present and (v == "" or v.startswith(","))


def is_optional(field):
    m = extract_markers(field.comments)
    if "optional" in m and "required" in m:
        raise GenError("member %s is both optional and required" % field.name)
    if "required" in m:
        return False
    if "optional" in m:
        return True
    return has_omitempty(field)


def parse_proto_tag(field):
    v, present = field.tag_value("protobuf")
    if not present:
        return None
    parts = v.split(",")
    out = {"wire": parts[0], "tag": int(parts[1]), "label": parts[2]}
    for p in parts[3:]:
        if "=" in p:
            k, val = p.split("=", 1)
            out[k] = val
    return out


class Generator:
    def __init__(self, universe, openapi_packages=(), protobuf_packages=()):
        self.u = universe
        self._rt_cache = {}
        self.openapi_packages = set(openapi_packages)
        self.referenced = {}   # definition name -> RT, for every $ref written
        self.protobuf_packages = set(protobuf_packages)

    # ------------------------------------------------------------------ names and resolution

    def model_package(self, pkg, decl=None):
        if decl is not None:
            m = extract_markers(decl.comments).get("k8s:openapi-model-package")
            if m:
                return m[0]
        m = extract_markers(pkg.comments).get("k8s:openapi-model-package")
        if m:
            return m[0]
        host, _, rest = pkg.path.partition("/")
        return ".".join(reversed(host.split("."))) + "." + rest.replace("/", ".")

    def def_name(self, rt):
        return self.model_package(rt.pkg, rt.decl) + "." + rt.decl.name

    def ref(self, rt):
        name = self.def_name(rt)
        self.referenced[name] = rt
        return "#/definitions/" + name

    def resolve(self, pkg, file_path, expr):
        k = expr[0]
        if k == "named":
            _, local, name = expr
            if local is None:
                if name in pkg.types:
                    return self.decl_rt(pkg, pkg.types[name])
                if name in BUILTINS:
                    return RT("builtin", name=name)
                raise GenError("%s: unknown type %s" % (file_path, name))
            gf = next(f for f in pkg.files.values() if f.path == file_path)
            imp = gf.imports.get(local)
            if imp is None:
                raise GenError("%s: unknown package %s" % (file_path, local))
            other = self.u.load(imp)
            if other is None:
                return RT("external", name=(imp, name))
            if name not in other.types:
                raise GenError("%s: %s.%s not declared" % (file_path, imp, name))
            return self.decl_rt(other, other.types[name])
        if k == "ptr":
            return RT("ptr", elem=self.resolve(pkg, file_path, expr[1]))
        if k == "slice":
            return RT("slice", elem=self.resolve(pkg, file_path, expr[1]))
        if k == "array":
            return RT("array", elem=self.resolve(pkg, file_path, expr[2]))
        if k == "map":
            return RT("map", key=self.resolve(pkg, file_path, expr[1]),
                      elem=self.resolve(pkg, file_path, expr[2]))
        if k == "iface":
            return RT("iface")
        if k == "struct":
            raise GenError("%s: anonymous struct types are not supported" % file_path)
        raise GenError("%s: unsupported type %r" % (file_path, expr))

    def decl_rt(self, pkg, decl):
        key = (pkg.path, decl.name)
        if key in self._rt_cache:
            return self._rt_cache[key]
        if decl.type[0] == "struct":
            rt = RT("struct", name=decl.name, decl=decl, pkg=pkg)
            self._rt_cache[key] = rt
            return rt
        rt = RT("alias", name=decl.name, decl=decl, pkg=pkg)
        self._rt_cache[key] = rt
        rt.underlying = self.resolve(pkg, decl.file, decl.type)
        if rt.underlying.kind == "struct":
            # "type List metav1.List": a struct type of its own with the other type's fields.
            rt.kind = "struct"
            rt.fsrc = rt.underlying.fsrc
        return rt

    def methods(self, rt):
        return rt.pkg.methods.get(rt.decl.name, set()) if rt.decl is not None else set()

    def is_wrapper(self, rt):
        """A named slice type that protobuf carries as a message {repeated T items = 1}."""
        return (rt.kind == "alias" and rt.underlying.kind == "slice" and
                "true" in extract_markers(rt.decl.comments).get("protobuf.nullable", []) and
                not _is_byte(rt.underlying.elem))

    # ------------------------------------------------------------------ type selection

    def openapi_enabled(self, pkg, decl):
        tm = extract_markers(decl.comments).get("k8s:openapi-gen", [])
        pm = extract_markers(pkg.comments).get("k8s:openapi-gen", [])
        if "true" in pm or pkg.path in self.openapi_packages:
            return "false" not in tm
        return "true" in tm

    def proto_enabled(self, pkg, decl):
        tm = extract_markers(decl.comments + decl.second_comments).get("protobuf", [])
        if "false" in tm:
            return False
        if "true" in tm:
            return True
        return (pkg.path in self.protobuf_packages or
                "package" in extract_markers(pkg.comments).get("k8s:protobuf-gen", []))

    def check_special_complete(self, pkg):
        for name, methods in sorted(pkg.methods.items()):
            if name not in pkg.types or not name[:1].isupper():
                continue
            decl = pkg.types[name]
            if decl.type[0] != "struct" or not self.openapi_enabled(pkg, decl):
                continue
            custom = methods & special.CUSTOM_METHODS
            if custom and (pkg.path, name) not in special.SPECIAL:
                raise GenError("%s.%s has %s but no entry in special.py" %
                               (pkg.path, name, ", ".join(sorted(custom))))

    # ------------------------------------------------------------------ definitions

    def type_definition(self, rt):
        """The definition of one struct or wrapper type (for types referenced from other packages)."""
        if rt.kind == "struct":
            return self.struct_definition(rt)
        if self.is_wrapper(rt):
            return self.wrapper_definition(rt)
        raise GenError("%s is not a definition" % rt.name)

    def package_definitions(self, pkg):
        self.check_special_complete(pkg)
        defs = {}
        for name in sorted(pkg.types):
            decl = pkg.types[name]
            if not name[:1].isupper():
                continue
            if decl.type[0] in ("struct", "named"):
                if self.openapi_enabled(pkg, decl):
                    rt = self.decl_rt(pkg, decl)
                    if rt.kind == "struct":
                        defs[self.def_name(rt)] = self.struct_definition(rt)
            elif decl.type[0] == "slice" and "protobuf.nullable" in extract_markers(decl.comments):
                rt = self.decl_rt(pkg, decl)
                if self.is_wrapper(rt):
                    defs[self.def_name(rt)] = self.wrapper_definition(rt)
        return defs

    def wrapper_definition(self, rt):
        schema = {"type": "array", "items": self.type_schema(rt.underlying.elem)}
        item = self.proto_shape(rt.underlying.elem, allow_repeated=False)
        field = {"name": "items", "tag": 1, "repeated": True}
        field.update(item)
        schema["x-proto-message"] = {"kind": "list-wrapper", "fields": [field]}
        return schema

    def struct_definition(self, rt):
        pkg, decl = rt.pkg, rt.decl
        sp = special.SPECIAL.get((pkg.path, decl.name))
        proto_on = self.proto_enabled(pkg, decl)
        if sp is not None and sp["schema"] is not None:
            schema = json.loads(json.dumps(sp["schema"]))
        else:
            schema = {"type": "object"}
            props, required, embedded = {}, [], []
            self.walk_members(rt, props, required, embedded, [] if proto_on else None)
            if props:
                schema["properties"] = props
            if required:
                schema["required"] = required
            if embedded:
                schema["x-proto-embedded"] = embedded
        self.add_type_extensions(rt, schema)
        if sp is not None:
            pm = {"kind": sp["proto"], "fields": self.message_fields(rt)}
            if "precision" in sp:
                pm["precision"] = sp["precision"]
            schema["x-proto-message"] = pm
        elif not proto_on:
            schema["x-proto-message"] = {"kind": "none"}
        return schema

    def add_type_extensions(self, rt, schema):
        m = extract_markers(rt.decl.comments)
        for marker, (xname, always_array) in EXTENSIONS.items():
            if marker in m:
                vals = m[marker]
                schema[xname] = vals if (always_array or len(vals) > 1) else vals[0]
        unions = self.parse_unions(rt)
        if unions:
            schema["x-kubernetes-unions"] = unions

    def parse_unions(self, rt):
        out = []
        fields = rt.fsrc.decl.type[1]
        if "union" in extract_markers(rt.decl.comments):
            u = {"fields-to-discriminateBy": {}}
            for f in fields:
                name = referable_name(f)
                if name == "" or should_inline(f):
                    continue
                fm = extract_markers(f.comments)
                if "unionDiscriminator" in fm:
                    u["discriminator"] = name
                else:
                    u["fields-to-discriminateBy"][name] = f.name
            out.append(u)
        for f in fields:
            if "false" in extract_markers(f.comments).get("k8s:openapi-gen", []):
                continue
            if should_inline(f):
                inner = self.resolve(rt.fsrc.pkg, rt.fsrc.decl.file, f.type)
                if inner.kind == "ptr":
                    inner = inner.elem
                if inner.kind == "struct":
                    out.extend(self.parse_unions(inner))
        u = {"fields-to-discriminateBy": {}}
        for f in fields:
            name = referable_name(f)
            if name == "" or should_inline(f):
                continue
            fm = extract_markers(f.comments)
            if "unionDiscriminator" in fm:
                u["discriminator"] = name
            if "union" in fm:
                continue
            if "unionDeprecated" in fm:
                u["fields-to-discriminateBy"][name] = f.name
        if u["fields-to-discriminateBy"]:
            out.append(u)
        return out

    def walk_members(self, rt, props, required, embedded, in_path):
        """Kubernetes' member walk: inline embedded structs with an empty json name, skip "-"."""
        for f in rt.fsrc.decl.type[1]:
            if "false" in extract_markers(f.comments).get("k8s:openapi-gen", []):
                continue
            if should_inline(f):
                inner = self.resolve(rt.fsrc.pkg, rt.fsrc.decl.file, f.type)
                ptr = inner.kind == "ptr"
                if ptr:
                    inner = inner.elem
                if inner.kind != "struct":
                    raise GenError("%s.%s: inlined member is not a struct" % (rt.name, f.name))
                ptag = parse_proto_tag(f)
                sub_path = None
                if in_path is not None and ptag is not None:
                    sub_path = in_path + [ptag["tag"]]
                    if not in_path:
                        embedded.append({"tag": ptag["tag"], "$ref": self.ref(inner), "ptr": ptr})
                self.walk_members(inner, props, required, embedded, sub_path)
                continue
            name = referable_name(f)
            if name == "":
                continue
            if name in props:
                raise GenError("%s: duplicate property %s" % (rt.name, name))
            if not is_optional(f):
                required.append(name)
            props[name] = self.property_schema(rt, f, in_path)

    def property_schema(self, owner, f, in_path):
        schema = {}
        m = extract_markers(f.comments)
        for marker, (xname, always_array) in EXTENSIONS.items():
            if marker in m:
                vals = m[marker]
                schema[xname] = vals if (always_array or len(vals) > 1) else vals[0]
        mrt = self.resolve(owner.fsrc.pkg, owner.fsrc.decl.file, f.type)
        omitempty = has_omitempty(f)
        parts = _json_parts(f)
        if len(parts) > 1 and parts[1] == "string":
            schema["type"] = "string"
        else:
            d = self.default_for(owner, f, mrt, omitempty)
            if d is not None:
                schema["default"] = d
            schema.update(self.type_schema(mrt))
        xp = self.proto_property(owner, f, mrt, in_path, omitempty)
        if xp is not None:
            schema["x-proto"] = xp
        return schema

    # ------------------------------------------------------------------ JSON side

    def type_schema(self, rt):
        while True:
            if rt.kind == "ptr":
                rt = rt.elem
            elif self.is_wrapper(rt):
                return {"$ref": self.ref(rt)}
            elif rt.kind == "alias":
                rt = rt.underlying
            else:
                break
        if rt.kind == "builtin":
            if rt.name not in TYPE_FORMAT:
                raise GenError("no OpenAPI type for Go type %s" % rt.name)
            t, fmt, _ = TYPE_FORMAT[rt.name]
            s = {"type": t}
            if fmt:
                s["format"] = fmt
            return s
        if rt.kind in ("slice", "array"):
            if _is_byte(rt.elem):
                return {"type": "string", "format": "byte"}
            return {"type": "array", "items": self.type_schema(rt.elem)}
        if rt.kind == "map":
            k = _strip_alias(rt.key)
            if not (k.kind == "builtin" and k.name == "string"):
                raise GenError("map keys must be strings")
            return {"type": "object", "additionalProperties": self.type_schema(rt.elem)}
        if rt.kind == "struct":
            return {"$ref": self.ref(rt)}
        if rt.kind == "iface":
            return {special.PRESERVE: True}
        raise GenError("cannot express %r in OpenAPI" % (rt,))

    def default_for(self, owner, f, mrt, omitempty):
        comments, comment_pkg, t = f.comments, owner.pkg, mrt
        tag = None
        while True:
            vals = extract_markers(comments).get("default", [])
            if len(vals) > 1:
                raise GenError("%s.%s: more than one +default" % (owner.name, f.name))
            tag = vals[0] if vals else None
            if t is None or tag:
                break
            comments = t.decl.comments if t.decl is not None else []
            comment_pkg = t.pkg if t.pkg is not None else comment_pkg
            if t.kind == "ptr":
                t = t.elem
            elif t.kind == "alias":
                t = t.underlying
            else:
                t = None
        value = None
        if tag:
            if tag.startswith("ref(") and tag.endswith(")"):
                value = self.const_value(comment_pkg, tag[4:-1])
            else:
                value = json.loads(tag)
        enforced = self.enforced_default(mrt, omitempty)
        if enforced is not None:
            if value is None:
                value = enforced
            elif value != enforced:
                raise GenError("%s.%s: default %r conflicts with the zero value %r" %
                               (owner.name, f.name, value, enforced))
        return value

    def const_value(self, pkg, ident):
        if "." in ident:
            path, _, name = ident.rpartition(".")
            pkg = self.u.load(path)
        else:
            name = ident
        c = pkg.consts.get(name) if pkg else None
        if c is None or c.value is None:
            raise GenError("cannot resolve default ref(%s)" % ident)
        return c.value

    def enforced_default(self, rt, omitempty):
        """The zero value Kubernetes' OpenAPI records as default for non-pointer fields."""
        if rt.kind == "struct" and "UnmarshalJSON" in self.methods(rt):
            return None
        if rt.kind == "alias":
            return self.enforced_default(rt.underlying, omitempty)
        if rt.kind in ("ptr", "map", "slice", "array", "iface", "external"):
            return None
        if rt.kind == "struct":
            fields = rt.fsrc.decl.type[1]
            if len(fields) == 1 and fields[0].embedded:
                return self.enforced_default(
                    self.resolve(rt.fsrc.pkg, rt.fsrc.decl.file, fields[0].type), omitempty)
            return {}
        if rt.kind == "builtin":
            if omitempty:
                return None
            return TYPE_FORMAT[rt.name][2]
        raise GenError("no default rule for %r" % (rt,))

    # ------------------------------------------------------------------ protobuf side

    def proto_shape(self, rt, allow_repeated=True):
        """{"type": T[, "key": K, "value": V][, "repeated": True]} for a non-pointer Go type."""
        if self.is_wrapper(rt):
            return {"type": "message", "$ref": self.ref(rt)}
        if rt.kind == "alias":
            return self.proto_shape(rt.underlying, allow_repeated)
        if rt.kind == "external":
            t = special.EXTERNAL_PROTO.get(rt.name)
            if t is None:
                raise GenError("no protobuf type for %s.%s" % rt.name)
            return {"type": t}
        if rt.kind == "builtin":
            t = PROTO_SCALAR.get(rt.name)
            if t is None:
                raise GenError("no protobuf type for Go %s" % rt.name)
            return {"type": t}
        if rt.kind in ("slice", "array"):
            if _is_byte(rt.elem):
                return {"type": "bytes"}
            if not allow_repeated:
                raise GenError("nested repeated field")
            e = rt.elem
            if e.kind == "ptr":
                raise GenError("slices of pointers have no protobuf form")
            s = self.proto_shape(e, allow_repeated=False)
            if s["type"] == "map":
                raise GenError("repeated map")
            s["repeated"] = True
            return s
        if rt.kind == "map":
            k = self.proto_shape(rt.key, allow_repeated=False)
            v = self.proto_shape(rt.elem, allow_repeated=False)
            if v.get("repeated") or v["type"] == "map":
                raise GenError("map value needs a wrapper message")
            out = {"type": "map", "key": k["type"], "value": v["type"]}
            if "$ref" in v:
                out["value$ref"] = v["$ref"]
            return out
        if rt.kind == "struct":
            return {"type": "message", "$ref": self.ref(rt)}
        raise GenError("no protobuf form for %r" % (rt,))

    def proto_property(self, owner, f, mrt, in_path, omitempty):
        if in_path is None:
            return None  # no protobuf field: the property carries no x-proto
        ptag = parse_proto_tag(f)
        if ptag is None:
            raise GenError("%s.%s: no protobuf tag in a protobuf message" % (owner.name, f.name))
        ptr = mrt.kind == "ptr"
        shape = self.proto_shape(mrt.elem if ptr else mrt)
        shape.pop("$ref", None)        # the property's own $ref / items / additionalProperties name it
        shape.pop("value$ref", None)
        shape.pop("repeated", None)    # the property's JSON type "array" says it
        out = {"tag": ptag["tag"], "ptr": ptr, "omitempty": omitempty}
        out.update(shape)
        if in_path:
            out["in"] = list(in_path)
        return out

    def message_fields(self, rt):
        """The protobuf fields of a special type's message, for x-proto-message."""
        m = extract_markers(rt.decl.comments)
        if m.get("protobuf.embed"):
            return [{"name": m["protobuf.embed"][0], "tag": 1, "type": "string", "ptr": False}]
        target = rt
        if m.get("protobuf.as"):
            target = self.decl_rt(rt.pkg, rt.pkg.types[m["protobuf.as"][0]])
        out = []
        for f in target.fsrc.decl.type[1]:
            ptag = parse_proto_tag(f)
            if ptag is None:
                continue
            mrt = self.resolve(target.fsrc.pkg, target.fsrc.decl.file, f.type)
            ptr = mrt.kind == "ptr"
            shape = self.proto_shape(mrt.elem if ptr else mrt)
            entry = {"name": ptag.get("name", f.name), "tag": ptag["tag"], "ptr": ptr}
            if "value$ref" in shape:
                raise GenError("%s: map fields in special messages are not described" % rt.name)
            entry.update(shape)
            out.append(entry)
        return sorted(out, key=lambda e: e["tag"])


def _strip_alias(rt):
    while rt.kind == "alias":
        rt = rt.underlying
    return rt


def _is_byte(rt):
    rt = _strip_alias(rt)
    return rt.kind == "builtin" and rt.name in ("byte", "uint8")
