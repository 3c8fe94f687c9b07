# expect: 4: integer overflow: 2 ** 63 does not fit in 64 bits
import tvm
from tvm import te
N = 2 ** 63
A = te.placeholder((N,), name="A")
