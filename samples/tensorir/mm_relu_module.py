# TVM's TensorIR deep-dive tutorial as today's TVM (v0.24-v0.26) writes it: the `mm_relu`
# module in TVMScript (docs/deep_dive/tensor_ir/tutorials/tir_transformation.py), then the
# tutorial's transformations, each variant a step further. `loopscope-cli lower` prints each as
# `sch.mod.show()` does in TVM 0.26, `lower --trace` the trace, `run --check` runs and checks it.
# The same module in v0.20-v0.23's spelling (T.block, T.alloc_buffer, tvm.tir.Schedule) is
# tests/data/tvm-tir/mm_relu_module_020.py.
import tvm
from tvm.script import ir as I
from tvm.script import tirx as T


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


# variant: as written
sch = tvm.s_tir.Schedule(MyModule)

# variant: the tutorial's steps
sch = tvm.s_tir.Schedule(MyModule)
block_Y = sch.get_sblock("Y", func_name="main")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 8])
sch.reorder(j0, k, j1)
block_C = sch.get_sblock("C", "main")
sch.reverse_compute_at(block_C, j0)
sch.decompose_reduction(block_Y, k)

# variant: vectorized and parallel
sch = tvm.s_tir.Schedule(MyModule)
block_Y = sch.get_sblock("Y")
i, *rest = sch.get_loops(block_Y)
j0, j1 = sch.split(rest[0], factors=[None, 16])
sch.reorder(j0, rest[-1], j1)
sch.reverse_compute_at(sch.get_sblock("C"), j0)
sch.parallel(i)
for block in [block_Y, sch.get_sblock("C")]:
    sch.vectorize(sch.get_loops(block)[-1])
sch.decompose_reduction(block_Y, rest[1])
