// The tuner's search space on every sample: each variant has sketches; sampled candidates realize
// as steps the schedule accepts; written out as TVM statements in a new variant block, the script
// evaluates and lowers to exactly the loop nest the tuner built in memory.
#include "tune/Space.h"
#include "Lowered.h"
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "support/SourceFiles.h"
#include "te/Program.h"
#include "tune/StageAnalysis.h"

#include <gtest/gtest.h>

#include <regex>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace fs = std::filesystem;
using namespace loopscope;

namespace {

using loopscope::testing::lowered;

struct SpaceCase {
    const char* file;
    std::map<std::string, std::int64_t> sizes;
};

void PrintTo(const SpaceCase& c, std::ostream* os)
{
    *os << c.file;
    for (auto& [name, value] : c.sizes)
        *os << " " << name << "=" << value;
}

const SpaceCase kCases[] = {
    {"opt_gemm", {{"M", 128}, {"N", 96}, {"K", 64}}},
    {"matmul_ladder", {{"M", 64}, {"N", 64}, {"K", 48}}},
    {"gemm_best", {{"M", 64}, {"N", 64}, {"K", 32}}},
    {"add_relu", {{"N", 1000}}},
    {"transpose", {{"M", 64}, {"N", 48}}},
    {"softmax", {{"N", 8}, {"M", 32}}},
    {"conv2d", {{"in_channel", 4}, {"out_channel", 8}, {"in_size", 14}}},
    {"conv2d_blocked", {{"in_channel", 4}, {"out_channel", 32}, {"in_size", 14}}},
};

class SpaceOnSamples : public ::testing::TestWithParam<SpaceCase> {};

TEST_P(SpaceOnSamples, CandidatesPrintAsStatementsThatLowerTheSame)
{
    const SpaceCase& c = GetParam();
    const std::string source =
        readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / (std::string(c.file) + ".py"));
    EvalResult eval = evaluateScript(source, c.sizes);
    ASSERT_TRUE(eval.ok) << eval.error.message;
    SpaceOptions options;
    options.vectorLanes = 8;
    std::mt19937_64 rng(7);
    for (const Variant& v : eval.program.variants) {
        std::string why;
        auto sketches = generateSketches(v, options, &why);
        ASSERT_FALSE(sketches.empty()) << c.file << " " << v.name << ": " << why;
        int realized = 0, checked = 0;
        for (const Sketch& sk : sketches) {
            for (int n = 0; n < 6; ++n) {
                Knobs knobs = sampleKnobs(sk, options, rng);
                Realized r = realize(v, sk, knobs, options, true);
                if (!r.ok) continue;
                ++realized;
                const std::string tir = lowered(r.schedule, v.args);
                if (tir.rfind("error", 0) == 0) continue;
                std::string script = scriptWithVariant(source, v, "tuned", r.statements, true);
                EvalResult again = evaluateScript(script, c.sizes);
                ASSERT_TRUE(again.ok) << c.file << " " << v.name << " [" << sk.name << "]: line "
                                      << again.error.loc.line << ": " << again.error.message << "\n"
                                      << script;
                const Variant* tuned = again.program.findVariant("tuned");
                ASSERT_NE(tuned, nullptr) << script;
                EXPECT_EQ(lowered(tuned->schedule(), tuned->args), tir)
                    << c.file << " " << v.name << " [" << sk.name << "]\n"
                    << script;
                ++checked;
            }
        }
        EXPECT_GT(checked, 0) << c.file << " " << v.name << ": " << realized << " realized";
    }
}

INSTANTIATE_TEST_SUITE_P(Samples, SpaceOnSamples, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.file); });

// Ansor's sketches for a plain matmul (tiled, and tiled in a local write cache at level 1, 2 or
// 3),
// after the panel rule's register blocks over packed panels of B.
TEST(Sketches, MatmulHasAnsorsThreeAfterPanels)
{
    const char* script = R"(from tvm import te
A = te.placeholder((512, 512), name="A")
B = te.placeholder((512, 512), name="B")
k = te.reduce_axis((0, 512), name="k")
C = te.compute((512, 512), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
s = te.create_schedule(C.op)
)";
    EvalResult eval = evaluateScript(script);
    ASSERT_TRUE(eval.ok) << eval.error.message;
    auto sketches = generateSketches(eval.program.variants[0], {}, nullptr);
    ASSERT_EQ(sketches.size(), 5u);
    EXPECT_EQ(sketches[0].name, "C: register blocks over panels of B");
    EXPECT_EQ(sketches[1].name, "C: tiled");
    EXPECT_EQ(sketches[2].name, "C: computed in a local cache, tiled at level 1");
    EXPECT_EQ(sketches[3].name, "C: computed in a local cache, tiled at level 2");
    EXPECT_EQ(sketches[4].name, "C: computed in a local cache, tiled at level 3");
    EXPECT_EQ(defaultSketch(sketches), 0);
}

// The panel sketch on batched and odd-shaped matmuls: its default takes the machine's register
// block (8 x 32 with 32 registers of 16 floats, 6 x 16 with 16 of 8), packs B where the panel
// loop begins, and every sampled candidate prints as statements that lower the same.
TEST(Sketches, PanelsFitBatchedAndOddShapes)
{
    const char* script = R"(from tvm import te
A = te.placeholder((3, 37, 29), name="A")
B = te.placeholder((3, 29, 53), name="B")
k = te.reduce_axis((0, 29), name="k")
C = te.compute((3, 37, 53), lambda b, i, j: te.sum(A[b, i, k] * B[b, k, j], axis=k), name="C")
s = te.create_schedule(C.op)
)";
    EvalResult eval = evaluateScript(script);
    ASSERT_TRUE(eval.ok) << eval.error.message;
    const Variant& v = eval.program.variants[0];
    for (int bits : {256, 512}) {
        SpaceOptions options;
        options.vectorLanes = bits / 32;
        options.vectorRegisters = vectorRegistersFor(bits);
        auto sketches = generateSketches(v, options, nullptr);
        ASSERT_FALSE(sketches.empty());
        const Sketch& sk = sketches[static_cast<std::size_t>(defaultSketch(sketches))];
        ASSERT_EQ(sk.name, "C: register blocks over panels of B");
        Realized d = realize(v, sk, defaultKnobs(sk, options), options, true);
        ASSERT_TRUE(d.ok) << d.why;
        std::string text;
        for (auto& line : d.statements)
            text += line + "\n";
        EXPECT_NE(text.find(bits == 512 ? "factor=32" : "factor=16"), std::string::npos) << text;
        EXPECT_NE(text.find(bits == 512 ? "factor=8" : "factor=6"), std::string::npos) << text;
        EXPECT_NE(text.find("s.cache_read(B, \"global\", [C_local])"), std::string::npos) << text;
        std::mt19937_64 rng(11);
        for (int n = 0; n < 12; ++n) {
            Knobs knobs = n == 0 ? defaultKnobs(sk, options) : sampleKnobs(sk, options, rng);
            Realized r = realize(v, sk, knobs, options, true);
            ASSERT_TRUE(r.ok) << r.why;
            const std::string tir = lowered(r.schedule, v.args);
            ASSERT_EQ(tir.rfind("error", 0), std::string::npos) << tir;
            std::string again = scriptWithVariant(script, v, "tuned", r.statements, true);
            EvalResult e = evaluateScript(again);
            ASSERT_TRUE(e.ok) << e.error.message << "\n" << again;
            const Variant* tuned = e.program.findVariant("tuned");
            ASSERT_NE(tuned, nullptr);
            EXPECT_EQ(lowered(tuned->schedule(), tuned->args), tir) << again;
        }
    }
}

// With an element-wise consumer, the matmul is tiled inside it instead of in a cache.
TEST(Sketches, MatmulWithBiasFusesIntoTheConsumer)
{
    const char* script = R"(from tvm import te
A = te.placeholder((64, 64), name="A")
B = te.placeholder((64, 64), name="B")
bias = te.placeholder((64,), name="bias")
k = te.reduce_axis((0, 64), name="k")
C = te.compute((64, 64), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
D = te.compute((64, 64), lambda i, j: C[i, j] + bias[j], name="D")
s = te.create_schedule(D.op)
)";
    EvalResult eval = evaluateScript(script);
    ASSERT_TRUE(eval.ok) << eval.error.message;
    auto sketches = generateSketches(eval.program.variants[0], {}, nullptr);
    ASSERT_EQ(sketches.size(), 4u);
    EXPECT_EQ(sketches[1].name, "C: tiled inside D at level 1");
    EXPECT_EQ(sketches[2].name, "C: tiled inside D at level 2");
    EXPECT_EQ(sketches[3].name, "C: tiled inside D at level 3");
    // By default the consumer holds every level above the register tile: the sums stay in
    // registers through the whole reduction.
    EXPECT_EQ(defaultSketch(sketches), 3);
}

// The default sketch with the default knobs, as statements (one per line); a failure is a test
// failure and an empty text.
std::string defaultStatements(const Variant& v, const SpaceOptions& o)
{
    auto sketches = generateSketches(v, o, nullptr);
    EXPECT_FALSE(sketches.empty());
    if (sketches.empty()) return {};
    const Sketch& sk = sketches[static_cast<std::size_t>(defaultSketch(sketches))];
    Realized r = realize(v, sk, defaultKnobs(sk, o), o, true);
    EXPECT_TRUE(r.ok) << r.why;
    std::string text;
    for (auto& line : r.statements)
        text += line + "\n";
    return text;
}

// Padding that its consumer tiles (a depthwise convolution reads it at every output axis) is
// computed inside the consumer's tiles by default; before a dense convolution, whose output
// channels all read every input channel, it stays a whole copy at the root.
TEST(Sketches, DepthwisePaddingIsComputedInTheConsumersTiles)
{
    auto script = [](bool depthwise) {
        return std::string(R"(import tvm
from tvm import te
X = te.placeholder((1, 16, 20, 20), name="X")
W = te.placeholder((16, )") +
               (depthwise ? "1" : "16") + R"(, 3, 3), name="W")
P = te.compute((1, 16, 22, 22), lambda n, c, y, x: tvm.tir.if_then_else(tvm.tir.all(y >= 1, y < 21, x >= 1, x < 21), X[n, c, y - 1, x - 1], tvm.tir.const(0.0, "float32")), name="P")
rc = te.reduce_axis((0, )" +
               std::string(depthwise ? "1" : "16") + R"(), name="rc")
ry = te.reduce_axis((0, 3), name="ry")
rx = te.reduce_axis((0, 3), name="rx")
C = te.compute((1, 16, 20, 20), lambda n, f, y, x: te.sum(P[n, )" +
               (depthwise ? "f + rc" : "rc") +
               R"(, y + ry, x + rx] * W[f, rc, ry, rx], axis=[rc, ry, rx]), name="C")
s = te.create_schedule(C.op)
)";
    };
    for (bool depthwise : {true, false}) {
        SCOPED_TRACE(depthwise ? "depthwise" : "dense");
        EvalResult eval = evaluateScript(script(depthwise));
        ASSERT_TRUE(eval.ok) << eval.error.message;
        const Variant& v = eval.program.variants[0];
        const auto facts = analyzeStages(v.schedule());
        auto pad = std::find_if(facts.begin(), facts.end(), [](auto& f) { return f.name == "P"; });
        ASSERT_NE(pad, facts.end());
        EXPECT_EQ(pad->tiledByConsumer, depthwise);

        SpaceOptions o;
        o.cores = 2;
        const std::string text = defaultStatements(v, o);
        EXPECT_EQ(text.find("s[P].compute_at(") != std::string::npos, depthwise) << text;
    }
}

// A blocked convolution's register tile: 4 pixels of a row where 4 divides the row (56), the
// whole row where only 1 or 2 of them would (7, 14: late ResNet layers), so that each loaded
// weight vector serves several pixels.
TEST(Sketches, LateConvolutionLayersTileAWholeRowOfPixels)
{
    for (std::int64_t width : {56, 14, 7}) {
        SCOPED_TRACE(width);
        const std::string w = std::to_string(width), p = std::to_string(width + 2);
        const std::string script =
            R"(from tvm import te
X = te.placeholder((1, 32, )" +
            p + ", " + p + R"(), name="X")
W = te.placeholder((4, 32, 3, 3, 16), name="W")
rc = te.reduce_axis((0, 32), name="rc")
ry = te.reduce_axis((0, 3), name="ry")
rx = te.reduce_axis((0, 3), name="rx")
C = te.compute((1, 4, )" +
            w + ", " + w +
            R"(, 16), lambda n, f, y, x, c: te.sum(X[n, rc, y + ry, x + rx] * W[f, rc, ry, rx, c], axis=[rc, ry, rx]), name="C")
s = te.create_schedule(C.op)
)";
        EvalResult eval = evaluateScript(script);
        ASSERT_TRUE(eval.ok) << eval.error.message;
        const Variant& v = eval.program.variants[0];
        SpaceOptions o;
        o.cores = 2;
        o.vectorLanes = 8;
        o.vectorRegisters = 16;
        const std::string text = defaultStatements(v, o);
        // The register tile is the local cache's whole tile (level 3): the last level of the
        // output's row.
        const std::string inner = width == 56 ? "4" : "7";
        EXPECT_TRUE(std::regex_search(
            text, std::regex("x_3 = s\\[C\\]\\.split\\(x(_2)?, factor=" + inner + "\\)")))
            << text;
    }
}

} // namespace

namespace {

// A reduction too narrow to keep the cores busy gets rfactor sketches (Ansor's NeedsRfactor);
// every candidate of them prints as statements that lower to the same loop nest.
TEST(Sketches, ANarrowReductionIsFactored)
{
    const char* script = R"(from tvm import te
A = te.placeholder((4, 65536), name="A")
k = te.reduce_axis((0, 65536), name="k")
S = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="S")
s = te.create_schedule(S.op)
)";
    EvalResult eval = evaluateScript(script);
    ASSERT_TRUE(eval.ok) << eval.error.message;
    const Variant& v = eval.program.variants[0];
    SpaceOptions options;
    auto sketches = generateSketches(v, options, nullptr);
    auto rf = std::find_if(sketches.begin(), sketches.end(),
                           [](const Sketch& s) { return s.name == "S: rfactor"; });
    ASSERT_NE(rf, sketches.end());
    std::mt19937_64 rng(3);
    int factored = 0;
    for (int n = 0; n < 20; ++n) {
        Realized r = realize(v, *rf, sampleKnobs(*rf, options, rng), options, true);
        ASSERT_TRUE(r.ok) << r.why;
        EXPECT_NE(findStage(r.schedule, "S.rf"), nullptr);
        std::string s = scriptWithVariant(script, v, "tuned", r.statements, true);
        EvalResult again = evaluateScript(s);
        ASSERT_TRUE(again.ok) << again.error.message << "\n" << s;
        const Variant* tuned = again.program.findVariant("tuned");
        ASSERT_NE(tuned, nullptr);
        EXPECT_EQ(lowered(tuned->schedule(), tuned->args), lowered(r.schedule, v.args)) << s;
        ++factored;
    }
    EXPECT_EQ(factored, 20);
    // A wide one is not.
    EvalResult wide = evaluateScript(R"(from tvm import te
A = te.placeholder((4096, 64), name="A")
k = te.reduce_axis((0, 64), name="k")
S = te.compute((4096,), lambda i: te.sum(A[i, k], axis=k), name="S")
s = te.create_schedule(S.op)
)");
    ASSERT_TRUE(wide.ok);
    for (auto& sk : generateSketches(wide.program.variants[0], options, nullptr))
        EXPECT_EQ(sk.name.find("rfactor"), std::string::npos) << sk.name;
}

} // namespace
