# Partial sums in shared memory written by every threadIdx.y of a block at once: C.shared's
# y loop is bound to no thread, so the threads of one threadIdx.x (one per threadIdx.y) all
# initialize and accumulate the same elements. Run one thread after another on the CPU it
# computes the right values; on a GPU the threads interleave. The check reports the race.
import tvm
from tvm import te

N = 64
K = 32
A = te.placeholder((N, K), name="A")
k = te.reduce_axis((0, K), name="k")
C = te.compute((N, N), lambda y, x: te.sum(A[y, k] * A[x, k], axis=k), name="C")

# variant: shared partial sums, y unbound
s = te.create_schedule(C.op)
CS = s.cache_write(C, "shared")
by, yi = s[C].split(C.op.axis[0], factor=8)
bx, xi = s[C].split(C.op.axis[1], factor=8)
s[C].reorder(by, bx, yi, xi)
s[C].bind(by, te.thread_axis("blockIdx.y"))
s[C].bind(bx, te.thread_axis("blockIdx.x"))
s[C].bind(yi, te.thread_axis("threadIdx.y"))
s[C].bind(xi, te.thread_axis("threadIdx.x"))
s[CS].compute_at(s[C], bx)
xo, xi2 = s[CS].split(s[CS].op.axis[1], nparts=8)
s[CS].bind(xo, te.thread_axis("threadIdx.x"))
f = tvm.build(s, [A, C], target="cuda")
