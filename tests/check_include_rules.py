#!/usr/bin/env python3
"""Folder-level include rules of pperf (docs/architecture.md): each folder is one library and
may include only the folders listed for it; the folder graph has no cycle; every folder that
holds C++ sources is in the table (a new one fails the check until it is given its row).

usage: check_include_rules.py [--self-test] [--graph] SOURCE_DIR
Prints every forbidden edge and cycle and exits 1; exits 0 when the tree follows the rules.
--self-test first checks that a tree with a forbidden edge and a cycle is caught; --graph
prints the folder-level include graph."""
import os
import re
import sys
import tempfile

# folder -> folders it may include (besides itself)
ALLOWED = {
    "src/core": set(),
    "src/stats": {"src/core"},
    "pricing": {"src/core", "src/stats"},
    "src/config": {"src/core", "src/stats", "pricing"},
    "src/compare": {"src/core", "src/stats", "pricing"},
    "reports": {"src/core", "src/stats", "src/compare", "src/project"},
    "src/env": {"src/core"},
    "workloads": {"src/core"},
    "src/dataservice": {"src/core", "src/env", "workloads"},
    "src/measure": {"src/core", "src/stats", "src/config", "pricing", "src/env", "workloads",
                      "src/dataservice"},
    "src/history": {"src/core", "src/stats"},
    "src/project": {"src/core", "src/stats", "pricing"},
    "src/launch": {"src/core", "src/stats", "src/config", "pricing"},
    # a launched job's host at work: the platforms' contracts (src/launch), the data service's client
    "src/node": {"src/core", "src/stats", "src/config", "pricing", "src/launch", "src/dataservice"},
    "src/decide": {"src/core", "src/stats", "pricing", "src/compare"},
    "src/session": {"src/core", "src/stats", "src/config", "pricing", "src/env", "workloads",
                      "src/dataservice", "src/measure"},
    "src/cli": {"src/session", "src/core", "src/stats", "src/config", "pricing", "src/compare", "reports",
                  "src/env", "workloads", "src/dataservice", "src/measure", "src/history", "src/project", "src/launch",
                  "src/decide", "src/node"},
    # benchmarks and tests may use any library but the CLI
    "bench/micro": {"src/core", "src/stats", "src/config", "pricing", "reports", "src/env",
                    "workloads", "src/dataservice", "src/measure", "src/history"},
    # the statistics simulations (the audit's shapes, measured as pperf measures; coverage_sim.h)
    # and the full coverage table built on them
    "bench/stats_sim": {"src/core", "src/stats", "pricing"},
    "bench/coverage": {"src/core", "src/stats", "pricing", "bench/stats_sim"},
    "tests": {"src/session", "src/core", "src/stats", "src/config", "pricing", "reports", "src/env",
              "workloads", "src/dataservice", "src/measure", "src/history", "src/project",
              "src/compare", "bench/stats_sim", "src/launch", "src/decide"},
    # libtorch's own two type names where Debian's libtorch lacks their header (CMakeLists.txt)
    "cmake/torch_shim": set(),
}
SOURCE = (".h", ".hpp", ".cpp", ".cc")
# top-level folders that hold no source of the project: build trees, outputs, tooling state
SKIPPED_TOP = ("build", "results", "gpu-bundle", "Testing")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path):
    """The library folder a repository-relative path belongs to, or None (not a library)."""
    for folder in sorted(ALLOWED, key=len, reverse=True):
        if path == folder or path.startswith(folder + "/"):
            return folder
    return None


def source_files(root):
    """Every C++ source of the tree, repository-relative: all top-level folders but the hidden
    ones and those of SKIPPED_TOP (build trees named build*)."""
    for top in sorted(os.listdir(root)):
        if top.startswith(".") or top.startswith(SKIPPED_TOP) or not os.path.isdir(os.path.join(root, top)):
            continue
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
            for name in sorted(files):
                if name.endswith(SOURCE):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


def unlisted(root):
    """The folders holding C++ sources that no row of ALLOWED covers, each with one such file."""
    found = {}
    for path in source_files(root):
        if folder_of(path) is None:
            found.setdefault(os.path.dirname(path), path)
    return found


def edges(root):
    found = {}
    for path in source_files(root):
        source = folder_of(path)
        if source is None:
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for included in INCLUDE.findall(f.read()):
                target = folder_of(included)
                if target and target != source:
                    found.setdefault((source, target), path + " includes " + included)
    return found


def cycles(graph_edges):
    graph = {}
    for (a, b) in graph_edges:
        graph.setdefault(a, set()).add(b)
    out, state, stack = [], {}, []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                out.append(stack[stack.index(nxt):] + [nxt])
            elif not state.get(nxt):
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if not state.get(node):
            visit(node)
    return out


def problems(root):
    found = edges(root)
    out = [f"forbidden: {a} -> {b} ({why})" for (a, b), why in sorted(found.items()) if b not in ALLOWED[a]]
    out += ["cycle: " + " -> ".join(c) for c in cycles(found)]
    out += [f"not in the rule: {folder} holds C++ sources ({path}); give it a row in ALLOWED and in "
            "docs/architecture.md's table" for folder, path in sorted(unlisted(root).items())]
    return out


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        def write(path, text):
            os.makedirs(os.path.dirname(os.path.join(tmp, path)), exist_ok=True)
            with open(os.path.join(tmp, path), "w") as f:
                f.write(text)
        write("src/core/a.h", '#include "src/stats/b.h"\n')
        write("src/stats/b.h", '#include "src/core/a.h"\n')
        write("workloads/w.h", '#include "src/measure/runner.h"\n')
        write("src/newlib/n.cpp", '#include "src/core/a.h"\n')
        write("build/generated.pb.cc", "")
        found = problems(tmp)
        assert any(p.startswith("not in the rule: src/newlib ") for p in found), found
        assert not any("build" in p for p in found), found
        assert any("forbidden: src/core -> src/stats" in p for p in found), found
        assert any("forbidden: workloads -> src/measure" in p for p in found), found
        assert any(p.startswith("cycle: ") for p in found), found


def main(argv):
    if argv[:1] == ["--self-test"]:
        self_test()
        argv = argv[1:]
    graph_wanted = argv[:1] == ["--graph"]
    if graph_wanted:
        argv = argv[1:]
    root = argv[0] if argv else "."
    if graph_wanted:
        targets = {}
        for (a, b) in edges(root):
            targets.setdefault(a, []).append(b)
        for a in sorted(targets):
            print(f"{a} -> {', '.join(sorted(targets[a]))}")
    found = problems(root)
    for p in found:
        print("include rules:", p)
    if not found:
        graph = sorted(edges(root))
        print(f"include rules: ok ({len(graph)} folder-level edges, no cycle)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
