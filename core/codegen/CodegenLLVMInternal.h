// The code generator behind buildModule (CodegenLLVM.h): one class, a visitor over the IR's node
// kinds, whose parts are implemented by concern (internal to core/codegen):
//   CodegenSignatures.cpp  LLVM types, the functions' signatures and attributes, the packed entry
//   CodegenExprs.cpp       expressions, int32 indices in 64 bits, variable bindings
//   CodegenMemory.cpp      buffer loads and stores: addresses, vectors, masked accesses, gathers
//   CodegenMasks.cpp       lanes computed at once under masks, if_then_else, lanes of a vector
//   CodegenStmts.cpp       statements and serial loops (what LLVM may unroll)
//   CodegenGuards.cpp      loops versioned on the guards of edge tiles
//   CodegenFills.cpp       zero fills and copies of contiguous ranges (memset, straight-line code)
//   CodegenParallel.cpp    parallel loops outlined into tasks for loopscope_parallel_for
// Code generation keeps state while it walks the IR (the insert point, the function being emitted,
// variables' values, the lane mask, the guards assumed); each change of it that lasts for a scope
// is made through a guard (Scoped.h; Codegen::Bindings and Codegen::FunctionScope below), which
// puts the outer state back when the scope ends, however it ends.
#pragma once

#include "codegen/CodegenLLVM.h"
#include "codegen/Scoped.h"

#include "ir/IRMutator.h"

#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace loopscope::codegen {

class Codegen : private IRVisitor {
public:
    Codegen(llvm::LLVMContext& ctx, llvm::Module& m, llvm::TargetMachine& tm);

    // Emits `NAME(T* noalias A, ..., sizes...)` for `f` and `NAME_packed(void** buffers,
    // int64_t* sizes)`, which calls it. With `lines`, every instruction of the kernel and its
    // outlined loops carries the line of the printed TIR its statement is on (DWARF line info).
    void build(const PrimFunc& f, const std::vector<Var>& sizes,
               const LineOfStatement* lines = nullptr);
    // Emits one GPU kernel (NVPTX): `NAME(T* noalias A, ..., sizes...)` marked as a kernel, whose
    // body is one launch: its thread variables read the special registers, shared buffers are
    // in address space 3, and barriers are bar.sync 0. `buffers` are the kernel's buffers.
    void buildKernel(const std::string& name, const std::vector<Buffer>& buffers,
                     const std::vector<Var>& sizes, const Stmt& body);

private:
    using Values = std::unordered_map<const VarNode*, llvm::Value*>;
    using GuardSet = std::unordered_set<const IfThenElseNode*>;
    class Bindings;
    class FunctionScope;
    // Code emitted while it lives carries the line of a statement (with line info; the
    // enclosing statement's line comes back when it ends).
    class OnLineOf {
    public:
        OnLineOf(Codegen& cg, const StmtNode* s);
        ~OnLineOf();
        OnLineOf(const OnLineOf&) = delete;
        OnLineOf& operator=(const OnLineOf&) = delete;

    private:
        Codegen& m_cg;
        llvm::DebugLoc m_outer;
    };

    // ---- types and functions (CodegenSignatures.cpp) ----

    llvm::Type* ptrTy() { return llvm::PointerType::getUnqual(m_ctx); }
    llvm::Type* scalarType(DataType t);
    llvm::Type* llvmType(DataType t);
    llvm::Type* memType(DataType t);
    void setAttributes(llvm::Function* fn);

    struct FunctionState {
        llvm::Function* fn = nullptr;
        llvm::BasicBlock* allocaBlock = nullptr;
        std::vector<llvm::Value*> heapAllocations;
        llvm::DISubprogram* scope = nullptr; // with line info
    };
    void beginFunction(llvm::Function* fn);
    void endFunction();
    llvm::AllocaInst* entryAlloca(llvm::Type* ty, llvm::Value* count, unsigned align);

    llvm::Value* broadcast(llvm::Value* v, int lanes);
    static int lanesOf(llvm::Value* v)
    {
        if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(v->getType()))
            return static_cast<int>(vt->getNumElements());
        return 1;
    }

    // ---- expressions (CodegenExprs.cpp) ----

    // TIR's index type. (Narrower integers may wrap on purpose, so they keep their own width.)
    static bool isInt32(DataType t) { return t.isInt() && t.isScalar() && t.bits == 32; }
    llvm::Value* genIndex(const Expr& e);
    bool nonNegative(const Expr& e) const;
    // Only through Bindings, which undoes them.
    void setNonNegative(const Var& v, bool yes);
    void setValue(const Var& v, llvm::Value* value);

    llvm::Value* genExpr(const Expr& e);
    void visitLeaf(const Expr& e) override;
    void visitBinary(const BinaryNode* op) override;
    void visitNot(const NotNode* op) override;
    void visitSelect(const SelectNode* op) override;
    void visitCast(const CastNode* op) override;
    void visitCall(const CallNode* op) override;
    void visitTensorLoad(const TensorLoadNode* op) override;
    void visitRamp(const RampNode* op) override;
    void visitBroadcast(const BroadcastNode* op) override;
    void visitLet(const LetNode* op) override;
    void visitReduce(const ReduceNode* op) override;
    llvm::Value* genBinary(const BinaryNode* op);
    llvm::Value* genCast(const CastNode* op);
    llvm::Value* mathCall(llvm::Intrinsic::ID id, llvm::Value* x);
    llvm::Value* libmCall(const char* f32, const char* f64, llvm::Value* x);
    // exp of a value: of float32 vectors computed in their lanes, else llvm.exp.
    llvm::Value* genExp(llvm::Value* x);
    llvm::Value* genCall(const CallNode* op, const Expr& self);
    // Tensor intrinsics' calls (CodegenIntrinsics.cpp): reinterpret, LLVM intrinsics by name,
    // C functions, buffer addresses.
    llvm::Value* genIntrinsicCall(const CallNode* op);

    // ---- buffer loads and stores (CodegenMemory.cpp) ----

    llvm::Value* bufferPointer(const Buffer& b);
    unsigned elementAlign(DataType t);
    // A GPU kernel's access to consecutive elements at `index`: aligned to its whole size where
    // the first is provably a multiple of their count (one ld.v4 instead of four).
    llvm::Align rampAlign(DataType elem, const Expr& index);
    llvm::Value* elementPointer(DataType elem, llvm::Value* base, llvm::Value* index,
                                bool nonNegativeIndex = false);
    static const Expr& firstIndex(const Expr& index);
    llvm::Value* firstElementPointer(DataType elem, llvm::Value* base, const Expr& index);
    llvm::Value* maskedFirstPointer(DataType elem, llvm::Value* base, const Expr& index);
    bool inOwnFrame(const Buffer& b, const Expr& index) const;
    static int maskedWidth(int lanes);
    llvm::Value* resizeLanes(llvm::Value* v, int width);
    llvm::Value* widenMask(llvm::Value* mask, int width);
    llvm::Value* lanePointers(DataType elem, llvm::Value* base, const Expr& index);
    void visitBufferLoad(const BufferLoadNode* op) override;
    llvm::Value* genLoad(const BufferLoadNode* op);
    void visitBufferStore(const BufferStoreNode* op) override;

    // ---- lanes under masks (CodegenMasks.cpp) ----

    llvm::Value* genIfThenElse(const CallNode* op, const Expr& self);
    llvm::Value* genWarpCall(const CallNode* op);
    llvm::Value* valueUnderMask(llvm::Value* mask, const Expr& e, int lanes);
    template <class Emit> llvm::BasicBlock* forAnyLane(llvm::Value* mask, const Emit& emit);
    static bool readsMemoryOrMayTrap(const Expr& e);
    Expr laneOf(const Expr& e, int i);
    bool genLanesAtOnce(const ForNode* op);
    void genUnderMask(llvm::Value* mask, const Stmt& s);
    llvm::Value* withinMask(llvm::Value* mask);

    // ---- statements and serial loops (CodegenStmts.cpp) ----

    void genStmt(const Stmt& s);
    void visitFor(const ForNode* op) override;
    void visitTensorStore(const TensorStoreNode* op) override;
    void visitRealize(const RealizeNode* op) override;
    void visitAllocate(const AllocateNode* op) override;
    void visitLetStmt(const LetStmtNode* op) override;
    void visitIfThenElse(const IfThenElseNode* op) override;
    void visitSeq(const SeqNode* op) override;
    void visitAttr(const AttrNode* op) override;
    void visitEvaluate(const EvaluateNode* op) override;

    // Whether LLVM may unroll a loop (see genLoop).
    enum class Rolled {
        No,
        Yes,
        ForInvariants, // see holdsTooManyInvariants
    };
    void emitLoop(const Var& var, llvm::Value* begin, llvm::Value* end, const Stmt& body,
                  bool nonNegativeBegin, Rolled rolled = Rolled::No);
    void genLoop(const ForNode* op);
    // See holdsTooManyInvariants.
    static constexpr std::int64_t kStraightLineIterations = 256;
    static constexpr std::int64_t kFewIterations = 8;
    bool holdsTooManyInvariants(const ForNode* op);
    std::int64_t vectorRegisterFileBytes();
    const llvm::TargetTransformInfo& tti();

    // ---- loops versioned on guards (CodegenGuards.cpp) ----

    // The largest loop body copied for versioning, in scalar operations. The guarded kernels of
    // the samples (at sizes their splits do not divide) have 17 to 954.
    static constexpr std::int64_t kMaxVersionedOps = 4096;
    bool versionOnGuards(const ForNode* op);

    // ---- fills and copies of contiguous ranges (CodegenFills.cpp) ----

    // A nest of serial loops whose one statement stores zeros, or copies another buffer's
    // elements, into one contiguous range of a buffer (and, for a copy, from one).
    struct ContiguousRun {
        const BufferStoreNode* store = nullptr;
        const BufferLoadNode* load = nullptr; // the source of a copy; none for a zero fill
        std::vector<const ForNode*> loops;    // innermost first
        std::int64_t units = 0;               // buffer elements written
        std::int64_t bytes = 0;
    };
    // A zero fill from this size on becomes one memset, as LLVM would make of it. Smaller fills
    // and copies of several elements between buffers in memory are written as straight-line
    // vector accesses of kRunVectorBytes; the rest stay loops (see setAttributes).
    static constexpr std::int64_t kMemsetBytes = 1024;
    static constexpr std::int64_t kRunVectorBytes = 32;
    // A stack buffer larger than the largest register file (32 registers of 64 bytes) can only
    // live in memory; a smaller one may be promoted to registers, which needs LLVM to see (and
    // unroll) its loops in their own terms.
    static constexpr std::uint64_t kRegisterFileBytes = 32 * 64;

    static bool isZero(const Expr& e);
    static std::int64_t contiguousUnits(const Expr& index, const Buffer& b);
    std::optional<ContiguousRun> contiguousRun(const Stmt& s) const;
    static bool constantStep(const Expr& e, const ForNode* loop, std::int64_t* step);
    static std::optional<ContiguousRun> acrossLoop(ContiguousRun run, const ForNode* loop);
    bool inMemory(const Buffer& b, std::uint64_t registerFileBytes = kRegisterFileBytes);
    bool straightLine(const ContiguousRun& run);
    void emitMemset(const ContiguousRun& run);
    void emitMemset(const std::vector<const ForNode*>& loops, const Buffer& b, const Expr& start,
                    std::int64_t bytes);

    // A zero fill of one contiguous range of a buffer, whatever order its loops walk it in (see
    // tiledZeroFill).
    struct TiledFill {
        const BufferStoreNode* store = nullptr; // one of the stores
        Expr start;                        // the range's first element, the loops at their minimum
        std::vector<const ForNode*> loops; // outermost first
        std::int64_t bytes = 0;
    };
    static constexpr std::int64_t kMaxListedStores = std::int64_t{1} << 16;
    std::optional<TiledFill> tiledZeroFill(const ForNode* outer) const;
    void emitStraightLine(const ContiguousRun& run);

    // ---- parallel loops (CodegenParallel.cpp) ----

    void genParallel(const ForNode* op);

    // ---- state ----

    llvm::LLVMContext& m_ctx;
    llvm::Module& m_mod;
    llvm::TargetMachine& m_tm;
    std::optional<llvm::TargetTransformInfo> m_tti; // see tti
    bool m_rolledForInvariants = false; // set by a loop so kept, for those around it (see emitLoop)
    llvm::IRBuilder<> m_b;
    Values m_vars;
    Values m_wide;                                    // i64 forms of int32 variables
    std::unordered_set<const VarNode*> m_nonNegative; // int32 variables known to be >= 0
    FunctionState m_state;
    bool m_insideParallel = false;
    bool m_device = false; // a GPU kernel (buildKernel)
    std::unordered_map<const VarNode*, Expr>
        m_letValues;          // the let-bound variables in scope: in a GPU kernel all (rampAlign),
                              // else those of vectors (a vector index's runs, genLoad)
    GuardSet m_guardsDecided; // versioned on by an enclosing loop
    GuardSet m_guardsAssumed; // known to hold where code is emitted
    int m_edgeCopies = 0;     // inside the copy of a loop for edge tiles (see versionOnGuards)
    bool m_lanesAtOnce = false;        // see genLanesAtOnce
    llvm::Value* m_laneMask = nullptr; // the lanes vector accesses are for there; none: all
    // Stack buffers of a constant size, in bytes, and the function whose frame holds them.
    std::unordered_map<const VarNode*, std::pair<std::int64_t, llvm::Function*>> m_stackBytes;
    int m_parallelCount = 0;
    // Line info: the printed TIR's line of each statement, the debug-info builder and its file.
    const LineOfStatement* m_lines = nullptr;
    std::unique_ptr<llvm::DIBuilder> m_di;
    llvm::DIFile* m_diFile = nullptr;
    llvm::DICompileUnit* m_diUnit = nullptr;
    int m_functionLine = 1; // the `def` line
    // The expression genExpr is visiting (a call's visit needs its handle), and the value its
    // visit computed.
    const Expr* m_visiting = nullptr;
    llvm::Value* m_value = nullptr;
};

// Variables bound for the extent of a scope (a let's body, a loop's, an allocation's, straight-line
// code's): when the scope ends, however it ends, each variable bound through it has its outer
// binding back (its value, its 64-bit form, whether it is known to be >= 0), or none.
class Codegen::Bindings {
public:
    explicit Bindings(Codegen& cg) : m_cg(cg) {}
    ~Bindings();
    Bindings(const Bindings&) = delete;
    Bindings& operator=(const Bindings&) = delete;

    // `v` is `value`, computed here. An int32 variable is computed once, in 64 bits for the
    // indices that use it, and its 32-bit value is a truncation (as a loop counter's is).
    void bind(const Var& v, const Expr& value);
    // `v` is `value`: for an int32 variable, its value in 64 bits (see genIndex).
    void bind(const Var& v, llvm::Value* value);
    // A loop's counter: its value as above, and whether it is known to be >= 0.
    void bindCounter(const Var& v, llvm::Value* value, bool nonNegative);

private:
    struct Outer {
        const VarNode* var;
        std::optional<llvm::Value*> value, wide;
        bool nonNegative;
    };
    void save(const Var& v);

    Codegen& m_cg;
    std::vector<Outer> m_outer; // in the order bound
};

// Emission into another function (a parallel loop's outlined body) for the extent of a scope. The
// function starts with no variables bound; when the scope ends, however it ends, the insert point,
// the function's state and the variables' bindings are the outer function's again.
class Codegen::FunctionScope {
public:
    explicit FunctionScope(Codegen& cg);
    ~FunctionScope();
    FunctionScope(const FunctionScope&) = delete;
    FunctionScope& operator=(const FunctionScope&) = delete;

private:
    Codegen& m_cg;
    llvm::IRBuilderBase::InsertPointGuard m_insertPoint;
    FunctionState m_state;
    Values m_vars, m_wide;
};

} // namespace loopscope::codegen
