#!/usr/bin/env python3
"""Writes the field tables of docs/results.md from schemas/results.schema.json.

The schema is the one place a results field is described: its type, its `x-unit` and its
`description` (Markdown). Each table in the doc sits between

    <!-- fields: JSON-POINTER-INTO-THE-SCHEMA -->
    ...
    <!-- end fields -->

and lists the object's members in schema order. A member with a description is one row (its
members, if any, are the description's business or another table's); a member without one is
walked into (`a.b`, `a[].b`); a leaf reached without a description is an error, so a new field
cannot land undocumented. Adjacent members with the same description and unit share a row.

usage: results_doc.py [--check] [REPO]   (--check: exit 1 if the doc differs, write nothing)
Standard library only, so any python3 runs it.
"""
import json
import pathlib
import re
import sys

MARKER = re.compile(r"<!-- fields: (\S+) -->\n.*?<!-- end fields -->", re.S)


class Undocumented(Exception):
    pass


def pointer(schema, ptr):
    node = schema
    for part in filter(None, ptr.lstrip("#").split("/")):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def deref(schema, node):
    while "$ref" in node:
        node = pointer(schema, node["$ref"])
    return node


def object_branch(schema, node):
    """The node itself, or the branch of a oneOf/anyOf that is not null (`{...} | null` fields)."""
    node = deref(schema, node)
    for key in ("oneOf", "anyOf"):
        for branch in node.get(key, []):
            branch = deref(schema, branch)
            if "properties" in branch or branch.get("type") in ("object", "array"):
                return branch
    return node


JSON_TYPE = {"boolean": "bool", "integer": "integer", "number": "number", "string": "string", "null": "null",
             "object": "object", "array": "array"}
NAMED = {"#/$defs/pair": "[lo, hi]", "#/$defs/utc": "string", "#/$defs/number_or_null": "number | null"}


def type_text(schema, node):
    if "$ref" in node:
        return NAMED.get(node["$ref"]) or type_text(schema, deref(schema, node))
    if "const" in node:
        return {bool: "bool", int: "integer", float: "number", str: "string"}[type(node["const"])]
    if "enum" in node:
        return "string"
    for key in ("oneOf", "anyOf"):
        if key in node:
            parts = []
            for branch in node[key]:
                for part in type_text(schema, branch).split(" | "):
                    if part not in parts:
                        parts.append(part)
            return " | ".join(sorted(parts, key=lambda p: p == "null"))
    types = node.get("type", "object" if "properties" in node else "")
    types = types if isinstance(types, list) else [types]
    out = []
    for t in types:
        if t == "array":
            item = type_text(schema, node.get("items", {}))
            out.append(f"array of {item}s" if item in ("string", "number", "integer") else "array")
        else:
            out.append(JSON_TYPE.get(t, t))
    return " | ".join(sorted(out, key=lambda p: p == "null"))


def rows(schema, node, prefix, where):
    """[names, type, unit, description] per documented member of `node` (the table at schema
    pointer `where`), in schema order."""
    out = []
    for key, member in object_branch(schema, node).get("properties", {}).items():
        name = prefix + key
        target = object_branch(schema, member)
        items = deref(schema, target.get("items", {})) if target.get("type") == "array" else {}
        if "description" in member:
            out.append(([name + ("[]" if "properties" in items else "")], type_text(schema, member),
                        member.get("x-unit", ""), member["description"]))
        elif "properties" in target:
            out += rows(schema, target, name + ".", where)
        elif "properties" in items:
            out += rows(schema, items, name + "[].", where)
        else:
            raise Undocumented(f"schemas/results.schema.json: `{name}` of {where} has no description "
                               "(docs/results.md is made from it)")
    merged = []
    for names, typ, unit, text in out:
        if merged and tuple(merged[-1][2:]) == (unit, text):
            merged[-1][0].extend(names)
            if typ not in merged[-1][1].split(", "):
                merged[-1][1] += ", " + typ
        else:
            merged.append([names, typ, unit, text])
    return merged


def table_row(cells):
    """A Markdown table row: `|` escaped, an empty cell `| |`."""
    escaped = [c.replace("|", r"\|") for c in cells]
    return "|" + "|".join(f" {c} " if c else " " for c in escaped) + "|"


def table(schema, ptr):
    lines = [f"<!-- fields: {ptr} -->", "| field | type | unit | meaning |", "|---|---|---|---|"]
    for names, typ, unit, text in rows(schema, pointer(schema, ptr), "", ptr):
        lines.append(table_row([", ".join(f"`{n}`" for n in names), typ, unit, text]))
    return "\n".join(lines + ["<!-- end fields -->"])


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    repo = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parent.parent)
    schema = json.loads((repo / "schemas/results.schema.json").read_text())
    doc_path = repo / "docs/results.md"
    doc = doc_path.read_text()
    try:
        made = MARKER.sub(lambda m: table(schema, m.group(1)), doc)
    except Undocumented as e:
        print(e, file=sys.stderr)
        return 1
    except KeyError as e:
        print(f"docs/results.md: a fields marker names {e} that schemas/results.schema.json lacks", file=sys.stderr)
        return 1
    if made == doc:
        return 0
    if check:
        print("docs/results.md: its field tables differ from schemas/results.schema.json; "
              "run scripts/results_doc.py and commit the result", file=sys.stderr)
        return 1
    doc_path.write_text(made)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
