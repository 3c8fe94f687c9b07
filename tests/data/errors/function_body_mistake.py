# expect: 5: name 'lanes' is not defined
import tvm
from tvm import te
def intrin(m):
    return m * lanes
x = intrin(4)
