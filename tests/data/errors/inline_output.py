# expect: 7: it is an output
import tvm
from tvm import te
A = te.placeholder((8,), name="A")
B = te.compute((8,), lambda i: A[i] + 1, name="B")
s = te.create_schedule(B.op)
s[B].compute_inline()
