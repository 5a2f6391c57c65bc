#!/usr/bin/python3
"""validate_schema.py [--invalid] SCHEMA FILE...: every FILE must be valid against SCHEMA (JSON
Schema 2020-12, Debian's python3-jsonschema), or with --invalid every FILE must be rejected.
Prints one line per file that is not as expected (file, JSON path, message); exit 1 if any."""
import json
import sys

import jsonschema


def main(argv):
    invalid = argv[:1] == ["--invalid"]
    if invalid:
        argv = argv[1:]
    schema = json.load(open(argv[0]))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in argv[1:]:
        errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: list(e.absolute_path))
        if invalid and not errors:
            print(f"{path}: accepted, but it should be rejected")
            bad += 1
        elif not invalid and errors:
            e = errors[0]
            print(f"{path}: /{'/'.join(str(p) for p in e.absolute_path)}: {e.message} ({len(errors)} error(s))")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
