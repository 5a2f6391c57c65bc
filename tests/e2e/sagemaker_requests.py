"""Holds CreateTrainingJob requests `pperf launch sagemaker` wrote against SageMaker's own code:
botocore's service model (its ParamValidator: required members, types, minimums; and, walking
the same model, what the service checks beyond it: enums, maximum lengths and counts, patterns),
then moto's SageMaker (create_training_job, describe_training_job gives the request back).
Run in the venv scripts/setup-launch-venv.sh makes.
usage: sagemaker_requests.py REQUEST.json...   (prints one line per request; exit 1 on a refusal)
"""
import json
import re
import sys

import botocore.session
from botocore.validate import ParamValidator


def model_problems(value, shape, path):
    """What the service model forbids that botocore's client-side validator leaves to the server."""
    out = []
    meta = shape.metadata
    if shape.type_name == "structure":
        for key, member in value.items():
            if key not in shape.members:
                out.append(f"{path}.{key}: not a member of {shape.name}")
            else:
                out += model_problems(member, shape.members[key], f"{path}.{key}")
    elif shape.type_name == "list":
        if "max" in meta and len(value) > meta["max"]:
            out.append(f"{path}: {len(value)} items, at most {meta['max']}")
        for i, item in enumerate(value):
            out += model_problems(item, shape.member, f"{path}[{i}]")
    elif shape.type_name == "map":
        if "max" in meta and len(value) > meta["max"]:
            out.append(f"{path}: {len(value)} entries, at most {meta['max']}")
        for k, v in value.items():
            out += model_problems(k, shape.key, f"{path} key {k!r}")
            out += model_problems(v, shape.value, f"{path}[{k!r}]")
    elif shape.type_name == "string":
        if shape.enum and value not in shape.enum:
            out.append(f"{path}: {value!r} is not one of {shape.name}'s values")
        if "max" in meta and len(value) > meta["max"]:
            out.append(f"{path}: {len(value)} characters, at most {meta['max']}")
        if "pattern" in meta and not re.fullmatch(meta["pattern"], value):
            out.append(f"{path}: {value!r} does not match {meta['pattern']}")
    elif shape.type_name in ("integer", "long"):
        if "max" in meta and value > meta["max"]:
            out.append(f"{path}: {value} above {meta['max']}")
    return out


def main(paths):
    model = botocore.session.get_session().get_service_model("sagemaker")
    shape = model.operation_model("CreateTrainingJob").input_shape
    requests = [json.load(open(p)) for p in paths]
    bad = 0
    for path, request in zip(paths, requests):
        report = ParamValidator().validate(request, shape)
        problems = ([report.generate_report()] if report.has_errors() else []) + model_problems(request, shape, "")
        for p in problems:
            print(f"FAIL {path}: {p}")
        bad += bool(problems)
    if bad:
        return 1

    import boto3
    from moto import mock_aws

    with mock_aws():
        client = boto3.client("sagemaker", region_name="us-east-1")
        for path, request in zip(paths, requests):
            arn = client.create_training_job(**request)["TrainingJobArn"]
            got = client.describe_training_job(TrainingJobName=request["TrainingJobName"])
            dropped = []
            for key, sent in request.items():
                if key not in got:
                    dropped.append(key)  # moto keeps less than the service (e.g. Environment)
                    continue
                # moto adds defaults of its own, and answers its own fixed MetricDefinitions
                # whatever was sent (botocore's model checked those above): what was sent must come back.
                if key == "AlgorithmSpecification" and "MetricDefinitions" in sent:
                    sent = {k: v for k, v in sent.items() if k != "MetricDefinitions"}
                    dropped.append("AlgorithmSpecification.MetricDefinitions")
                back = {k: got[key].get(k) for k in sent} if isinstance(sent, dict) else got[key]
                if back != sent:
                    print(f"FAIL {path}: moto's describe_training_job gives {key} = {got[key]!r}, sent {sent!r}")
                    bad += 1
            note = f"; moto does not keep {', '.join(dropped)}" if dropped else ""
            print(f"ok   {path}: botocore's model and moto accept it ({arn}{note})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
