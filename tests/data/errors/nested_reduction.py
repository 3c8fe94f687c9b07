# expect: 6: reduction must be the whole body
import tvm
from tvm import te
A = te.placeholder((8, 8), name="A")
k = te.reduce_axis((0, 8), name="k")
B = te.compute((8,), lambda i: te.sum(A[i, k], axis=k) + 1, name="B")
