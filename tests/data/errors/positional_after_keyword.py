# expect: 4: positional argument
import tvm
from tvm import te
A = te.placeholder(shape=(8,), "A")
