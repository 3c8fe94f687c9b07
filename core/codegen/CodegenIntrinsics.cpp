// What tensor intrinsics' statements call: LLVM's intrinsics by name (call_llvm_pure_intrin),
// reinterpret, C functions (call_extern) and buffer addresses (tvm_access_ptr). An intrinsic the
// target CPU cannot run is refused here, by name and feature, before LLVM's instruction
// selection would stop the process.
#include "codegen/CodegenLLVMInternal.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/MC/MCSubtargetInfo.h>

namespace loopscope::codegen {

namespace {

bool startsWith(const std::string& s, const char* prefix)
{
    return s.rfind(prefix, 0) == 0;
}

// The CPU features an x86 intrinsic needs, from its name (LLVM's IntrinsicsX86.td groups them
// so); empty for intrinsics of no particular feature.
std::vector<const char*> featuresOf(const std::string& name)
{
    if (!startsWith(name, "llvm.x86.")) return {};
    if (name.find("vpdpbusd") != std::string::npos || name.find("vpdpwssd") != std::string::npos) {
        if (startsWith(name, "llvm.x86.avx512.")) {
            if (name.find(".512") != std::string::npos) return {"avx512vnni"};
            return {"avx512vnni", "avx512vl"};
        }
        return {"avxvnni"};
    }
    if (startsWith(name, "llvm.x86.avx512bf16.")) return {"avx512bf16"};
    if (startsWith(name, "llvm.x86.avx512.pmaddubs") || startsWith(name, "llvm.x86.avx512.pmaddw"))
        return {"avx512bw"};
    if (startsWith(name, "llvm.x86.avx512.")) return {"avx512f"};
    if (startsWith(name, "llvm.x86.avx2.")) return {"avx2"};
    if (startsWith(name, "llvm.x86.fma.")) return {"fma"};
    if (startsWith(name, "llvm.x86.avx.")) return {"avx"};
    if (startsWith(name, "llvm.x86.ssse3.")) return {"ssse3"};
    if (startsWith(name, "llvm.x86.sse41.")) return {"sse4.1"};
    if (startsWith(name, "llvm.x86.sse42.")) return {"sse4.2"};
    if (startsWith(name, "llvm.x86.tdp") || startsWith(name, "llvm.x86.tile"))
        return {"amx-tile", "amx-int8"};
    return {};
}

std::string typeText(llvm::Type* t)
{
    std::string s;
    llvm::raw_string_ostream os(s);
    t->print(os);
    return os.str();
}

} // namespace

llvm::Value* Codegen::genIntrinsicCall(const CallNode* op)
{
    switch (op->op) {
    case CallOp::Reinterpret: {
        llvm::Value* x = genExpr(op->args[0]);
        return m_b.CreateBitCast(x, llvmType(op->type));
    }
    case CallOp::TypeAnnotation:
    case CallOp::TvmTuple:
        throw CodegenError(std::string("T.") + callOpName(op->op) +
                           " has no value of its own: it annotates another call");
    case CallOp::AccessPtr: {
        // tvm_access_ptr(type_annotation(T), data, offset, extent, rw_mask): &data[offset].
        auto* data = op->args[1].as<VarNode>();
        LS_ASSERT(data, "tvm_access_ptr of a buffer without its data variable");
        auto it = m_vars.find(data);
        if (it == m_vars.end())
            throw CodegenError("tvm_access_ptr of '" + data->name + "', which is not in scope");
        return elementPointer(op->args[0].type(), it->second, genIndex(op->args[2]));
    }
    case CallOp::CallExtern:
    case CallOp::CallPureExtern: {
        const std::string name = op->args[0].as<StringImmNode>()->value;
        std::vector<llvm::Value*> args;
        std::vector<llvm::Type*> types;
        for (std::size_t i = 1; i < op->args.size(); ++i) {
            args.push_back(genExpr(op->args[i]));
            types.push_back(args.back()->getType());
        }
        llvm::FunctionCallee fn = m_mod.getOrInsertFunction(
            name, llvm::FunctionType::get(llvmType(op->type), types, false));
        return m_b.CreateCall(fn, args);
    }
    default: break;
    }
    // call_llvm_(pure_)intrin(name, signature count, args...)
    const std::string name = op->args[0].as<StringImmNode>()->value;
    const llvm::Intrinsic::ID id = llvm::Function::lookupIntrinsicID(name);
    if (id == llvm::Intrinsic::not_intrinsic)
        throw CodegenError("Unknown llvm intrinsic function '" + name + "'");
    std::string missing;
    const llvm::MCSubtargetInfo* sti = m_tm.getMCSubtargetInfo();
    for (const char* f : featuresOf(name))
        if (!sti->checkFeatures(std::string("+") + f))
            missing += (missing.empty() ? "" : ", ") + std::string(f);
    if (!missing.empty())
        throw CodegenError(name + " needs the CPU feature " + missing + ", which the target (" +
                           m_tm.getTargetCPU().str() +
                           ") lacks: choose the intrinsic's form for this CPU (TOPI's "
                           "dot_16x1x16_uint8_int8_int32() picks one) or compile for another CPU "
                           "(--target \"llvm -mcpu=...\")");
    std::vector<llvm::Value*> args;
    std::vector<llvm::Type*> types;
    for (std::size_t i = 2; i < op->args.size(); ++i) {
        args.push_back(genExpr(op->args[i]));
        types.push_back(args.back()->getType());
    }
    llvm::Type* ret = llvmType(op->type);
    llvm::Function* decl = nullptr;
    if (llvm::Intrinsic::isOverloaded(id)) {
        llvm::SmallVector<llvm::Intrinsic::IITDescriptor, 8> table;
        llvm::Intrinsic::getIntrinsicInfoTableEntries(id, table);
        llvm::ArrayRef<llvm::Intrinsic::IITDescriptor> ref(table);
        llvm::SmallVector<llvm::Type*, 4> overloads;
        if (llvm::Intrinsic::matchIntrinsicSignature(llvm::FunctionType::get(ret, types, false),
                                                     ref, overloads) ==
            llvm::Intrinsic::MatchIntrinsicTypes_Match)
            decl = llvm::Intrinsic::getDeclaration(&m_mod, id, overloads);
    } else {
        decl = llvm::Intrinsic::getDeclaration(&m_mod, id);
    }
    std::string given;
    for (llvm::Type* t : types)
        given += (given.empty() ? "" : ", ") + typeText(t);
    if (!decl)
        throw CodegenError("Cannot find intrinsic declaration, possible type mismatch: " + name +
                           " cannot take (" + given + ") and return " + typeText(ret));
    llvm::FunctionType* fty = decl->getFunctionType();
    bool fits = fty->getReturnType() == ret && fty->getNumParams() == types.size();
    for (std::size_t i = 0; fits && i < types.size(); ++i)
        fits = fty->getParamType(static_cast<unsigned>(i)) == types[i];
    if (!fits) {
        std::string wanted;
        for (llvm::Type* t : fty->params())
            wanted += (wanted.empty() ? "" : ", ") + typeText(t);
        throw CodegenError(name + " takes (" + wanted + ") and returns " +
                           typeText(fty->getReturnType()) + "; the call gives (" + given +
                           ") and wants " + typeText(ret));
    }
    return m_b.CreateCall(decl, args);
}

} // namespace loopscope::codegen
