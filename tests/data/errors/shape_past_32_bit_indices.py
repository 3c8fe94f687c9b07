# expect: 5: 'A' would have 2147484672 elements; tensors are indexed with 32-bit integers
import tvm
from tvm import te
N = 2147484672
A = te.placeholder((N,), name="A", dtype="int8")
B = te.compute((N,), lambda i: A[i] + tvm.tir.const(1, "int8"), name="B")
s = te.create_schedule(B.op)
