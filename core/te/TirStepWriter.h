// The writer of `tir.Schedule` statements for a TensorIR variant, the schedule panel's other
// dialect: it takes the same named step the panel makes for a TE variant (te/NamedStep.h: the
// catalogue's primitive and argument names, loops named as the schedule names them), reads it on
// the variant's function (the stage is a block, its loops those above the block), applies it
// through the TensorIR primitives (schedule/TensorIR.h, or says why they refuse) and writes the
// `sch.*` calls in the script's spelling, binding first the handles the script holds in no
// variable (`block_C = sch.get_block("C")`, `i, j, k = sch.get_loops(block_C)`).
//
// The catalogue's primitives read as their TensorIR counterparts: split (factor, or nparts: a
// list of factors with one None), tile (two splits and a reorder), fuse, reorder, parallel,
// vectorize, unroll, bind, compute_at (parent: a consumer block, scope: its loop), compute_inline,
// cache_read (the stage is the buffer's producer or input, readers: the one block reading through
// the cache), cache_write, rfactor (axis, factor_axis), storage_align (the dimension the selected
// loop walks of the block's buffer), pragma (sch.annotate(loop, "pragma_NAME", value)).
// TensorIR's own: reverse_compute_at (parent: a producer
// block, scope: its loop), reverse_compute_inline, decompose_reduction (loop), blockize (loop).
#pragma once

#include "ir/PrimFunc.h"
#include "te/NamedStep.h"
#include "te/Program.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace loopscope {

// What a script calls a TensorIR variant's handles where the statements go.
struct TirScriptNames {
    std::string scheduleVar = "sch";
    std::map<std::string, std::string> blockVars; // block name -> variable
    // Block name -> loop name -> the variable holding that loop above that block.
    std::map<std::string, std::map<std::string, std::string>> loopVars;
    std::set<std::string> used; // every name a fresh variable must not take
};

// The names as they stand after the variant's last statement.
TirScriptNames tirScriptNames(const Variant& variant);

// The primitives only TensorIR has, which the panel offers for a TensorIR variant alone.
const std::vector<std::string>& tirOnlyPrimitives();

// Why a catalogue primitive has no tir.Schedule counterpart to write (empty: it has one).
std::string tirLacks(const std::string& primitive);

struct TirWrittenStep {
    std::vector<std::string> lines; // the handles bound first, then the call
    std::string refusal;            // why not, in the panel's words (TVM's where it refuses)
    TirFunc after;                  // the function once the step applied
    bool ok() const { return refusal.empty(); }
};

TirWrittenStep writeTirStep(const TirFunc& f, const TirScriptNames& names, const NamedStep& step);

} // namespace loopscope
