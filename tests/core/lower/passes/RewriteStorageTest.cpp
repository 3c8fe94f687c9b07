// StorageRewrite places allocations at their attach scope, reuses dead storage and gives
// vector-accessed buffers a vector element type, as TVM's StorageRewrite does on a CPU.
#include "lower/passes/RewriteStorage.h"

#include "ir/Printer.h"

#include "support/FlatBuffer.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace loopscope {
namespace {

using testsupport::flatBuffer;

Expr load(const Buffer& b, Expr i)
{
    return makeBufferLoad(b, {std::move(i)});
}
Stmt store(const Buffer& b, Expr i, Expr v)
{
    return makeBufferStore(b, {std::move(i)}, v);
}
Expr ramp(Expr base, int lanes)
{
    return makeRamp(std::move(base), 1, lanes);
}
Stmt loop(const Var& v, std::int64_t extent, Stmt body, ForKind kind = ForKind::Serial)
{
    return makeFor(v, 0, makeInt(extent), kind, std::move(body));
}

struct Fixture {
    Buffer A = flatBuffer("A", 1 << 20), B = flatBuffer("B", 1 << 20), C = flatBuffer("C", 1 << 20);
    Var i{"i"}, j{"j"}, k{"k"};
};

// `for v in range(extent): dst[v] = src[index(v)] + 1`
Stmt copyLoop(const Var& v, std::int64_t extent, const Buffer& dst, const Buffer& src, Expr index)
{
    return loop(v, extent, store(dst, v, load(src, std::move(index)) + makeFloat(1)));
}

TEST(StorageRewrite, AllocationsMoveToTheTopInFirstUseOrder)
{
    Fixture f;
    Buffer x = flatBuffer("X", 1024), y = flatBuffer("Y", 16);
    // X is allocated first but used last; Y lives inside a loop.
    Stmt perRow = makeAllocate(
        y, makeSeq({copyLoop(f.j, 16, y, f.A, f.i * 16 + f.j), copyLoop(f.j, 16, f.C, y, f.j)}));
    Stmt s = makeAllocate(x, makeSeq({loop(f.i, 4, perRow), copyLoop(f.k, 1024, x, f.B, f.k),
                                      copyLoop(f.k, 1024, f.C, x, f.k)}));
    EXPECT_EQ(printStmt(rewriteStorage(s)), "Y = T.allocate([16], \"float32\", \"global\")\n"
                                            "X = T.allocate([1024], \"float32\", \"global\")\n"
                                            "for i in range(4):\n"
                                            "    for j in range(16):\n"
                                            "        Y[j] = A[i * 16 + j] + T.float32(1)\n"
                                            "    for j in range(16):\n"
                                            "        C[j] = Y[j] + T.float32(1)\n"
                                            "for k in range(1024):\n"
                                            "    X[k] = B[k] + T.float32(1)\n"
                                            "for k in range(1024):\n"
                                            "    C[k] = X[k] + T.float32(1)\n");
}

TEST(StorageRewrite, OutermostParallelLoopIsTheAttachScope)
{
    Fixture f;
    Buffer t = flatBuffer("T", 64), top = flatBuffer("P", 4096);
    Stmt inner = makeAllocate(
        t, makeSeq({copyLoop(f.k, 64, t, top, f.i * 64 + f.k), copyLoop(f.k, 64, f.C, t, f.k)}));
    Stmt nest = loop(f.i, 8, loop(f.j, 8, inner, ForKind::Parallel), ForKind::Parallel);
    Stmt s = makeAllocate(top, makeSeq({copyLoop(f.k, 4096, top, f.A, f.k), nest}));
    EXPECT_EQ(printStmt(rewriteStorage(s)), "P = T.allocate([4096], \"float32\", \"global\")\n"
                                            "for k in range(4096):\n"
                                            "    P[k] = A[k] + T.float32(1)\n"
                                            "for i in T.parallel(8):\n"
                                            "    T = T.allocate([64], \"float32\", \"global\")\n"
                                            "    for j in T.parallel(8):\n"
                                            "        for k in range(64):\n"
                                            "            T[k] = P[i * 64 + k] + T.float32(1)\n"
                                            "        for k in range(64):\n"
                                            "            C[k] = T[k] + T.float32(1)\n");
}

TEST(StorageRewrite, UnusedAllocationDisappears)
{
    Fixture f;
    Buffer unused = flatBuffer("U", 64);
    Stmt s = makeAllocate(unused, copyLoop(f.k, 8, f.C, f.A, f.k));
    EXPECT_EQ(printStmt(rewriteStorage(s)), "for k in range(8):\n"
                                            "    C[k] = A[k] + T.float32(1)\n");
}

// TVM's GEMM tutorial, array packing + write cache + parallel: packedB is only accessed through
// aligned 32-lane ramps and becomes float32x32; C.global is also read at scalar indices.
TEST(StorageRewrite, AlignedVectorAccessGivesAVectorElementType)
{
    Fixture f;
    Buffer packed = flatBuffer("packedB", 1 << 20), cache = flatBuffer("C.global", 1024);
    Var bigN("bigN"), mo("m.outer"), no("n.outer"), mc("m.c"), mi("m.inner"), ni("n.inner");
    Stmt pack = loop(bigN, 32,
                     loop(f.k, 1024,
                          store(packed, ramp(bigN * 32768 + f.k * 32, 32),
                                load(f.B, ramp(f.k * 1024 + bigN * 32, 32)))),
                     ForKind::Parallel);
    Stmt update = store(cache, ramp(mc * 32, 32),
                        load(cache, ramp(mc * 32, 32)) +
                            makeBroadcast(load(f.A, mo * 32768 + mc * 1024 + f.k), 32) *
                                load(packed, ramp(no * 32768 + f.k * 32, 32)));
    Stmt writeBack = store(f.C, mo * 32768 + mi * 1024 + no * 32 + ni, load(cache, mi * 32 + ni));
    Stmt tile = makeAllocate(cache, makeSeq({loop(f.k, 1024, loop(mc, 32, update)),
                                             loop(mi, 32, loop(ni, 32, writeBack))}));
    Stmt s =
        makeAllocate(packed, makeSeq({pack, loop(mo, 32, loop(no, 32, tile), ForKind::Parallel)}));
    EXPECT_EQ(
        printStmt(rewriteStorage(s)),
        "packedB = T.allocate([32768], \"float32x32\", \"global\")\n"
        "for bigN in T.parallel(32):\n"
        "    for k in range(1024):\n"
        "        packedB[bigN * 1024 + k] = B[k * 1024 + bigN * 32:k * 1024 + bigN * 32 + 32]\n"
        "for m_outer in T.parallel(32):\n"
        "    C_global = T.allocate([1024], \"float32\", \"global\")\n"
        "    for n_outer in range(32):\n"
        "        for k, m_c in T.grid(1024, 32):\n"
        "            C_global[m_c * 32:m_c * 32 + 32] = C_global[m_c * 32:m_c * 32 + 32] + "
        "T.Broadcast(A[m_outer * 32768 + m_c * 1024 + k], 32) * packedB[n_outer * 1024 + k]\n"
        "        for m_inner, n_inner in T.grid(32, 32):\n"
        "            C[m_outer * 32768 + m_inner * 1024 + n_outer * 32 + n_inner] = "
        "C_global[m_inner * 32 + n_inner]\n");
}

struct TypeCase {
    const char* name;
    std::int64_t extent;
    int offset; // added to every ramp base
    const char* dtype;
};

void PrintTo(const TypeCase& c, std::ostream* os)
{
    *os << c.name;
}

class VectorElementType : public testing::TestWithParam<TypeCase> {};

TEST_P(VectorElementType, NeedsAlignedBasesAndADivisibleExtent)
{
    Fixture f;
    Buffer t = flatBuffer("T", GetParam().extent);
    Expr base = f.i * 8 + GetParam().offset;
    Stmt s = makeAllocate(
        t, makeSeq({loop(f.i, 4, store(t, ramp(base, 8), load(f.A, ramp(base, 8)))),
                    loop(f.i, 4, store(f.C, ramp(f.i * 8, 8), load(t, ramp(base, 8))))}));
    Stmt out = rewriteStorage(s);
    auto* a = out.as<AllocateNode>();
    ASSERT_NE(a, nullptr) << printStmt(out);
    EXPECT_EQ(a->buffer->dtype.str(), GetParam().dtype) << printStmt(out);
}

INSTANTIATE_TEST_SUITE_P(StorageRewrite, VectorElementType,
                         testing::Values(TypeCase{"Aligned", 64, 0, "float32x8"},
                                         TypeCase{"AlignedWithOffset", 64, 16, "float32x8"},
                                         TypeCase{"Misaligned", 64, 4, "float32"},
                                         TypeCase{"ExtentNotAMultiple", 60, 0, "float32"}),
                         [](const testing::TestParamInfo<TypeCase>& info) {
                             return info.param.name;
                         });

// Bt, Ct and Dt each computed from the previous one in reverse order (so never in place).
Stmt reversedChain(const Fixture& f, const std::string& scope)
{
    Buffer b = flatBuffer("Bt", 64, DataType::float32(), scope),
           c = flatBuffer("Ct", 64, DataType::float32(), scope),
           d = flatBuffer("Dt", 64, DataType::float32(), scope);
    return makeAllocate(
        b, makeAllocate(c, makeAllocate(d, makeSeq({copyLoop(f.k, 64, b, f.A, f.k),
                                                    copyLoop(f.k, 64, c, b, 63 - f.k),
                                                    copyLoop(f.k, 64, d, c, 63 - f.k),
                                                    copyLoop(f.k, 64, f.C, d, f.k)}))));
}

// Bt is dead before Dt is first written, by a statement that does not read Bt.
Stmt deadThenBorn(const Fixture& f, std::int64_t size)
{
    Buffer b = flatBuffer("Bt", size), d = flatBuffer("Dt", size);
    Expr zero = makeInt(0), one = makeInt(1);
    return makeAllocate(
        b,
        makeAllocate(d, makeSeq({store(b, zero, load(f.A, zero)), store(f.C, zero, load(b, zero)),
                                 store(d, zero, load(f.A, one)), store(f.C, one, load(d, zero))})));
}

// Reuse of dead storage: TVM's planner with in-place detection.
struct ReuseCase {
    const char* name;
    std::function<Stmt(const Fixture&)> input;
    const char* expected;
};

void PrintTo(const ReuseCase& c, std::ostream* os)
{
    *os << c.name;
}

const std::vector<ReuseCase> kReuseCases = {
    {"ElementwiseSuccessorWorksInPlace",
     [](const Fixture& f) {
         Buffer b = flatBuffer("Bt", 64), c = flatBuffer("Ct", 64);
         return makeAllocate(b, makeAllocate(c, makeSeq({copyLoop(f.k, 64, b, f.A, f.k),
                                                         copyLoop(f.k, 64, c, b, f.k),
                                                         copyLoop(f.k, 64, f.C, c, f.k)})));
     },
     "Bt = T.allocate([64], \"float32\", \"global\")\n"
     "for k in range(64):\n"
     "    Bt[k] = A[k] + T.float32(1)\n"
     "for k in range(64):\n"
     "    Bt[k] = Bt[k] + T.float32(1)\n"
     "for k in range(64):\n"
     "    C[k] = Bt[k] + T.float32(1)\n"},
    {"DeadStorageIsTakenOverAndGrows",
     [](const Fixture& f) {
         Buffer b = flatBuffer("Bt", 64), c = flatBuffer("Ct", 64), d = flatBuffer("Dt", 128);
         return makeAllocate(
             b, makeAllocate(c, makeAllocate(d, makeSeq({copyLoop(f.k, 64, b, f.A, f.k),
                                                         copyLoop(f.k, 64, c, b, 63 - f.k),
                                                         copyLoop(f.j, 128, d, c, floordiv(f.j, 2)),
                                                         copyLoop(f.j, 128, f.C, d, f.j)}))));
     },
     "Bt = T.allocate([128], \"float32\", \"global\")\n"
     "Ct = T.allocate([64], \"float32\", \"global\")\n"
     "for k in range(64):\n"
     "    Bt[k] = A[k] + T.float32(1)\n"
     "for k in range(64):\n"
     "    Ct[k] = Bt[63 - k] + T.float32(1)\n"
     "for j in range(128):\n"
     "    Bt[j] = Ct[j // 2] + T.float32(1)\n"
     "for j in range(128):\n"
     "    C[j] = Bt[j] + T.float32(1)\n"},
    {"SizesApartMoreThanSixteenTimesStaySeparate",
     [](const Fixture& f) {
         Buffer b = flatBuffer("Bt", 8), c = flatBuffer("Ct", 8), d = flatBuffer("Dt", 256);
         return makeAllocate(
             b,
             makeAllocate(c, makeAllocate(d, makeSeq({copyLoop(f.k, 8, b, f.A, f.k),
                                                      copyLoop(f.k, 8, c, b, 7 - f.k),
                                                      copyLoop(f.j, 256, d, c, floordiv(f.j, 32)),
                                                      copyLoop(f.j, 256, f.C, d, f.j)}))));
     },
     "Bt = T.allocate([8], \"float32\", \"global\")\n"
     "Ct = T.allocate([8], \"float32\", \"global\")\n"
     "Dt = T.allocate([256], \"float32\", \"global\")\n"
     "for k in range(8):\n"
     "    Bt[k] = A[k] + T.float32(1)\n"
     "for k in range(8):\n"
     "    Ct[k] = Bt[7 - k] + T.float32(1)\n"
     "for j in range(256):\n"
     "    Dt[j] = Ct[j // 32] + T.float32(1)\n"
     "for j in range(256):\n"
     "    C[j] = Dt[j] + T.float32(1)\n"},
    {"DeadStorageIsReused", [](const Fixture& f) { return reversedChain(f, "global"); },
     "Bt = T.allocate([64], \"float32\", \"global\")\n"
     "Ct = T.allocate([64], \"float32\", \"global\")\n"
     "for k in range(64):\n"
     "    Bt[k] = A[k] + T.float32(1)\n"
     "for k in range(64):\n"
     "    Ct[k] = Bt[63 - k] + T.float32(1)\n"
     "for k in range(64):\n"
     "    Bt[k] = Ct[63 - k] + T.float32(1)\n"
     "for k in range(64):\n"
     "    C[k] = Bt[k] + T.float32(1)\n"},
    {"LocalStorageIsNotReusedOnceDead", [](const Fixture& f) { return reversedChain(f, "local"); },
     "Bt = T.allocate([64], \"float32\", \"local\")\n"
     "Ct = T.allocate([64], \"float32\", \"local\")\n"
     "Dt = T.allocate([64], \"float32\", \"local\")\n"
     "for k in range(64):\n"
     "    Bt[k] = A[k] + T.float32(1)\n"
     "for k in range(64):\n"
     "    Ct[k] = Bt[63 - k] + T.float32(1)\n"
     "for k in range(64):\n"
     "    Dt[k] = Ct[63 - k] + T.float32(1)\n"
     "for k in range(64):\n"
     "    C[k] = Dt[k] + T.float32(1)\n"},
    {"OneWordAllocationsAreNotReused", [](const Fixture& f) { return deadThenBorn(f, 1); },
     "Bt = T.allocate([1], \"float32\", \"global\")\n"
     "Dt = T.allocate([1], \"float32\", \"global\")\n"
     "Bt[0] = A[0]\n"
     "C[0] = Bt[0]\n"
     "Dt[0] = A[1]\n"
     "C[1] = Dt[0]\n"},
    {"TwoWordAllocationIsReused", [](const Fixture& f) { return deadThenBorn(f, 2); },
     "Bt = T.allocate([2], \"float32\", \"global\")\n"
     "Bt[0] = A[0]\n"
     "C[0] = Bt[0]\n"
     "Bt[0] = A[1]\n"
     "C[1] = Bt[0]\n"},
};

class StorageReuse : public testing::TestWithParam<ReuseCase> {};

TEST_P(StorageReuse, FollowsTvmsPlan)
{
    Fixture f;
    Stmt in = GetParam().input(f);
    EXPECT_EQ(printStmt(rewriteStorage(in)), GetParam().expected) << "input:\n" << printStmt(in);
}

INSTANTIATE_TEST_SUITE_P(StorageRewrite, StorageReuse, testing::ValuesIn(kReuseCases),
                         [](const testing::TestParamInfo<ReuseCase>& info) {
                             return info.param.name;
                         });

TEST(StorageRewrite, AllocationsAlreadyInPlaceAreReturnedAsIs)
{
    Fixture f;
    Buffer t = flatBuffer("T", 64);
    Stmt s =
        makeAllocate(t, makeSeq({copyLoop(f.k, 64, t, f.A, f.k), copyLoop(f.k, 64, f.C, t, f.k)}));
    EXPECT_TRUE(rewriteStorage(s).same(s));
}

TEST(StorageRewrite, StatementWithoutAllocationsIsReturnedAsIs)
{
    Fixture f;
    Stmt s = copyLoop(f.k, 8, f.C, f.A, f.k);
    EXPECT_TRUE(rewriteStorage(s).same(s));
}

} // namespace
} // namespace loopscope
