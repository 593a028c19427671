#!/usr/bin/env python3
"""Fails when a source of a library includes a header of a library it does not link.

Every `#include "dir/file.h"` in src/ is resolved to the library that owns src/dir/file.h (the library
whose sources lie in that header's folder, from the build's compile_commands.json), and checked
against the including library's link dependencies, transitively (from `cmake --graphviz`). So the
layering the CMake files declare is the one the code has; a new include across layers fails here
until the dependency is declared (and then shows in review).

  tools/layers/check_layers.py [BUILD_DIR]

Without BUILD_DIR it configures a scratch build directory of its own (no compiling), so it never
touches the build it runs beside.
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
OUTPUT = re.compile(r' -o (\S+)\.dir/')


def owners(build, src):
    """Folder (relative to src) -> library, from where each source of src/ is compiled."""
    by_dir = collections.defaultdict(set)
    for entry in json.load(open(os.path.join(build, 'compile_commands.json'))):
        path = os.path.relpath(entry['file'], src)
        if path.startswith('..'):
            continue
        m = OUTPUT.search(entry['command'])
        target = os.path.basename(m.group(1)) if m else ''
        if target.startswith('capstan_'):  # not the fuzz targets, which compile sources of src/ again
            by_dir[os.path.dirname(path)].add(target)
    return by_dir


def graph(build):
    """Library -> the libraries it links, transitively."""
    with tempfile.TemporaryDirectory() as tmp:
        dot = os.path.join(tmp, 'deps.dot')
        subprocess.run(['cmake', '--graphviz=' + dot, '.'], cwd=build, check=True, stdout=subprocess.DEVNULL)
        text = open(dot).read()
    return closure_of(text)


def closure_of(text):
    names = dict(re.findall(r'"(node\d+)" \[ label = "([^"]+)"', text))
    edges = collections.defaultdict(set)
    for a, b in re.findall(r'"(node\d+)" -> "(node\d+)"', text):
        edges[names[a]].add(names[b])
    closure = {}

    def reach(t):
        if t not in closure:
            closure[t] = set()
            for d in edges[t]:
                closure[t] |= {d} | reach(d)
        return closure[t]

    return {t: reach(t) for t in names.values()}


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if len(sys.argv) > 1:
        return check(root, os.path.abspath(sys.argv[1]))
    with tempfile.TemporaryDirectory(prefix='capstan-layers-') as build:
        subprocess.run(['cmake', '-S', root, '-B', build, '-G', 'Ninja', '-DCAPSTAN_FUZZ=OFF'], check=True,
                       stdout=subprocess.DEVNULL)
        return check(root, build)


def check(root, build):
    src = os.path.join(root, 'src')
    by_dir = owners(build, src)
    deps = graph(build)
    lib_of_dir = {d: next(iter(t)) for d, t in by_dir.items() if len(t) == 1}
    violations = collections.defaultdict(set)
    for d, lib in sorted(lib_of_dir.items()):
        for name in sorted(os.listdir(os.path.join(src, d))):
            if not name.endswith(('.h', '.cpp', '.inc')):
                continue
            text = open(os.path.join(src, d, name), errors='replace').read()
            for inc in INCLUDE.findall(text):
                if not os.path.exists(os.path.join(src, inc)):
                    continue  # generated, or relative to the file
                owner = lib_of_dir.get(os.path.dirname(inc))
                if owner is None or owner == lib or owner in deps.get(lib, set()):
                    continue
                violations[(lib, owner)].add(os.path.join(d, name) + ' -> ' + inc)
    for (lib, owner), where in sorted(violations.items()):
        print(f'{lib} includes {owner} without linking it:')
        for w in sorted(where)[:5]:
            print('  ' + w)
        if len(where) > 5:
            print(f'  ... {len(where) - 5} more')
    print(f'{len(violations)} undeclared dependencies between {len(lib_of_dir)} folders\' libraries')
    return 1 if violations else 0


if __name__ == '__main__':
    sys.exit(main())
