// Statements of the lowered loop program (TIR): loops, stores, allocations, guards.
#pragma once

#include "ir/Expr.h"

#include <string>
#include <utility>
#include <vector>

namespace loopscope {

// Generated from the node list (ir/IRNodes.h).
enum class StmtKind : std::uint8_t { LS_IR_STMTS(LS_IR_ENUMERATOR) };

struct StmtNode {
    StmtKind kind;

protected:
    explicit StmtNode(StmtKind k) : kind(k) {}
    ~StmtNode() = default;
};

class Stmt {
public:
    Stmt() = default;
    Stmt(std::shared_ptr<const StmtNode> node) : m_node(std::move(node)) {}
    template <typename T> Stmt(std::shared_ptr<T> node) : m_node(std::move(node)) {}
    const StmtNode* get() const { return m_node.get(); }
    const StmtNode* operator->() const { return m_node.get(); }
    bool defined() const { return m_node != nullptr; }
    StmtKind kind() const { return m_node->kind; }
    bool same(const Stmt& other) const { return m_node == other.m_node; }

    template <typename T> const T* as() const
    {
        return m_node && m_node->kind == T::Kind ? static_cast<const T*>(m_node.get()) : nullptr;
    }

private:
    std::shared_ptr<const StmtNode> m_node;
};

enum class ForKind : std::uint8_t { Serial, Parallel, Vectorized, Unrolled, ThreadBinding };
const char*
forKindName(ForKind k); // "serial", "parallel", "vectorized", "unroll", "thread_binding"

struct ForNode : StmtNode {
    static constexpr StmtKind Kind = StmtKind::For;
    Var var;
    Expr min, extent;
    ForKind forKind = ForKind::Serial;
    Stmt body;
    std::string threadTag; // for ThreadBinding (bind to a GPU axis; kept for export, not run)
    // A serial loop over the lanes of a vectorized loop whose body could not be computed on
    // vectors (VectorizeLoop's fallback, `for j.s in range(n)`). Not printed, as TVM has no such
    // mark; code generation may compute it on vectors after all, with lane masks.
    bool scalarizedLanes = false;
    // A TensorIR loop's annotations (sch.annotate on a loop), printed as `annotations={...}`;
    // a `pragma_` one becomes an attribute around the loop when it is lowered.
    std::vector<std::pair<std::string, Expr>> annotations;
    ForNode(Var v, Expr mn, Expr ext, ForKind k, Stmt b, std::string tag = {})
        : StmtNode(Kind), var(std::move(v)), min(std::move(mn)), extent(std::move(ext)), forKind(k),
          body(std::move(b)), threadTag(std::move(tag))
    {
    }
};

struct TensorStoreNode : StmtNode {
    static constexpr StmtKind Kind = StmtKind::TensorStore;
    Tensor tensor;
    std::vector<Expr> indices;
    Expr value;
    TensorStoreNode(Tensor t, std::vector<Expr> idx, Expr v)
        : StmtNode(Kind), tensor(std::move(t)), indices(std::move(idx)), value(std::move(v))
    {
    }
};

struct BufferStoreNode : StmtNode {
    static constexpr StmtKind Kind = StmtKind::BufferStore;
    Buffer buffer;
    std::vector<Expr> indices;
    Expr value;
    BufferStoreNode(Buffer b, std::vector<Expr> idx, Expr v)
        : StmtNode(Kind), buffer(std::move(b)), indices(std::move(idx)), value(std::move(v))
    {
    }
};

// The part of `tensor` computed and kept alive inside `body`, one range per dimension.
struct RealizeNode : StmtNode {
    static constexpr StmtKind Kind = StmtKind::Realize;
    Tensor tensor;
    std::vector<Range> bounds;
    std::string scope;
    Stmt body;
    RealizeNode(Tensor t, std::vector<Range> b, std::string s, Stmt bd)
        : StmtNode(Kind), tensor(std::move(t)), bounds(std::move(b)), scope(std::move(s)),
          body(std::move(bd))
    {
    }
};

// Storage for `buffer` (already flat: one extent), alive inside `body`.
struct AllocateNode : StmtNode {
    static constexpr StmtKind Kind = StmtKind::Allocate;
    Buffer buffer;
    Stmt body;
    AllocateNode(Buffer b, Stmt bd) : StmtNode(Kind), buffer(std::move(b)), body(std::move(bd)) {}
};

struct LetStmtNode : StmtNode {
    static constexpr StmtKind Kind = StmtKind::LetStmt;
    Var var;
    Expr value;
    Stmt body;
    LetStmtNode(Var v, Expr val, Stmt b)
        : StmtNode(Kind), var(std::move(v)), value(std::move(val)), body(std::move(b))
    {
    }
};

struct IfThenElseNode : StmtNode {
    static constexpr StmtKind Kind = StmtKind::IfThenElse;
    Expr cond;
    Stmt thenCase, elseCase; // elseCase may be null
    IfThenElseNode(Expr c, Stmt t, Stmt e)
        : StmtNode(Kind), cond(std::move(c)), thenCase(std::move(t)), elseCase(std::move(e))
    {
    }
};

struct SeqNode : StmtNode {
    static constexpr StmtKind Kind = StmtKind::Seq;
    std::vector<Stmt> stmts;
    explicit SeqNode(std::vector<Stmt> s) : StmtNode(Kind), stmts(std::move(s)) {}
};

// A keyed annotation around a statement: pragmas ("pragma_auto_unroll_max_step"), storage
// alignment, and GPU thread extents kept for export.
struct AttrNode : StmtNode {
    static constexpr StmtKind Kind = StmtKind::Attr;
    std::string key;
    std::string target; // what the attribute is about (an axis or buffer name), for printing
    Expr value;
    Stmt body;
    const void* ref = nullptr; // identity of the annotated object (e.g. an IterVarNode)
    AttrNode(std::string k, std::string tgt, Expr v, Stmt b, const void* r = nullptr)
        : StmtNode(Kind), key(std::move(k)), target(std::move(tgt)), value(std::move(v)),
          body(std::move(b)), ref(r)
    {
    }
};

struct EvaluateNode : StmtNode {
    static constexpr StmtKind Kind = StmtKind::Evaluate;
    Expr value;
    explicit EvaluateNode(Expr v) : StmtNode(Kind), value(std::move(v)) {}
};

// A TensorIR block (`with T.block("C"):`): iteration variables over their domains, each bound to
// an expression of the enclosing loops, the regions it reads and writes, the buffers it
// allocates, an initialization for a reduction (`with T.init():`) and its body. Only in a TensorIR
// function before lowering (tir/Lower.h turns blocks into loop bodies).
enum class BlockIterKind : std::uint8_t { Spatial, Reduce };
struct BlockIter {
    Var var;
    Range dom;
    BlockIterKind kind = BlockIterKind::Spatial;
    Expr binding; // the value the enclosing loops give it
};
struct TensorRegion {
    Tensor tensor;
    std::vector<Range> region; // one range per dimension
};
struct BlockAlloc {
    Tensor tensor;
    std::string scope; // empty: global
};
struct BlockNode : StmtNode {
    static constexpr StmtKind Kind = StmtKind::Block;
    std::string name;
    std::vector<BlockIter> iters;
    Expr predicate; // null: always (T.where)
    std::vector<TensorRegion> reads, writes;
    std::vector<BlockAlloc> allocs;
    std::vector<std::pair<std::string, Expr>> annotations;
    // sch.storage_align's, printed as the annotation "buffer_dim_align": per entry the written
    // buffer's index, its dimension, the factor and the offset its stride must have.
    struct DimAlign {
        int buffer = 0, axis = 0, factor = 1, offset = 0;
        bool operator==(const DimAlign&) const = default;
    };
    std::vector<DimAlign> dimAligns;
    Stmt init; // null: none
    Stmt body;
    BlockNode() : StmtNode(Kind) {}
};
Stmt makeBlock(BlockNode block);

Stmt makeFor(Var v, Expr min, Expr extent, ForKind k, Stmt body, std::string threadTag = {});
// `like` with a new range and body: the same variable, kind, thread tag and marks.
Stmt remakeFor(const ForNode* like, Expr min, Expr extent, Stmt body);
Stmt remakeFor(const ForNode* like, Var v, Expr min, Expr extent, Stmt body);
Stmt makeTensorStore(Tensor t, std::vector<Expr> indices, Expr value);
Stmt makeBufferStore(Buffer b, std::vector<Expr> indices, Expr value);
Stmt makeRealize(Tensor t, std::vector<Range> bounds, std::string scope, Stmt body);
Stmt makeAllocate(Buffer b, Stmt body);
Stmt makeLetStmt(Var v, Expr value, Stmt body);
Stmt makeIfThenElse(Expr cond, Stmt thenCase, Stmt elseCase = {});
Stmt makeAttr(std::string key, std::string target, Expr value, Stmt body,
              const void* ref = nullptr);
Stmt makeEvaluate(Expr v);
// A barrier among the threads of a GPU block for memory of `scope` ("shared"), as TVM's
// tvm_storage_sync call: an attribute "tvm_storage_sync" with no work in its body, printed
// `T.tvm_storage_sync("shared")`. Only the GPU build inserts it (lower/gpu/ThreadSync.h).
Stmt makeStorageSync(std::string scope);
bool isStorageSync(const Stmt& s);
// A sequence with nested sequences flattened and null statements dropped; one statement is
// returned as itself, none as a null Stmt.
Stmt makeSeq(std::vector<Stmt> stmts);

} // namespace loopscope
