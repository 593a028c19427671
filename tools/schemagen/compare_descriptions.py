"""Compares the documentation files (src/api/schemas/descriptions) with the descriptions of a
kube-apiserver OpenAPI v2 document (for example kubernetes' api/openapi-spec/swagger.json at a
release tag, generated with the OpenAPIEnums gate off: the enum paragraph is cut before comparing).

    python3 tools/schemagen/compare_descriptions.py SWAGGER.json [DESCRIPTIONS_DIR] [--show N]

Prints the number of descriptions that are identical and that differ (the first N differences in
full); exit 1 when any differs.
"""

import argparse
import glob
import json
import os
import sys

ENUM_HEADER = "Possible enum values:"


def without_enums(text):
    i = text.find(ENUM_HEADER)
    return text[:i].strip() if i >= 0 else text


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_dir = os.path.join(os.path.dirname(os.path.dirname(here)), "src", "api", "schemas", "descriptions")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("swagger")
    ap.add_argument("descriptions", nargs="?", default=default_dir)
    ap.add_argument("--show", type=int, default=10)
    args = ap.parse_args()
    kube = json.load(open(args.swagger))["definitions"]
    same, differ = 0, []
    for path in sorted(glob.glob(os.path.join(args.descriptions, "*.json"))):
        for name, doc in json.load(open(path))["descriptions"].items():
            theirs = kube.get(name)
            if theirs is None:
                continue
            pairs = [(name, doc.get("description", ""), theirs.get("description", ""))]
            for prop, tp in theirs.get("properties", {}).items():
                ours = doc.get("properties", {}).get(prop, {}).get("description", "")
                pairs.append((name + "." + prop, ours, tp.get("description", "")))
            for where, ours, want in pairs:
                if without_enums(ours) == want:
                    same += 1
                else:
                    differ.append((where, ours, want))
    for where, ours, want in differ[:args.show]:
        print("%s\n  ours: %r\n  kube: %r" % (where, ours, want))
    print("identical %d, different %d" % (same, len(differ)))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
