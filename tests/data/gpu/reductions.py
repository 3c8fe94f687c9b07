# Reductions across the threads of a block (tvm_thread_allreduce), one variant per way tvm.build
# lowers them: one warp, a sub-warp per group, several warps, and a tree in shared memory.
import tvm
from tvm import te

n = 40
m = 96
A = te.placeholder((n, m), name="A")
k = te.reduce_axis((0, m), name="k")
B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
km = te.reduce_axis((0, m), name="km")
C = te.compute((n,), lambda i: te.max(A[i, km], axis=km), name="C")

# variant: warp
# One block per row; each of its 32 threads sums three elements, then shuffles.
s = te.create_schedule(B.op)
ko, ki = s[B].split(B.op.reduce_axis[0], factor=32)
s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
s[B].bind(ki, te.thread_axis("threadIdx.x"))

# variant: groups
# Eight rows per block on threadIdx.y, sixteen threads reducing each row.
s = te.create_schedule(B.op)
bi, ti = s[B].split(B.op.axis[0], factor=8)
ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
s[B].bind(bi, te.thread_axis("blockIdx.x"))
s[B].bind(ti, te.thread_axis("threadIdx.y"))
s[B].bind(ki, te.thread_axis("threadIdx.x"))

# variant: warps
# Ninety-six threads, three warps: shuffles in each warp, then over the warps' results.
s = te.create_schedule(C.op)
s[C].bind(C.op.axis[0], te.thread_axis("blockIdx.x"))
s[C].bind(C.op.reduce_axis[0], te.thread_axis("threadIdx.x"))

# variant: tree
# Forty-eight threads per row, neither a divisor nor a multiple of a warp: a tree in shared memory.
s = te.create_schedule(B.op)
ko, ki = s[B].split(B.op.reduce_axis[0], factor=48)
s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
s[B].bind(ki, te.thread_axis("threadIdx.x"))

# variant: across_y
# Rows on threadIdx.x and the reduction on threadIdx.y: not the innermost threads, so a tree.
s = te.create_schedule(C.op)
bi, ti = s[C].split(C.op.axis[0], factor=8)
ko, ki = s[C].split(C.op.reduce_axis[0], factor=12)
s[C].bind(bi, te.thread_axis("blockIdx.x"))
s[C].bind(ti, te.thread_axis("threadIdx.x"))
s[C].bind(ki, te.thread_axis("threadIdx.y"))

# variant: tail
# Twenty threads, each summing five: the last step of the shuffles is guarded.
s = te.create_schedule(B.op)
ko, ki = s[B].split(B.op.reduce_axis[0], nparts=20)
s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
s[B].bind(ko, te.thread_axis("threadIdx.x"))

f = tvm.build(s, [A, B], target="cuda")
