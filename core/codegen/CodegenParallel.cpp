// Parallel loops: the body is outlined into a task the thread pool runs over ranges of the loop
// (through loopscope_parallel_for, which the runtime gives the JIT).
#include "codegen/CodegenLLVMInternal.h"

#include "ir/FreeVars.h"

#include <algorithm>
#include <string>

namespace loopscope::codegen {

// The loop body becomes its own function over a range [begin, end), run by the thread pool;
// the variables it uses travel in a closure. Buffers are passed on as noalias arguments of a
// helper (not inlined into the task), so the outlined body keeps the aliasing facts of the
// entry function.
void Codegen::genParallel(const ForNode* op)
{
    FreeVarCollector fv;
    fv.visit(op->min);
    fv.visit(op->extent); // the helper clamps its range to it
    fv.defined.insert(op->var.get());
    fv.visit(op->body);
    // Buffers (data variables) the body touches.
    std::vector<Var> captured;
    class BufferUse : public IRVisitor {
    public:
        std::vector<Var> data;
        VarSet seen, allocated;

    protected:
        void note(const Buffer& b)
        {
            if (seen.insert(b->data.get()).second && !allocated.count(b->data.get()))
                data.push_back(b->data);
        }
        void visitBufferLoad(const BufferLoadNode* l) override
        {
            note(l->buffer);
            IRVisitor::visitBufferLoad(l);
        }
        void visitBufferStore(const BufferStoreNode* s) override
        {
            note(s->buffer);
            IRVisitor::visitBufferStore(s);
        }
        void visitAllocate(const AllocateNode* a) override
        {
            allocated.insert(a->buffer->data.get());
            IRVisitor::visitAllocate(a);
        }
    } uses;
    uses.visit(op->body);
    std::vector<Var> buffers = uses.data;
    for (auto& v : fv.free) {
        bool isBuffer = std::any_of(buffers.begin(), buffers.end(),
                                    [&](const Var& b) { return b.get() == v.get(); });
        if (!isBuffer) captured.push_back(v);
    }
    std::vector<llvm::Value*> values;
    std::vector<llvm::Type*> types;
    for (auto& v : buffers) {
        values.push_back(m_vars.at(v.get()));
        types.push_back(ptrTy());
    }
    for (auto& v : captured) {
        values.push_back(m_vars.at(v.get()));
        types.push_back(values.back()->getType());
    }
    llvm::StructType* closureTy = llvm::StructType::get(m_ctx, types);
    std::string base =
        m_state.fn->getName().str() + "_parallel_" + std::to_string(m_parallelCount++);

    // Helper: void base_body(i64 begin, i64 end, ptr noalias buffers..., captured...).
    std::vector<llvm::Type*> helperParams{m_b.getInt64Ty(), m_b.getInt64Ty()};
    helperParams.insert(helperParams.end(), types.begin(), types.end());
    auto* helperTy = llvm::FunctionType::get(m_b.getVoidTy(), helperParams, false);
    llvm::Function* helper =
        llvm::Function::Create(helperTy, llvm::Function::InternalLinkage, base + "_body", m_mod);
    setAttributes(helper);
    helper->addFnAttr(llvm::Attribute::NoInline);
    for (std::size_t i = 0; i < buffers.size(); ++i)
        helper->addParamAttr(static_cast<unsigned>(2 + i), llvm::Attribute::NoAlias);

    // Task: void base(i64 begin, i64 end, ptr closure) unpacks and calls the helper.
    auto* taskTy = llvm::FunctionType::get(m_b.getVoidTy(),
                                           {m_b.getInt64Ty(), m_b.getInt64Ty(), ptrTy()}, false);
    llvm::Function* task =
        llvm::Function::Create(taskTy, llvm::Function::InternalLinkage, base, m_mod);
    setAttributes(task);

    // Caller side: fill the closure, call the pool.
    llvm::AllocaInst* closure = entryAlloca(closureTy, nullptr, 8);
    for (std::size_t i = 0; i < values.size(); ++i)
        m_b.CreateStore(values[i],
                        m_b.CreateStructGEP(closureTy, closure, static_cast<unsigned>(i)));
    llvm::Value* extent = m_b.CreateIntCast(genExpr(op->extent), m_b.getInt64Ty(), true);
    llvm::FunctionCallee parallelFor = m_mod.getOrInsertFunction(
        "loopscope_parallel_for",
        llvm::FunctionType::get(m_b.getVoidTy(), {m_b.getInt64Ty(), ptrTy(), ptrTy()}, false));
    m_b.CreateCall(parallelFor, {extent, task, closure});
    // The task and the helper; this function's insert point, state and variables are back at the
    // end of the scope.
    FunctionScope outlined(*this);

    // Task body (no lines of its own: it unpacks the closure).
    {
        auto* bb = llvm::BasicBlock::Create(m_ctx, "entry", task);
        m_b.SetInsertPoint(bb);
        m_b.SetCurrentDebugLocation(llvm::DebugLoc());
        std::vector<llvm::Value*> args{task->getArg(0), task->getArg(1)};
        for (std::size_t i = 0; i < types.size(); ++i)
            args.push_back(m_b.CreateLoad(types[i], m_b.CreateStructGEP(closureTy, task->getArg(2),
                                                                        static_cast<unsigned>(i))));
        m_b.CreateCall(helper, args);
        m_b.CreateRetVoid();
    }
    // Helper body: the loop over [begin, end), its code on the parallel loop's line.
    beginFunction(helper);
    if (m_lines && m_state.scope) {
        auto line = m_lines->find(op);
        if (line != m_lines->end())
            m_b.SetCurrentDebugLocation(llvm::DILocation::get(
                m_ctx, static_cast<unsigned>(line->second), 1, m_state.scope));
    }
    for (std::size_t i = 0; i < buffers.size(); ++i)
        m_vars[buffers[i].get()] = helper->getArg(static_cast<unsigned>(2 + i));
    for (std::size_t i = 0; i < captured.size(); ++i)
        m_vars[captured[i].get()] = helper->getArg(static_cast<unsigned>(2 + buffers.size() + i));
    llvm::Type* ivTy = llvmType(op->var.type());
    // The pool hands out 0 <= begin <= end <= extent. Said in the IR (a no-op clamp), scalar
    // evolution knows the counter's range, and proving the index arithmetic's flags costs
    // it less (8% of the optimizer's time for the ladder's parallel step).
    llvm::Value* extent64 = m_b.CreateIntCast(genExpr(op->extent), m_b.getInt64Ty(), true);
    auto clamp = [&](llvm::Value* v) {
        return m_b.CreateIntCast(m_b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, v, extent64),
                                 ivTy, true);
    };
    llvm::Value* begin = clamp(helper->getArg(0));
    llvm::Value* end = clamp(helper->getArg(1));
    llvm::Value* mn = genExpr(op->min);
    {
        Scoped<bool> inside(m_insideParallel, true);
        emitLoop(op->var, m_b.CreateAdd(mn, begin), m_b.CreateAdd(mn, end), op->body,
                 nonNegative(op->min));
    }
    m_b.CreateRetVoid();
}

} // namespace loopscope::codegen
