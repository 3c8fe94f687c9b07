// A schedule: one stage per operation, each with its loop axes and how they were derived (split,
// fuse), their annotations (parallel, vectorize, ...) and where the stage is computed. A value
// type: copying a schedule snapshots it (iteration variables are shared, immutable nodes).
#pragma once

#include "ir/Diagnostic.h"
#include "ir/PrimFunc.h"
#include "ir/Stmt.h"
#include "ir/Tensor.h"
#include "ir/TensorIntrin.h"
#include "schedule/SharedList.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loopscope {

// How iteration variables derive from one another.
struct IterRelation {
    enum class Kind { Split, Fuse, Rebase };
    Kind kind;
    // Split: parent -> outer, inner.  Fuse: outer, inner -> fused.  Rebase: parent -> rebased.
    IterVar parent, outer, inner, fused, rebased;
    Expr factor; // Split by factor
    Expr nparts; // Split by nparts
};

// What a schedule says about one loop axis.
struct IterVarAttr {
    ForKind kind = ForKind::Serial;
    std::string threadTag; // bind
    // Which te.thread_axis object the loop is bound to: loops bound to one object (not 0) are
    // launched with one thread variable, as TVM does; 0 is an object of its own.
    int threadAxis = 0;
    std::vector<std::pair<std::string, Expr>> pragmas;
    SourceLoc loc; // the step that set the kind, for diagnostics found while lowering
    // tensorize: the intrinsic that replaces the loops from this one in, and its step.
    TensorIntrin tensorIntrin;
    SourceLoc tensorizeLoc;
};

enum class AttachType { Root, Inline, Scope };

struct StorageAlign {
    IterVar axis;
    int factor = 0;
    int offset = 0;
};

struct Stage {
    Tensor op;       // the operation this stage computes now
    Tensor originOp; // the operation the stage was created for (s[C] keeps finding it)
    SharedList<IterVar> allIterVars; // shared with the schedule's earlier copies (SharedList.h)
    std::vector<IterVar> leafIterVars;
    SharedList<IterRelation> relations;
    std::map<const IterVarNode*, IterVarAttr> attrs;
    AttachType attach = AttachType::Root;
    Tensor attachOp; // Scope: the stage (by its op) whose loop this stage is computed in
    IterVar attachIvar;
    SourceLoc attachLoc; // the compute_at/compute_inline step, for diagnostics while lowering
    std::string scope;   // storage scope; empty means global
    bool isOutput = false;
    std::vector<StorageAlign> aligns;
    // double_buffer: two copies of its storage, the next iteration's fetched while this one's
    // is used (lower/passes/InjectDoubleBuffer).
    bool doubleBuffer = false;
    SourceLoc doubleBufferLoc; // its double_buffer step
    // set_store_predicate: the stage stores (its update, for a reduction) only where this holds;
    // a thread tag's variable in it (te.thread_axis("threadIdx.x").var) is the stage's loop
    // bound to that thread.
    Expr storePredicate;
    SourceLoc storePredicateLoc;

    std::string name() const { return op->name; }
    bool isPlaceholder() const { return op->isPlaceholder(); }
    // Root iteration variables: the op's axes then its reduce axes.
    std::vector<IterVar> rootIterVars() const;
    int leafIndex(const IterVar& iv) const; // -1 when not a leaf
    bool hasIterVar(const IterVar& iv) const;
    const IterVarAttr* attr(const IterVar& iv) const;
};

// A refusal by a schedule primitive: TVM's reason in the user's words, and which argument of the
// call it is about (0-based, -1 for the call as a whole) so the diagnostic can point at it.
class ScheduleError : public std::runtime_error {
public:
    ScheduleError(std::string message, int argument = -1)
        : std::runtime_error(message), m_message(std::move(message)), m_argument(argument)
    {
    }
    const std::string& message() const { return m_message; }
    int argument() const { return m_argument; }

private:
    std::string m_message;
    int m_argument;
};

class Schedule {
public:
    Schedule() = default;
    explicit Schedule(std::vector<Tensor> outputs);

    const std::vector<Stage>& stages() const { return m_stages; }
    std::vector<Stage>& stages() { return m_stages; }
    const std::vector<Tensor>& outputs() const { return m_outputs; }

    // A TensorIR variant's function, its `tir.Schedule` steps applied (null for a TE schedule):
    // lowered instead of the stages, which stay as declared (the outputs, the reference).
    const TirFunc* tensorIR() const { return m_tensorIR.get(); }
    void setTensorIR(TirFunc f) { m_tensorIR = std::make_shared<const TirFunc>(std::move(f)); }

    // The stage of a tensor (found by its current or original operation), or null.
    Stage* find(const Tensor& t);
    const Stage* find(const Tensor& t) const;
    int indexOf(const Tensor& t) const;
    // Like find, but a ScheduleError naming the tensor when it has no stage.
    Stage& stage(const Tensor& t);

    // The stages (by index) whose current operation reads `t`.
    std::vector<int> readers(const Tensor& t) const;

    // Loop primitives; each refuses with a ScheduleError when TVM would (or should) refuse.
    std::pair<IterVar, IterVar> split(Stage& s, const IterVar& parent, std::optional<Expr> factor,
                                      std::optional<Expr> nparts);
    std::vector<IterVar> tile(Stage& s, const IterVar& x, const IterVar& y, Expr xFactor,
                              Expr yFactor);
    IterVar fuse(Stage& s, const std::vector<IterVar>& axes);
    void reorder(Stage& s, const std::vector<IterVar>& order);
    void vectorize(Stage& s, const IterVar& iv, SourceLoc loc);
    void parallel(Stage& s, const IterVar& iv, SourceLoc loc);
    void unroll(Stage& s, const IterVar& iv, SourceLoc loc);
    void bind(Stage& s, const IterVar& iv, const std::string& threadTag, SourceLoc loc,
              int threadAxis = 0);
    void pragma(Stage& s, const IterVar& iv, const std::string& key, Expr value, SourceLoc loc);
    // The loops from `iv` in are replaced by the intrinsic when lowered (where its computation
    // is matched with the stage's).
    void tensorize(Stage& s, const IterVar& iv, TensorIntrin intrin, SourceLoc loc);

    // Attachment primitives.
    void computeAt(Stage& s, Stage& parent, const IterVar& axis);
    void computeInline(Stage& s);
    void computeRoot(Stage& s);
    void storageAlign(Stage& s, const IterVar& axis, int factor, int offset);
    void doubleBuffer(Stage& s);
    void setStorePredicate(Stage& s, Expr predicate, SourceLoc loc);

    // Dataflow primitives: they add a stage and redirect reads.
    Tensor cacheRead(const Tensor& t, const std::string& scope, const std::vector<Tensor>& readers);
    Tensor cacheWrite(const Tensor& t, const std::string& scope);
    Tensor rfactor(const Tensor& t, const IterVar& axis, int factorAxis);

private:
    void checkLeaf(const Stage& s, const IterVar& iv, int argument) const;
    void setKind(Stage& s, const IterVar& iv, ForKind kind, SourceLoc loc);
    void replaceOpEverywhere(const Tensor& from, const Tensor& to);

    std::vector<Stage> m_stages; // producers before consumers
    std::vector<Tensor> m_outputs;
    std::shared_ptr<const TirFunc> m_tensorIR;
};

// Display name of an axis as TVMScript prints it ("i.outer" -> "i_outer").
std::string axisDisplayName(const std::string& name);
// A Python identifier made of a name: what is not a letter, digit or underscore becomes an
// underscore ("C.local" -> "C_local"), and a leading digit gets one before it.
std::string pythonIdentifier(const std::string& name);

} // namespace loopscope
