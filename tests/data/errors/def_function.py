# expect: 4: not supported
import tvm
from tvm import te
def f(x):
    return x
