#!/usr/bin/env python3
"""docs/cli.md and docs/guide.md held against the binary's own help (issue 66).

usage: tests/e2e/cli_doc_check.py PPERF docs/cli.md docs/guide.md

- Every command `pperf help` lists has a row in cli.md's command table and in guide.md's
  Commands table.
- For every `## \\`pperf NAME\\`` section of cli.md: each flag the command's --help (and each
  subcommand's) prints is named in the section's synopsis or flag table, and each flag named
  there is one --help prints (no `--junit` where there is none).
Prints one line per disagreement; exit 1 when there is any.
"""
import re
import subprocess
import sys

pperf, cli_md, guide_md = sys.argv[1:4]
# Commands whose flags live in subcommands: the help of each is read.
SUBCOMMANDS = {
    "launch": ["sagemaker", "skypilot", "kubernetes"],
    "history": ["record", "list", "show", "changes", "mark", "copy"],
    "prices": ["import", "diff"],
}
FLAG = r"--[a-z][a-z0-9-]*"


def help_text(*words):
    run = subprocess.run([pperf, *words, "--help"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"pperf {' '.join(words)} --help: exit {run.returncode}: {run.stderr.strip()}")
    return run.stdout


def help_flags(text):
    """The options boost prints ("  --out arg", "  -h [ --help ]") and those a usage text names."""
    options = set(re.findall(rf"^\s+(?:-\w \[ )?({FLAG})", text, re.M))
    # A usage text before boost's options (launch, prices): the flags it names.
    head = text.split("options:\n")[0] if re.search(r"^\S.* options:$", text, re.M) else ""
    head = "\n".join(l for l in head.splitlines()[:-1])
    usage = set(re.findall(rf"[\[( ]({FLAG})", head))
    return options | usage


usage = subprocess.run([pperf, "help"], capture_output=True, text=True).stdout
commands = re.findall(r"^  ([a-z][a-z-]+) +\S", usage, re.M)
assert commands, f"pperf help listed no commands:\n{usage}"
cli = open(cli_md).read()
guide = open(guide_md).read()
problems = []

table = set(re.findall(r"^\| \[`([a-z-]+)`\]\(#", cli, re.M))
for c in commands:
    if c not in table:
        problems.append(f"{cli_md}: the command table has no row for `{c}`")
guide_commands = guide[guide.index("## Commands"):]
guide_commands = guide_commands[:guide_commands.index("\n\n", guide_commands.index("| command"))]
guide_names = set(re.findall(r"^\| `pperf ([a-z-]+)", guide_commands, re.M))
for c in commands:
    if c in ("sagemaker-entry", "node-entry"):  # named in launch's row: the jobs run them
        if f"pperf {c}" not in guide_commands:
            problems.append(f"{guide_md}: the Commands table does not name `pperf {c}`")
    elif c not in guide_names:
        problems.append(f"{guide_md}: the Commands table has no row for `pperf {c}`")

sections = re.split(r"^## `pperf ([a-z-]+)`\n", cli, flags=re.M)
documented = {sections[i]: sections[i + 1].split("\n## ")[0] for i in range(1, len(sections), 2)}
for name, text in documented.items():
    if name not in commands:
        problems.append(f"{cli_md}: a section for `pperf {name}`, which `pperf help` does not list")
        continue
    helps = [help_text(name)] + [help_text(name, sub) for sub in SUBCOMMANDS.get(name, [])]
    in_help = set().union(*(help_flags(h) for h in helps)) - {"--help"}
    # What the section says the command takes: its synopsis (the first code block) and the
    # first column of its flag tables.
    synopsis = re.search(r"```\n(.*?)```", text, re.S)
    said = set(re.findall(FLAG, synopsis.group(1))) if synopsis else set()
    for header, rows in re.findall(r"^(\| (?:flag|argument / flag|argument|option)[^\n]*\n)\|[-|]+\|\n((?:\|[^\n]*\n)*)", text, re.M):
        for row in rows.splitlines():
            said |= set(re.findall(FLAG, row.split("|")[1]))
    said -= {"--help"}
    for flag in sorted(in_help - said):
        problems.append(f"{cli_md}: `pperf {name}`: {flag} is in its --help but not in the section's synopsis or flag table")
    for flag in sorted(said - in_help):
        problems.append(f"{cli_md}: `pperf {name}`: {flag} is documented but its --help has no such flag")

for p in problems:
    print(" ", p)
sys.exit(1 if problems else 0)
