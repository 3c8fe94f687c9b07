# set: K=0
# The lanes of a vectorized loop under lane masks: where no lane's condition holds, a branch of
# if_then_else is not computed lane by lane, so its integer division by K = 0 never happens. The
# masked code computed that branch for all lanes anyway when it read no memory, and the division
# trapped. A branch that may trap is now computed only when some lane is on. Found in review.
import tvm
from tvm import te

K = te.var("K")
B = te.compute(
    (4, 16),
    lambda i, j: tvm.tir.if_then_else(j < K, (i // K).astype("float32"), tvm.tir.const(0.0, "float32")),
    name="B",
)

# variant: masked
s = te.create_schedule(B.op)
s[B].vectorize(B.op.axis[1])
