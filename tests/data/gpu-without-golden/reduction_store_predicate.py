# TVM's reduction tutorial (tutorials/language/reduction.py), its GPU schedule: the reduction
# factored (rfactor) so that its inner part is bound to threadIdx.x, a cross-thread reduction,
# and the result stored by the first of those threads alone (set_store_predicate). Rows and the
# reduction at sizes that leave tails.
import tvm
from tvm import te

n = 100
m = 70
A = te.placeholder((n, m), name="A")
k = te.reduce_axis((0, m), "k")
B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")

# variant: store predicate
s = te.create_schedule(B.op)
ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
BF = s.rfactor(B, ki)
xo, xi = s[B].split(s[B].op.axis[0], factor=32)
s[B].bind(xo, te.thread_axis("blockIdx.x"))
s[B].bind(xi, te.thread_axis("threadIdx.y"))
tx = te.thread_axis("threadIdx.x")
s[B].bind(s[B].op.reduce_axis[0], tx)
s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
s[B].set_store_predicate(tx.var.equal(0))
fcuda = tvm.build(s, [A, B], "cuda")
