// What the statements of a script read and bind, for the exports that keep some statements of a
// script and drop others (the TVM exports, the conversion to TensorIR).
#pragma once

#include "te/Ast.h"

#include <set>
#include <string>
#include <vector>

namespace loopscope::script {

// Names an expression reads; lambda parameters are local to their lambda.
void collectReads(const ast::Expr& e, std::set<std::string> bound, std::set<std::string>* out);

// Names an assignment target binds (through tuple and list unpacking).
void collectTargets(const ast::Expr& e, std::vector<std::string>* out);

// `module.fn(...)` anywhere in e.
bool callsAttribute(const ast::Expr& e, const std::string& fn);

// `text` as TVM 0.24 on names what it called tvm.tir: `tvm.tir.X` as `tvm.tirx.X`, and a line
// `from tvm import tir` as `from tvm import tirx as tir`.
std::string inTirxSpelling(const std::string& text);

// The text's lines, without their newlines.
std::vector<std::string> splitLines(const std::string& text);

} // namespace loopscope::script
