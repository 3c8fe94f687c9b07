# The deep-dive tutorial's mm_relu module in TVM v0.20-v0.23's spelling (T.block, T.alloc_buffer,
# tvm.tir.Schedule), as v0.20 wrote it with a root block; the same steps as
# samples/tensorir/mm_relu_module.py, which is in v0.24-v0.26's spelling.
import tvm
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class MyModule:
    @T.prim_func
    def main(
        A: T.Buffer((128, 128), "float32"),
        B: T.Buffer((128, 128), "float32"),
        C: T.Buffer((128, 128), "float32"),
    ):
        T.func_attr({"tir.noalias": T.bool(True)})
        with T.block("root"):
            T.reads()
            T.writes()
            Y = T.alloc_buffer((128, 128))
            for i, j, k in T.grid(128, 128, 128):
                with T.block("Y"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    with T.init():
                        Y[vi, vj] = T.float32(0)
                    Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
            for i, j in T.grid(128, 128):
                with T.block("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi, vj] = T.max(Y[vi, vj], T.float32(0))


# variant: as written
sch = tvm.tir.Schedule(MyModule)

# variant: the tutorial's steps
sch = tvm.tir.Schedule(MyModule)
block_Y = sch.get_block("Y", func_name="main")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 8])
sch.reorder(j0, k, j1)
block_C = sch.get_block("C", "main")
sch.reverse_compute_at(block_C, j0)
sch.decompose_reduction(block_Y, k)

# variant: vectorized and parallel
sch = tvm.tir.Schedule(MyModule)
block_Y = sch.get_block("Y")
i, *rest = sch.get_loops(block_Y)
j0, j1 = sch.split(rest[0], factors=[None, 16])
sch.reorder(j0, rest[-1], j1)
sch.reverse_compute_at(sch.get_block("C"), j0)
sch.parallel(i)
for block in [block_Y, sch.get_block("C")]:
    sch.vectorize(sch.get_loops(block)[-1])
sch.decompose_reduction(block_Y, rest[1])
