# TVM's TensorIR deep-dive tutorial (docs/deep_dive/tensor_ir/tutorials/tir_transformation.py):
# a matmul followed by ReLU, declared with TE, made a TensorIR function by te.create_prim_func and
# scheduled with tir.Schedule, as today's TVM schedules it (TE schedules were removed in v0.20).
# The first variants use the v0.20-v0.23 spelling (tvm.tir.Schedule, get_block); the last one
# v0.24-v0.26's (tvm.s_tir.Schedule, get_sblock), which prints T.sblock and tirx.
# `loopscope-cli lower` prints each as sch.mod.show() does; `lower --compiled` after lowering.
import tvm
from tvm import te

M = 128
N = 128
K = 128
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
Y = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="Y")
C = te.compute((M, N), lambda i, j: te.max(Y[i, j], te.const(0, "float32")), name="C")
func = te.create_prim_func([A, B, C])

# variant: as declared
sch = tvm.tir.Schedule(func)
sch.mod.show()

# variant: the tutorial's steps
sch = tvm.tir.Schedule(func)
block_Y = sch.get_block("Y")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 8])
sch.reorder(j0, k, j1)
block_C = sch.get_block("C")
sch.reverse_compute_at(block_C, j0)
sch.decompose_reduction(block_Y, k)
sch.mod.show()

# variant: vectorized and parallel
sch = tvm.tir.Schedule(func)
block_Y = sch.get_block("Y")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 16])
sch.reorder(i, j0, k, j1)
block_C = sch.get_block("C")
sch.reverse_compute_at(block_C, j0)
sch.parallel(i)
sch.vectorize(j1)
init = sch.decompose_reduction(block_Y, k)
sch.mod.show()

# variant: today's spelling
sch = tvm.s_tir.Schedule(func)
block_Y = sch.get_sblock("Y")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 8])
sch.reorder(j0, k, j1)
block_C = sch.get_sblock("C")
sch.reverse_compute_at(block_C, j0)
sch.decompose_reduction(block_Y, k)
sch.mod.show()
