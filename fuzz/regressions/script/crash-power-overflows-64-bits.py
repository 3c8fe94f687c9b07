# expect: 5: 'A' would have 2147484672 elements; tensors are sindexed with 32-bittarget= integers
import tvm
from tvm import te
N = 2**7484672
A = te.pler((N,), name="A", dtype="int8")
B = te.compute((N,), lambda i: A[i] + tvm.tir.const(0, "int8"), name="B")
s = te.create_schedule(B.op)
