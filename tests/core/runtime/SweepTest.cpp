// The sweep driver: points in (value, variant) order with the right sizes, the cache avoids
// measuring a known point again, cancellation keeps the points measured, skipped points, CSV.
#include "runtime/Sweep.h"
#include "runtime/GpuRun.h"
#include "support/SourceFiles.h"
#include "support/TestJit.h"
#include "te/Program.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace loopscope;

namespace {

std::string sample(const std::string& name)
{
    return readSourceFile("samples/" + name + ".py");
}

SweepRequest gemmRequest()
{
    SweepRequest r;
    r.script = sample("opt_gemm");
    r.parameters = {"M", "N", "K"};
    r.values = {32, 64};
    r.variants = {"blocking", "vectorization"};
    r.threads = 1;
    r.repeat = 1;
    r.minRepeatMs = 0.5;
    return r;
}

} // namespace

TEST(Sweep, PointsHaveTheRightShape)
{
    SweepResult r = runSweep(testJit(), gemmRequest());
    ASSERT_EQ(r.points.size(), 4u);
    EXPECT_EQ(r.total, 4);
    EXPECT_EQ(r.measured, 4);
    EXPECT_FALSE(r.cancelled);
    const char* names[] = {"blocking", "vectorization", "blocking", "vectorization"};
    std::int64_t sizes[] = {32, 32, 64, 64};
    for (int i = 0; i < 4; ++i) {
        const SweepPoint& p = r.points[i];
        EXPECT_EQ(p.variant, names[i]);
        EXPECT_EQ(p.values, (std::vector<std::int64_t>(3, sizes[i])));
        EXPECT_EQ(p.threads, 1);
        EXPECT_TRUE(p.checked);
        EXPECT_TRUE(p.measured());
        double n = static_cast<double>(sizes[i]);
        EXPECT_DOUBLE_EQ(p.flops, 2 * n * n * n);
        EXPECT_DOUBLE_EQ(p.bytes, 3 * n * n * 4);
        EXPECT_NEAR(p.gflops, p.flops / (p.msMedian * 1e6), 1e-9);
    }
}

TEST(Sweep, CacheAvoidsMeasuringAgain)
{
    SweepCache cache;
    SweepRequest request = gemmRequest();
    SweepResult first = runSweep(testJit(), request, &cache);
    EXPECT_EQ(first.measured, 4);
    EXPECT_EQ(cache.size(), 4u);

    // The same sweep again: nothing measured, the same numbers.
    SweepResult again = runSweep(testJit(), request, &cache);
    EXPECT_EQ(again.measured, 0);
    ASSERT_EQ(again.points.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_TRUE(again.points[i].cached);
        EXPECT_EQ(again.points[i].msMedian, first.points[i].msMedian);
    }

    // Adding a variant measures only that variant's points.
    request.variants.push_back("loop permutation");
    SweepResult more = runSweep(testJit(), request, &cache);
    EXPECT_EQ(more.measured, 2);
    EXPECT_EQ(cache.size(), 6u);

    // Another thread count or another script text is another key.
    request.threads = 2;
    EXPECT_EQ(runSweep(testJit(), request, &cache).measured, 6);
    request.script += "\n# edited\n";
    request.threads = 1;
    request.variants = {"blocking"};
    request.values = {32};
    EXPECT_EQ(runSweep(testJit(), request, &cache).measured, 1);
}

TEST(Sweep, CancellationKeepsMeasuredPoints)
{
    SweepRequest request = gemmRequest();
    int seen = 0;
    SweepHooks hooks;
    hooks.point = [&](const SweepPoint&, int done, int total) {
        seen = done;
        EXPECT_EQ(total, 4);
    };
    hooks.cancelled = [&] { return seen >= 3; };
    SweepCache cache;
    SweepResult r = runSweep(testJit(), request, &cache, nullptr, hooks);
    EXPECT_TRUE(r.cancelled);
    ASSERT_EQ(r.points.size(), 3u);
    for (auto& p : r.points)
        EXPECT_TRUE(p.measured());
    EXPECT_EQ(cache.size(), 3u);
    // Resuming measures only the missing point.
    EXPECT_EQ(runSweep(testJit(), request, &cache).measured, 1);
}

TEST(Sweep, SlowPointIsSkippedAndLargerOnesAreNotRun)
{
    SweepRequest request = gemmRequest();
    request.variants = {"baseline"};
    request.values = {32, 256, 512};
    request.maxPointSeconds = 0.002;
    SweepResult r = runSweep(testJit(), request);
    ASSERT_EQ(r.points.size(), 3u);
    EXPECT_TRUE(r.points[0].measured());
    EXPECT_TRUE(r.points[1].skipped);
    EXPECT_TRUE(r.points[2].skipped);
    EXPECT_FALSE(r.points[2].message.empty());
}

TEST(Sweep, ValueTheScriptCannotTakeFailsItsPoints)
{
    SweepRequest request = gemmRequest();
    request.variants = {"blocking"};
    request.values = {16, 32}; // N / bn with bn = 32 is not whole at 16
    SweepResult r = runSweep(testJit(), request);
    ASSERT_EQ(r.points.size(), 2u);
    EXPECT_TRUE(r.points[0].failed);
    EXPECT_NE(r.points[0].message.find("packedB"), std::string::npos) << r.points[0].message;
    EXPECT_TRUE(r.points[1].measured());
}

TEST(Sweep, ErrorsAreUserErrors)
{
    SweepRequest request = gemmRequest();
    request.parameters = {"Q"};
    EXPECT_THROW(runSweep(testJit(), request), UserError);
    request = gemmRequest();
    request.variants = {"nope"};
    EXPECT_THROW(runSweep(testJit(), request), UserError);
}

TEST(Sweep, CsvRows)
{
    SweepResult r;
    r.parameters = {"M", "N"};
    SweepPoint measured;
    measured.variant = "tiled, v2";
    measured.values = {64, 64};
    measured.threads = 2;
    measured.checked = true;
    measured.msMedian = 1.5;
    measured.msMin = 1;
    measured.msMax = 2;
    measured.gflops = 3.25;
    measured.flops = 100;
    measured.bytes = 50;
    measured.intensity = 2;
    SweepPoint skipped;
    skipped.variant = "naive";
    skipped.values = {128, 128};
    skipped.threads = 2;
    skipped.skipped = true;
    skipped.message = "one run took 12.0 s";
    r.points = {measured, skipped};
    EXPECT_EQ(sweepCsv(r),
              "variant,M,N,threads,ms_median,ms_min,ms_max,gflops,flops,bytes,intensity,checked,"
              "skipped,failed,message\n"
              "\"tiled, v2\",64,64,2,1.5,1,2,3.25,100,50,2,true,false,false,\n"
              "naive,128,128,2,,,,,0,0,0,false,true,false,one run took 12.0 s\n");
}

TEST(Sweep, BlasReferenceForMatmul)
{
    SweepRequest request = gemmRequest();
    request.variants = {"blocking"};
    request.values = {32};
    request.blas = true;
    SweepResult r = runSweep(testJit(), request);
    if (r.blas.empty()) GTEST_SKIP() << "no OpenBLAS: " << r.blasNote;
    EXPECT_EQ(r.blas.rfind("OpenBLAS", 0), 0u);
    ASSERT_EQ(r.points.size(), 2u);
    EXPECT_EQ(r.points[1].variant, kBlasVariant);
    EXPECT_TRUE(r.points[1].reference);
    EXPECT_GT(r.points[1].gflops, 0);
}

TEST(Sweep, NoBlasForOtherPrograms)
{
    SweepRequest request;
    request.script = sample("add_relu");
    request.values = {64};
    request.blas = true;
    request.threads = 1;
    request.repeat = 1;
    request.minRepeatMs = 0.5;
    EvalResult e = evaluateScript(request.script);
    ASSERT_TRUE(e.ok);
    ASSERT_FALSE(e.program.parameters.empty());
    request.parameters = {e.program.parameters.front().name};
    SweepResult r = runSweep(testJit(), request);
    EXPECT_TRUE(r.blas.empty());
    EXPECT_FALSE(r.blasNote.empty());
    for (auto& p : r.points)
        EXPECT_FALSE(p.reference);
}

TEST(Sweep, AGpuVariantWithoutAGpuIsCheckedAndNotTimed)
{
    // No runner given (as none is on this machine's CI): each point is checked on the CPU.
    SweepRequest request;
    request.script = readSourceFile("tests/data/gpu/matmul_shared.py");
    request.parameters = {"M", "N", "K"};
    request.values = {32, 64};
    request.variants = {"shared"};
    request.threads = 1;
    request.repeat = 1;
    request.check = true;
    SweepResult r = runSweep(testJit(), request);
    ASSERT_EQ(r.points.size(), 2u);
    for (const SweepPoint& p : r.points) {
        EXPECT_TRUE(p.checked) << p.message;
        EXPECT_FALSE(p.failed) << p.message;
        EXPECT_FALSE(p.measured());
        EXPECT_EQ(p.message, kNoGpuNote);
    }
}
