# A matmul for a GPU in two steps of the tutorial: one thread per element of C, then 16x16 tiles of
# A and B fetched into shared memory by the block's threads together.
import tvm
from tvm import te

M = 64
N = 64
K = 64
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

# variant: bind
s = te.create_schedule(C.op)
i, j = s[C].op.axis
bi, ti = s[C].split(i, factor=16)
bj, tj = s[C].split(j, factor=16)
s[C].reorder(bi, bj, ti, tj)
s[C].bind(bi, te.thread_axis("blockIdx.y"))
s[C].bind(bj, te.thread_axis("blockIdx.x"))
s[C].bind(ti, te.thread_axis("threadIdx.y"))
s[C].bind(tj, te.thread_axis("threadIdx.x"))

# variant: double buffer
# The shared tiles double-buffered: the next step's tiles are fetched while this step's are used.
s = te.create_schedule(C.op)
AA = s.cache_read(A, "shared", [C])
BB = s.cache_read(B, "shared", [C])
tx = te.thread_axis("threadIdx.x")
ty = te.thread_axis("threadIdx.y")
i, j = s[C].op.axis
(k,) = s[C].op.reduce_axis
bi, ti = s[C].split(i, factor=16)
bj, tj = s[C].split(j, factor=16)
ko, ki = s[C].split(k, factor=16)
s[C].reorder(bi, bj, ti, tj, ko, ki)
s[C].bind(bi, te.thread_axis("blockIdx.y"))
s[C].bind(bj, te.thread_axis("blockIdx.x"))
s[C].bind(ti, ty)
s[C].bind(tj, tx)
s[AA].compute_at(s[C], ko)
s[BB].compute_at(s[C], ko)
ai, ak = s[AA].op.axis
aio, aii = s[AA].split(ai, nparts=16)
ako, aki = s[AA].split(ak, nparts=16)
s[AA].bind(aio, ty)
s[AA].bind(ako, tx)
bk, bj2 = s[BB].op.axis
bko, bki = s[BB].split(bk, nparts=16)
bjo, bji = s[BB].split(bj2, nparts=16)
s[BB].bind(bko, ty)
s[BB].bind(bjo, tx)
s[AA].double_buffer()
s[BB].double_buffer()

# variant: shared
s = te.create_schedule(C.op)
AA = s.cache_read(A, "shared", [C])
BB = s.cache_read(B, "shared", [C])
tx = te.thread_axis("threadIdx.x")
ty = te.thread_axis("threadIdx.y")
i, j = s[C].op.axis
(k,) = s[C].op.reduce_axis
bi, ti = s[C].split(i, factor=16)
bj, tj = s[C].split(j, factor=16)
ko, ki = s[C].split(k, factor=16)
s[C].reorder(bi, bj, ti, tj, ko, ki)
s[C].bind(bi, te.thread_axis("blockIdx.y"))
s[C].bind(bj, te.thread_axis("blockIdx.x"))
s[C].bind(ti, ty)
s[C].bind(tj, tx)
s[AA].compute_at(s[C], ko)
s[BB].compute_at(s[C], ko)
ai, ak = s[AA].op.axis
aio, aii = s[AA].split(ai, nparts=16)
ako, aki = s[AA].split(ak, nparts=16)
s[AA].bind(aio, ty)
s[AA].bind(ako, tx)
bk, bj2 = s[BB].op.axis
bko, bki = s[BB].split(bk, nparts=16)
bjo, bji = s[BB].split(bj2, nparts=16)
s[BB].bind(bko, ty)
s[BB].bind(bjo, tx)
f = tvm.build(s, [A, B, C], target="cuda")
