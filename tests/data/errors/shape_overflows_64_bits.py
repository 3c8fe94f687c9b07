# expect: 5: byte offsets overflow 64 bits
import tvm
from tvm import te
M = 9223372036854775807
A = te.placeholder((M, 1024), name="A")
