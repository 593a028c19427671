#!/usr/bin/env python3
"""schemagen: writes Capstan's built-in API schemas (src/api/schemas/*.json) from the Go type
declarations of the Kubernetes API modules.

    python3 tools/schemagen/schemagen.py                # regenerate into src/api/schemas
    python3 tools/schemagen/schemagen.py --check        # exit 1 if the committed files differ

Each module is read from a git repository at a revision (default HEAD) or from a plain source
directory: --api, --apimachinery, --apiextensions and --aggregator take DIR or DIR@REV.
docs/schema-format.md describes the output. Python 3 standard library only.
"""

import argparse
import difflib
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import catalog    # noqa: E402
import descriptions  # noqa: E402
import protocheck  # noqa: E402
import schemas    # noqa: E402
import universe   # noqa: E402

MIRRORS = "/work/.mirror"
DESCRIPTIONS = "descriptions"  # the folder of the documentation files, inside --out
DEFAULT_SOURCES = {
    "api": (catalog.API, MIRRORS + "/kubernetes+api/repo@HEAD"),
    "apimachinery": (catalog.APIMACHINERY, MIRRORS + "/kubernetes+apimachinery/repo@HEAD"),
    "apiextensions": (catalog.APIEXTENSIONS, MIRRORS + "/kubernetes+apiextensions-apiserver/repo@HEAD"),
    "aggregator": (catalog.AGGREGATOR, MIRRORS + "/kubernetes+kube-aggregator/repo@HEAD"),
}


def make_source(module, spec):
    if "@" in spec:
        root, rev = spec.rsplit("@", 1)
        return universe.Source(module, root, rev)
    if os.path.isdir(os.path.join(spec, ".git")) or os.path.exists(os.path.join(spec, "HEAD")):
        return universe.Source(module, spec, "HEAD")
    return universe.Source(module, spec, None)


def render(defs):
    return json.dumps({"definitions": defs}, indent=1, sort_keys=True, ensure_ascii=True) + "\n"


def describe(gen, per_file, go_names):
    """descriptions/<package>.json per file: the documentation of its struct definitions, named by
    the definitions' common prefix (the package's model name)."""
    describer = descriptions.Describer(gen)
    out = {}
    for base, (pkg, defs) in sorted(per_file.items()):
        docs, prefixes = {}, set()
        for name in sorted(defs):
            prefixes.add(name.rsplit(".", 1)[0])
            rt = gen.decl_rt(pkg, pkg.types[go_names[name]])
            if rt.kind != "struct":
                continue
            d = describer.definition(rt)
            if d:
                docs[name] = d
        if len(prefixes) != 1:
            raise SystemExit("%s: definitions of several packages: %s" % (base, sorted(prefixes)))
        if docs:
            out[DESCRIPTIONS + "/" + prefixes.pop() + ".json"] = render_descriptions(docs)
    return out


def render_descriptions(docs):
    return json.dumps({"descriptions": docs}, indent=1, sort_keys=True, ensure_ascii=True) + "\n"


def generate(sources, proto_check=True):
    """Returns ({file name: text}, [proto check errors], summary dict)."""
    u = universe.Universe(sources)
    gen = schemas.Generator(u, catalog.OPENAPI_PACKAGES, catalog.PROTOBUF_PACKAGES)
    packages = [u.load(p) for p in catalog.GROUP_PACKAGES + list(catalog.MACHINERY_PACKAGES)]
    for p, path in zip(packages, catalog.GROUP_PACKAGES + list(catalog.MACHINERY_PACKAGES)):
        if p is None:
            raise SystemExit("package %s not found in the sources" % path)

    per_file, go_names, errors, partial = {}, {}, [], set()
    for pkg in packages:
        defs = gen.package_definitions(pkg)
        for name in defs:
            go_names[name] = name.rsplit(".", 1)[-1]
        per_file[catalog.file_base(pkg)] = (pkg, defs)

    # Types of other packages that these refer to (for example alpha types used by a field of a
    # GA type at this revision) go, alone, into a file of their own package.
    while True:
        known = {n for _, defs in per_file.values() for n in defs}
        missing = sorted(set(gen.referenced) - known)
        if not missing:
            break
        for name in missing:
            rt = gen.referenced[name]
            base = catalog.file_base(rt.pkg)
            if base not in per_file:
                per_file[base] = (rt.pkg, {})
            per_file[base][1][name] = gen.type_definition(rt)
            go_names[name] = name.rsplit(".", 1)[-1]
            partial.add(base)

    # Kinds: x-kubernetes-group-version-kind on the definitions of registered types.
    meta = catalog.meta_registrations(u.load(catalog.META))
    registrations = catalog.meta_kinds(meta)
    for pkg in packages:
        if pkg.path in catalog.GROUP_PACKAGES:
            registrations += catalog.kinds_of(u, pkg, meta)
    by_def = {}
    for group, version, kind, path, type_name in registrations:
        tpkg = u.load(path)
        dname = gen.def_name(gen.decl_rt(tpkg, tpkg.types[type_name]))
        by_def.setdefault(dname, set()).add((group, version, kind))
    all_defs = {}
    for base, (pkg, defs) in per_file.items():
        all_defs.update(defs)
    for dname, gvks in by_def.items():
        if dname not in all_defs:
            raise SystemExit("kind %s is registered but has no definition" % dname)
        all_defs[dname]["x-kubernetes-group-version-kind"] = [
            {"group": g, "version": v, "kind": k} for g, v, k in sorted(gvks)]

    compared = 0
    if proto_check:
        for base, (pkg, defs) in sorted(per_file.items()):
            if pkg.proto_text:
                errs, n = protocheck.check_package(defs, pkg.proto_text, go_names)
                errors += ["%s: %s" % (base, e) for e in errs]
                compared += n

    files = {base + ".json": render(defs) for base, (pkg, defs) in per_file.items()}
    files.update(describe(gen, per_file, go_names))
    lines = ["# Sources of the generated schemas (tools/schemagen/schemagen.py); one module per line."]
    for s in sources:
        lines.append("%s %s" % (s.module, s.commit or "(working tree)"))
    files["SOURCES.txt"] = "\n".join(lines) + "\n"
    summary = {
        "files": len(per_file),
        "definitions": len(all_defs),
        "kinds": sum(len(v) for v in by_def.values()),
        "kinded_definitions": len(by_def),
        "partial": sorted(partial),
        "proto_compared": compared,
    }
    return files, errors, summary


def existing_json(out):
    """The generated files present in `out` (relative names)."""
    names = set()
    for sub in ("", DESCRIPTIONS):
        d = os.path.join(out, sub)
        if os.path.isdir(d):
            names |= {os.path.join(sub, n) if sub else n for n in os.listdir(d) if n.endswith(".json")}
    return names


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for key, (module, default) in DEFAULT_SOURCES.items():
        ap.add_argument("--" + key, default=default, help="%s source: DIR or DIR@REV" % module)
    ap.add_argument("--out", default=os.path.join(root, "src", "api", "schemas"))
    ap.add_argument("--check", action="store_true",
                    help="compare with --out instead of writing; the default sources are read at the "
                         "commits recorded in --out/SOURCES.txt")
    ap.add_argument("--skip-missing", action="store_true",
                    help="exit 77 (a skipped test for CTest) when a source is not available")
    ap.add_argument("--no-proto-check", action="store_true",
                    help="skip the comparison with the packages' generated.proto")
    args = ap.parse_args()

    recorded = {}
    sources_txt = os.path.join(args.out, "SOURCES.txt")
    if args.check and os.path.exists(sources_txt):
        for line in open(sources_txt):
            parts = line.split()
            if len(parts) == 2 and not line.startswith("#") and len(parts[1]) == 40:
                recorded[parts[0]] = parts[1]
    specs = {}
    for key, (module, default) in DEFAULT_SOURCES.items():
        spec = getattr(args, key)
        if spec == default and module in recorded:
            spec = default.rsplit("@", 1)[0] + "@" + recorded[module]
        specs[key] = spec
        root = spec.rsplit("@", 1)[0] if "@" in spec else spec
        if not os.path.isdir(root):
            if args.skip_missing:
                print("source %s not found at %s: skipped" % (module, root))
                return 77
            raise SystemExit("source %s not found at %s" % (module, root))
    try:
        sources = [make_source(module, specs[key]) for key, (module, _) in DEFAULT_SOURCES.items()]
    except Exception as e:  # a missing revision in a mirror
        if args.skip_missing:
            print("sources not readable (%s): skipped" % e)
            return 77
        raise
    files, errors, summary = generate(sources, proto_check=not args.no_proto_check)
    for e in errors:
        print("proto check: " + e, file=sys.stderr)
    if errors:
        print("%d differences from generated.proto" % len(errors), file=sys.stderr)
        return 1

    if args.check:
        stale = []
        for name, text in sorted(files.items()):
            path = os.path.join(args.out, name)
            old = open(path).read() if os.path.exists(path) else ""
            if old != text:
                stale.append(name)
                diff = difflib.unified_diff(old.splitlines(), text.splitlines(), name, name, lineterm="", n=1)
                for i, line in enumerate(diff):
                    if i > 40:
                        break
                    print(line)
        stale += sorted(existing_json(args.out) - set(files))
        if stale:
            print("out of date: " + ", ".join(stale), file=sys.stderr)
            return 1
        print("up to date: %(files)d files, %(definitions)d definitions, %(kinds)d group/version/kinds" % summary)
        return 0

    os.makedirs(os.path.join(args.out, DESCRIPTIONS), exist_ok=True)
    for name in existing_json(args.out) - set(files):
        os.remove(os.path.join(args.out, name))
    for name, text in files.items():
        with open(os.path.join(args.out, name), "w") as f:
            f.write(text)
    print("wrote %(files)d files, %(definitions)d definitions, %(kinds)d group/version/kinds "
          "on %(kinded_definitions)d definitions; %(proto_compared)d messages agree with "
          "generated.proto" % summary)
    if summary["partial"]:
        print("files holding only referenced definitions: " + ", ".join(summary["partial"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
