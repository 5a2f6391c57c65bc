"""Plays SkyPilot or Kubernetes for one file `pperf launch skypilot|kubernetes` wrote, on one host:
each node (SkyPilot) or pod (Kubernetes) is a process on loopback with the variables that
platform gives it, running the command the file gives it. Host names the platform resolves
(SkyPilot's job-group names TASK-I.GROUP, an Indexed Job's JOB-I.SERVICE) reach their loopback
address through PPERF_HOSTS; a mount (/pperf-output: SkyPilot's bucket, Kubernetes' claim) is a
directory under WORK, put in place of the mount path in the command.

SkyPilot (per task, node I of N): SKYPILOT_NODE_RANK=I, SKYPILOT_NODE_IPS (the task's N
addresses, one per line, rank order), SKYPILOT_NUM_NODES, SKYPILOT_TASK_ID,
SKYPILOT_NUM_GPUS_PER_NODE, SKYPILOT_JOBGROUP_NAME (a job group), the task's envs and secrets;
`run` under bash in the workdir (CWD). Kubernetes: the training operator's variables for the
PyTorchJob's Master (v1: MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK and the PET_* twins;
--trainer-v2: only PET_*), JOB_COMPLETION_INDEX and HOSTNAME for an Indexed Job's pods, the
downward API's POD_IP, POD_NAME and POD_UID, a Secret's keys for secretKeyRef.

usage: platform_harness.py skypilot|kubernetes PPERF FILE.yaml WORK CWD [--only-trainer]
                           [--timeout-s N] [--trainer-v2]
Writes WORK/summary.json (per host: group, address, exit code, log); exit 0 when every process
ran to its end within the timeout.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time
import uuid

import yaml

MOUNT = "/pperf-output"


def start(host, argv, env, cwd, work, summary):
    entry = summary["hosts"][host]
    entry["log"] = os.path.join(work, f"{host}.log")
    log = open(entry["log"], "w")
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


def skypilot_hosts(docs, mount):
    """(host, group, address, argv, env) per node."""
    group = docs[0]["name"] if len(docs) > 1 and docs[0].get("execution") == "parallel" else None
    tasks = docs[1:] if group else docs
    out, names, n = [], {}, 0
    for t in tasks:
        ips = [f"127.0.0.{n + i + 2}" for i in range(t.get("num_nodes", 1))]
        n += len(ips)
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
            out.append((f"{t['name']}-{i}", t["name"], ip, ["bash", "-c", run], env))
    return out, names


def kubernetes_hosts(docs, mount, trainer_v2):
    secrets = {d["metadata"]["name"]: d.get("stringData", {}) for d in docs if d["kind"] == "Secret"}
    out, names, n = [], {}, 0

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

    for d in docs:
        if d["kind"] == "Job":
            spec, name = d["spec"], d["metadata"]["name"]
            pod = spec["template"]["spec"]
            for i in range(spec["completions"]):
                ip = f"127.0.0.{n + 2}"
                n += 1
                names[f"{name}-{i}.{pod['subdomain']}"] = ip
                c = pod["containers"][0]
                env = pod_env(c, f"{name}-{i}-x7k2p", ip)
                env.update({"JOB_COMPLETION_INDEX": str(i), "HOSTNAME": f"{name}-{i}"})
                out.append((f"{name}-{i}", name, ip, argv(c, pod), env))
        elif d["kind"] == "PyTorchJob":
            name = d["metadata"]["name"]
            master = d["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]
            c = next(c for c in master["containers"] if c["name"] == "pytorch")
            ip = f"127.0.0.{n + 2}"
            n += 1
            env = pod_env(c, f"{name}-master-0", ip)
            pet = {"PET_NNODES": "1", "PET_NPROC_PER_NODE": "1", "PET_NODE_RANK": "0",
                   "PET_MASTER_ADDR": f"{name}-master-0", "PET_MASTER_PORT": "29500" if trainer_v2 else "23456"}
            env.update(pet if trainer_v2 else {**pet, "MASTER_ADDR": f"{name}-master-0", "MASTER_PORT": "23456",
                                               "WORLD_SIZE": "1", "RANK": "0", "PYTHONUNBUFFERED": "1"})
            out.append((f"{name}-master-0", "trainer", ip, argv(c, master), env))
    return out, names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("platform", choices=["skypilot", "kubernetes"])
    ap.add_argument("pperf")
    ap.add_argument("file")
    ap.add_argument("work")
    ap.add_argument("cwd")
    ap.add_argument("--only-trainer", action="store_true")
    ap.add_argument("--timeout-s", type=float, default=120)
    ap.add_argument("--trainer-v2", action="store_true")
    a = ap.parse_args()
    docs = [d for d in yaml.safe_load_all(open(a.file)) if d is not None]
    mount = os.path.join(a.work, "mount")
    os.makedirs(mount, exist_ok=True)
    hosts, names = skypilot_hosts(docs, mount) if a.platform == "skypilot" else kubernetes_hosts(docs, mount, a.trainer_v2)
    # The image's `pperf` on PATH: the binary under test.
    bin_dir = os.path.join(a.work, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    if os.path.lexists(os.path.join(bin_dir, "pperf")):
        os.remove(os.path.join(bin_dir, "pperf"))
    os.symlink(os.path.abspath(a.pperf), os.path.join(bin_dir, "pperf"))
    summary, procs = {"hosts": {}, "mount": mount}, []
    for host, group, ip, argv, extra in hosts:
        summary["hosts"][host] = {"group": group, "address": ip, "argv": argv}
        if a.only_trainer and group != "trainer" and not host.endswith("-master-0"):
            summary["hosts"][host]["exit"] = None
            continue
        env = dict(os.environ)
        env["PATH"] = bin_dir + os.pathsep + env["PATH"]
        env.update(extra)
        env["PPERF_HOSTS"] = ",".join(f"{k}={v}" for k, v in names.items())
        procs.append(start(host, argv, env, a.cwd, a.work, summary))
    ok = wait_all(procs, a.timeout_s, summary)
    json.dump(summary, open(os.path.join(a.work, "summary.json"), "w"), indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
