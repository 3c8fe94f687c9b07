# expect: 12: this te.thread_axis("threadIdx.x") object is bound here to a loop of extent 1 and at line 15 to one of extent 32: one thread axis object has one extent wherever it is bound
import tvm
from tvm import te
A = te.placeholder((64,), name="A")
B = te.compute((64,), lambda i: A[i] * 2, name="B")
C = te.compute((64,), lambda i: B[i] + 1, name="C")
s = te.create_schedule(C.op)
# TVM: "domain already inferred, cannot prove their extents are the same 32 vs 1"
tx = te.thread_axis("threadIdx.x")
bo, bi = s[B].split(B.op.axis[0], factor=1)
s[B].bind(bo, te.thread_axis("blockIdx.x"))
s[B].bind(bi, tx)
co, ci = s[C].split(C.op.axis[0], factor=32)
s[C].bind(co, te.thread_axis("blockIdx.x"))
s[C].bind(ci, tx)
f = tvm.build(s, [A, C], target="cuda")
