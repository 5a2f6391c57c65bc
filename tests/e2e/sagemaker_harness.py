"""Plays SageMaker for one CreateTrainingJob request on one host. Each of the job's hosts is a
container as SageMaker makes it, and gets only what SageMaker gives:
- its own network namespace on one bridge (eth0, 10.0.0.N+1 for algo-N; the names algo-N in
  /etc/hosts, as SageMaker's DNS answers them): every host serves on 0.0.0.0 as on SageMaker;
- its own /opt/ml (a directory under WORK bound over /opt/ml in its mount namespace):
  input/config/resourceconfig.json in the shape real jobs print, with this run's hosts (group host
  lists not in host order, the trainer not algo-1, as in the real 2 x p4d job),
  hyperparameters.json (the request's HyperParameters as strings), inputdataconfig.json (the
  request's channels) and each channel's files in input/data/NAME (from the played S3, --s3, or
  --channel NAME=DIR);
- its own PID namespace, whose PID 1 is the container's process: the request's
  ContainerEntrypoint (+ ContainerArguments), else the image's ENTRYPOINT with SageMaker's `train`
  argument (AWS's PyTorch training images: `bash -m start_with_right_hostname.sh train`);
- the environment: the request's Environment, TRAINING_JOB_NAME and TRAINING_JOB_ARN, and the
  image's PATH. No pperf variable.
The played image (WORK/image/bin, first on PATH): `pperf` (the binary under test) for an image with
pperf in it; for AWS's PyTorch image its python3 (--image-python, with torch), the SageMaker
training toolkit's `train` (PyPI's sagemaker-training, this venv's) and a stand-in for the image's
start_with_right_hostname.sh that does what matters here: runs `train` as its child (the real one
first builds a hostname shim). The toolkit then does what it does in the image: reads the contract,
fetches sagemaker_submit_directory (an S3 URI --s3 maps to a local file: the played S3), and runs
the entry point with its own process runner (`/bin/sh -c "./ENTRY ARGS"`), SM_* set.
--stop REGEX plays StopTrainingJob (or a Spot interruption) once the trainer's log matches: SIGTERM
to every host's PID 1 (which receives it only if it has a handler, as in a container), SIGKILL
--stop-grace-s later (SageMaker: 120 s).

usage: sagemaker_harness.py PPERF REQUEST.json WORK CWD [--hosts-only trainer|all] [--data-wait-s N]
                            [--timeout-s N] [--reuse] [--data-workers N] [--channel NAME=DIR]...
                            [--s3 URI=FILE]... [--image-python PY] [--stop REGEX] [--stop-grace-s N]
Writes WORK/summary.json: per host its group, root, address, exit code (its PID 1's) and log file;
exit 0 when every host's process ran to its end within the timeout.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from platform_harness import HostsFile

NAMESPACE_MARK = "SAGEMAKER_HARNESS_IN_NAMESPACE"
# AWS's PyTorch training images: ENTRYPOINT ["bash", "-m", "start_with_right_hostname.sh"]; SageMaker
# starts the container with the argument `train` (aws/deep-learning-containers' Dockerfiles).
DLC_ENTRYPOINT = ["bash", "-m", "start_with_right_hostname.sh", "train"]
STAND_IN = """#!/usr/bin/env bash
# Played: AWS's PyTorch image's entry script, as far as it matters here: for `train` it runs the
# SageMaker toolkit's train as its child (the real one first builds a hostname shim).
if [ "$1" = train ]; then train; exit $?; fi
exec "$@"
"""


def groups_of(request):
    rc = request["ResourceConfig"]
    if "InstanceGroups" in rc:
        return [(g["InstanceGroupName"], g["InstanceType"], g["InstanceCount"]) for g in rc["InstanceGroups"]]
    return [("homogeneousCluster", rc["InstanceType"], rc["InstanceCount"])]


def container_command(request):
    spec = request["AlgorithmSpecification"]
    if "ContainerEntrypoint" in spec:
        return spec["ContainerEntrypoint"] + spec.get("ContainerArguments", [])
    if "/pytorch-training:" in spec["TrainingImage"]:
        return DLC_ENTRYPOINT
    sys.exit(f"sagemaker_harness: image {spec['TrainingImage']} without ContainerEntrypoint: not played here")


def played_image(work, pperf, image_python):
    """The image's bin directory: pperf, or AWS's PyTorch image's python3, train and entry script."""
    bin_dir = os.path.join(work, "image", "bin")
    shutil.rmtree(bin_dir, ignore_errors=True)
    os.makedirs(bin_dir)
    os.symlink(os.path.abspath(pperf), os.path.join(bin_dir, "pperf"))
    os.symlink(image_python, os.path.join(bin_dir, "python3"))
    os.symlink(os.path.join(os.path.dirname(sys.executable), "train"), os.path.join(bin_dir, "train"))
    with open(os.path.join(bin_dir, "start_with_right_hostname.sh"), "w") as f:
        f.write(STAND_IN)
    os.chmod(os.path.join(bin_dir, "start_with_right_hostname.sh"), 0o755)
    return bin_dir


def opt_ml_mountpoint(work):
    """/opt/ml as a mount point in this mount namespace: /opt a tmpfs holding /opt's entries bound back."""
    if os.path.isdir("/opt/ml"):
        return
    saved = os.path.join(work, ".opt")
    os.makedirs(saved, exist_ok=True)
    subprocess.run(["mount", "--bind", "/opt", saved], check=True)
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", "/opt"], check=True)
    for e in os.listdir(saved):
        src, dst = os.path.join(saved, e), os.path.join("/opt", e)
        os.makedirs(dst) if os.path.isdir(src) else open(dst, "w").close()
        subprocess.run(["mount", "--bind", src, dst], check=True)
    os.makedirs("/opt/ml")


def network(hosts):
    """A bridge in this network namespace; per host a network namespace named after it, eth0 on the bridge."""
    os.makedirs("/run/netns", exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", "/run/netns"], check=True)
    sh = lambda *a: subprocess.run(list(a), check=True)
    sh("ip", "link", "add", "br0", "type", "bridge")
    sh("ip", "link", "set", "br0", "up")
    for i, (host, address) in enumerate(hosts.items()):
        sh("ip", "netns", "add", host)
        sh("ip", "link", "add", f"v{i}", "type", "veth", "peer", "name", "eth0", "netns", host)
        sh("ip", "link", "set", f"v{i}", "master", "br0", "up")
        sh("ip", "-n", host, "addr", "add", f"{address}/24", "dev", "eth0")
        sh("ip", "-n", host, "link", "set", "eth0", "up")
        sh("ip", "-n", host, "link", "set", "lo", "up")


def pid1(p):
    """The global pid of the PID namespace's init (unshare's one child), None when gone."""
    try:
        children = open(f"/proc/{p.pid}/task/{p.pid}/children").read().split()
    except OSError:
        return None
    return int(children[0]) if children else None


def signal_pid1(p, sig):
    pid = pid1(p)
    if pid:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


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
    ap.add_argument("--s3", action="append", default=[], metavar="URI=FILE", help="the played S3: the object URI is FILE")
    ap.add_argument("--image-python", default="/usr/bin/python3", help="AWS's PyTorch image's python3 (one with torch)")
    ap.add_argument("--stop", metavar="REGEX", help="StopTrainingJob once the trainer's log matches")
    ap.add_argument("--stop-grace-s", type=float, default=120)
    ap.add_argument("--timeout-s", type=float, default=120)
    ap.add_argument("--reuse", action="store_true", help="keep each host's /opt/ml (a Spot restart: checkpoints restored)")
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if os.environ.get(NAMESPACE_MARK) != "1":
        # A network and a mount namespace of its own: its bridge, /etc/hosts, /opt/ml and /run/netns.
        os.environ[NAMESPACE_MARK] = "1"
        os.execvp("unshare", ["unshare", "--net", "--mount", sys.executable, os.path.abspath(__file__)] + sys.argv[1:])
    request = json.load(open(a.request))
    groups = groups_of(request)
    # Hosts numbered from the last group to the first (the trainer's group is listed first), and
    # each group's host list in descending order: neither order gives the role away.
    names, n = {}, 0
    for name, _, count in reversed(groups):
        names[name] = [f"algo-{n + i + 1}" for i in range(count)][::-1]
        n += count
    hosts = sorted((h for hs in names.values() for h in hs), key=lambda h: int(h.split("-")[1]))
    addresses = {h: f"10.0.0.{int(h.split('-')[1]) + 1}" for h in hosts}
    hyper = dict(request.get("HyperParameters", {}))
    if a.data_wait_s:
        hyper["pperf_data_wait_s"] = a.data_wait_s
    if a.data_workers:
        hyper["pperf_data_workers"] = json.dumps({g: a.data_workers for g in json.loads(hyper["pperf_data_workers"])})
    s3 = {uri: os.path.abspath(f) for uri, f in (x.split("=", 1) for x in a.s3)}
    hyper = {k: s3[v] if v in s3 else v for k, v in hyper.items()}
    job = request["TrainingJobName"]
    os.makedirs(a.work, exist_ok=True)
    etc_hosts = HostsFile(os.path.join(a.work, "hosts"))
    for h in hosts:
        etc_hosts.set(h, addresses[h])
    network(addresses)
    opt_ml_mountpoint(a.work)
    bin_dir = played_image(a.work, a.pperf, a.image_python)
    command = container_command(request)
    base_env = {"PATH": bin_dir + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}
    procs, summary = {}, {"job": job, "command": command, "hosts": {}}
    for name, itype, _ in groups:
        for host in names[name]:
            root = os.path.abspath(os.path.join(a.work, host))
            config_dir = os.path.join(root, "input", "config")
            os.makedirs(config_dir, exist_ok=True)
            # A new instance each time: only /opt/ml/checkpoints comes back (a Spot restart, --reuse).
            for d in ("code", "output", "model") + (() if a.reuse else ("checkpoints",)):
                shutil.rmtree(os.path.join(root, d), ignore_errors=True)
            for d in ("model", "output/data", "checkpoints", "input/data"):
                os.makedirs(os.path.join(root, d), exist_ok=True)
            resource = {
                "current_group_name": name,
                "current_host": host,
                "current_instance_type": itype,
                "hosts": hosts,
                "instance_groups": [{"hosts": names[g], "instance_group_name": g, "instance_type": t} for g, t, _ in groups],
                "network_interface_name": "eth0",
            }
            json.dump(resource, open(os.path.join(config_dir, "resourceconfig.json"), "w"), indent=4)
            json.dump(hyper, open(os.path.join(config_dir, "hyperparameters.json"), "w"))
            # The request's input channels, each downloaded from the played S3 (--s3: its one
            # object) or given whole (--channel: a prefix's files).
            channels = dict(c.split("=", 1) for c in a.channel)
            json.dump({c["ChannelName"]: {"TrainingInputMode": "File", "S3DistributionType": "FullyReplicated", "RecordWrapperType": "None"}
                       for c in request.get("InputDataConfig", [])}, open(os.path.join(config_dir, "inputdataconfig.json"), "w"))
            for c in request.get("InputDataConfig", []):
                channel, uri = c["ChannelName"], c["DataSource"]["S3DataSource"]["S3Uri"]
                where = os.path.join(root, "input", "data", channel)
                shutil.rmtree(where, ignore_errors=True)
                if channel in channels:
                    shutil.copytree(channels[channel], where)
                elif uri in s3:
                    os.makedirs(where)
                    shutil.copy(s3[uri], os.path.join(where, uri.rsplit("/", 1)[1]))
            trainer = name == hyper.get("pperf_trainer_group") or not hyper.get("pperf_trainer_group")
            entry = {"group": name, "root": root, "trainer": trainer, "address": addresses[host],
                     "log": os.path.join(a.work, f"{host}.log")}
            summary["hosts"][host] = entry
            if a.hosts_only == "trainer" and not trainer:
                entry["exit"] = None
                continue
            env = dict(base_env)
            env.update(request.get("Environment", {}))
            env.update({
                "TRAINING_JOB_NAME": job,
                "TRAINING_JOB_ARN": f"arn:aws:sagemaker:us-east-1:123456789012:training-job/{job.lower()}",
            })
            log = open(entry["log"], "w")
            # The container: its network, its /opt/ml, PID 1 its process (a session leader, as runc makes it).
            argv = ["ip", "netns", "exec", host, "unshare", "--mount", "--pid", "--fork", "--mount-proc", "--kill-child=SIGKILL",
                    "sh", "-c", 'mount --bind "$0" /opt/ml && cd "$1" && shift && exec setsid "$@"', root, a.cwd] + command
            procs[host] = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline, stop_at, ok = time.monotonic() + a.timeout_s, None, True
    try:
        trainer_log = next(e["log"] for e in summary["hosts"].values() if e["trainer"])
        while any(p.poll() is None for p in procs.values()):
            now = time.monotonic()
            if now > deadline:
                ok = False
                break
            if a.stop and stop_at is None and __import__("re").search(a.stop, open(trainer_log, errors="replace").read()):
                stop_at = now
                summary["stopped_at"] = time.strftime("%H:%M:%S")
                for p in procs.values():
                    signal_pid1(p, signal.SIGTERM)
            if stop_at is not None and now > stop_at + a.stop_grace_s:
                summary["killed_after_stop"] = True
                for p in procs.values():
                    signal_pid1(p, signal.SIGKILL)
                stop_at = float("inf")
            time.sleep(0.2)
    finally:  # no played host outlives the harness
        for host, p in procs.items():
            if p.poll() is None:
                signal_pid1(p, signal.SIGKILL)
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                summary["hosts"][host]["exit"] = "timeout"
            else:
                summary["hosts"][host]["exit"] = p.returncode if p.returncode >= 0 else 128 - p.returncode
        json.dump(summary, open(os.path.join(a.work, "summary.json"), "w"), indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
