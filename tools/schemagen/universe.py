"""Loads Go packages from source trees (a git repository at a revision, or a plain directory) and
resolves type references between them.
"""

import os
import subprocess

import goparse


class Source:
    """One Go module's source: a git repository read at `rev`, or a plain directory (rev None)."""

    def __init__(self, module, root, rev=None):
        self.module = module   # e.g. "k8s.io/api"
        self.root = root
        self.rev = rev
        self.commit = None
        if rev is not None:
            self.commit = self._git("rev-parse", rev).strip()

    def _git(self, *args):
        return subprocess.run(["git", "-C", self.root] + list(args), check=True,
                              capture_output=True, text=True).stdout

    def _cat(self, spec):
        """Reads one blob through a long-lived `git cat-file --batch` process."""
        if getattr(self, "_batch", None) is None:
            self._batch = subprocess.Popen(["git", "-C", self.root, "cat-file", "--batch"],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._batch.stdin.write((spec + "\n").encode())
        self._batch.stdin.flush()
        header = self._batch.stdout.readline().decode().split()
        if len(header) < 3 or header[1] != "blob":
            raise FileNotFoundError(spec)
        size = int(header[2])
        data = self._batch.stdout.read(size + 1)[:size]
        return data.decode("utf-8")

    def list_dir(self, rel):
        if self.rev is not None:
            out = self._git("ls-tree", "--name-only", self.commit + ":" + rel)
            return sorted(out.split())
        return sorted(os.listdir(os.path.join(self.root, rel)))

    def read(self, rel):
        if self.rev is not None:
            return self._cat(self.commit + ":" + rel)
        with open(os.path.join(self.root, rel), encoding="utf-8") as f:
            return f.read()

    def exists(self, rel):
        if self.rev is not None:
            r = subprocess.run(["git", "-C", self.root, "cat-file", "-e", self.commit + ":" + rel],
                               capture_output=True)
            return r.returncode == 0
        return os.path.exists(os.path.join(self.root, rel))


class Package:
    def __init__(self, path, source, rel):
        self.path = path          # import path
        self.source = source
        self.rel = rel            # folder inside the source
        self.name = None
        self.comments = []        # package doc comment lines (all files, doc.go first)
        self.types = {}           # name -> TypeDecl
        self.consts = {}          # name -> Const
        self.methods = {}         # type name -> set of method names
        self.files = {}           # file name -> GoFile
        self.proto_text = None    # generated.proto, when present


def _is_go_source(name):
    return name.endswith(".go") and not name.endswith("_test.go")


class Universe:
    def __init__(self, sources):
        self.sources = sources    # list of Source, matched by longest module prefix
        self.packages = {}

    def _source_for(self, path):
        best = None
        for s in self.sources:
            if path == s.module or path.startswith(s.module + "/"):
                if best is None or len(s.module) > len(best.module):
                    best = s
        return best

    def load(self, path):
        if path in self.packages:
            return self.packages[path]
        src = self._source_for(path)
        if src is None:
            return None
        rel = path[len(src.module):].lstrip("/")
        pkg = Package(path, src, rel)
        names = src.list_dir(rel)
        # doc.go first so its comment is the package comment
        names = sorted(names, key=lambda n: (n != "doc.go", n))
        for fname in names:
            if not _is_go_source(fname):
                continue
            text = src.read((rel + "/" if rel else "") + fname)
            constraint = goparse.leading_build_constraint(text)
            if constraint and not goparse.build_constraint_satisfied(constraint):
                continue
            gf = goparse.parse_go_file(text, path + "/" + fname)
            if gf.package == "main" or gf.package.endswith("_test"):
                continue
            pkg.name = gf.package
            pkg.files[fname] = gf
            pkg.comments.extend(gf.package_comments)
            for td in gf.types:
                td.pkg = pkg
                if td.name in pkg.types:
                    raise ValueError("%s: type %s declared twice" % (path, td.name))
                pkg.types[td.name] = td
            for c in gf.consts:
                pkg.consts.setdefault(c.name, c)
            for recv, m in gf.methods:
                pkg.methods.setdefault(recv, set()).add(m)
        if "generated.proto" in names:
            pkg.proto_text = src.read((rel + "/" if rel else "") + "generated.proto")
        self.packages[path] = pkg
        return pkg

    def resolve_named(self, pkg, file_path, expr):
        """("named", local_pkg_or_None, name) -> (Package or None for builtins, name)."""
        _, local, name = expr
        if local is None:
            if name in pkg.types:
                return pkg, name
            return None, name  # builtin
        gf = None
        for f in pkg.files.values():
            if f.path == file_path:
                gf = f
                break
        imp = gf.imports.get(local) if gf else None
        if imp is None:
            raise ValueError("%s: unknown package %s" % (file_path, local))
        other = self.load(imp)
        if other is None:
            raise ValueError("%s: package %s is outside the loaded sources" % (file_path, imp))
        if name not in other.types:
            raise ValueError("%s: %s.%s not found" % (file_path, imp, name))
        return other, name
