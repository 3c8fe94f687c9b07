// Expressions: a visit per node kind computes its LLVM value. Indices are computed in 64 bits
// (genIndex), and variables are bound for the extent of a scope (Codegen::Bindings).
#include "codegen/CodegenLLVMInternal.h"

#include "ir/Diagnostic.h"
#include "ir/IRUtil.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <algorithm>
#include <limits>

namespace loopscope::codegen {

// A buffer index in 64 bits. TIR computes indices in int32 and never overflows them, so
// computing them in i64 from the start gives the same addresses without a sign extension
// before every access: LLVM would otherwise spend most of its time (scalar evolution) proving
// that extending each index sum is safe, and the loops would keep 32-bit copies of it.
llvm::Value* Codegen::genIndex(const Expr& e)
{
    llvm::Type* i64 = m_b.getInt64Ty();
    if (!isInt32(e.type())) return m_b.CreateIntCast(genExpr(e), i64, !e.type().isUInt());
    switch (e.kind()) {
    case ExprKind::IntImm:
        return llvm::ConstantInt::get(i64, static_cast<std::uint64_t>(e.as<IntImmNode>()->value),
                                      true);
    case ExprKind::Var:
        if (auto it = m_wide.find(e.as<VarNode>()); it != m_wide.end()) return it->second;
        break;
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul: {
        auto* b = e.as<BinaryNode>();
        llvm::Value* x = genIndex(b->a);
        llvm::Value* y = genIndex(b->b);
        if (e.kind() == ExprKind::Sub) return m_b.CreateSub(x, y, "", false, true);
        // Both sides non-negative: no unsigned wrap either. Said here, LLVM need not prove it
        // (scalar evolution's proofs of it were a third of the optimizer's time).
        bool nuw = nonNegative(b->a) && nonNegative(b->b);
        if (e.kind() == ExprKind::Add) return m_b.CreateAdd(x, y, "", nuw, true);
        return m_b.CreateMul(x, y, "", nuw, true);
    }
    default: break;
    }
    return m_b.CreateSExt(genExpr(e), i64);
}

// Whether an int32 index expression is known to be >= 0: constants, loop counters that start
// at a non-negative value, variables bound to such values, and their sums and products.
// (Narrower integers may wrap, so nothing is known of them.)
bool Codegen::nonNegative(const Expr& e) const
{
    if (!isInt32(e.type())) return false;
    switch (e.kind()) {
    case ExprKind::IntImm: return e.as<IntImmNode>()->value >= 0;
    case ExprKind::Var: return m_nonNegative.count(e.as<VarNode>()) > 0;
    case ExprKind::Add:
    case ExprKind::Mul: {
        auto* b = e.as<BinaryNode>();
        return nonNegative(b->a) && nonNegative(b->b);
    }
    default: return false;
    }
}

void Codegen::setNonNegative(const Var& v, bool yes)
{
    if (yes)
        m_nonNegative.insert(v.get());
    else
        m_nonNegative.erase(v.get());
}

// Gives a variable its value: for an int32 one, the value in 64 bits (see genIndex).
void Codegen::setValue(const Var& v, llvm::Value* value)
{
    if (isInt32(v.type())) {
        m_wide[v.get()] = value;
        m_vars[v.get()] = m_b.CreateTrunc(value, llvmType(v.type()));
    } else {
        m_vars[v.get()] = value;
        m_wide.erase(v.get());
    }
}

llvm::Value* Codegen::genExpr(const Expr& e)
{
    Scoped<const Expr*> visiting(m_visiting, &e);
    visit(e);
    return std::exchange(m_value, nullptr);
}

void Codegen::visitLeaf(const Expr& e)
{
    switch (e.kind()) {
    case ExprKind::IntImm: {
        auto* imm = e.as<IntImmNode>();
        m_value = llvm::ConstantInt::get(llvmType(e.type()), static_cast<std::uint64_t>(imm->value),
                                         true);
        return;
    }
    case ExprKind::FloatImm:
        m_value = llvm::ConstantFP::get(llvmType(e.type()), e.as<FloatImmNode>()->value);
        return;
    case ExprKind::StringImm: throw CodegenError("string values cannot be computed");
    case ExprKind::Var: {
        auto it = m_vars.find(e.as<VarNode>());
        LS_ASSERT(it != m_vars.end(),
                  "codegen: variable '" + e.as<VarNode>()->name + "' is not defined");
        m_value = it->second;
        return;
    }
    default: LS_ASSERT(false, "codegen: not a leaf"); return;
    }
}

void Codegen::visitBinary(const BinaryNode* op)
{
    m_value = genBinary(op);
}

void Codegen::visitNot(const NotNode* op)
{
    m_value = m_b.CreateNot(genExpr(op->a));
}

void Codegen::visitSelect(const SelectNode* op)
{
    llvm::Value* c = genExpr(op->cond);
    llvm::Value* t = genExpr(op->t);
    llvm::Value* f = genExpr(op->f);
    int lanes = std::max({lanesOf(c), lanesOf(t), lanesOf(f)});
    m_value = m_b.CreateSelect(lanes > 1 && lanesOf(c) == 1 ? c : broadcast(c, lanes),
                               broadcast(t, lanes), broadcast(f, lanes));
}

void Codegen::visitCast(const CastNode* op)
{
    m_value = genCast(op);
}

void Codegen::visitCall(const CallNode* op)
{
    m_value = genCall(op, *m_visiting);
}

void Codegen::visitTensorLoad(const TensorLoadNode*)
{
    LS_ASSERT(false, "codegen: unlowered tensor expression");
}

void Codegen::visitReduce(const ReduceNode*)
{
    LS_ASSERT(false, "codegen: unlowered tensor expression");
}

void Codegen::visitRamp(const RampNode* op)
{
    llvm::Value* base = genExpr(op->base);
    llvm::Value* stride = genExpr(op->stride);
    std::vector<llvm::Constant*> idx;
    for (int i = 0; i < op->lanes; ++i)
        idx.push_back(llvm::ConstantInt::get(base->getType(), static_cast<std::uint64_t>(i)));
    llvm::Value* steps = llvm::ConstantVector::get(idx);
    m_value = m_b.CreateAdd(broadcast(base, op->lanes),
                            m_b.CreateMul(broadcast(stride, op->lanes), steps));
}

void Codegen::visitBroadcast(const BroadcastNode* op)
{
    m_value = broadcast(genExpr(op->value), op->lanes);
}

void Codegen::visitLet(const LetNode* op)
{
    Bindings let(*this);
    let.bind(op->var, op->value);
    m_value = genExpr(op->body);
}

llvm::Value* Codegen::genBinary(const BinaryNode* op)
{
    llvm::Value* a = genExpr(op->a);
    llvm::Value* b = genExpr(op->b);
    int lanes = std::max(lanesOf(a), lanesOf(b));
    a = broadcast(a, lanes);
    b = broadcast(b, lanes);
    DataType t = op->a.type();
    bool isFloat = t.isFloat();
    bool isUnsigned = t.isUInt() || t.isBool();
    switch (op->kind) {
    case ExprKind::Add:
        return isFloat ? m_b.CreateFAdd(a, b) : m_b.CreateAdd(a, b, "", false, !isUnsigned);
    case ExprKind::Sub:
        return isFloat ? m_b.CreateFSub(a, b) : m_b.CreateSub(a, b, "", false, !isUnsigned);
    case ExprKind::Mul:
        return isFloat ? m_b.CreateFMul(a, b) : m_b.CreateMul(a, b, "", false, !isUnsigned);
    case ExprKind::Div:
        if (isFloat) return m_b.CreateFDiv(a, b);
        return isUnsigned ? m_b.CreateUDiv(a, b) : m_b.CreateSDiv(a, b);
    case ExprKind::Mod:
        if (isFloat) return m_b.CreateFRem(a, b);
        return isUnsigned ? m_b.CreateURem(a, b) : m_b.CreateSRem(a, b);
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod: {
        if (isFloat) {
            llvm::Value* q = m_b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, m_b.CreateFDiv(a, b));
            return op->kind == ExprKind::FloorDiv ? q : m_b.CreateFSub(a, m_b.CreateFMul(q, b));
        }
        if (isUnsigned)
            return op->kind == ExprKind::FloorDiv ? m_b.CreateUDiv(a, b) : m_b.CreateURem(a, b);
        llvm::Value* q = m_b.CreateSDiv(a, b);
        llvm::Value* r = m_b.CreateSRem(a, b);
        llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
        // Adjust when the remainder is non-zero and its sign differs from the divisor's.
        llvm::Value* adjust =
            m_b.CreateAnd(m_b.CreateICmpNE(r, zero),
                          m_b.CreateICmpNE(m_b.CreateICmpSLT(r, zero), m_b.CreateICmpSLT(b, zero)));
        if (op->kind == ExprKind::FloorDiv)
            return m_b.CreateSub(q, m_b.CreateZExt(adjust, q->getType()));
        return m_b.CreateSelect(adjust, m_b.CreateAdd(r, b), r);
    }
    case ExprKind::Min:
    case ExprKind::Max: {
        bool isMin = op->kind == ExprKind::Min;
        llvm::Value* lt = isFloat      ? m_b.CreateFCmpOLT(a, b)
                          : isUnsigned ? m_b.CreateICmpULT(a, b)
                                       : m_b.CreateICmpSLT(a, b);
        return isMin ? m_b.CreateSelect(lt, a, b) : m_b.CreateSelect(lt, b, a);
    }
    case ExprKind::EQ: return isFloat ? m_b.CreateFCmpOEQ(a, b) : m_b.CreateICmpEQ(a, b);
    case ExprKind::NE: return isFloat ? m_b.CreateFCmpUNE(a, b) : m_b.CreateICmpNE(a, b);
    case ExprKind::LT:
        return isFloat      ? m_b.CreateFCmpOLT(a, b)
               : isUnsigned ? m_b.CreateICmpULT(a, b)
                            : m_b.CreateICmpSLT(a, b);
    case ExprKind::LE:
        return isFloat      ? m_b.CreateFCmpOLE(a, b)
               : isUnsigned ? m_b.CreateICmpULE(a, b)
                            : m_b.CreateICmpSLE(a, b);
    case ExprKind::GT:
        return isFloat      ? m_b.CreateFCmpOGT(a, b)
               : isUnsigned ? m_b.CreateICmpUGT(a, b)
                            : m_b.CreateICmpSGT(a, b);
    case ExprKind::GE:
        return isFloat      ? m_b.CreateFCmpOGE(a, b)
               : isUnsigned ? m_b.CreateICmpUGE(a, b)
                            : m_b.CreateICmpSGE(a, b);
    case ExprKind::And: return m_b.CreateAnd(a, b);
    case ExprKind::Or: return m_b.CreateOr(a, b);
    default: LS_ASSERT(false, "codegen: unknown binary operator"); return nullptr;
    }
}

llvm::Value* Codegen::genCast(const CastNode* op)
{
    llvm::Value* v = genExpr(op->value);
    DataType from = op->value.type(), to = op->type;
    llvm::Type* ty = llvmType(to.withLanes(std::max<int>(to.lanes, lanesOf(v))));
    v = broadcast(v, to.lanes);
    if (to.isBool()) {
        llvm::Value* zero = llvm::Constant::getNullValue(v->getType());
        return from.isFloat() ? m_b.CreateFCmpUNE(v, zero) : m_b.CreateICmpNE(v, zero);
    }
    if (from.isFloat() && to.isFloat()) return m_b.CreateFPCast(v, ty);
    if (from.isFloat()) return to.isUInt() ? m_b.CreateFPToUI(v, ty) : m_b.CreateFPToSI(v, ty);
    bool fromSigned = from.isInt();
    if (to.isFloat()) return fromSigned ? m_b.CreateSIToFP(v, ty) : m_b.CreateUIToFP(v, ty);
    return m_b.CreateIntCast(v, ty, fromSigned);
}

llvm::Value* Codegen::mathCall(llvm::Intrinsic::ID id, llvm::Value* x)
{
    return m_b.CreateUnaryIntrinsic(id, x);
}

// exp of float32 vectors in their own lanes, as Cephes's expf (and ONNX Runtime's MLAS, and
// TVM's fast_exp) computes it: x = n ln 2 + r with |r| <= ln 2 / 2, e^r by a polynomial of
// degree 7 (within about one unit in the last place over the whole range), times 2^n made in
// the exponent bits, in two halves so that results near the largest float and the denormals
// below the smallest come out right. llvm.exp of a vector would become one libm call per lane.
// Past 88.72 the result is infinite, NaN stays NaN. Scalars keep llvm.exp (libm's expf), as TVM
// compiles them.
llvm::Value* Codegen::genExp(llvm::Value* x)
{
    const int lanes = lanesOf(x);
    if (lanes == 1 || !x->getType()->getScalarType()->isFloatTy())
        return mathCall(llvm::Intrinsic::exp, x);
    llvm::Type* ft = x->getType();
    auto c = [&](double v) { return llvm::ConstantFP::get(ft, v); };
    constexpr double kLargest = 88.72283905206835; // ln of the largest float
    llvm::Value* clamped = m_b.CreateBinaryIntrinsic(
        llvm::Intrinsic::maxnum, m_b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, x, c(kLargest)),
        c(-104.0)); // e^-104 rounds to 0
    // n = round(x / ln 2); r = x - n ln 2, with ln 2 in two parts so that n ln 2 is exact.
    llvm::Value* n =
        mathCall(llvm::Intrinsic::floor,
                 m_b.CreateFAdd(m_b.CreateFMul(clamped, c(1.44269504088896341)), c(0.5)));
    llvm::Value* r = m_b.CreateFSub(clamped, m_b.CreateFMul(n, c(0.693359375)));
    r = m_b.CreateFSub(r, m_b.CreateFMul(n, c(-2.12194440e-4)));
    llvm::Value* p = c(1.9875691500e-4);
    for (double k :
         {1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1})
        p = m_b.CreateFAdd(m_b.CreateFMul(p, r), c(k));
    llvm::Value* y =
        m_b.CreateFAdd(m_b.CreateFAdd(m_b.CreateFMul(p, m_b.CreateFMul(r, r)), r), c(1.0));
    // 2^n as 2^(n/2) 2^(n - n/2): each half a normal float for n in [-150, 128].
    llvm::Type* it = llvm::FixedVectorType::get(m_b.getInt32Ty(), static_cast<unsigned>(lanes));
    llvm::Value* ni = m_b.CreateFPToSI(n, it);
    llvm::Value* half = m_b.CreateAShr(ni, 1);
    auto pow2 = [&](llvm::Value* e) {
        return m_b.CreateBitCast(
            m_b.CreateShl(m_b.CreateAdd(e, llvm::ConstantInt::get(it, 127)), 23), ft);
    };
    llvm::Value* out = m_b.CreateFMul(m_b.CreateFMul(y, pow2(half)), pow2(m_b.CreateSub(ni, half)));
    out = m_b.CreateSelect(m_b.CreateFCmpOGT(x, c(kLargest)),
                           c(std::numeric_limits<double>::infinity()), out);
    return m_b.CreateSelect(m_b.CreateFCmpUNO(x, x), x, out);
}

// A libm function applied lane by lane (tanh has no LLVM intrinsic).
llvm::Value* Codegen::libmCall(const char* f32, const char* f64, llvm::Value* x)
{
    llvm::Type* elem = x->getType()->getScalarType();
    if (elem->isHalfTy()) {
        // libm has no half-precision functions: compute in float and round back.
        llvm::Type* wide = x->getType()->getWithNewType(llvm::Type::getFloatTy(m_ctx));
        return m_b.CreateFPTrunc(libmCall(f32, f64, m_b.CreateFPExt(x, wide)), x->getType());
    }
    const char* name = elem->isDoubleTy() ? f64 : f32;
    llvm::FunctionCallee fn =
        m_mod.getOrInsertFunction(name, llvm::FunctionType::get(elem, {elem}, false));
    int lanes = lanesOf(x);
    if (lanes == 1) return m_b.CreateCall(fn, {x});
    llvm::Value* out = llvm::UndefValue::get(x->getType());
    for (int i = 0; i < lanes; ++i)
        out = m_b.CreateInsertElement(
            out, m_b.CreateCall(fn, {m_b.CreateExtractElement(x, static_cast<std::uint64_t>(i))}),
            static_cast<std::uint64_t>(i));
    return out;
}

llvm::Value* Codegen::genCall(const CallNode* op, const Expr& self)
{
    switch (op->op) {
    case CallOp::Likely: return genExpr(op->args[0]);
    case CallOp::IfThenElse: return genIfThenElse(op, self);
    case CallOp::WarpActiveMask:
    case CallOp::WarpShuffleDown:
    case CallOp::WarpShuffle: return genWarpCall(op);
    case CallOp::ThreadAllreduce:
        LS_ASSERT(false, "tvm_thread_allreduce reached code generation unlowered");
        return nullptr;
    default: break;
    }
    if (isIntrinsicCall(op->op)) return genIntrinsicCall(op);
    llvm::Value* x = genExpr(op->args[0]);
    if (m_device) {
        // LLVM 16's NVPTX back end aborts on llvm.exp, llvm.log and llvm.pow (there is no libdevice
        // here): these are libclc's functions, linked in by generatePtx.
        switch (op->op) {
        case CallOp::Exp: return libmCall("_Z3expf", "_Z3expd", x);
        case CallOp::Log: return libmCall("_Z3logf", "_Z3logd", x);
        case CallOp::Tanh: return libmCall("_Z4tanhf", "_Z4tanhd", x);
        case CallOp::Sigmoid: {
            llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
            llvm::Value* e = libmCall("_Z3expf", "_Z3expd", m_b.CreateFNeg(x));
            return m_b.CreateFDiv(one, m_b.CreateFAdd(one, e));
        }
        case CallOp::Pow: {
            LS_ASSERT(lanesOf(x) == 1, "pow of a vector in a GPU kernel");
            llvm::Type* t = x->getType();
            const bool dbl = t->isDoubleTy();
            llvm::FunctionCallee fn = m_mod.getOrInsertFunction(
                dbl ? "_Z3powdd" : "_Z3powff", llvm::FunctionType::get(t, {t, t}, false));
            return m_b.CreateCall(fn, {x, genExpr(op->args[1])});
        }
        default: break;
        }
    }
    switch (op->op) {
    case CallOp::Exp: return genExp(x);
    case CallOp::Log: return mathCall(llvm::Intrinsic::log, x);
    case CallOp::Sqrt: return mathCall(llvm::Intrinsic::sqrt, x);
    case CallOp::Fabs: return mathCall(llvm::Intrinsic::fabs, x);
    case CallOp::Floor: return mathCall(llvm::Intrinsic::floor, x);
    case CallOp::Ceil: return mathCall(llvm::Intrinsic::ceil, x);
    case CallOp::Nearbyint: return mathCall(llvm::Intrinsic::nearbyint, x);
    case CallOp::Tanh: return libmCall("tanhf", "tanh", x);
    case CallOp::Sigmoid: {
        llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
        llvm::Value* e = genExp(m_b.CreateFNeg(x));
        return m_b.CreateFDiv(one, m_b.CreateFAdd(one, e));
    }
    case CallOp::Pow: {
        llvm::Value* y = broadcast(genExpr(op->args[1]), lanesOf(x));
        return m_b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, y);
    }
    default: LS_ASSERT(false, "codegen: unknown call"); return nullptr;
    }
}

// Warp shuffles as CUDA's __activemask, __shfl_down_sync and __shfl_sync compile them: the
// .sync forms (the others abort LLVM 16's NVPTX back end on sm_70 and later), on 32-bit values.
llvm::Value* Codegen::genWarpCall(const CallNode* op)
{
    LS_ASSERT(m_device, "a warp shuffle outside a GPU kernel");
    llvm::Type* i32 = m_b.getInt32Ty();
    if (op->op == CallOp::WarpActiveMask) {
        auto* asmFn = llvm::InlineAsm::get(llvm::FunctionType::get(i32, false),
                                           "activemask.b32 $0;", "=r", /*hasSideEffects=*/true);
        return m_b.CreateCall(asmFn, {});
    }
    llvm::Value* mask = genExpr(op->args[0]);
    llvm::Value* value = genExpr(op->args[1]);
    llvm::Value* lane = m_b.CreateIntCast(genExpr(op->args[2]), i32, true);
    std::int64_t width = 32;
    isConstInt(op->args[3], &width);
    // The lanes a segment spans above its first, and the last lane of a segment.
    llvm::Value* c = m_b.getInt32(static_cast<std::uint32_t>(((32 - width) << 8) | 0x1f));
    const bool isFloat = value->getType()->isFloatTy();
    LS_ASSERT(isFloat || value->getType()->isIntegerTy(32),
              "a warp shuffle of a value not 32 bits wide");
    const bool down = op->op == CallOp::WarpShuffleDown;
    llvm::Intrinsic::ID id = down ? (isFloat ? llvm::Intrinsic::nvvm_shfl_sync_down_f32
                                             : llvm::Intrinsic::nvvm_shfl_sync_down_i32)
                                  : (isFloat ? llvm::Intrinsic::nvvm_shfl_sync_idx_f32
                                             : llvm::Intrinsic::nvvm_shfl_sync_idx_i32);
    return m_b.CreateCall(llvm::Intrinsic::getDeclaration(&m_mod, id),
                          {m_b.CreateIntCast(mask, i32, false), value, lane, c});
}

void Codegen::Bindings::save(const Var& v)
{
    auto outer = [&](const Values& values) -> std::optional<llvm::Value*> {
        auto it = values.find(v.get());
        if (it == values.end()) return std::nullopt;
        return it->second;
    };
    m_outer.push_back(
        {v.get(), outer(m_cg.m_vars), outer(m_cg.m_wide), m_cg.m_nonNegative.count(v.get()) > 0});
}

Codegen::Bindings::~Bindings()
{
    auto restore = [](Values& values, const VarNode* v, std::optional<llvm::Value*> value) {
        if (value)
            values[v] = *value;
        else
            values.erase(v);
    };
    for (auto it = m_outer.rbegin(); it != m_outer.rend(); ++it) {
        restore(m_cg.m_vars, it->var, it->value);
        restore(m_cg.m_wide, it->var, it->wide);
        if (it->nonNegative)
            m_cg.m_nonNegative.insert(it->var);
        else
            m_cg.m_nonNegative.erase(it->var);
    }
}

void Codegen::Bindings::bind(const Var& v, const Expr& value)
{
    save(v);
    m_cg.setNonNegative(v, isInt32(v.type()) && m_cg.nonNegative(value));
    m_cg.setValue(v, isInt32(v.type()) ? m_cg.genIndex(value) : m_cg.genExpr(value));
}

void Codegen::Bindings::bind(const Var& v, llvm::Value* value)
{
    save(v);
    m_cg.setValue(v, value);
}

void Codegen::Bindings::bindCounter(const Var& v, llvm::Value* value, bool nonNegative)
{
    save(v);
    m_cg.setValue(v, value);
    m_cg.setNonNegative(v, nonNegative);
}

} // namespace loopscope::codegen
