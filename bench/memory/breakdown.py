#!/usr/bin/env python3
"""Capstan's memory by component, from a running server.

  breakdown.py smaps <pid> <binary>         the resident set split by mapping: the binary's code and
                                            data, each shared library, the malloc heap and arenas,
                                            other anonymous memory (thread stacks, buffers)
  breakdown.py heap <profile.heap> <binary> live heap bytes by component from a heap profile of
                                            gperftools' tcmalloc (HEAPPROFILE), symbolized with
                                            addr2line; a stack belongs to the first component rule
                                            its frames match, innermost first
"""
import collections
import re
import subprocess
import sys

# Component rules, first match wins per frame (innermost frame first).
COMPONENTS = [
    ("schemas", r"capstan::apimachinery::Schema(Parser|Registry)|capstan::cmd::LoadSchemas"),
    ("protobuf codec plans", r"capstan::apimachinery::protobuf::(PlanSet|KindIndex|FieldPlan)"),
    ("embedded store", r"capstan::storage::embedded::"),
    ("etcd client", r"capstan::storage::etcd3::"),
    ("watch caches", r"capstan::storage::(Cacher|CacherCore|CachedObject|WatchCache|CacheWatcher)"),
    ("storage (codec, object store)", r"capstan::storage::"),
    ("outbound TLS clients", r"capstan::server::HttpClientEngine|capstan::server::AsioHttpClient"),
    ("connections and HTTP", r"capstan::server::"),
    ("flow control (APF)", r"capstan::flowcontrol::"),
    ("authorization (RBAC, policy)", r"capstan::authz::"),
    ("authentication", r"capstan::authn::"),
    ("admission", r"capstan::admission::"),
    ("control loops and informers", r"capstan::controllers::"),
    ("API install, discovery, OpenAPI", r"capstan::(endpoints|api)::"),
    ("PKI and start-up", r"capstan::cmd::"),
    ("CEL", r"capstan::cel::"),
    ("metrics, timers, logging", r"capstan::(MetricsRegistry|RunAfter|Log|.*Timer)"),
]


def smaps(pid, binary):
    rss = collections.Counter()
    name = perm = ""
    start = 0
    for line in open(f"/proc/{pid}/smaps"):
        m = re.match(r"([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)", line)
        if m:
            start, perm, name = int(m.group(1), 16), m.group(3), m.group(4)
            continue
        if line.startswith("Rss:"):
            kb = int(line.split()[1])
            if name.endswith(binary.split("/")[-1]) and "x" in perm:
                key = "capstan code (.text)"
            elif name.endswith(binary.split("/")[-1]):
                key = "capstan data (.rodata, .data, relocations)"
            elif name == "[heap]":
                key = "malloc heap"
            elif name == "" and start % (64 << 20) == 0:
                key = "malloc arenas (other threads)"
            elif name in ("", "[stack]"):
                key = "other anonymous (thread stacks, buffers)"
            elif name.startswith("/"):
                key = "lib " + name.split("/")[-1].split(".so")[0]
            else:
                key = name
            rss[key] += kb
    total = sum(rss.values())
    print(f"{'resident set':45s} {total / 1024:8.1f} MiB")
    for k, v in rss.most_common():
        if v >= 100:
            print(f"  {k:43s} {v / 1024:8.1f} MiB")


def heap(path, binary):
    text = open(path).read()
    head, _, maps_text = text.partition("MAPPED_LIBRARIES:")
    stacks = []
    for line in head.splitlines()[1:]:
        m = re.match(r"\s*\d+:\s*(\d+) \[\s*\d+:\s*\d+\] @ (.*)", line)
        if m:
            stacks.append((int(m.group(1)), [int(x, 16) for x in m.group(2).split()]))
    maps = []
    for line in maps_text.splitlines():
        p = line.split()
        if len(p) >= 6 and p[5].endswith(binary.split("/")[-1]):
            a, b = p[0].split("-")
            maps.append((int(a, 16), int(b, 16), int(p[2], 16)))
    if not maps:
        sys.exit("the profile does not map " + binary)
    base = min(lo - off for lo, _, off in maps)
    addrs = sorted({a for _, st in stacks for a in st if any(lo <= a < hi for lo, hi, _ in maps)})
    out = subprocess.run(["addr2line", "-f", "-C", "-e", binary] + [hex(a - base - 1) for a in addrs],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    names = {a: out[2 * i] for i, a in enumerate(addrs)}
    rules = [(c, re.compile(r)) for c, r in COMPONENTS]
    by = collections.Counter()
    for size, st in stacks:
        comp = "other (libraries, unattributed)"
        for a in st:
            n = names.get(a, "")
            hit = next((c for c, r in rules if r.match(n)), None)
            if hit:
                comp = hit
                break
        by[comp] += size
    total = sum(by.values())
    print(f"{'live heap (allocated bytes)':45s} {total / 1048576:8.1f} MiB")
    for k, v in by.most_common():
        print(f"  {k:43s} {v / 1048576:8.2f} MiB  {100 * v / total:5.1f}%")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("smaps", "heap"):
        sys.exit(__doc__)
    (smaps if sys.argv[1] == "smaps" else heap)(sys.argv[2], sys.argv[3])
