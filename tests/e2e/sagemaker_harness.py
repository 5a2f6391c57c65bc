"""Plays SageMaker for one CreateTrainingJob request on one host: each of the job's hosts is a
process on loopback with the container contract SageMaker gives it (its own /opt/ml root, via
PPERF_SAGEMAKER_ROOT: input/config/resourceconfig.json in the shape real jobs print, with this
run's hosts; hyperparameters.json holding the request's HyperParameters as strings; the
request's Environment; TRAINING_JOB_NAME and TRAINING_JOB_ARN), running `pperf sagemaker-entry`.
Host algo-N is 127.0.0.(N+1) (PPERF_HOSTS). As in the real 2 x p4d job, group host
lists are not in host order and the trainer is not algo-1.

usage: sagemaker_harness.py PPERF REQUEST.json WORK CWD [--hosts-only trainer|all] [--data-wait-s N]
                            [--timeout-s N] [--reuse] [--data-workers N]
Writes WORK/summary.json: per host its group, root, exit code and log file; exit 0 when every
host's process ran to its end within the timeout.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

from platform_harness import wait_all


def groups_of(request):
    rc = request["ResourceConfig"]
    if "InstanceGroups" in rc:
        return [(g["InstanceGroupName"], g["InstanceType"], g["InstanceCount"]) for g in rc["InstanceGroups"]]
    return [("homogeneousCluster", rc["InstanceType"], rc["InstanceCount"])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pperf")
    ap.add_argument("request")
    ap.add_argument("work")
    ap.add_argument("cwd")
    ap.add_argument("--hosts-only", choices=["trainer", "all"], default="all")
    ap.add_argument("--data-wait-s")
    ap.add_argument("--data-workers", type=int, help="each data host's preprocessing threads (this host's cores, not the instance's)")
    ap.add_argument("--channel", action="append", default=[], metavar="NAME=DIR",
                    help="an input channel's files (what SageMaker downloads from its S3 prefix) from DIR")
    ap.add_argument("--timeout-s", type=float, default=120)
    ap.add_argument("--reuse", action="store_true", help="keep each host's /opt/ml (a Spot restart: checkpoints restored)")
    a = ap.parse_args()
    request = json.load(open(a.request))
    groups = groups_of(request)
    # Hosts numbered from the last group to the first (the trainer's group is listed first), and
    # each group's host list in descending order: neither order gives the role away.
    names, n = {}, 0
    for name, _, count in reversed(groups):
        names[name] = [f"algo-{n + i + 1}" for i in range(count)][::-1]
        n += count
    hosts = sorted((h for hs in names.values() for h in hs), key=lambda h: int(h.split("-")[1]))
    addresses = {h: f"127.0.0.{int(h.split('-')[1]) + 1}" for h in hosts}
    hyper = dict(request.get("HyperParameters", {}))
    if a.data_wait_s:
        hyper["pperf_data_wait_s"] = a.data_wait_s
    if a.data_workers:
        hyper["pperf_data_workers"] = json.dumps({g: a.data_workers for g in json.loads(hyper["pperf_data_workers"])})
    job = request["TrainingJobName"]
    procs, summary = [], {"job": job, "hosts": {}}
    for name, itype, _ in groups:
        for host in names[name]:
            root = os.path.join(a.work, host)
            config_dir = os.path.join(root, "input", "config")
            os.makedirs(config_dir, exist_ok=True)
            for d in ("model", "output/data", "checkpoints", "input/data"):
                os.makedirs(os.path.join(root, d), exist_ok=True)
            if not a.reuse:
                for f in ("output/failure", "model/results.json"):
                    if os.path.exists(os.path.join(root, f)):
                        os.remove(os.path.join(root, f))
            resource = {
                "current_group_name": name,
                "current_host": host,
                "current_instance_type": itype,
                "hosts": hosts,
                "instance_groups": [{"hosts": names[g], "instance_group_name": g, "instance_type": t} for g, t, _ in groups],
                "network_interface_name": "lo",
            }
            json.dump(resource, open(os.path.join(config_dir, "resourceconfig.json"), "w"), indent=4)
            json.dump(hyper, open(os.path.join(config_dir, "hyperparameters.json"), "w"))
            channels = dict(c.split("=", 1) for c in a.channel)
            json.dump({n: {"TrainingInputMode": "File", "S3DistributionType": "FullyReplicated", "RecordWrapperType": "None"}
                       for n in channels}, open(os.path.join(config_dir, "inputdataconfig.json"), "w"))
            for n, d in channels.items():
                shutil.copytree(d, os.path.join(root, "input", "data", n), dirs_exist_ok=True)
            trainer = name == hyper.get("pperf_trainer_group") or not hyper.get("pperf_trainer_group")
            entry = {"group": name, "root": root, "trainer": trainer, "address": addresses[host],
                     "log": os.path.join(a.work, f"{host}.log")}
            summary["hosts"][host] = entry
            if a.hosts_only == "trainer" and not trainer:
                entry["exit"] = None
                continue
            env = dict(os.environ)
            env.update(request.get("Environment", {}))
            env.update({
                "TRAINING_JOB_NAME": job,
                "TRAINING_JOB_ARN": f"arn:aws:sagemaker:us-east-1:123456789012:training-job/{job.lower()}",
                "PPERF_SAGEMAKER_ROOT": root,
                "PPERF_HOSTS": ",".join(f"{h}={addresses[h]}" for h in hosts),
            })
            log = open(entry["log"], "w")
            procs.append((host, subprocess.Popen([a.pperf, "sagemaker-entry"], cwd=a.cwd, env=env, stdout=log,
                                                 stderr=subprocess.STDOUT, start_new_session=True)))
    ok = wait_all(procs, a.timeout_s, summary)
    json.dump(summary, open(os.path.join(a.work, "summary.json"), "w"), indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
