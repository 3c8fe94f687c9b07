// Winograd's F(2x2, 3x3) and F(4x4, 3x3) for 3x3 convolutions of stride 1 (graph/Winograd.h):
// the transforms compute a correlation exactly (in double), AlterConvWinograd picks the tile by
// the output's size and leaves narrow layers direct, the task script holds both computations
// (the default Winograd's, `direct` the direct one), and compiled, each is checked against the
// direct convolution of the reference interpreter, with whole tiles and with tiles cut by the
// border, within the tolerance stated for its tile: float32's rounding through the transforms'
// coefficients grows with the tile. The default schedule decides every row choice of the
// transforms where it is compiled: no select is left in the loops it runs.
#include "graph/Winograd.h"
#include "graph/FuseOps.h"
#include "graph/Interpreter.h"
#include "graph/ModelMaker.h"
#include "graph/ModelRun.h"
#include "graph/OnnxImport.h"
#include "graph/Operators.h"
#include "graph/Passes.h"
#include "graph/Task.h"
#include "ir/IRUtil.h"
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "te/Program.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace loopscope;

namespace {

Graph convModel(std::int64_t channels, std::int64_t filters, std::int64_t size)
{
    ImportResult r = importOnnxBytes(makeConvModelBytes({channels, filters, size}, 5), "");
    EXPECT_TRUE(r.ok) << r.error;
    optimizeGraph(r.graph);
    return r.graph;
}

// The largest error of the model's output against the reference, in units of the reference's
// largest magnitude.
double relativeError(const Graph& g, const ModelOptions& options)
{
    std::string why;
    auto model = CompiledModel::compile(g, options, &why);
    EXPECT_NE(model, nullptr) << why;
    if (!model) return 1e9;
    std::map<std::string, HostBuffer> in;
    HostBuffer x(DataType::float32(), g.tensor(g.inputs[0]).shape);
    x.fillRandom(17);
    in[g.inputs[0]] = x;
    EXPECT_TRUE(model->setInput(g.inputs[0], x, &why)) << why;
    model->run();
    const auto want = interpret(g, in).at(g.outputs[0]);
    const HostBuffer got = model->value(g.outputs[0]);
    double scale = 0, worst = 0;
    for (std::int64_t i = 0; i < want.elementCount(); ++i)
        scale = std::max(scale, std::fabs(want.get(i)));
    for (std::int64_t i = 0; i < want.elementCount(); ++i)
        worst = std::max(worst, std::fabs(got.get(i) - want.get(i)));
    return worst / scale;
}

} // namespace

TEST(Winograd, TheTransformsComputeACorrelationExactly)
{
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int m : {2, 4}) {
        const WinogradTransform& t = *winogradTransform(m);
        ASSERT_EQ(t.a, m + 2);
        std::vector<double> d(static_cast<std::size_t>(t.a)), g(3);
        for (auto& v : d)
            v = u(rng);
        for (auto& v : g)
            v = u(rng);
        for (int o = 0; o < m; ++o) {
            double y = 0;
            for (int e = 0; e < t.a; ++e) {
                double gg = 0, dd = 0;
                for (int k = 0; k < 3; ++k)
                    gg += t.g[static_cast<std::size_t>(e)][static_cast<std::size_t>(k)] *
                          g[static_cast<std::size_t>(k)];
                for (int k = 0; k < t.a; ++k)
                    dd += t.bt[static_cast<std::size_t>(e)][static_cast<std::size_t>(k)] *
                          d[static_cast<std::size_t>(k)];
                y += t.at[static_cast<std::size_t>(o)][static_cast<std::size_t>(e)] * gg * dd;
            }
            double want = 0;
            for (int k = 0; k < 3; ++k)
                want += d[static_cast<std::size_t>(o + k)] * g[static_cast<std::size_t>(k)];
            EXPECT_NEAR(y, want, 1e-13) << "F(" << m << "x" << m << ") output " << o;
        }
    }
    EXPECT_EQ(winogradTransform(3), nullptr);
}

TEST(Winograd, TheTileFollowsTheOutputsSize)
{
    struct Case {
        std::int64_t channels, size;
        int tile;
    };
    for (const Case& c : {Case{64, 56, 4}, Case{64, 28, 4}, Case{64, 30, 4}, Case{64, 14, 2},
                          Case{64, 15, 2}, Case{64, 7, 0}, Case{16, 28, 0}}) {
        SCOPED_TRACE(std::to_string(c.channels) + " channels at " + std::to_string(c.size));
        const Graph g = convModel(c.channels, c.channels, c.size);
        const std::vector<Task> tasks = fuseOps(g); // the convolution, then to N x C x H x W
        ASSERT_EQ(tasks.size(), 2u);
        ASSERT_EQ(tasks[0].anchor, "Conv");
        EXPECT_EQ(winogradTileOf(g, tasks[0]), c.tile);
        const std::string script = taskScript(g, tasks[0]);
        EXPECT_EQ(script.find("# variant: direct") != std::string::npos, c.tile > 0);
        EXPECT_EQ(script.find("winograd") != std::string::npos, c.tile > 0);
    }
}

// The tolerance each tile is held to, in units of the output's largest magnitude, for 64 input
// channels: F(2x2) 1e-6, F(4x4) 1e-5 (the direct convolution: 1e-6). Measured on Zen 5: F(2x2)
// 2.8e-7, F(4x4) 5.1e-6 to 5.3e-6, tiles cut by the border or not.
TEST(Winograd, EachTileComputesTheConvolutionWithinItsTolerance)
{
    struct Case {
        std::int64_t size;
        int tile;
        double tolerance;
    };
    // Whole tiles, and tiles cut by the border (30 = 7 x 4 + 2, 15 = 7 x 2 + 1).
    for (const Case& c :
         {Case{28, 4, 1e-5}, Case{30, 4, 1e-5}, Case{14, 2, 1e-6}, Case{15, 2, 1e-6}}) {
        SCOPED_TRACE("F(" + std::to_string(c.tile) + "x" + std::to_string(c.tile) + ") at " +
                     std::to_string(c.size));
        const Graph g = convModel(64, 32, c.size);
        const std::vector<Task> tasks = fuseOps(g);
        ASSERT_EQ(winogradTileOf(g, tasks[0]), c.tile);
        const double winograd = relativeError(g, {});
        EXPECT_LE(winograd, c.tolerance);
        EXPECT_GT(winograd, 0.0); // it rounds: the kernel computed something of its own
        ModelOptions direct;
        direct.scripts[tasks[0].workload] = taskScript(g, tasks[0]);
        direct.variants[tasks[0].workload] = kDirectTaskVariant;
        EXPECT_LE(relativeError(g, direct), 1e-6);
    }
}

TEST(Winograd, TheDefaultLeavesNoRowChoiceToRunTime)
{
    const Graph g = convModel(64, 64, 28);
    const std::vector<Task> tasks = fuseOps(g);
    const std::string script = taskScript(g, tasks[0]);
    EvalResult r = evaluateScript(script);
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant* v = r.program.findVariant(kDefaultTaskVariant);
    ASSERT_NE(v, nullptr);
    const PrimFunc f = lowerSchedule(v->schedule(), v->args, "t").func;
    int selects = 0;
    const std::string tir = printTVMScript(f);
    for (std::size_t at = tir.find("T.Select("); at != std::string::npos;
         at = tir.find("T.Select(", at + 1))
        ++selects;
    EXPECT_EQ(selects, 0) << tir.substr(0, 4000);
    EXPECT_NE(tir.find("winograd"), std::string::npos);
}
