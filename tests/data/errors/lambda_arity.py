# expect: 5: takes 1 argument but the shape has 2 dimensions
import tvm
from tvm import te
A = te.placeholder((8, 8), name="A")
B = te.compute((8, 8), lambda i: A[i, i], name="B")
