import tvm
from tvm import te
A = te.placeholder((9223372036854775807, 9223372036854775807), name="A")
B = te.compute(A.shape, lambda i, j: A[i, j], name="B")
