#!/usr/bin/env python3
"""Folder-level include rules of pperf (docs/architecture.md): each folder is one library and
may include only the folders listed for it; the folder graph has no cycle.

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
    "reports": {"src/core", "src/stats"},
    "src/env": {"src/core"},
    "workloads": {"src/core"},
    "src/dataservice": {"src/core", "src/env", "workloads"},
    "src/measure": {"src/core", "src/stats", "src/config", "pricing", "src/env", "workloads",
                      "src/dataservice"},
    "src/history": {"src/core", "src/stats"},
    "src/project": {"src/core", "src/stats", "pricing", "reports"},
    "src/session": {"src/core", "src/stats", "src/config", "pricing", "src/env", "workloads",
                      "src/dataservice", "src/measure"},
    "src/cli": {"src/session", "src/core", "src/stats", "src/config", "pricing", "reports", "src/env",
                  "workloads", "src/dataservice", "src/measure", "src/history", "src/project"},
    # benchmarks and tests may use any library but the CLI
    "bench/micro": {"src/core", "src/stats", "src/config", "pricing", "reports", "src/env",
                    "workloads", "src/dataservice", "src/measure", "src/history"},
    "tests": {"src/session", "src/core", "src/stats", "src/config", "pricing", "reports", "src/env",
              "workloads", "src/dataservice", "src/measure", "src/history", "src/project"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path):
    """The library folder a repository-relative path belongs to, or None (not a library)."""
    for folder in sorted(ALLOWED, key=len, reverse=True):
        if path == folder or path.startswith(folder + "/"):
            return folder
    return None


def edges(root):
    found = {}
    for top in ("src", "bench", "pricing", "reports", "workloads", "tests"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if not name.endswith((".h", ".cpp", ".cc")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), root)
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
        found = problems(tmp)
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
