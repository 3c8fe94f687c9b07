// The IR's node kinds, listed once. Everything that enumerates them (ExprKind, StmtKind, the
// visitor's and mutator's methods and their dispatch) is generated from these lists, so a new
// node is one line here plus its class and its default visit.
//
// Each list takes a macro X and applies it to every entry, in order (the order is the enum's:
// ranges such as Add..Or and EQ..GE are meaningful).
#pragma once

// clang-format off
// Expressions without children, visited as leaves.
#define LS_IR_LEAF_EXPRS(X) X(IntImm) X(FloatImm) X(StringImm) X(Var)

// The binary operators, all one class (BinaryNode). Div is float division or truncating integer
// division (T.truncdiv); Mod the truncating integer remainder (T.truncmod).
#define LS_IR_BINARY_EXPRS(X) \
    X(Add) X(Sub) X(Mul) X(Div) X(Mod) X(FloorDiv) X(FloorMod) X(Min) X(Max) \
    X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) X(And) X(Or)

// Expressions with a class of their own, KindNode.
#define LS_IR_NODE_EXPRS(X) \
    X(Not) X(Select) X(Cast) X(Call) X(TensorLoad) X(BufferLoad) X(Ramp) X(Broadcast) X(Let) \
    X(Reduce)

// Statements, each with a class of its own, KindNode. TensorStore and Realize exist before
// storage flattening only (a store at multi-dimensional indices; the region of a tensor that
// exists inside the body); Block only in a TensorIR function before it is lowered (a TensorIR
// block with its iteration variables bound: TVM's BlockRealize and Block as one node).
#define LS_IR_STMTS(X) \
    X(For) X(TensorStore) X(BufferStore) X(Realize) X(Allocate) X(LetStmt) X(IfThenElse) X(Seq) \
    X(Attr) X(Evaluate) X(Block)
// clang-format on

#define LS_IR_ENUMERATOR(Kind) Kind,
