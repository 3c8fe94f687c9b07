// TensorIR and its schedule (TVM 0.20's `tir.Schedule`, 0.26's `s_tir.Schedule`): a function of
// loops and blocks made from TE declarations as `te.create_prim_func` makes it, and the
// primitives that transform it. Each primitive takes a function and returns the transformed one
// (the variant keeps each step's function); loops are named by their variables, blocks by name.
// A primitive refuses with a ScheduleError where TVM does, its argument index pointing at the
// argument at fault.
#pragma once

#include "ir/PrimFunc.h"
#include "schedule/Schedule.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loopscope {

// `te.create_prim_func(args)`: each computed tensor a block named as it is (its iteration
// variables `v_` and its axis names, bound to loops named as the axes), in the order they are
// computed; the tensors not among `args` allocated by the root block.
TirFunc createPrimFunc(const std::vector<Tensor>& args, TirSpelling spelling);

// The regions `values` read of each tensor but `self` (null: all), in order of first read, as
// TVM infers a block's T.reads.
std::vector<TensorRegion> blockReadRegions(const std::vector<Expr>& values,
                                           const OperationNode* self);

// `f` with every use of `from` (parameters, allocations, reads, writes, regions) made `to`.
TirFunc replaceTensor(const TirFunc& f, const Tensor& from, const Tensor& to);

// The block named `name`, or null.
const BlockNode* findBlock(const TirFunc& f, const std::string& name);
// Every block's name, outermost and first first.
std::vector<std::string> blockNames(const TirFunc& f);
// The loops above block `name`, outermost first (a ScheduleError when there is no such block).
std::vector<Var> blockLoops(const TirFunc& f, const std::string& name);
// The loop of variable `v`, or null (a loop gone after a split or fuse).
const ForNode* findLoop(const TirFunc& f, const VarNode* v);

// sch.split(loop, factors): at most one factor unknown (nullopt), inferred; the new loops
// (named NAME_0, NAME_1, ...) in `out`. A product beyond the extent guards the blocks below
// with T.where.
TirFunc tirSplit(const TirFunc& f, const Var& loop,
                 const std::vector<std::optional<std::int64_t>>& factors, std::vector<Var>* out);
// sch.fuse(*loops): directly nested loops, outermost first, as one (NAME_NAME_fused).
TirFunc tirFuse(const TirFunc& f, const std::vector<Var>& loops, Var* out);
// sch.reorder(*loops): loops of one chain in the given order.
TirFunc tirReorder(const TirFunc& f, const std::vector<Var>& loops);
// sch.parallel / vectorize / unroll / bind(loop, thread).
TirFunc tirSetKind(const TirFunc& f, const Var& loop, ForKind kind, const std::string& thread = {});
// Whether a reduction variable of a block under `loop` is bound to it.
bool loopOfReduction(const TirFunc& f, const Var& loop);
// Why sch.bind(loop, thread) cannot be lowered (empty: it can): a reduction's loop bound to
// threads is a cross-thread reduction (lowered as TVM's LowerCrossThreadReduction does), which
// only threadIdx can share.
std::string tirBindLimitation(const TirFunc& f, const Var& loop, const std::string& thread);
// sch.decompose_reduction(block, loop): the block's init as a block of its own (NAME_init)
// before `loop`, over the loops below it that the spatial variables use.
TirFunc tirDecomposeReduction(const TirFunc& f, const std::string& block, const Var& loop,
                              std::string* initName);

// sch.compute_at(block, loop) / sch.reverse_compute_at(block, loop): a producer (before what
// `loop` holds) or a consumer (after it) moved under `loop`, its new loops (ax0, ax1, ...)
// covering what the blocks there read of it, or write of what it reads; a variable with one
// value there is bound to it without a loop unless `preserveUnitLoops`.
TirFunc tirComputeAt(const TirFunc& f, const std::string& block, const Var& loop, bool reverse,
                     bool preserveUnitLoops);

// sch.cache_read(block, index, scope) / sch.cache_write(block, index, scope): the block's
// `index`th read (written) buffer through a new one, NAME_SCOPE, allocated in `scope`, and a
// block of that name copying it in before the block's nest (out after it); the copy block's name
// in `cacheBlock`.
TirFunc tirCacheRead(const TirFunc& f, const std::string& block, int index,
                     const std::string& scope, std::string* cacheBlock);
TirFunc tirCacheWrite(const TirFunc& f, const std::string& block, int index,
                      const std::string& scope, std::string* cacheBlock);
// sch.compute_inline(block): a block that only computes a value of its variables folded into
// the blocks that read it, its buffer and nest gone.
TirFunc tirComputeInline(const TirFunc& f, const std::string& block);
// sch.reverse_compute_inline(block): a block that stores a value of what one producer computed,
// read at its own variables, moved into that producer, which then stores its value; the
// producer's buffer and the block are gone.
TirFunc tirReverseComputeInline(const TirFunc& f, const std::string& block);

// sch.rfactor(loop, factor_axis): the reduction over `loop` made a dimension (at `factorAxis`)
// of a new buffer NAME_rf, computed by a block NAME_rf under copies of the block's loops, and
// the block reduces that buffer over `loop` instead; its name in `rfBlock`.
TirFunc tirRfactor(const TirFunc& f, const Var& loop, int factorAxis, std::string* rfBlock);

// sch.set_scope(block, index, scope): the storage scope of the buffer the block writes at
// `index`, one the function allocates.
TirFunc tirSetScope(const TirFunc& f, const std::string& block, int index,
                    const std::string& scope);
// sch.storage_align(block, buffer_index, axis, factor, offset): the stride of dimension `axis`
// of the buffer the block writes at `buffer_index` made `factor` * k + `offset` when allocated
// (the block's "buffer_dim_align"), to spread accesses over shared memory's banks.
TirFunc tirStorageAlign(const TirFunc& f, const std::string& block, int bufferIndex, int axis,
                        int factor, int offset);
// sch.transform_layout(block, buffer, index_map): the buffer the block reads or writes at
// `index` (`write`: of its writes) laid out anew, an element at indices `from` moved to `to`
// (expressions of `from`), as `lambda i, j: (i // 4, j, i % 4)` says: its shape becomes the
// range of `to` over the old one, and every access and region of it in the function is mapped.
// Only a buffer the function allocates (a parameter's layout is its caller's), with constant
// extents, a map that is one to one on it (no padding) and blocks that access it at points.
TirFunc tirTransformLayout(const TirFunc& f, const std::string& block, bool write, int index,
                           const std::vector<Var>& from, const std::vector<Expr>& to);
// sch.annotate(block, key, value) / sch.unannotate(block, key): a block's annotations
// (T.block_attr). `value` null: removed.
TirFunc tirAnnotateBlock(const TirFunc& f, const std::string& block, const std::string& key,
                         const Expr& value);
// The same for a loop (`for i in T.serial(64, annotations={...})`); a `pragma_` key is an
// attribute around the loop once lowered (pragma_auto_unroll_max_step, pragma_unroll_explicit).
TirFunc tirAnnotateLoop(const TirFunc& f, const Var& loop, const std::string& key,
                        const Expr& value);

// sch.blockize(loop): what `loop` holds (loops over one block) made a block of its own, NAME_o,
// whose variables are the outer parts of the block's (v = v_o * S + v_i, S what the loops inside
// walk), reading and writing the regions the inner block covers; a reduction's init moves to it,
// over copies of the inner spatial loops. Refused where a variable's binding is not a sum the
// loops divide exactly (a guard, a fused loop, strides that skip).
TirFunc tirBlockize(const TirFunc& f, const Var& loop, std::string* outerName);

// Where each buffer the root allocates lives once lowered (TVM's
// PlanAndUpdateBufferAllocationLocation and CompactBufferAllocation): under the deepest loop that
// holds every access to it (null: the function; never inside a thread-bound loop unless its
// scope is local), over the region those accesses touch as the loops inside run.
struct AllocPlacement {
    BlockAlloc alloc;
    const ForNode* loop = nullptr;
    std::vector<Range> region;
};
std::vector<AllocPlacement> planAllocations(const TirFunc& f);

} // namespace loopscope
