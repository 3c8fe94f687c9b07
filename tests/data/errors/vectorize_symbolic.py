# expect: 8: cannot vectorize loop 'i'
import tvm
from tvm import te
n = te.var("n")
A = te.placeholder((n,), name="A")
B = te.compute((n,), lambda i: A[i] * 2, name="B")
s = te.create_schedule(B.op)
s[B].vectorize(B.op.axis[0])
