// Line information: a kernel compiled with it knows which line of its printed TIR each of its
// instructions is on. Every store of every variant of every sample has instructions on its line,
// except the initial value of an accumulator the optimizer keeps in a register (its first value
// is a constant in the reduction's code, which is on the accumulating line); the lines named are
// lines of the text.
#include "codegen/Codegen.h"
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "runtime/RuntimeJit.h"
#include "support/SourceFiles.h"
#include "te/Program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

// The lines (1-based) of the printed function that hold a store.
std::set<int> storeLines(const PrimFunc& f)
{
    PrintedFunction printed = printTVMScriptWithLines(f);
    std::set<int> lines;
    for (std::size_t i = 0; i < printed.lineStatements.size(); ++i)
        for (const StmtNode* s : printed.lineStatements[i])
            if (s->kind == StmtKind::BufferStore) lines.insert(static_cast<int>(i + 1));
    return lines;
}

TEST(LineInfo, EveryStoreOfTheSamplesHasInstructions)
{
    auto jit = createRuntimeJit();
    int kernels = 0;
    for (const char* sample :
         {"opt_gemm.py", "matmul_ladder.py", "conv2d.py", "softmax.py", "add_relu.py"}) {
        std::string text = readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / sample);
        EvalResult r = evaluateScript(text, {{"M", 128}, {"N", 128}, {"K", 128}});
        ASSERT_TRUE(r.ok) << sample << ": " << r.error.message;
        for (const Variant& v : r.program.variants) {
            SCOPED_TRACE(std::string(sample) + " / " + v.name);
            LoweredFunc lf = lowerSchedule(v.schedule(), v.args, v.funcName);
            auto kernel = jit->compile(lf.func, 3, true);
            ASSERT_NE(kernel->lines(), nullptr);
            const KernelLines& kl = *kernel->lines();
            EXPECT_EQ(kl.tir, printTVMScript(lf.func));
            const int textLines = static_cast<int>(std::count(kl.tir.begin(), kl.tir.end(), '\n'));
            std::set<int> withCode;
            for (int line : kl.rowLines) {
                if (line == 0) continue;
                EXPECT_GE(line, 7);
                EXPECT_LE(line, textLines);
                withCode.insert(line);
            }
            std::vector<std::string> text;
            std::istringstream lines(kl.tir);
            for (std::string l; std::getline(lines, l);)
                text.push_back(l);
            for (int line : storeLines(lf.func)) {
                if (withCode.count(line)) continue;
                // An accumulator's initial value: a later line stores to the same element
                // reading it (`x[i] = T.max(x[i], ...)`).
                const std::string& own = text[static_cast<std::size_t>(line - 1)];
                const std::string lhs = own.substr(own.find_first_not_of(' '),
                                                   own.find(" = ") - own.find_first_not_of(' '));
                bool accumulated = false;
                for (std::size_t k = static_cast<std::size_t>(line);
                     k < text.size() && !accumulated; ++k) {
                    const auto eq = text[k].find(" = ");
                    accumulated = eq != std::string::npos && text[k].find(lhs) < eq &&
                                  text[k].find(lhs, eq) != std::string::npos &&
                                  withCode.count(static_cast<int>(k + 1));
                }
                EXPECT_TRUE(accumulated) << "line " << line << " has no instructions:\n" << kl.tir;
            }
            // The code is where it runs: the entry's first byte is inside it.
            EXPECT_FALSE(kl.code.empty());
            EXPECT_GT(kl.codeStart, 0u);
            ++kernels;
        }
    }
    EXPECT_GE(kernels, 22);
}

} // namespace
