// How a GPU kernel's threads touch memory, without a GPU: a warp's consecutive elements are one
// coalesced fetch, a column is a sector per thread; a shared tile read by columns conflicts 32
// ways in its banks, a padded one not at all; occupancy follows NVIDIA's tables.
#include "lower/gpu/GpuAccess.h"
#include "lower/Lower.h"
#include "support/SourceFiles.h"
#include "te/Program.h"

#include <gtest/gtest.h>

namespace loopscope {
namespace {

std::vector<GpuKernelShape> kernelsOf(const std::string& variant)
{
    EvalResult r = evaluateScript(readSourceFile("tests/data/gpu/access_patterns.py"));
    EXPECT_TRUE(r.ok) << r.error.message;
    const Variant* v = r.program.findVariant(variant);
    EXPECT_NE(v, nullptr);
    return analyzeGpuKernels(lowerSchedule(v->schedule(), v->args, v->funcName).func.body);
}

const GpuAccess* find(const GpuKernelShape& k, const std::string& buffer, bool store)
{
    for (const GpuAccess& a : k.accesses)
        if (a.buffer == buffer && a.store == store) return &a;
    return nullptr;
}

TEST(GpuAccess, AWarpReadingConsecutiveElementsUsesEveryByteFetched)
{
    auto kernels = kernelsOf("copy");
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels[0].threadsPerBlock, 32);
    const GpuAccess* load = find(kernels[0], "A", false);
    ASSERT_NE(load, nullptr);
    EXPECT_TRUE(load->known);
    EXPECT_EQ(load->strideX, 1);
    EXPECT_EQ(load->bytesUsed, 128);
    EXPECT_EQ(load->bytesFetched, 128);
    EXPECT_EQ(describeGpuAccess(*load), "global load A: 128 of 128 bytes fetched used (coalesced)");
}

TEST(GpuAccess, AWarpWritingAColumnFetchesASectorPerThread)
{
    // T[i, j] = A[j, i] with threadIdx.x along i: A is read by rows, T written by columns.
    auto kernels = kernelsOf("transpose");
    ASSERT_EQ(kernels.size(), 1u);
    const GpuAccess* store = find(kernels[0], "T", true);
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->strideX, 1024);
    EXPECT_EQ(store->bytesUsed, 128);
    EXPECT_EQ(store->bytesFetched, 32 * 32);
    EXPECT_EQ(describeGpuAccess(*store),
              "global store T: 128 of 1024 bytes fetched used (13 %, stride 1024 along "
              "threadIdx.x)");
    const GpuAccess* load = find(kernels[0], "A", false);
    ASSERT_NE(load, nullptr);
    EXPECT_EQ(load->bytesFetched, 128) << "A is read by rows";
}

TEST(GpuAccess, ATileReadByColumnsConflictsInEveryBankUnlessPadded)
{
    auto plain = kernelsOf("shared columns");
    ASSERT_EQ(plain.size(), 1u);
    EXPECT_EQ(plain[0].sharedBytes, 32 * 32 * 4);
    const GpuAccess* fill = find(plain[0], "A.shared", true);
    const GpuAccess* read = find(plain[0], "A.shared", false);
    ASSERT_NE(fill, nullptr);
    ASSERT_NE(read, nullptr);
    EXPECT_EQ(fill->bankWays, 1);
    EXPECT_EQ(read->bankWays, 32);
    EXPECT_EQ(describeGpuAccess(*read), "shared load A.shared: 32-way bank conflict");

    auto padded = kernelsOf("padded");
    ASSERT_EQ(padded.size(), 1u);
    const GpuAccess* readPadded = find(padded[0], "A.shared", false);
    ASSERT_NE(readPadded, nullptr);
    EXPECT_EQ(readPadded->bankWays, 1);
    EXPECT_EQ(describeGpuAccess(*readPadded), "shared load A.shared: no bank conflict");
}

TEST(GpuAccess, OccupancyFollowsTheArchitecturesLimits)
{
    // sm_80: 64 warps and 32 blocks per SM, 65,536 registers, 164 KiB of shared memory.
    GpuOccupancy o = gpuOccupancy(80, 256, 0, 32);
    EXPECT_EQ(o.blocksPerSm, 8);
    EXPECT_EQ(o.warpsPerSm, 64);
    EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
    EXPECT_EQ(o.limitedBy, "threads");
    o = gpuOccupancy(80, 256, 0, 64);
    EXPECT_EQ(o.blocksPerSm, 4);
    EXPECT_EQ(o.limitedBy, "registers");
    o = gpuOccupancy(80, 256, 48 * 1024, 32);
    EXPECT_EQ(o.blocksPerSm, 3); // (48 KiB + 1 KiB reserved) per block
    EXPECT_EQ(o.limitedBy, "shared memory");
    o = gpuOccupancy(75, 64, 0, 16); // Turing: 32 warps, 16 blocks
    EXPECT_EQ(o.blocksPerSm, 16);
    EXPECT_EQ(o.warpsPerSm, 32);
    EXPECT_EQ(o.limitedBy, "blocks");
}

} // namespace
} // namespace loopscope
