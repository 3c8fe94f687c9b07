# set: n=9
# A temporary that is only ever accessed as whole 5-lane vectors becomes a "float32x5" buffer
# (StorageRewrite, as in TVM). Its size is symbolic, so it lives on the heap, allocated packed
# (20 bytes per element), but the code generator stepped through it by LLVM's allocation size of
# <5 x float> (32 bytes) and wrote past its end. Found by the differential tests (an rfactor whose
# partial results were vectorized along an axis of extent 5).
import tvm
from tvm import te

n = te.var("n")
A = te.placeholder((n, 5), name="A")
B = te.compute((n, 5), lambda i, j: A[i, j] * 2.0, name="B")
C = te.compute((n, 5), lambda i, j: B[i, j] + 1.0, name="C")

# variant: five lanes
s = te.create_schedule(C.op)
s[B].vectorize(B.op.axis[1])
s[C].vectorize(C.op.axis[1])
