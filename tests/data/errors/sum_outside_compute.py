# expect: 6: only allowed as the body of te.compute
import tvm
from tvm import te
A = te.placeholder((8,), name="A")
k = te.reduce_axis((0, 8), name="k")
x = te.sum(A[k], axis=k)
