# tanh has no LLVM intrinsic and is called from libm, which has no half-precision version: the
# code generator called tanhf with a half argument, so every float16 tanh returned garbage.
# Found by the differential tests (a float16 elementwise chain).
import tvm
from tvm import te

A = te.placeholder((8,), name="A", dtype="float16")
T = te.compute((8,), lambda i: te.tanh(A[i]), name="T")
U = te.compute((8,), lambda i: te.log(te.abs(T[i]) + 1.0), name="U")

# variant: scalar
s = te.create_schedule(U.op)

# variant: vectorized
s = te.create_schedule(U.op)
s[T].vectorize(T.op.axis[0])
s[U].vectorize(U.op.axis[0])
