"""Holds what `pperf launch skypilot|kubernetes` writes against the platforms' own code and
contracts (PyPI's skypilot, kubernetes and jsonschema; ../shared/real-data/launchers/).

usage: launch_platforms.py skypilot SCHEMA.json FILE.yaml...
       launch_platforms.py kubernetes CRD.yaml FILE.yaml...
skypilot:   each task document against the task schema SkyPilot 0.14.1 validates with (the real
            file), then the whole file through SkyPilot's own loader: sky.Task.from_yaml for one
            task, sky.utils.dag_utils.load_job_group_from_yaml for a job group.
kubernetes: a PyTorchJob against the CRD's v1 openAPIV3Schema with every object closed
            (additionalProperties: false where the schema lists properties: an unknown field is
            an error, as `kubectl apply --validate=strict` makes it); every other object against
            the kubernetes client's models (each field must be one the model has, of its type,
            and the model's required fields present).
Exit 0 when every file passes; otherwise one line per problem.
"""
import copy
import json
import logging
import os
import re
import sys

import jsonschema
import yaml


def documents(path):
    return [d for d in yaml.safe_load_all(open(path)) if d is not None]


def check_skypilot(schema_path, files):
    logging.disable(logging.WARNING)
    import sky
    from sky.utils import dag_utils
    schema = json.load(open(schema_path))
    problems = []
    for f in files:
        docs = documents(f)
        group = len(docs) > 1 and docs[0].get("execution") == "parallel"
        for d in docs[1:] if group else docs:
            for e in jsonschema.Draft7Validator(schema).iter_errors(d):
                problems.append(f"{f}: task {d.get('name')}: /{'/'.join(map(str, e.path))}: {e.message}")
        try:
            if group:
                dag = dag_utils.load_job_group_from_yaml(f)
                assert dag.is_job_group(), "not loaded as a job group"
                assert dag.primary_tasks == ["trainer"], f"primary_tasks {dag.primary_tasks}"
                for t in dag.tasks:
                    assert t.run, f"task {t.name} has no run"
            else:
                t = sky.Task.from_yaml(f)
                assert t.num_nodes == 1 and t.run
            print(f"ok {f}: {'job group of ' + str(len(docs) - 1) + ' tasks' if group else 'one task'}")
        except Exception as e:  # noqa: BLE001 - SkyPilot's own refusal, reported as such
            problems.append(f"{f}: SkyPilot refuses it: {type(e).__name__}: {e}")
    return problems


def closed(schema):
    """The schema with every object that lists properties refusing others."""
    s = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node and not node.get("x-kubernetes-preserve-unknown-fields"):
                node.setdefault("additionalProperties", False)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(s)
    return s


def model_problems(value, type_name, where, k8s):
    """`value` against the kubernetes client's model type `type_name` (strict)."""
    m = re.match(r"(?:list|List)\[(.*)\]$", type_name)
    if m:
        if not isinstance(value, list):
            return [f"{where}: a list expected"]
        return [p for i, v in enumerate(value) for p in model_problems(v, m.group(1), f"{where}/{i}", k8s)]
    m = re.match(r"(?:dict\(|Dict\[)([^,]*), (.*)[)\]]$", type_name)
    if m:
        if not isinstance(value, dict):
            return [f"{where}: a map expected"]
        return [p for k, v in value.items() for p in model_problems(v, m.group(2), f"{where}/{k}", k8s)]
    scalars = {"str": str, "int": int, "bool": bool, "float": (int, float), "object": object, "datetime": str}
    if type_name in scalars:
        ok = isinstance(value, scalars[type_name]) and not (type_name == "int" and isinstance(value, bool))
        return [] if ok else [f"{where}: {type_name} expected, got {value!r}"]
    model = getattr(k8s, type_name)
    if not isinstance(value, dict):
        return [f"{where}: an object ({type_name}) expected"]
    by_json = {j: p for p, j in model.attribute_map.items()}
    problems = [f"{where}/{k}: not a field of {type_name}" for k in value if k not in by_json]
    for k, v in value.items():
        if k in by_json:
            problems += model_problems(v, model.openapi_types[by_json[k]], f"{where}/{k}", k8s)
    return problems


def model_refusal(value, type_name, k8s):
    """The client's own reading of `value` (its required fields and types), or None."""
    try:
        k8s.ApiClient()._ApiClient__deserialize(value, type_name)
        return None
    except Exception as e:  # noqa: BLE001 - the client's refusal, reported as such
        return f"{type_name}: {str(e).splitlines()[0]}"


def check_kubernetes(crd_path, files):
    import kubernetes.client as k8s
    crd = yaml.safe_load(open(crd_path))
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1")
    pytorchjob = jsonschema.Draft7Validator(closed(version["schema"]["openAPIV3Schema"]))
    models = {("v1", "Secret"): "V1Secret", ("v1", "Service"): "V1Service", ("batch/v1", "Job"): "V1Job"}
    problems = []
    for f in files:
        kinds = []
        for d in documents(f):
            key = (d.get("apiVersion"), d.get("kind"))
            kinds.append(d.get("kind"))
            where = f"{f}: {d.get('kind')} {d.get('metadata', {}).get('name')}"
            if key == ("kubeflow.org/v1", "PyTorchJob"):
                problems += [f"{where}: /{'/'.join(map(str, e.path))}: {e.message}" for e in pytorchjob.iter_errors(d)]
                for name, spec in d["spec"]["pytorchReplicaSpecs"].items():
                    containers = spec["template"]["spec"]["containers"]
                    if not any(c["name"] == "pytorch" for c in containers):
                        problems.append(f"{where}: replica {name} has no container named pytorch (the operator requires it)")
            elif key in models:
                problems += [f"{where}: {p}" for p in model_problems(d, models[key], "", k8s)]
                if (refusal := model_refusal(d, models[key], k8s)):
                    problems.append(f"{where}: the kubernetes client refuses it: {refusal}")
            else:
                problems.append(f"{where}: an object pperf should not write ({key})")
        if not any(p.startswith(f + ":") for p in problems):
            print(f"ok {f}: {', '.join(kinds)}")
    return problems


def main():
    platform, contract, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not files:
        print("no files given")
        return 1
    problems = check_skypilot(contract, files) if platform == "skypilot" else check_kubernetes(contract, files)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
