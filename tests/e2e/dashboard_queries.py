#!/usr/bin/env python3
"""Prints every SQL query of a Grafana dashboard (panels' targets, annotations, template
variables) with its variables set, NUL-separated, for the history test to run on a backend.
usage: dashboard_queries.py DASHBOARD.json config=NAME host=FINGERPRINT"""
import json
import sys

dash = json.load(open(sys.argv[1]))
values = dict(a.split("=", 1) for a in sys.argv[2:])
queries = [t["rawSql"] for p in dash["panels"] for t in p["targets"]]
queries += [a["target"]["rawSql"] for a in dash["annotations"]["list"]]
queries += [v["query"] for v in dash["templating"]["list"]]
for q in queries:
    for k, v in values.items():
        q = q.replace("$" + k, v)
    assert "$" not in q, "a Grafana macro or unset variable: " + q
    sys.stdout.write(q + "\0")
