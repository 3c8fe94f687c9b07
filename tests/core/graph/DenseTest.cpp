// Dense layers as models have them (Gemm with and without transB, MatMul of 2-D and batched 3-D
// inputs, M from 1 to a few hundred): their weights go in panels of output columns once, and the
// default schedule of each such task, on a machine of 16 vector registers of 8 floats (AVX2) and
// on one of 32 of 16 (AVX-512), sums a register tile of vectors along the contiguous output
// axis: inside the loop over the reduction, each step is a vector multiply-add of a broadcast
// input element and a contiguous vector of weights into a small buffer of sums (registers), not
// a float at a time. Compiled here, every such model computes what the reference computes.
#include "graph/FuseOps.h"
#include "graph/Interpreter.h"
#include "graph/ModelMaker.h"
#include "graph/ModelRun.h"
#include "graph/OnnxImport.h"
#include "graph/Operators.h"
#include "graph/Passes.h"
#include "graph/Task.h"
#include "ir/IRMutator.h"
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "te/Program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace loopscope;

namespace {

struct DenseCase {
    const char* name;
    DenseLayerSpec spec;
};

Graph denseModel(const DenseCase& c)
{
    ImportResult r = importOnnxBytes(makeDenseModelBytes(c.spec, 3), "");
    EXPECT_TRUE(r.ok) << r.error;
    return r.graph;
}

const DenseCase kCases[] = {
    {"mlp_first_layer", {{8, 784}, 512, true, false, true}},
    {"classifier", {{1, 1280}, 1000, true}},
    {"vit_tokens", {{197, 192}, 768, true, false, true}},
    {"gemm_not_transposed", {{64, 128}, 256}},
    {"matmul_2d", {{64, 128}, 384, false, true}},
    {"matmul_batched", {{1, 64, 128}, 512, false, true}},
};

struct Machine {
    const char* name;
    int lanes, registers;
};
const Machine kMachines[] = {{"avx2", 8, 16}, {"avx512", 16, 32}};

// What the reduction loops of a lowered task do with vectors.
class ReductionBody : public IRVisitor {
public:
    ReductionBody(const std::set<std::string>& weights, std::set<std::string> reductionAxes)
        : m_weights(weights), m_axes(std::move(reductionAxes))
    {
    }
    int vectorMultiplyAdds = 0;    // sums += broadcast * weights[contiguous], inside a reduction
    int scalarSumsInReduction = 0; // stores of one float inside a reduction loop
    std::int64_t largestSums = 0;  // floats in the largest buffer those sums live in
    int lanes = 0;                 // of the multiply-adds

protected:
    void visitAllocate(const AllocateNode* op) override
    {
        std::int64_t n = op->buffer->dtype.lanes;
        for (auto& d : op->buffer->shape) {
            std::int64_t v = 0;
            n *= isConstInt(d, &v) ? v : 1 << 30;
        }
        m_allocated[op->buffer->data.get()] = n;
        IRVisitor::visitAllocate(op);
    }
    void visitFor(const ForNode* op) override
    {
        const std::string& v = op->var.name();
        bool reduction = false;
        for (auto& a : m_axes)
            reduction = reduction || v.rfind(a, 0) == 0;
        m_depth += reduction ? 1 : 0;
        IRVisitor::visitFor(op);
        m_depth -= reduction ? 1 : 0;
    }
    void visitBufferStore(const BufferStoreNode* op) override
    {
        if (m_depth > 0) {
            const int l = op->value.type().lanes;
            if (l == 1) ++scalarSumsInReduction;
            auto* add = op->value.as<BinaryNode>();
            if (l > 1 && add && add->kind == ExprKind::Add) {
                for (const Expr& term : {add->a, add->b}) {
                    auto* mul = term.as<BinaryNode>();
                    if (!mul || mul->kind != ExprKind::Mul) continue;
                    if (isBroadcastTimesWeights(mul->a, mul->b) ||
                        isBroadcastTimesWeights(mul->b, mul->a)) {
                        ++vectorMultiplyAdds;
                        lanes = l;
                        auto found = m_allocated.find(op->buffer->data.get());
                        largestSums =
                            std::max(largestSums, found == m_allocated.end() ? std::int64_t{1} << 40
                                                                             : found->second);
                    }
                }
            }
        }
        IRVisitor::visitBufferStore(op);
    }

private:
    bool isBroadcastTimesWeights(const Expr& a, const Expr& w) const
    {
        auto* load = w.as<BufferLoadNode>();
        if (!a.as<BroadcastNode>() || !load || load->indices.size() != 1) return false;
        auto* ramp = load->indices[0].as<RampNode>();
        return ramp && isOne(ramp->stride) && m_weights.count(load->buffer->name) > 0;
    }

    std::set<std::string> m_weights;
    std::set<std::string> m_axes;
    std::map<const void*, std::int64_t> m_allocated;
    int m_depth = 0;
};

} // namespace

TEST(DenseLayers, WeightsGoInPanelsOfOutputColumns)
{
    for (const DenseCase& c : kCases) {
        SCOPED_TRACE(c.name);
        Graph g = denseModel(c);
        Graph packed = g;
        ASSERT_TRUE(alterDenseLayout(packed));
        EXPECT_FALSE(alterDenseLayout(packed)); // once only
        const GraphNode& dense = packed.nodes.front();
        const std::int64_t n = c.spec.n, k = c.spec.input.back();
        const std::int64_t block = n % 16 == 0 ? 16 : 8;
        EXPECT_EQ(dense.intAttr(kWeightBlock, 0), block);
        const GraphTensor& w = packed.tensor(dense.inputs[1]);
        EXPECT_EQ(w.shape, (std::vector<std::int64_t>{n / block, k, block}));
        const HostBuffer& before = *g.tensor("weight").constant;
        for (std::int64_t r = 0; r < k; r += 7)
            for (std::int64_t col = 0; col < n; col += 5)
                ASSERT_EQ(w.constant->get(((col / block) * k + r) * block + col % block),
                          before.get(c.spec.transB ? col * k + r : r * n + col));
        // The reference reads the panels as it read the weights.
        std::map<std::string, HostBuffer> in;
        HostBuffer x(DataType::float32(), c.spec.input);
        x.fillRandom(9);
        in["x"] = x;
        const auto want = interpret(g, in), got = interpret(packed, in);
        Comparison cmp = compareTensors(got.at(g.outputs[0]), want.at(g.outputs[0]), 1e-12, 1e-12);
        EXPECT_TRUE(cmp.ok) << cmp.first;
    }
}

TEST(DenseLayers, DefaultsSumVectorsOfContiguousWeightsInRegisters)
{
    for (const Machine& m : kMachines) {
        SpaceOptions machine;
        machine.vectorLanes = m.lanes;
        machine.vectorRegisters = m.registers;
        for (const DenseCase& c : kCases) {
            SCOPED_TRACE(std::string(c.name) + " on " + m.name);
            Graph g = denseModel(c);
            optimizeGraph(g);
            const std::vector<Task> tasks = fuseOps(g);
            ASSERT_EQ(tasks.size(), 1u);
            const std::string script = taskScript(g, tasks.front(), machine);
            EvalResult r = evaluateScript(script);
            ASSERT_TRUE(r.ok) << r.error.message << "\n" << script;
            const Variant* v = nullptr;
            for (auto& candidate : r.program.variants)
                if (candidate.name == kDefaultTaskVariant) v = &candidate;
            ASSERT_NE(v, nullptr);
            PrimFunc f = lowerSchedule(v->schedule(), v->args, v->funcName).func;
            std::set<std::string> weights, axes;
            for (auto& t : v->args)
                if (t->name.find("packed") != std::string::npos) weights.insert(t->name);
            ASSERT_FALSE(weights.empty()) << script;
            for (auto& stage : v->schedule().stages())
                for (auto& a : stage.op->reduceAxes)
                    axes.insert(a->name());
            ReductionBody body(weights, axes);
            body.visit(f.body);
            const std::string tir = printTVMScript(f);
            EXPECT_GT(body.vectorMultiplyAdds, 0) << script << tir;
            EXPECT_EQ(body.scalarSumsInReduction, 0) << tir;
            // Whole vectors of the machine, or half of one where the columns allow no more
            // (1000 = 8 x 125).
            EXPECT_EQ(body.lanes, c.spec.n % m.lanes == 0 ? m.lanes : 8) << tir;
            // The sums fit in half the vector registers.
            EXPECT_LE(body.largestSums, m.registers / 2 * m.lanes) << tir;
        }
    }
}

TEST(DenseLayers, CompiledTheyComputeWhatTheReferenceComputes)
{
    for (const DenseCase& c : kCases) {
        SCOPED_TRACE(c.name);
        Graph g = denseModel(c);
        optimizeGraph(g);
        std::string why;
        auto model = CompiledModel::compile(g, {}, &why);
        ASSERT_NE(model, nullptr) << why;
        std::map<std::string, HostBuffer> in;
        HostBuffer x(DataType::float32(), c.spec.input);
        x.fillRandom(13);
        in["x"] = x;
        const ModelCheck check = model->check(in, interpret(g, in));
        for (auto* list : {&check.tasks, &check.outputs})
            for (auto& e : *list)
                EXPECT_TRUE(e.comparison.ok) << e.name << ": " << e.comparison.first;
    }
}
