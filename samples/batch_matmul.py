# A batched matmul: C[b] = A[b] @ B[b], 16 products of 192 x 256 by 256 x 256 (the size of a
# transformer's attention products), as TOPI's batch_matmul computes them.
#
# The hand schedule is gemm_best.py's, per matrix: a 6 x 16 block of C in registers (the write
# cache CC, 12 of AVX2's 16 vector registers) while k streams through, and B's 16 columns of each
# panel copied once (BB, computed at the parallel loop) so the block reads them contiguously. The
# batch and the panels are fused into one parallel loop. The tuner finds the same structure from
# the naive loops (its panel rule, whose first register block is 8 x 32 on AVX-512).
import tvm
from tvm import te

NB = 16
M = 192
K = 256
N = 256

A = te.placeholder((NB, M, K), name="A")
B = te.placeholder((NB, K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((NB, M, N), lambda b, i, j: te.sum(A[b, i, k] * B[b, k, j], axis=k), name="C")

# variant: naive
s = te.create_schedule(C.op)

# variant: hand
s = te.create_schedule(C.op)
BB = s.cache_read(B, "global", [C])
CC = s.cache_write(C, "local")
b, i, j = s[C].op.axis
io, jo, ii, ji = s[C].tile(i, j, 6, 16)
s[C].reorder(b, jo, io, ii, ji)
s[CC].compute_at(s[C], io)
bc, mc, nc = s[CC].op.axis
(kc,) = s[CC].op.reduce_axis
s[CC].reorder(bc, kc, mc, nc)
s[CC].unroll(mc)
s[CC].vectorize(nc)
s[C].vectorize(ji)
f = s[C].fuse(b, jo)
s[C].parallel(f)
s[BB].compute_at(s[C], f)
s[BB].vectorize(s[BB].op.axis[-1])
func = tvm.build(s, [A, B, C], target="llvm", name="batch_matmul")
