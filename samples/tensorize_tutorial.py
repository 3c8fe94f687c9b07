# The tensorize tutorial (TVM's "Use Tensorize to Leverage Hardware Intrinsics"), step by step:
# a matmul A x B^T whose inner loops are a 16 x 64 GEMV, a GEMV intrinsic calling a C function,
# then the reduction split so that the intrinsic needs a reset and an update. The C functions
# are the tutorial's, given as LLVM IR (scripts/make-gemv-ll.sh makes it with clang, as the
# tutorial's tvm.contrib.clang.create_llvm does) and imported with pragma import_llvm.
import tvm
from tvm import te

N, M, L = 1024, 512, 64
A = te.placeholder((N, L), name="A")
B = te.placeholder((M, L), name="B")
k = te.reduce_axis((0, L), name="k")
C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")

GEMV_LL = """
define dso_local i32 @gemv_update(ptr nocapture noundef %0, ptr nocapture noundef readonly %1, ptr nocapture noundef readonly %2, i32 noundef %3, i32 noundef %4, i32 noundef %5) local_unnamed_addr {
  %7 = icmp sgt i32 %3, 0
  br i1 %7, label %8, label %18
8:
  %9 = icmp sgt i32 %4, 0
  %10 = sext i32 %5 to i64
  %11 = zext i32 %3 to i64
  %12 = zext i32 %4 to i64
  br label %13
13:
  %14 = phi i64 [ 0, %8 ], [ %20, %19 ]
  br i1 %9, label %15, label %19
15:
  %16 = mul nsw i64 %14, %10
  %17 = getelementptr inbounds float, ptr %0, i64 %14
  br label %22
18:
  ret i32 0
19:
  %20 = add nuw nsw i64 %14, 1
  %21 = icmp eq i64 %20, %11
  br i1 %21, label %18, label %13
22:
  %23 = phi i64 [ 0, %15 ], [ %31, %22 ]
  %24 = getelementptr inbounds float, ptr %1, i64 %23
  %25 = load float, ptr %24, align 4
  %26 = add nsw i64 %23, %16
  %27 = getelementptr inbounds float, ptr %2, i64 %26
  %28 = load float, ptr %27, align 4
  %29 = load float, ptr %17, align 4
  %30 = call float @llvm.fmuladd.f32(float %25, float %28, float %29)
  store float %30, ptr %17, align 4
  %31 = add nuw nsw i64 %23, 1
  %32 = icmp eq i64 %31, %12
  br i1 %32, label %19, label %22
}
declare float @llvm.fmuladd.f32(float, float, float)
define dso_local i32 @gemv_reset(ptr nocapture noundef writeonly %0, i32 noundef %1) local_unnamed_addr {
  %3 = icmp sgt i32 %1, 0
  br i1 %3, label %4, label %8
4:
  %5 = getelementptr i8, ptr %0, i64 0
  %6 = zext i32 %1 to i64
  %7 = shl nuw nsw i64 %6, 2
  call void @llvm.memset.p0.i64(ptr align 4 %5, i8 0, i64 %7, i1 false)
  br label %8
8:
  ret i32 0
}
declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg)
"""


def intrin_gemv(m, l):
    a = te.placeholder((l,), name="a")
    b = te.placeholder((m, l), name="b")
    k = te.reduce_axis((0, l), name="k")
    c = te.compute((m,), lambda i: te.sum(a[k] * b[i, k], axis=k), name="c")
    Ab = tvm.tir.decl_buffer(a.shape, a.dtype, name="A", offset_factor=1, strides=[1])
    Bb = tvm.tir.decl_buffer(b.shape, b.dtype, name="B", offset_factor=1, strides=[te.var("s1"), 1])
    Cb = tvm.tir.decl_buffer(c.shape, c.dtype, name="C", offset_factor=1, strides=[1])

    def intrin_func(ins, outs):
        aa, bb = ins
        cc = outs[0]

        def _body():
            ib = tvm.tir.ir_builder.create()
            ib.emit(
                tvm.tir.call_extern(
                    "int32",
                    "gemv_update",
                    cc.access_ptr("w"),
                    aa.access_ptr("r"),
                    bb.access_ptr("r"),
                    m,
                    l,
                    bb.strides[0],
                )
            )
            return ib.get()

        def _reduce_reset():
            ib = tvm.tir.ir_builder.create()
            ib.emit(tvm.tir.call_extern("int32", "gemv_reset", cc.access_ptr("w"), m))
            return ib.get()

        def _reduce_update():
            return _body()

        return _body(), _reduce_reset(), _reduce_update()

    return te.decl_tensor_intrin(c.op, intrin_func, binds={a: Ab, b: Bb, c: Cb})


# variant: loops
s = te.create_schedule(C.op)

# variant: 16 x 64 GEMV inside
s = te.create_schedule(C.op)
factor = 16
x, y = C.op.axis
(z,) = C.op.reduce_axis
yo, yi = s[C].split(y, factor=factor)
s[C].reorder(x, yo, yi, z)

# variant: tensorized GEMV
s = te.create_schedule(C.op)
x, y = C.op.axis
(z,) = C.op.reduce_axis
yo, yi = s[C].split(y, factor=factor)
s[C].reorder(x, yo, yi, z)
s[C].pragma(x, "import_llvm", GEMV_LL)  # the C functions the intrinsic calls
s[C].tensorize(yi, intrin_gemv(factor, L))

# variant: reduce-update
s = te.create_schedule(C.op)
x, y = C.op.axis
(z,) = C.op.reduce_axis
yo, yi = s[C].split(y, factor=factor)
zo, zi = s[C].split(z, factor=factor)
s[C].reorder(x, yo, zo, yi, zi)
s[C].pragma(yo, "import_llvm", GEMV_LL)
s[C].tensorize(yi, intrin_gemv(factor, factor))
