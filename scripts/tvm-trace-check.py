"""Checks Loopscope's `export --format tvm-trace` against TVM (run by scripts/tvm-export-check.sh
in a TVM 0.20 or 0.26 environment): EXPORT is Loopscope's export of a variant for that TVM, JSON
its tvm-trace. The schedule EXPORT builds must record exactly JSON as its trace, and JSON applied
by Trace.apply_json_to_schedule to the declared function must give the same scheduled module.
Prints "trace: same" or what differs; exits 1 when something differs."""
import json
import sys

import tvm

MARKER = "# --- run in TVM ---"


def plain(o):
    """TVM's JSON-style object as plain Python (TVM 0.26 leaves integers as IntImm)."""
    if isinstance(o, (list, tuple)) or type(o).__name__ == "Array":
        return [plain(x) for x in o]
    if isinstance(o, (bool, str)) or o is None:
        return o
    if isinstance(o, (int, float)):
        return o
    try:
        return int(o)
    except (TypeError, ValueError):
        return str(o)


def main(export_path, json_path):
    text = open(export_path).read()
    text = text[: text.index(MARKER)]
    scope = {}
    exec(compile(text, export_path, "exec"), scope)
    sch = scope["sch"]
    recorded = plain(sch.trace.as_json())
    written = json.load(open(json_path))
    if recorded != written:
        print("trace: TVM recorded " + json.dumps(recorded))
        print("trace: Loopscope wrote " + json.dumps(written))
        return 1
    declared = scope["prim_func"] if "prim_func" in scope else scope["Module"]
    schedule = type(sch)
    fresh = schedule(declared)
    trace_type = type(sch.trace)
    trace_type.apply_json_to_schedule(written, fresh)
    tvm.ir.assert_structural_equal(fresh.mod, sch.mod)
    print("trace: same, and it replays to the same module")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
