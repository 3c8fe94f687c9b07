# The matmul ladder in today's TVM (0.24-0.26 spelling): the steps of samples/matmul_ladder.py,
# each TE schedule written as the tir.Schedule calls that make its loop nest, on the function
# te.create_prim_func makes of the declarations. Made by `loopscope-cli convert
# samples/matmul_ladder.py`; View > TensorIR Form shows each TE step beside its calls.
import tvm
from tvm import te

M = 1024
K = 1024
N = 1024

A = te.placeholder((M, K), name="A", dtype="float32")
B = te.placeholder((K, N), name="B", dtype="float32")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

# variant: naive
sch = tvm.s_tir.Schedule(te.create_prim_func([A, B, C]))
b_C = sch.get_sblock("C")
i, j, k_loop = sch.get_loops(b_C)
# C's init before its first reduction loop, where TE puts it
sch.decompose_reduction(b_C, k_loop)

# variant: tile 32x32
# Split i and j by 32 and put the two outer loops outside: a 32x32 block of C at a time.
sch = tvm.s_tir.Schedule(te.create_prim_func([A, B, C]))
b_C = sch.get_sblock("C")
i_loop, j_loop, k_loop = sch.get_loops(b_C)
i_outer, i_inner = sch.split(i_loop, factors=[None, 32])
j_outer, j_inner = sch.split(j_loop, factors=[None, 32])
sch.reorder(j_outer, i_inner)
# C's init before its first reduction loop, where TE puts it
sch.decompose_reduction(b_C, k_loop)

# variant: split k
# Bring the reduction between the block loops and the block: k in chunks of 4.
sch = tvm.s_tir.Schedule(te.create_prim_func([A, B, C]))
b_C = sch.get_sblock("C")
i_loop, j_loop, k_loop = sch.get_loops(b_C)
i_outer, i_inner = sch.split(i_loop, factors=[None, 32])
j_outer, j_inner = sch.split(j_loop, factors=[None, 32])
k_outer, k_inner = sch.split(k_loop, factors=[None, 4])
sch.reorder(j_outer, k_outer, i_inner, j_inner)
# C's init before its first reduction loop, where TE puts it
sch.decompose_reduction(b_C, k_outer)

# variant: vectorize
# Split ji by 8 and vectorize the inner part.
sch = tvm.s_tir.Schedule(te.create_prim_func([A, B, C]))
b_C = sch.get_sblock("C")
i_loop, j_loop, k_loop = sch.get_loops(b_C)
i_outer, i_inner = sch.split(i_loop, factors=[None, 32])
j_outer, j_inner = sch.split(j_loop, factors=[None, 32])
k_outer, k_inner = sch.split(k_loop, factors=[None, 4])
sch.reorder(j_outer, k_outer, i_inner, j_inner)
j_inner_outer, j_inner_inner = sch.split(j_inner, factors=[None, 8])
sch.vectorize(j_inner_inner)
# C's init before its first reduction loop, where TE puts it
sch.decompose_reduction(b_C, k_outer)

# variant: parallel
# Run the outer row blocks on all cores.
sch = tvm.s_tir.Schedule(te.create_prim_func([A, B, C]))
b_C = sch.get_sblock("C")
i_loop, j_loop, k_loop = sch.get_loops(b_C)
i_outer, i_inner = sch.split(i_loop, factors=[None, 32])
j_outer, j_inner = sch.split(j_loop, factors=[None, 32])
k_outer, k_inner = sch.split(k_loop, factors=[None, 4])
sch.reorder(j_outer, k_outer, i_inner, j_inner)
j_inner_outer, j_inner_inner = sch.split(j_inner, factors=[None, 8])
sch.vectorize(j_inner_inner)
sch.parallel(i_outer)
# C's init before its first reduction loop, where TE puts it
sch.decompose_reduction(b_C, k_outer)

# variant: unroll
# Unroll the short reduction chunk.
sch = tvm.s_tir.Schedule(te.create_prim_func([A, B, C]))
b_C = sch.get_sblock("C")
i_loop, j_loop, k_loop = sch.get_loops(b_C)
i_outer, i_inner = sch.split(i_loop, factors=[None, 32])
j_outer, j_inner = sch.split(j_loop, factors=[None, 32])
k_outer, k_inner = sch.split(k_loop, factors=[None, 4])
sch.reorder(j_outer, k_outer, i_inner, j_inner)
j_inner_outer, j_inner_inner = sch.split(j_inner, factors=[None, 8])
sch.vectorize(j_inner_inner)
sch.parallel(i_outer)
sch.unroll(k_inner)
# C's init before its first reduction loop, where TE puts it
sch.decompose_reduction(b_C, k_outer)
