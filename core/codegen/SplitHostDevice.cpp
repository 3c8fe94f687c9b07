#include "codegen/SplitHostDevice.h"

#include "codegen/Codegen.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Printer.h"
#include "lower/CSignature.h"
#include "schedule/ThreadScope.h"

#include <algorithm>
#include <set>

namespace loopscope {

namespace {

// What a kernel's body uses: buffers (by their storage) and variables, and the thread variables
// its launches bind (not parameters).
class Uses : public IRVisitor {
public:
    std::set<const VarNode*> data;
    VarSet vars;
    std::set<const void*> launched;

protected:
    void visitAttr(const AttrNode* op) override
    {
        if (op->key == "thread_extent") launched.insert(op->ref);
        IRVisitor::visitAttr(op);
    }
    void visitLeaf(const Expr& e) override
    {
        if (auto* v = e.as<VarNode>()) vars.insert(v);
    }
    void visitBufferLoad(const BufferLoadNode* op) override
    {
        data.insert(op->buffer->data.get());
        IRVisitor::visitBufferLoad(op);
    }
    void visitBufferStore(const BufferStoreNode* op) override
    {
        data.insert(op->buffer->data.get());
        IRVisitor::visitBufferStore(op);
    }
};

// The launch shape: extents of the block and thread launches, and the shared memory.
class LaunchShape : public IRVisitor {
public:
    explicit LaunchShape(GpuKernel& k) : m_k(k) {}

protected:
    void visitAttr(const AttrNode* op) override
    {
        if (op->key == "thread_extent" && threadDim(op->target) >= 0)
            (threadRank(op->target) == 0 ? m_k.grid : m_k.block)[threadDim(op->target)] = op->value;
        IRVisitor::visitAttr(op);
    }
    void visitAllocate(const AllocateNode* op) override
    {
        std::int64_t n = 0;
        if (op->buffer->scope == "shared" && isConstInt(op->buffer->shape[0], &n))
            m_k.sharedBytes += n * op->buffer->dtype.bytes() * op->buffer->dtype.lanes;
        IRVisitor::visitAllocate(op);
    }

private:
    GpuKernel& m_k;
};

// The kernels of the program in order: its launch nests, and the global buffers the host
// allocates around them for what one kernel leaves to the next. Anything else would run on the
// host.
void collectKernels(const Stmt& s, std::vector<Stmt>& out, std::vector<Buffer>& workspaces)
{
    if (!s.defined()) return;
    if (auto* seq = s.as<SeqNode>()) {
        for (auto& c : seq->stmts)
            collectKernels(c, out, workspaces);
        return;
    }
    if (auto* a = s.as<AllocateNode>();
        a && (a->buffer->scope.empty() || a->buffer->scope == "global")) {
        workspaces.push_back(a->buffer);
        collectKernels(a->body, out, workspaces);
        return;
    }
    if (auto* a = s.as<AttrNode>(); a && a->key == "thread_extent") {
        out.push_back(s);
        return;
    }
    if (s.as<EvaluateNode>()) return;
    std::string line = printStmt(s);
    line = line.substr(0, line.find('\n'));
    throw CodegenError("'" + line +
                       "' runs outside every GPU kernel: on a GPU target every stage's loops "
                       "are bound to GPU threads, or computed inside bound loops. Did you "
                       "forget to bind?");
}

} // namespace

DeviceProgram splitHostDevice(const PrimFunc& f)
{
    DeviceProgram program;
    std::vector<Stmt> bodies;
    collectKernels(f.body, bodies, program.workspaces);
    // Every buffer a kernel may take: the parameters, then the workspaces.
    std::vector<Buffer> all = f.params;
    all.insert(all.end(), program.workspaces.begin(), program.workspaces.end());
    if (bodies.empty())
        throw CodegenError("the program launches no GPU kernel. Did you forget to bind?");
    const std::vector<Var> sizes = sizeParameters(f);
    for (std::size_t k = 0; k < bodies.size(); ++k) {
        DeviceKernel d;
        GpuKernel& kernel = d.info;
        d.body = bodies[k];
        kernel.name = scriptName(f.name) + "_kernel" + (k ? "_" + std::to_string(k) : "");
        for (auto& e : kernel.grid)
            e = makeInt(1);
        for (auto& e : kernel.block)
            e = makeInt(1);
        Uses uses;
        uses.visit(d.body);
        for (std::size_t i = 0; i < all.size(); ++i)
            if (uses.data.count(all[i]->data.get())) kernel.buffers.push_back(static_cast<int>(i));
        // As SplitHostDevice orders a kernel's parameters: the buffers by name, then the sizes.
        std::stable_sort(kernel.buffers.begin(), kernel.buffers.end(), [&](int a, int b) {
            return scriptName(all[static_cast<std::size_t>(a)]->name) <
                   scriptName(all[static_cast<std::size_t>(b)]->name);
        });
        for (int i : kernel.buffers)
            d.buffers.push_back(all[static_cast<std::size_t>(i)]);
        for (auto& v : sizes)
            if (uses.vars.count(v.get()) && !uses.launched.count(v.get()))
                kernel.sizes.push_back(v);
        std::stable_sort(kernel.sizes.begin(), kernel.sizes.end(),
                         [](const Var& a, const Var& b) { return a.name() < b.name(); });
        LaunchShape(kernel).visit(d.body);
        program.kernels.push_back(std::move(d));
    }
    return program;
}

} // namespace loopscope
