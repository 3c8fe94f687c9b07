// LLVM types of the IR's types, the functions generated code consists of (their signatures and
// attributes, the entry block that holds allocas), the packed entry, and emission into another
// function for the extent of a scope.
#include "codegen/CodegenLLVMInternal.h"

#include "ir/Printer.h"

namespace loopscope::codegen {

Codegen::Codegen(llvm::LLVMContext& ctx, llvm::Module& m, llvm::TargetMachine& tm)
    : m_ctx(ctx), m_mod(m), m_tm(tm), m_b(ctx)
{
}

void Codegen::build(const PrimFunc& f, const std::vector<Var>& sizes, const LineOfStatement* lines)
{
    if (lines) {
        m_lines = lines;
        m_di = std::make_unique<llvm::DIBuilder>(m_mod);
        m_diFile = m_di->createFile(scriptName(f.name) + ".tir.py", ".");
        m_diUnit = m_di->createCompileUnit(llvm::dwarf::DW_LANG_Python, m_diFile, "Loopscope", true,
                                           "", 0, "", llvm::DICompileUnit::LineTablesOnly);
        m_mod.addModuleFlag(llvm::Module::Warning, "Debug Info Version",
                            llvm::DEBUG_METADATA_VERSION);
        m_mod.addModuleFlag(llvm::Module::Warning, "Dwarf Version", 4);
        m_functionLine = 7; // the printed function's `def` line
    }
    std::vector<llvm::Type*> params;
    for (std::size_t i = 0; i < f.params.size(); ++i)
        params.push_back(ptrTy());
    for (auto& s : sizes)
        params.push_back(llvmType(s.type()));
    auto* fnTy = llvm::FunctionType::get(llvm::Type::getVoidTy(m_ctx), params, false);
    llvm::Function* fn =
        llvm::Function::Create(fnTy, llvm::Function::ExternalLinkage, f.name, m_mod);
    setAttributes(fn);
    // The packed entry calls it rather than holding a second copy of the body: inlined, every
    // loop would be optimized and compiled twice, for one call per run saved.
    fn->addFnAttr(llvm::Attribute::NoInline);
    for (std::size_t i = 0; i < f.params.size(); ++i) {
        fn->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
        fn->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoCapture);
        fn->getArg(static_cast<unsigned>(i))->setName(scriptName(f.params[i]->name));
        m_vars[f.params[i]->data.get()] = fn->getArg(static_cast<unsigned>(i));
    }
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        llvm::Argument* a = fn->getArg(static_cast<unsigned>(f.params.size() + i));
        a->setName(scriptName(sizes[i].name()));
        m_vars[sizes[i].get()] = a;
    }
    beginFunction(fn);
    genStmt(f.body);
    m_b.CreateRetVoid();
    endFunction();
    m_b.SetCurrentDebugLocation(llvm::DebugLoc()); // the packed entry has no lines of its own

    // The packed entry: void NAME_packed(void** buffers, int64_t* sizes).
    auto* packedTy =
        llvm::FunctionType::get(llvm::Type::getVoidTy(m_ctx), {ptrTy(), ptrTy()}, false);
    llvm::Function* packed = llvm::Function::Create(packedTy, llvm::Function::ExternalLinkage,
                                                    f.name + "_packed", m_mod);
    setAttributes(packed);
    auto* bb = llvm::BasicBlock::Create(m_ctx, "entry", packed);
    m_b.SetInsertPoint(bb);
    std::vector<llvm::Value*> args;
    for (std::size_t i = 0; i < f.params.size(); ++i) {
        llvm::Value* slot = m_b.CreateConstGEP1_64(ptrTy(), packed->getArg(0), i);
        args.push_back(m_b.CreateLoad(ptrTy(), slot));
    }
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        llvm::Value* slot = m_b.CreateConstGEP1_64(m_b.getInt64Ty(), packed->getArg(1), i);
        llvm::Value* v = m_b.CreateLoad(m_b.getInt64Ty(), slot);
        args.push_back(m_b.CreateIntCast(v, llvmType(sizes[i].type()), true));
    }
    m_b.CreateCall(fn, args);
    m_b.CreateRetVoid();
    if (m_di) m_di->finalize();
}

void Codegen::buildKernel(const std::string& name, const std::vector<Buffer>& buffers,
                          const std::vector<Var>& sizes, const Stmt& body)
{
    m_device = true;
    std::vector<llvm::Type*> params;
    for (std::size_t i = 0; i < buffers.size(); ++i)
        params.push_back(ptrTy());
    for (auto& s : sizes)
        params.push_back(llvmType(s.type()));
    auto* fnTy = llvm::FunctionType::get(llvm::Type::getVoidTy(m_ctx), params, false);
    llvm::Function* fn = llvm::Function::Create(fnTy, llvm::Function::ExternalLinkage, name, m_mod);
    setAttributes(fn);
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        fn->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
        // Every buffer is its own allocation, which the driver aligns to 256 bytes (TVM assumes
        // 64): consecutive elements at a multiple of four load and store as one vector.
        fn->addParamAttr(static_cast<unsigned>(i),
                         llvm::Attribute::getWithAlignment(m_ctx, llvm::Align(64)));
        fn->getArg(static_cast<unsigned>(i))->setName(scriptName(buffers[i]->name));
        m_vars[buffers[i]->data.get()] = fn->getArg(static_cast<unsigned>(i));
    }
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        llvm::Argument* a = fn->getArg(static_cast<unsigned>(buffers.size() + i));
        a->setName(scriptName(sizes[i].name()));
        m_vars[sizes[i].get()] = a;
    }
    beginFunction(fn);
    genStmt(body);
    m_b.CreateRetVoid();
    endFunction();
    // !nvvm.annotations = !{!{ptr @NAME, !"kernel", i32 1}}: a .entry, launched from the host.
    llvm::NamedMDNode* annotations = m_mod.getOrInsertNamedMetadata("nvvm.annotations");
    llvm::Metadata* kernel[] = {llvm::ValueAsMetadata::get(fn),
                                llvm::MDString::get(m_ctx, "kernel"),
                                llvm::ValueAsMetadata::get(m_b.getInt32(1))};
    annotations->addOperand(llvm::MDNode::get(m_ctx, kernel));
}

llvm::Type* Codegen::scalarType(DataType t)
{
    switch (t.code) {
    case DataType::Float:
        return t.bits == 16   ? llvm::Type::getHalfTy(m_ctx)
               : t.bits == 64 ? llvm::Type::getDoubleTy(m_ctx)
                              : llvm::Type::getFloatTy(m_ctx);
    case DataType::Bool: return m_b.getInt1Ty();
    case DataType::Handle: return ptrTy();
    default: return llvm::IntegerType::get(m_ctx, t.bits);
    }
}

llvm::Type* Codegen::llvmType(DataType t)
{
    llvm::Type* s = scalarType(t.element());
    return t.lanes > 1 ? llvm::FixedVectorType::get(s, t.lanes) : s;
}

// Memory representation: bool is a byte.
llvm::Type* Codegen::memType(DataType t)
{
    DataType e = t.element();
    llvm::Type* s = e.isBool() ? m_b.getInt8Ty() : scalarType(e);
    return t.lanes > 1 ? llvm::FixedVectorType::get(s, t.lanes) : s;
}

void Codegen::setAttributes(llvm::Function* fn)
{
    if (m_device) {
        fn->addFnAttr(llvm::Attribute::NoUnwind);
        return;
    }
    fn->addFnAttr("target-cpu", m_tm.getTargetCPU());
    fn->addFnAttr("target-features", m_tm.getTargetFeatureString());
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    // Copy and fill loops stay loops: turned into memcpy and memset calls of a few hundred
    // bytes each, then fully unrolled, they expand back into long runs of loads and stores
    // that cost the back end (its DAG combiner) a third to a half of the compile time, and
    // run no faster.
    fn->addFnAttr("no-builtin-memcpy");
    fn->addFnAttr("no-builtin-memset");
}

void Codegen::beginFunction(llvm::Function* fn)
{
    m_state.fn = fn;
    if (m_di) {
        auto* type = m_di->createSubroutineType(m_di->getOrCreateTypeArray({}));
        m_state.scope = m_di->createFunction(
            m_diUnit, fn->getName(), fn->getName(), m_diFile, m_functionLine, type, m_functionLine,
            llvm::DINode::FlagZero, llvm::DISubprogram::SPFlagDefinition);
        fn->setSubprogram(m_state.scope);
        m_b.SetCurrentDebugLocation(
            llvm::DILocation::get(m_ctx, static_cast<unsigned>(m_functionLine), 1, m_state.scope));
    }
    m_state.allocaBlock = llvm::BasicBlock::Create(m_ctx, "entry", fn);
    auto* body = llvm::BasicBlock::Create(m_ctx, "body", fn);
    m_b.SetInsertPoint(m_state.allocaBlock);
    m_b.CreateBr(body);
    m_b.SetInsertPoint(body);
}

void Codegen::endFunction() {}

llvm::AllocaInst* Codegen::entryAlloca(llvm::Type* ty, llvm::Value* count, unsigned align)
{
    llvm::IRBuilder<> eb(m_ctx);
    eb.SetInsertPoint(m_state.allocaBlock->getTerminator());
    auto* a = eb.CreateAlloca(ty, count);
    a->setAlignment(llvm::Align(align));
    return a;
}

llvm::Value* Codegen::broadcast(llvm::Value* v, int lanes)
{
    if (lanes <= 1 || v->getType()->isVectorTy()) return v;
    return m_b.CreateVectorSplat(static_cast<unsigned>(lanes), v);
}

Codegen::FunctionScope::FunctionScope(Codegen& cg)
    : m_cg(cg), m_insertPoint(cg.m_b), m_state(std::exchange(cg.m_state, {})),
      m_vars(std::exchange(cg.m_vars, {})), m_wide(std::exchange(cg.m_wide, {}))
{
}

Codegen::FunctionScope::~FunctionScope()
{
    m_cg.m_state = std::move(m_state);
    m_cg.m_vars = std::move(m_vars);
    m_cg.m_wide = std::move(m_wide);
}

} // namespace loopscope::codegen
