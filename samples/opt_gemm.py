# How to optimize GEMM on CPU -- TVM's tutorial as one script.
#
# Each "# variant:" block below is one step of the tutorial. Every step starts again from a fresh
# schedule and repeats the previous step's primitives, so each variant can be read (and run) on its
# own. Open the ladder to see what each step buys.
import tvm
from tvm import te

# The problem size. The size sweep and `loopscope-cli --set M=512` rebind these.
M = 1024
K = 1024
N = 1024

# Block sizes used by the schedules below.
bn = 32
kfactor = 4

# The algorithm: C = A x B, a reduction over k.
k = te.reduce_axis((0, K), "k")
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
C = te.compute((M, N), lambda m, n: te.sum(A[m, k] * B[k, n], axis=k), name="C")

# variant: baseline
# The default schedule: three nested loops in declaration order (m, n, then the reduction k).
# The inner loop walks B down a column, so every access to B misses the cache.
s = te.create_schedule(C.op)
print(tvm.lower(s, [A, B, C], simple_mode=True))

# variant: blocking
# Tile m and n by 32 so one 32x32 block of C stays in cache while k streams through, and split k
# so the reduction is walked in short chunks.
s = te.create_schedule(C.op)
mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)
(kaxis,) = s[C].op.reduce_axis
ko, ki = s[C].split(kaxis, factor=kfactor)
s[C].reorder(mo, no, ko, ki, mi, ni)
print(tvm.lower(s, [A, B, C], simple_mode=True))

# variant: vectorization
# The innermost axis ni walks contiguous memory in C and B: vectorize it, so each iteration
# processes 32 floats with SIMD instructions.
s = te.create_schedule(C.op)
mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)
(kaxis,) = s[C].op.reduce_axis
ko, ki = s[C].split(kaxis, factor=kfactor)
s[C].reorder(mo, no, ko, ki, mi, ni)
s[C].vectorize(ni)
print(tvm.lower(s, [A, B, C], simple_mode=True))

# variant: loop permutation
# Move ki inside mi: A[mi, k] is then read with unit stride across the unrolled k chunk, and the
# row of C stays in registers across ki.
s = te.create_schedule(C.op)
mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)
(kaxis,) = s[C].op.reduce_axis
ko, ki = s[C].split(kaxis, factor=kfactor)
s[C].reorder(mo, no, ko, mi, ki, ni)
s[C].vectorize(ni)
print(tvm.lower(s, [A, B, C], simple_mode=True))

# variant: array packing
# B is still read with a stride of N between rows of a tile. Repack it once into packedB[N/bn][K][bn]
# so that the inner loop reads one contiguous 32-float line per k. This redefines C to read the
# packed array; the schedules after this use the new C.
packedB = te.compute((N / bn, K, bn), lambda bigN, k, littleN: B[k, bigN * bn + littleN], name="packedB")
C = te.compute(
    (M, N),
    lambda m, n: te.sum(A[m, k] * packedB[n // bn, k, tvm.tir.indexmod(n, bn)], axis=k),
    name="C",
)
s = te.create_schedule(C.op)
mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)
(kaxis,) = s[C].op.reduce_axis
ko, ki = s[C].split(kaxis, factor=kfactor)
s[C].reorder(mo, no, ko, mi, ki, ni)
s[C].vectorize(ni)
bigN, _, littleN = s[packedB].op.axis
s[packedB].vectorize(littleN)
s[packedB].parallel(bigN)
print(tvm.lower(s, [A, B, C], simple_mode=True))

# variant: write cache
# Accumulate each 32x32 block in a small buffer (CC) computed inside the block loop, then write
# it to C once: the accumulator stays in cache, and C is written sequentially.
s = te.create_schedule(C.op)
CC = s.cache_write(C, "global")
mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)
s[CC].compute_at(s[C], no)
mc, nc = s[CC].op.axis
(kaxis,) = s[CC].op.reduce_axis
ko, ki = s[CC].split(kaxis, factor=kfactor)
s[CC].reorder(ko, mc, ki, nc)
s[CC].vectorize(nc)
s[CC].unroll(ki)
bigN, _, littleN = s[packedB].op.axis
s[packedB].vectorize(littleN)
s[packedB].parallel(bigN)
print(tvm.lower(s, [A, B, C], simple_mode=True))

# variant: parallel
# Finally, run the outer block loop on all cores.
s = te.create_schedule(C.op)
CC = s.cache_write(C, "global")
mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)
s[CC].compute_at(s[C], no)
mc, nc = s[CC].op.axis
(kaxis,) = s[CC].op.reduce_axis
ko, ki = s[CC].split(kaxis, factor=kfactor)
s[CC].reorder(ko, mc, ki, nc)
s[CC].vectorize(nc)
s[CC].unroll(ki)
s[C].parallel(mo)
bigN, _, littleN = s[packedB].op.axis
s[packedB].vectorize(littleN)
s[packedB].parallel(bigN)
func = tvm.build(s, [A, B, C], target="llvm", name="mmult")
