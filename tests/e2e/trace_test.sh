#!/usr/bin/env bash
# `pperf run --trace DIR` on the CPU: two configurations of a tiny ViT measured in turns, each
# traced after its measured steps into a file of its own that the result names. The trace parses
# as JSON in Chrome's object form (traceEvents, numeric pid/tid: Kineto's object on torch 2.x, the
# legacy profiler's array on 1.13 rewritten so), the console names the folder; it holds the step's
# operators inside 5 step ranges ProfilerStep#N numbered as the result says, and each range lasts
# within 10 % of the runner's time for that step; the measured samples are the measured steps
# only; bench/compare_traces.py finds the same operators in both. Also: --trace at a path that cannot be a folder, and execution.cuda_graphs on the CPU,
# are refused with one line (exit 2) before anything runs. Label torch2: run on both torches.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cat > "$work/c.json" <<'JSON'
{"name": "trace", "seed": 0, "pricing": {"table": "aws-sagemaker-us-east-1"},
 "workloads": [{"name": "vit_synthetic", "preset": "tiny", "batch_size": 8}],
 "measure": {"warmup_steps": 2, "min_steps": 10, "max_steps": 10},
 "configurations": [
   {"name": "one thread", "baseline": true, "instances": [{"type": "ml.c5.9xlarge"}], "execution": {"threads": 1}},
   {"name": "b", "instances": [{"type": "ml.c5.18xlarge"}], "execution": {"threads": 1}}]}
JSON
check "run --trace completes" expect_exit 0 "$work/run.log" "$pperf" run --config "$work/c.json" --trace "$work/traces" --out "$work/out.json"
check "the console says where the traces went" grep -qx "traces: 2 files in $work/traces (Chrome trace JSON: ui.perfetto.dev, chrome://tracing)" "$work/run.log"
# Chrome's object form, as Perfetto's importer and chrome://tracing loaders read it: an object
# with traceEvents, every pid and tid a number, the names they stood for as metadata events.
object_form() {
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list), f"not the object form: {type(doc).__name__}"
events = doc["traceEvents"]
bad = [e for e in events if not isinstance(e.get("pid", 0), int) or not isinstance(e.get("tid", 0), int)]
assert not bad, f"{len(bad)} events with a pid or tid that is not a number, e.g. {bad[0]}"
assert any(e.get("ph") == "X" for e in events), "no complete events"
named = {e["pid"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
unnamed = {e["pid"] for e in events if e.get("ph") == "X"} - named
assert not unnamed, f"processes {unnamed} without a process_name event"
PY
}
check "trace 1 in Chrome's object form, numeric pid/tid" object_form "$work/traces/vit_synthetic.one_thread.json"
check "trace 2 in Chrome's object form, numeric pid/tid" object_form "$work/traces/vit_synthetic.b.json"
check "one trace per configuration, named in its result" json_check "$work/out.json" "
[r['trace']['path'] for r in j['results']] == ['$work/traces/vit_synthetic.one_thread.json', '$work/traces/vit_synthetic.b.json']
all(r['trace']['steps'] == 5 == len(r['trace']['step_ms']) for r in j['results'])
all(r['trace']['profiler'] in ('kineto', 'autograd-legacy') and r['trace']['activities'] == ['cpu'] for r in j['results'])
all(r['step_time_ms']['n'] == len(r['step_time_ms']['samples']) == 10 for r in j['results'])
"
check "the results with their traces are valid against the results schema" \
  /usr/bin/python3 tests/e2e/validate_schema.py schemas/results.schema.json "$work/out.json"
check "a results file with a trace reads back (pperf report)" expect_exit 0 "$work/report.log" \
  "$pperf" report "$work/out.json" --html "$work/report.html"
# Each trace against its result: the step ranges, their operators, their durations.
trace_matches() {  # trace_matches RESULT-INDEX
  /usr/bin/python3 - "$work/out.json" "$1" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]
t = r["trace"]
doc = json.load(open(t["path"]))
events = doc["traceEvents"] if isinstance(doc, dict) else doc
complete = [e for e in events if e.get("ph") == "X" and "dur" in e]
steps = sorted((e for e in complete if re.fullmatch(r"ProfilerStep#\d+", e["name"]) and e.get("cat") != "gpu_user_annotation"),
               key=lambda e: float(e["ts"]))
names = [e["name"] for e in steps]
want = [f"ProfilerStep#{t['first_step'] + i}" for i in range(t["steps"])]
assert names == want, f"step ranges {names}, expected {want}"
for i, (s, ms) in enumerate(zip(steps, t["step_ms"])):
    start, dur = float(s["ts"]), float(s["dur"])
    inside = {e["name"] for e in complete if start <= float(e["ts"]) and float(e["ts"]) + float(e["dur"]) <= start + dur and e is not s}
    for op in ("aten::addmm", "aten::_softmax", "aten::gelu", "aten::native_layer_norm"):
        assert any(n.startswith(op) for n in inside), f"step {i}: no {op} inside ({len(inside)} names)"
    assert any("backward" in n.lower() for n in inside), f"step {i}: no backward operator inside"
    ratio = dur / 1000 / ms
    assert 0.9 <= ratio <= 1.1, f"step {i}: the trace's range is {dur / 1000:.3f} ms, the runner timed {ms:.3f} ms"
measured = sorted(r["step_time_ms"]["samples"])[len(r["step_time_ms"]["samples"]) // 2]
traced = sorted(t["step_ms"])[len(t["step_ms"]) // 2]
print(f"  {t['profiler']}: {len(steps)} steps, {len(complete)} ranges; traced median {traced:.2f} ms "
      f"(under the profiler) against the measured median {measured:.2f} ms: {traced / measured:.2f}x")
PY
}
check "trace 1: 5 step ranges numbered as the result says, operators inside, each within 10 % of the runner's time" trace_matches 0
check "trace 2: the same" trace_matches 1
# bench/compare_traces.py on the CPU: one model, two configurations, the same operators per step.
same_ops() {
  /usr/bin/python3 bench/compare_traces.py "$work/traces/vit_synthetic.one_thread.json" "$work/traces/vit_synthetic.b.json" > "$work/ops.txt" &&
    tail -n 1 "$work/ops.txt" | grep -E "operators ([0-9]+) / \1 per step, [0-9]+ names, 0 with different counts" || { cat "$work/ops.txt"; return 1; }
}
check "compare_traces.py: the two configurations' steps run the same operators" same_ops

touch "$work/a-file"
check "--trace under a file: one line, exit 2, with the command's prefix" one_line_error "^pperf run: --trace: cannot make the folder " \
  "$pperf" run --quiet --config "$work/c.json" --trace "$work/a-file/traces" --out "$work/never.json"
/usr/bin/python3 - "$work/c.json" "$work/graphs.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["configurations"][0]["execution"]["cuda_graphs"] = True
json.dump(c, open(sys.argv[2], "w"))
PY
check "cuda_graphs on the CPU: refused before anything runs, naming the key" one_line_error \
  "/configurations/0/execution/cuda_graphs: CUDA graphs replay a GPU's kernels, and execution.device is cpu" \
  "$pperf" run --quiet --config "$work/graphs.json" --out "$work/never.json"
check "nothing written by a refused run" test ! -e "$work/never.json"
finish
