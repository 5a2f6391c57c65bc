"""Plays SkyPilot or Kubernetes for one file `pperf launch skypilot|kubernetes` wrote, on one host:
each node (SkyPilot) or pod (Kubernetes) is a process on loopback with the variables that
platform gives it, running the command the file gives it. Host names the platform resolves
(an Indexed Job's JOB-I.SERVICE in cluster DNS; a SkyPilot job group's TASK-I.GROUP only where
SkyPilot's own optimizer code leaves the group in-group networking: on Kubernetes, never for a
group pinned to a cloud) are in /etc/hosts as the played hosts see it: the
harness runs in a mount namespace of its own (unshare) with its own hosts file bound over
/etc/hosts, rewritten in place when a pod comes back elsewhere (cluster DNS follows a pod). No
variable the platform does not set reaches a played host. A mount (/pperf-output: SkyPilot's
bucket, Kubernetes' claim) is a directory under WORK, put in place of the mount path in the
command.

SkyPilot (per task, node I of N): SKYPILOT_NODE_RANK=I, SKYPILOT_NODE_IPS (the task's N
addresses, one per line, rank order), SKYPILOT_NUM_NODES, SKYPILOT_TASK_ID,
SKYPILOT_NUM_GPUS_PER_NODE, SKYPILOT_JOBGROUP_NAME (a job group), the task's envs and secrets;
`run` under bash in the workdir (CWD). Kubernetes: the training operator's variables for the
PyTorchJob's Master (v1: MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK and the PET_* twins;
--trainer-v2: only PET_*), JOB_COMPLETION_INDEX and HOSTNAME for an Indexed Job's pods, the
downward API's POD_IP, POD_NAME and POD_UID, a Secret's keys for secretKeyRef. Kubernetes'
restarts as the controllers make them: the training operator (v1.9.0) re-creates the Master under
`restartPolicy: ExitCode` only for exit codes of 128 and more (OnFailure: any failure; Always:
any end), at most runPolicy.backoffLimit times; the Job controller replaces a failed pod of an
index as its podFailurePolicy says (Ignore: a pod with the DisruptionTarget condition, i.e. one
its node took away; FailJob/Count by exit code) within backoffLimit. A re-created pod gets a new
uid, address and node. --drain HOST@REGEX drains HOST's node once the trainer's log matches
REGEX: the kubelet's SIGTERM to the container's process, SIGKILL after the pod's
terminationGracePeriodSeconds (30 s), the pod marked DisruptionTarget.

usage: platform_harness.py skypilot|kubernetes PPERF FILE.yaml WORK CWD [--only-trainer | --no-trainer]
                           [--timeout-s N] [--trainer-v2] [--drain HOST@REGEX]...
Writes WORK/summary.json (per host: group, address, exit code (the last; every one in `exits`),
log; the drains); exit 0 when every process ran to its end within the timeout.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid

import yaml

MOUNT = "/pperf-output"
NAMESPACE_MARK = "PLATFORM_HARNESS_IN_NAMESPACE"


def start(host, argv, env, cwd, work, summary):
    entry = summary["hosts"][host]
    entry["log"] = os.path.join(work, f"{host}.log")
    log = open(entry["log"], "a")
    return host, subprocess.Popen(argv, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def wait_all(procs, timeout_s, summary):
    deadline, ok = time.monotonic() + timeout_s, True
    for host, p in procs:
        try:
            summary["hosts"][host]["exit"] = p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            ok = False
            summary["hosts"][host]["exit"] = "timeout"
            os.killpg(p.pid, 9)
            p.wait()
    return ok


class HostsFile:
    """The names the platform resolves for its hosts, in the hosts file bound over /etc/hosts."""

    def __init__(self, path):
        self.path, self.base, self.names = path, open("/etc/hosts").read(), {}
        self.write()
        subprocess.run(["mount", "--make-rprivate", "/"], check=True)
        subprocess.run(["mount", "--bind", path, "/etc/hosts"], check=True)

    def set(self, name, address):
        self.names[name] = address
        self.write()

    def write(self):
        # In place (the bind mount holds the inode): what a pod's next lookup reads.
        with open(self.path, "w") as f:
            f.write(self.base + "".join(f"{a} {n}\n" for n, a in self.names.items()))


class Addresses:
    """A played host's loopback address: each new pod (or node) the next one."""

    def __init__(self):
        self.n = 0

    def next(self):
        self.n += 1
        return f"127.0.0.{self.n + 1}"


class Pod:
    """One played host: how to start it (a fresh address each time) and whether it comes back."""

    def __init__(self, host, group, make, comes_back=None, names=()):
        self.host, self.group, self.make, self.names = host, group, make, list(names)
        self.comes_back = comes_back or (lambda code, drained: None)  # None: ends; else the reason it is re-created
        self.trainer = group == "trainer"


def skypilot_in_group_names(path):
    """Whether SkyPilot gives the job group in-group host names (TASK-I.GROUP in /etc/hosts), by its
    own code: the job-group loader, the optimizer's check of the infra pins against
    inter_connection (_validate_inter_connection_pins), then its same-infra rule that only a group
    placed on Kubernetes keeps names (the placement is the one cloud every task pins: the catalog
    search that picks among regions needs the network)."""
    import logging
    logging.disable(logging.WARNING)
    from sky import optimizer
    from sky.utils import dag_utils
    dag = dag_utils.load_job_group_from_yaml(path)
    if not optimizer._validate_inter_connection_pins(dag, True):
        clouds = {str(r.cloud) for t in dag.tasks for r in t.resources}
        if len(clouds) != 1 or "None" in clouds:
            sys.exit(f"platform_harness: {path}: tasks not pinned to one cloud ({sorted(clouds)}); the harness plays what is pinned")
        if dag.inter_connection is None and clouds.pop().lower() != "kubernetes":
            dag.inter_connection = False
    return dag.inter_connection_enabled()


def skypilot_hosts(docs, mount, addresses):
    group = docs[0]["name"] if len(docs) > 1 and docs[0].get("execution") == "parallel" else None
    tasks = docs[1:] if group else docs
    out, names = [], {}
    for t in tasks:
        ips = [addresses.next() for _ in range(t.get("num_nodes", 1))]
        for i, ip in enumerate(ips):
            names[f"{t['name']}-{i}.{group}"] = ip
        for i, ip in enumerate(ips):
            env = {k: str(v) for k, v in (t.get("envs") or {}).items()}
            env.update({k: str(v) for k, v in (t.get("secrets") or {}).items()})
            env.update({"SKYPILOT_NODE_RANK": str(i), "SKYPILOT_NODE_IPS": "\n".join(ips) + "\n",
                        "SKYPILOT_NUM_NODES": str(len(ips)), "SKYPILOT_NUM_GPUS_PER_NODE": "0",
                        "SKYPILOT_TASK_ID": f"sky-managed-2026-12-07-01-00-00-000000_{group or t['name']}_1-{len(out)}"})
            if group:
                env["SKYPILOT_JOBGROUP_NAME"] = group
            run = t["run"].replace(MOUNT, mount)
            for path, source in (t.get("file_mounts") or {}).items():
                if isinstance(source, str):  # a local directory SkyPilot uploads: here, the directory itself
                    run = run.replace(path, source)
            out.append(Pod(f"{t['name']}-{i}", t["name"] if group else "trainer",
                           lambda ip=ip, run=run, env=env: (ip, ["bash", "-c", run], env)))
    return out, names


def kubernetes_hosts(docs, mount, trainer_v2, addresses):
    secrets = {d["metadata"]["name"]: d.get("stringData", {}) for d in docs if d["kind"] == "Secret"}
    out = []

    def pod_env(container, name, ip):
        env, uid = {}, str(uuid.uuid4())
        for e in container.get("env", []):
            ref = e.get("valueFrom", {})
            if "fieldRef" in ref:
                env[e["name"]] = {"status.podIP": ip, "metadata.name": name, "metadata.uid": uid,
                                  "spec.nodeName": f"ip-{ip.replace('.', '-')}.ec2.internal"}[ref["fieldRef"]["fieldPath"]]
            elif "secretKeyRef" in ref:
                env[e["name"]] = secrets[ref["secretKeyRef"]["name"]][ref["secretKeyRef"]["key"]]
            else:
                env[e["name"]] = e["value"]
        return env

    def argv(container, pod):
        """The command, each Secret volume's mount path a directory holding its keys as files."""
        words = [a.replace(MOUNT, mount) for a in container.get("command", []) + container.get("args", [])]
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        for m in container.get("volumeMounts", []):
            secret = volumes[m["name"]].get("secret")
            if secret:
                where = os.path.join(os.path.dirname(mount), "secret-" + secret["secretName"])
                os.makedirs(where, exist_ok=True)
                for key, text in secrets[secret["secretName"]].items():
                    open(os.path.join(where, key), "w").write(text)
                words = [w.replace(m["mountPath"], where) for w in words]
        return words

    def job_policy(spec, container_name, failures):
        """The Job controller on a failed pod of an index: its podFailurePolicy, then backoffLimit."""
        def comes_back(code, drained):
            if code == 0:
                return None
            for rule in (spec.get("podFailurePolicy") or {}).get("rules", []):
                on_codes = rule.get("onExitCodes")
                if on_codes and on_codes.get("containerName", container_name) == container_name:
                    hit = (code in on_codes["values"]) == (on_codes["operator"] == "In")
                elif rule.get("onPodConditions"):
                    hit = drained and any(c["type"] == "DisruptionTarget" for c in rule["onPodConditions"])
                else:
                    hit = False
                if not hit:
                    continue
                if rule["action"] == "Ignore":
                    return "podFailurePolicy Ignore (DisruptionTarget)"
                if rule["action"] == "FailJob":
                    return None
                break  # Count
            failures[0] += 1
            return f"failure {failures[0]} of backoffLimit {spec.get('backoffLimit', 6)}" if failures[0] <= spec.get("backoffLimit", 6) else None
        return comes_back

    for d in docs:
        if d["kind"] == "Job":
            spec, name = d["spec"], d["metadata"]["name"]
            pod, failures = spec["template"]["spec"], [0]
            c = pod["containers"][0]
            for i in range(spec["completions"]):
                def make(ip, i=i, name=name, c=c, pod=pod):
                    env = pod_env(c, f"{name}-{i}-{uuid.uuid4().hex[:5]}", ip)
                    env.update({"JOB_COMPLETION_INDEX": str(i), "HOSTNAME": f"{name}-{i}"})
                    return ip, argv(c, pod), env
                out.append(Pod(f"{name}-{i}", name, make, job_policy(spec, c["name"], failures),
                               names=[f"{name}-{i}.{pod['subdomain']}"]))
        elif d["kind"] == "PyTorchJob":
            name = d["metadata"]["name"]
            replica = d["spec"]["pytorchReplicaSpecs"]["Master"]
            master = replica["template"]["spec"]
            c = next(c for c in master["containers"] if c["name"] == "pytorch")
            limit, restarts = d["spec"].get("runPolicy", {}).get("backoffLimit"), [0]

            def make(ip, name=name, c=c, master=master):
                env = pod_env(c, f"{name}-master-0", ip)
                pet = {"PET_NNODES": "1", "PET_NPROC_PER_NODE": "1", "PET_NODE_RANK": "0",
                       "PET_MASTER_ADDR": f"{name}-master-0", "PET_MASTER_PORT": "29500" if trainer_v2 else "23456"}
                env.update(pet if trainer_v2 else {**pet, "MASTER_ADDR": f"{name}-master-0", "MASTER_PORT": "23456",
                                                   "WORLD_SIZE": "1", "RANK": "0", "PYTHONUNBUFFERED": "1"})
                return ip, argv(c, master), env

            def comes_back(code, drained, policy=replica.get("restartPolicy", "Never"), limit=limit, restarts=restarts):
                retry = {"ExitCode": code >= 128, "OnFailure": code != 0, "Always": True}.get(policy, False)
                if not retry or (limit is not None and restarts[0] >= limit):
                    return None
                restarts[0] += 1
                return f"restartPolicy {policy}, exit {code}: restart {restarts[0]} of backoffLimit {limit}"
            out.append(Pod(f"{name}-master-0", "trainer", make, comes_back))
    return out


def play(pods, hosts, a, summary, cwd, bin_dir):
    """Starts every pod, plays the drains and the controllers' re-creations; True when all ended in time."""
    addresses = Addresses()
    addresses.n = 100  # re-created pods: addresses no first pod has
    drains = [dict(zip(("host", "regex"), d.split("@", 1))) for d in a.drain]
    running, deadline, ok = {}, time.monotonic() + a.timeout_s, True
    trainer_log = None

    def launch(pod, ip):
        ip, argv, extra = pod.make(ip)
        for n in pod.names:
            hosts.set(n, ip)
        entry = summary["hosts"].setdefault(pod.host, {"group": pod.group, "exits": []})
        entry.update({"address": ip, "argv": argv})
        env = dict(os.environ)
        env.pop(NAMESPACE_MARK, None)
        env["PATH"] = bin_dir + os.pathsep + env["PATH"]
        env.update(extra)
        running[pod.host] = (pod, start(pod.host, argv, env, cwd, a.work, summary)[1], None)

    first = Addresses()
    for pod in pods:
        if (a.only_trainer and not pod.trainer) or (a.no_trainer and pod.trainer):
            ip = first.next()
            summary["hosts"][pod.host] = {"group": pod.group, "address": ip, "exit": None, "exits": []}
            continue
        launch(pod, first.next())
        if pod.trainer:
            trainer_log = summary["hosts"][pod.host]["log"]
    try:
        return play_until_done(running, deadline, drains, trainer_log, launch, addresses, summary, ok)
    finally:  # stopped itself (a test's timeout): no played host outlives the harness
        for _, p, _ in running.values():
            if p.poll() is None:
                os.killpg(p.pid, 9)


def play_until_done(running, deadline, drains, trainer_log, launch, addresses, summary, ok):
    while running:
        now = time.monotonic()
        if now > deadline:
            for host, (_, p, _) in running.items():
                os.killpg(p.pid, 9)
                p.wait()
                summary["hosts"][host]["exit"] = "timeout"
            return False
        text = open(trainer_log, errors="replace").read() if trainer_log else ""
        for d in drains:
            if "at" not in d and d["host"] in running and re.search(d["regex"], text):
                pod, p, _ = running[d["host"]]
                d["at"] = time.strftime("%H:%M:%S")
                p.send_signal(signal.SIGTERM)  # the kubelet's stop reaches the container's own process
                running[d["host"]] = (pod, p, now + 30)
        for host, (pod, p, kill_at) in list(running.items()):
            if kill_at and now > kill_at and p.poll() is None:
                os.killpg(p.pid, 9)
            code = p.poll()
            if code is None:
                continue
            del running[host]
            entry = summary["hosts"][host]
            entry["exit"] = code
            entry["exits"].append(code)
            why = pod.comes_back(code, kill_at is not None)
            if why:
                entry.setdefault("restarts", []).append(why)
                launch(pod, addresses.next())
            elif code != 0:
                ok = False
        time.sleep(0.2)
    summary["drains"] = drains
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("platform", choices=["skypilot", "kubernetes"])
    ap.add_argument("pperf")
    ap.add_argument("file")
    ap.add_argument("work")
    ap.add_argument("cwd")
    ap.add_argument("--only-trainer", action="store_true")
    ap.add_argument("--no-trainer", action="store_true", help="the trainer never starts (no capacity for it)")
    ap.add_argument("--timeout-s", type=float, default=120)
    ap.add_argument("--trainer-v2", action="store_true")
    ap.add_argument("--drain", action="append", default=[], metavar="HOST@REGEX")
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if os.environ.get(NAMESPACE_MARK) != "1":
        # A mount namespace of its own, for its own /etc/hosts.
        os.environ[NAMESPACE_MARK] = "1"
        os.execvp("unshare", ["unshare", "--mount", sys.executable, os.path.abspath(__file__)] + sys.argv[1:])
    docs = [d for d in yaml.safe_load_all(open(a.file)) if d is not None]
    os.makedirs(a.work, exist_ok=True)
    mount = os.path.join(a.work, "mount")
    os.makedirs(mount, exist_ok=True)
    hosts = HostsFile(os.path.join(a.work, "hosts"))
    summary = {"hosts": {}, "mount": mount}
    if a.platform == "skypilot":
        pods, names = skypilot_hosts(docs, mount, Addresses())
        group = len(docs) > 1 and docs[0].get("execution") == "parallel"
        summary["in_group_names"] = group and skypilot_in_group_names(a.file)
        for n, ip in names.items() if summary["in_group_names"] else ():
            hosts.set(n, ip)
    else:
        pods = kubernetes_hosts(docs, mount, a.trainer_v2, Addresses())
    # The image's `pperf` on PATH: the binary under test.
    bin_dir = os.path.join(a.work, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    if os.path.lexists(os.path.join(bin_dir, "pperf")):
        os.remove(os.path.join(bin_dir, "pperf"))
    os.symlink(os.path.abspath(a.pperf), os.path.join(bin_dir, "pperf"))
    ok = play(pods, hosts, a, summary, a.cwd, bin_dir)
    json.dump(summary, open(os.path.join(a.work, "summary.json"), "w"), indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
