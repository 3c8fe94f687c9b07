# expect: 5: needs a lambda
import tvm
from tvm import te
A = te.placeholder((8,), name="A")
B = te.compute((8,), A, name="B")
