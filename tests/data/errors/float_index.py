# expect: 5: tensor indices must be integers
import tvm
from tvm import te
A = te.placeholder((8,), name="A")
B = te.compute((8,), lambda i: A[i * 0.5], name="B")
