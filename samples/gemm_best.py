# The fastest matmul schedule Loopscope knows for a CPU with 256-bit vectors (AVX2: 16 vector
# registers of 8 floats), written in plain TE.
#
# The idea is the one every fast GEMM uses: keep a small block of C in registers (the write cache
# CC, 4 rows x 16 columns = 8 vector registers) while the reduction streams through k, read B from
# a packed copy whose 16-wide panels are contiguous, and split C into blocks that fit the caches so
# each panel of packedB is reused across many rows of A.
#
# With AVX-512 (32 registers of 16 floats) a 4 x 16 block is only 4 registers, too few to keep
# both FMA pipes busy. There, hold 8 x 32 (16 registers): `--set mr=8 --set nr=32`. Its inner loop
# is then 16 FMAs for 2 loads of packedB and 8 broadcasts of A, as
# `loopscope-cli export samples/gemm_best.py --format asm --target "llvm -mcpu=znver4" --set mr=8
# --set nr=32` shows. (On AVX2 the same block needs 32 registers and spills.)
import tvm
from tvm import te

M = 1024
K = 1024
N = 1024

mr = 4    # rows of C held in registers
nr = 16   # columns of C held in registers (two 8-float vectors)
mb = 128  # rows of C per cache block
nb = 128  # columns of C per cache block

A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")

# packedB[x, k, y] = B[k, x * nr + y]: for each nr-wide panel, the rows of B one after another.
# When nr does not divide N, the last panel is padded with zeros.
packedB = te.compute(
    ((N + nr - 1) // nr, K, nr),
    lambda x, kk, y: tvm.tir.if_then_else(x * nr + y < N, B[kk, x * nr + y], 0.0),
    name="packedB",
)
C = te.compute(
    (M, N),
    lambda i, j: te.sum(A[i, k] * packedB[j // nr, k, j % nr], axis=k),
    name="C",
)

# variant: register blocked
s = te.create_schedule(C.op)
CC = s.cache_write(C, "local")
i, j = s[C].op.axis
io, jo, ii, ji = s[C].tile(i, j, mb, nb)
iio, jio, iii, jii = s[C].tile(ii, ji, mr, nr)
s[C].reorder(io, jo, jio, iio, iii, jii)
s[CC].compute_at(s[C], iio)
mc, nc = s[CC].op.axis
(kc,) = s[CC].op.reduce_axis
s[CC].reorder(kc, mc, nc)
s[CC].unroll(mc)
s[CC].vectorize(nc)
s[C].unroll(iii)
s[C].vectorize(jii)
s[C].parallel(io)
x, _, y = s[packedB].op.axis
s[packedB].vectorize(y)
s[packedB].parallel(x)
func = tvm.build(s, [A, B, C], target="llvm", name="gemm")
