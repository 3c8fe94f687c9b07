# A thread launched inside loops of its kernel (TVM builds it as it stands): every thread of the
# block runs the loops, and the reduction over threadIdx.x happens in each iteration. Found by the
# random schedules (the emulation took only the launches at the kernel's start).
from tvm import te

M = 29
N = 19
K = 7
BT = 1
A = te.placeholder((BT, M, K), name="A")
B = te.placeholder((BT, K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((BT, M, N), lambda b, i, j: te.sum(A[b, i, k] * B[b, k, j], axis=k), name="C")

# variant: launched inside loops
s = te.create_schedule(C.op)
c_b, c_i, c_j = s[C].op.axis
(c_k,) = s[C].op.reduce_axis
c_io, c_jo, c_ii, c_ji = s[C].tile(c_i, c_j, x_factor=1, y_factor=4)
c_ko, c_ki = s[C].split(c_k, nparts=8)
c_ioo, c_ioi = s[C].split(c_io, factor=10)
s[C].bind(c_ji, te.thread_axis("threadIdx.x"))
s[C].bind(c_b, te.thread_axis("threadIdx.y"))
c_iif = s[C].fuse(c_ii, c_ji)
s[C].bind(c_ko, te.thread_axis("threadIdx.x"))
