# Goldens of TVM v0.26.0's deep-dive tutorial
#   docs/deep_dive/tensor_ir/tutorials/tir_transformation.py  (taken from the v0.26.0 tree)
# run as a plain script: the tutorial's `mm_relu` module (MyModule, verbatim) and each of its
# transformation steps, printing `sch.mod.script()` after each step and the trace at the end.
# The tutorial's evaluate() timings are left out (they vary run to run); its correctness check
# (build with LLVM, run, compare with numpy) is kept, and prints nothing.
#
# usage: . /work/tvm/env-0.26.sh && python3 tir_transformation_goldens.py [OUTDIR]
# Each step goes to stdout and to OUTDIR/NN_step.txt (OUTDIR defaults to this file's folder).
import os
import sys

import numpy as np
import tvm
from tvm.script import ir as I
from tvm.script import tirx as T

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def emit(name, text):
    print(f"===== {name} =====")
    print(text)
    with open(os.path.join(OUT, name + ".txt"), "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")


@I.ir_module
class MyModule:
    @T.prim_func(s_tir=True)
    def main(
        A: T.Buffer((128, 128), "float32"),
        B: T.Buffer((128, 128), "float32"),
        C: T.Buffer((128, 128), "float32"),
    ):
        T.func_attr({"tirx.noalias": True})
        with T.sblock("root"):
            T.reads()
            T.writes()
            Y = T.sblock_alloc_buffer((128, 128))
            for i, j, k in T.grid(128, 128, 128):
                with T.sblock("Y"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    with T.init():
                        Y[vi, vj] = T.float32(0)
                    Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
            for i, j in T.grid(128, 128):
                with T.sblock("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi, vj] = T.max(Y[vi, vj], T.float32(0))


np.random.seed(0)
a_np = np.random.uniform(size=(128, 128)).astype("float32")
b_np = np.random.uniform(size=(128, 128)).astype("float32")
c_np = np.maximum(a_np @ b_np, 0)


def check(mod):
    lib = tvm.tirx.build(mod, target="llvm")
    a_nd, b_nd = tvm.runtime.tensor(a_np), tvm.runtime.tensor(b_np)
    c_nd = tvm.runtime.tensor(np.zeros((128, 128), dtype="float32"))
    lib(a_nd, b_nd, c_nd)
    np.testing.assert_allclose(c_nd.numpy(), c_np, rtol=1e-5)


emit("00_mm_relu", MyModule.script())
check(MyModule)

sch = tvm.s_tir.Schedule(MyModule)
block_Y = sch.get_sblock("Y")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 8])
emit("01_split", sch.mod.script())

sch.reorder(j0, k, j1)
emit("02_reorder", sch.mod.script())
check(sch.mod)

block_C = sch.get_sblock("C")
sch.reverse_compute_at(block_C, j0)
emit("03_reverse_compute_at", sch.mod.script())

sch.decompose_reduction(block_Y, k)
emit("04_decompose_reduction", sch.mod.script())
check(sch.mod)

# sch.trace.show() prints str(sch.trace) (through pygments when it is installed); print it plainly.
emit("05_trace", str(sch.trace))
