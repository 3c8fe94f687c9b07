# expect: 5: a data-parallel axis
import tvm
from tvm import te
A = te.placeholder((8, 8), name="A")
B = te.compute((8,), lambda i: te.sum(A[i, i], axis=i), name="B")
