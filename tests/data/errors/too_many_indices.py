# expect: 5: has 2 dimensions but is indexed with 3 indices
import tvm
from tvm import te
A = te.placeholder((8, 8), name="A")
B = te.compute((8, 8), lambda i, j: A[i, j, 0], name="B")
