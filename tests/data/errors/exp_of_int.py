# expect: 5: floating-point argument
import tvm
from tvm import te
A = te.placeholder((8,), name="A", dtype="int32")
B = te.compute((8,), lambda i: te.exp(A[i]), name="B")
