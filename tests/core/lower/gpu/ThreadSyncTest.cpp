// Barriers where tvm.build puts them (TVM's ThreadSync): around the cooperative fetch of a tile
// into shared memory, none without shared memory.
#include "lower/gpu/ThreadSync.h"
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "te/Program.h"

#include "support/SourceFiles.h"

#include <gtest/gtest.h>

#include <sstream>

namespace loopscope {
namespace {

// The lines of the printed program that are barriers, loops or stores, stripped.
std::vector<std::string> outline(const Stmt& body, const LoweredFunc& f)
{
    PrimFunc func = f.func;
    func.body = body;
    std::istringstream in(printTVMScript(func));
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) {
        const auto start = line.find_first_not_of(' ');
        if (start == std::string::npos) continue;
        line = line.substr(start);
        if (line.rfind("T.tvm_storage_sync", 0) == 0 || line.rfind("for ", 0) == 0 ||
            line.find("] = ") != std::string::npos)
            out.push_back(line.substr(0, line.find('[')));
    }
    return out;
}

LoweredFunc lowerVariant(const std::string& file, const std::string& variant)
{
    EvalResult r = evaluateScript(readSourceFile(file));
    EXPECT_TRUE(r.ok) << r.error.message;
    const Variant* v = r.program.findVariant(variant);
    EXPECT_NE(v, nullptr);
    return lowerSchedule(v->schedule(), v->args, v->funcName);
}

TEST(ThreadSync, BarriersSurroundTheSharedFetchInTheReductionLoop)
{
    LoweredFunc f = lowerVariant("tests/data/gpu/matmul_shared.py", "shared");
    EXPECT_EQ(printTVMScript(f.func).find("tvm_storage_sync"), std::string::npos)
        << "tvm.lower prints no barriers";
    const std::vector<std::string> expected = {
        "C_1",
        "for k_outer in range(4):",
        // The next iteration's fetch overwrites what this one's products read.
        "T.tvm_storage_sync(\"shared\")",
        "A_shared_1",
        "B_shared_1",
        // The products read what other threads fetched.
        "T.tvm_storage_sync(\"shared\")",
        "for k_inner in range(16):",
        "C_1",
    };
    EXPECT_EQ(outline(insertThreadSyncs(f.func.body), f), expected)
        << printTVMScript(PrimFunc{f.func.name, f.func.params, insertThreadSyncs(f.func.body)});
}

TEST(ThreadSync, NoBarrierWithoutSharedMemory)
{
    LoweredFunc f = lowerVariant("tests/data/gpu/matmul_shared.py", "bind");
    EXPECT_TRUE(launchesThreads(f.func.body));
    EXPECT_TRUE(insertThreadSyncs(f.func.body).same(f.func.body));
}

TEST(ThreadSync, TheConvolutionTutorialGetsTwoBarriersPerReductionStep)
{
    LoweredFunc f = lowerVariant("tests/data/tvm-gpu/conv_shared_vthread.py", "s");
    std::vector<std::string> lines = outline(insertThreadSyncs(f.func.body), f);
    auto at = std::find(lines.begin(), lines.end(), "for rc_outer, ry, rx in T.grid(8, 3, 3):");
    ASSERT_NE(at, lines.end());
    ASSERT_GE(lines.end() - at, 6);
    EXPECT_EQ(at[1], "T.tvm_storage_sync(\"shared\")");
    EXPECT_EQ(at[2], "for ax3_inner_outer in range(2):");
    EXPECT_EQ(std::count(lines.begin(), lines.end(), "T.tvm_storage_sync(\"shared\")"), 2);
}

} // namespace
} // namespace loopscope
