// The variables an expression or statement uses without binding them (loops, lets, GPU launches
// and the names marked defined bind theirs): the symbolic sizes a function needs, the values a
// parallel body captures.
#pragma once

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"

#include <algorithm>
#include <vector>

namespace loopscope {

class FreeVarCollector : public IRVisitor {
public:
    VarSet defined;
    std::vector<Var> free; // in order of first use

protected:
    void visitLeaf(const Expr& e) override
    {
        auto* v = e.as<VarNode>();
        if (!v || defined.count(v)) return;
        if (std::none_of(free.begin(), free.end(), [&](const Var& f) { return f.get() == v; }))
            free.push_back(Var(std::static_pointer_cast<const VarNode>(e.node())));
    }
    void visitFor(const ForNode* op) override
    {
        defined.insert(op->var.get());
        IRVisitor::visitFor(op);
    }
    void visitLetStmt(const LetStmtNode* op) override
    {
        defined.insert(op->var.get());
        IRVisitor::visitLetStmt(op);
    }
    void visitLet(const LetNode* op) override
    {
        defined.insert(op->var.get());
        IRVisitor::visitLet(op);
    }
    // A GPU launch binds its thread variable (the attribute's `ref`).
    void visitAttr(const AttrNode* op) override
    {
        if (op->key == "thread_extent" || op->key == "virtual_thread")
            defined.insert(static_cast<const VarNode*>(op->ref));
        IRVisitor::visitAttr(op);
    }
};

} // namespace loopscope
