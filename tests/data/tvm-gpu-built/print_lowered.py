"""Prints what TVM prints for every variant of Loopscope's GPU samples and GPU test schedules.

Run once, outside the project's build and tests, with TVM 0.17 built from its v0.17.0 source (its
CPU build without LLVM is enough: tvm.lower needs no GPU, no CUDA and no LLVM):

    PYTHONPATH=/path/to/tvm-0.17/python TVM_LIBRARY_PATH=/path/to/tvm-0.17/build \\
        python3 tests/data/tvm-gpu-built/print_lowered.py

For each script it runs the script itself under TVM, with te.create_schedule recording every
schedule (a variant, named by the "# variant: NAME" comment above it, as Loopscope names it) and
tvm.build / tvm.lower recording their argument lists instead of building. Then it writes, beside
this file, SCRIPT.VARIANT.tvm.txt: tvm.lower(s, args, simple_mode=True) for that variant, where
args are the script's tvm.build/tvm.lower arguments when the variant computes them, else the
placeholders it reads in declaration order and then its outputs (the document format's rule).
A variant TVM refuses gets SCRIPT.VARIANT.tvm-error.txt with TVM's message instead.
"""

import inspect
import os
import re
import sys
import traceback

import tvm
from tvm import te

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
SCRIPTS = [
    "samples/gpu/add_relu_cuda.py",
    "samples/gpu/matmul_cuda.py",
    "samples/gpu/opt_conv_cuda.py",
    "samples/gpu/softmax_cuda.py",
    "tests/data/gpu/access_patterns.py",
    "tests/data/gpu/double_buffer_reduction.py",
    "tests/data/gpu/launch_inside_loops.py",
    "tests/data/gpu/matmul_shared.py",
    "tests/data/gpu/reductions.py",
    "tests/data/gpu/serial_in_block.py",
    "tests/data/gpu/shared_race.py",
]


def file_name(text):
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_")


def run_script(path):
    source = open(path).read()
    lines = source.splitlines()
    schedules = []  # (name, schedule, placeholders created so far)
    builds = []  # argument lists given to tvm.build / tvm.lower
    placeholders = []
    create_schedule, placeholder = te.create_schedule, te.placeholder
    build, lower = tvm.build, tvm.lower

    def record_placeholder(*args, **kwargs):
        t = placeholder(*args, **kwargs)
        placeholders.append(t)
        return t

    def record_schedule(ops):
        s = create_schedule(ops)
        line = inspect.stack()[1].lineno  # 1-based, in the script
        # The "# variant: NAME" line of the comment block right above create_schedule, else
        # the schedule variable's name (the document format's rule).
        assigned = re.match(r"\s*(\w+)\s*=\s*te\.create_schedule", lines[line - 1])
        name = assigned.group(1) if assigned else "s%d" % len(schedules)
        above = line - 2
        while above >= 0 and lines[above].strip().startswith("#"):
            m = re.match(r"#\s*variant:\s*(.+)$", lines[above].strip())
            if m:
                name = m.group(1).strip()
                break
            above -= 1
        schedules.append((name, s))
        return s

    def record_build(s, args=None, *rest, **kwargs):
        builds.append((s, list(args or [])))
        return None

    te.create_schedule, te.placeholder = record_schedule, record_placeholder
    tvm.build, tvm.lower = record_build, record_build
    try:
        exec(compile(source, path, "exec"), {"__name__": "__loopscope_script__"})
    finally:
        te.create_schedule, te.placeholder = create_schedule, placeholder
        tvm.build, tvm.lower = build, lower
    return schedules, builds, placeholders


def arguments(s, builds, placeholders):
    for built, args in builds:
        if built is s:
            return args
    stage_ops = {stage.op for stage in s.stages}
    # The script's own list, where every tensor in it is one this schedule computes or reads.
    for _, args in builds:
        if args and all(t.op in stage_ops for t in args):
            return args
    reads = [t for t in placeholders if t.op in stage_ops]
    return reads + [out.output(0) for out in s.outputs]


def main():
    for script in SCRIPTS:
        path = os.path.join(ROOT, script)
        base = os.path.splitext(os.path.basename(script))[0]
        schedules, builds, placeholders = run_script(path)
        for name, s in schedules:
            out = os.path.join(HERE, "%s.%s" % (base, file_name(name)))
            try:
                text = str(tvm.lower(s, arguments(s, builds, placeholders), simple_mode=True))
                with open(out + ".tvm.txt", "w") as f:
                    f.write(text if text.endswith("\n") else text + "\n")
                print("%s  %s: printed" % (script, name))
            except Exception:  # TVM's refusal is the golden then
                with open(out + ".tvm-error.txt", "w") as f:
                    f.write(traceback.format_exc().strip().splitlines()[-1] + "\n")
                print("%s  %s: TVM refused it" % (script, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
