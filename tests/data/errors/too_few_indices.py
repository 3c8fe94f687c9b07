# expect: 5: indexed with 1 index
import tvm
from tvm import te
A = te.placeholder((8, 8), name="A")
B = te.compute((8,), lambda i: A[i] + 1, name="B")
