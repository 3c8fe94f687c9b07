#include "te/Ast.h"
#include "te/Lexer.h"

#include <gtest/gtest.h>

#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace loopscope::ast {
namespace {

// A compact, readable rendering of a tree: names bare, literals as written, composites as
// (operator children...). Subscripts are ([] value index...), attributes (. value name).
std::string dump(const ExprPtr& e);

std::string dumpAll(const std::vector<ExprPtr>& items)
{
    std::string out;
    for (const ExprPtr& item : items)
        out += " " + dump(item);
    return out;
}

std::string dump(const ExprPtr& e)
{
    switch (e->kind) {
    case ExprKind::Name: return e->name;
    case ExprKind::Int: return std::to_string(e->intValue);
    case ExprKind::Float: {
        std::ostringstream out;
        out << e->floatValue;
        std::string text = out.str();
        if (text.find_first_of(".e") == std::string::npos) text += ".0";
        return text;
    }
    case ExprKind::String: {
        std::string out = "\"";
        for (char c : e->name) {
            if (c == '\n')
                out += "\\n";
            else if (c == '\t')
                out += "\\t";
            else if (c == '\\')
                out += "\\\\";
            else
                out += c;
        }
        return out + "\"";
    }
    case ExprKind::Bool: return e->boolValue ? "True" : "False";
    case ExprKind::None: return "None";
    case ExprKind::Tuple: return "(tuple" + dumpAll(e->items) + ")";
    case ExprKind::List: return "(list" + dumpAll(e->items) + ")";
    case ExprKind::Attribute: return "(. " + dump(e->value) + " " + e->name + ")";
    case ExprKind::Subscript: return "([] " + dump(e->value) + dumpAll(e->items) + ")";
    case ExprKind::Call: {
        std::string out = "(call " + dump(e->value) + dumpAll(e->items);
        for (const Keyword& k : e->keywords)
            out += " " + k.name + "=" + dump(k.value);
        return out + ")";
    }
    case ExprKind::Binary:
    case ExprKind::Compare:
    case ExprKind::BoolOp: return "(" + e->name + " " + dump(e->lhs) + " " + dump(e->rhs) + ")";
    case ExprKind::Unary: return "(" + e->name + " " + dump(e->value) + ")";
    case ExprKind::Lambda: {
        std::string params;
        for (const std::string& p : e->params)
            params += (params.empty() ? "" : " ") + p;
        return "(lambda (" + params + ") " + dump(e->value) + ")";
    }
    case ExprKind::IfExp:
        return "(if " + dump(e->items[1]) + " " + dump(e->items[0]) + " " + dump(e->items[2]) + ")";
    case ExprKind::Starred: return "(* " + dump(e->value) + ")";
    case ExprKind::Slice: {
        auto part = [](const ExprPtr& p) { return p ? dump(p) : std::string("_"); };
        return "(: " + part(e->lhs) + " " + part(e->rhs) + " " + part(e->value) + ")";
    }
    case ExprKind::Dict: return "(dict" + dumpAll(e->items) + ")";
    }
    return "?";
}

std::string dump(const Stmt& stmt)
{
    auto body = [&] {
        std::string out;
        for (const Stmt& s : stmt.body)
            out += " " + dump(s);
        return " {" + out + " }";
    };
    auto decorators = [&] {
        std::string out;
        for (const ExprPtr& d : stmt.decorators)
            out += "@" + dump(d) + " ";
        return out;
    };
    switch (stmt.kind) {
    case StmtKind::Import: return "import";
    case StmtKind::Pass: return "pass";
    case StmtKind::Expr: return dump(stmt.value);
    case StmtKind::Assign: return "(=" + dumpAll(stmt.targets) + " " + dump(stmt.value) + ")";
    case StmtKind::Return: return stmt.value ? "(return " + dump(stmt.value) + ")" : "(return)";
    case StmtKind::For:
        return "(for " + dump(stmt.targets[0]) + " " + dump(stmt.value) + body() + ")";
    case StmtKind::With:
        return "(with " + dump(stmt.value) +
               (stmt.targets.empty() ? "" : " as " + dump(stmt.targets[0])) + body() + ")";
    case StmtKind::Def: {
        std::string params;
        for (const Param& p : stmt.params)
            params += (params.empty() ? "" : " ") + p.name +
                      (p.annotation ? ":" + dump(p.annotation) : "") +
                      (p.defaultValue ? "=" + dump(p.defaultValue) : "");
        return "(" + decorators() + "def " + stmt.name + " (" + params + ")" + body() + ")";
    }
    case StmtKind::Class:
        return "(" + decorators() + "class " + stmt.name + dumpAll(stmt.bases) + body() + ")";
    case StmtKind::Assert:
        return "(assert " + dump(stmt.value) +
               (stmt.targets.empty() ? "" : " " + dump(stmt.targets[0])) + ")";
    case StmtKind::If: {
        std::string orelse;
        for (const Stmt& s : stmt.orelse)
            orelse += " " + dump(s);
        return "(if " + dump(stmt.value) + body() +
               (orelse.empty() ? "" : " else {" + orelse + " }") + ")";
    }
    }
    return "?";
}

// Statements separated by " ; ", or "error L:C: message".
std::string dump(const std::string& source)
{
    ParseResult result = parseScript(source);
    if (!result.ok) {
        return "error " + std::to_string(result.error.loc.line) + ":" +
               std::to_string(result.error.loc.col) + ": " + result.error.message;
    }
    std::string out;
    for (const Stmt& stmt : result.module.body)
        out += (out.empty() ? "" : " ; ") + dump(stmt);
    return out;
}

Module parseOk(const std::string& source)
{
    ParseResult result = parseScript(source);
    EXPECT_TRUE(result.ok) << source << "\n-> " << result.error.message;
    return result.module;
}

struct ShapeCase {
    const char* name;
    const char* source;
    const char* tree;
};

// clang-format off
const ShapeCase kShapeCases[] = {
    {"SimpleAssignment", "x = 1", "(= x 1)"},
    {"SubscriptStore", "Y[vi, vj] = 0", "(= ([] Y vi vj) 0)"},
    {"StarredTarget", "i, *rest = loops", "(= (tuple i (* rest)) loops)"},
    {"StarredArgument", "sch.reorder(*loops)", "(call (. sch reorder) (* loops))"},
    {"StarredInList", "x = [a, *b]", "(= x (list a (* b)))"},
    {"Slices", "x = l[1:], l[:2], l[::2], A[i, 0:4]",
     "(= x (tuple ([] l (: 1 _ _)) ([] l (: _ 2 _)) ([] l (: _ _ 2)) ([] A i (: 0 4 _))))"},
    {"Dict", "T.func_attr({\"tir.noalias\": T.bool(True), 'a': 1,})",
     "(call (. T func_attr) (dict \"tir.noalias\" (call (. T bool) True) \"a\" 1))"},
    {"EmptyDict", "d = {}", "(= d (dict))"},
    {"ForOverBlocks", "for b in [b0, b1]:\n    sch.compute_inline(b)\n",
     "(for b (list b0 b1) { (call (. sch compute_inline) b) })"},
    {"ForOnOneLine", "for b in bs: f(b); g(b)", "(for b bs { (call f b) (call g b) })"},
    {"ForTupleTarget", "for i, j in T.grid(4, 8):\n    pass\n",
     "(for (tuple i j) (call (. T grid) 4 8) { pass })"},
    {"NestedBlocks",
     "with T.block(\"Y\"):\n    with T.init():\n        Y[vi] = 0\n    Y[vi] = Y[vi] + 1\nx = 2\n",
     "(with (call (. T block) \"Y\") { (with (call (. T init)) { (= ([] Y vi) 0) }) "
     "(= ([] Y vi) (+ ([] Y vi) 1)) }) ; (= x 2)"},
    {"WithAs", "with a as (b, c):\n    pass\n", "(with a as (tuple b c) { pass })"},
    {"DecoratedClass",
     "@I.ir_module\nclass M:\n    @T.prim_func(s_tir=True)\n    def main(A: T.Buffer((4,), \"float32\"), n=2) -> None:\n"
     "        T.func_attr({})\n        return\n",
     "(@(. I ir_module) class M { (@(call (. T prim_func) s_tir=True) def main "
     "(A:(call (. T Buffer) (tuple 4) \"float32\") n=2) { (call (. T func_attr) (dict)) (return) }) })"},
    {"ClassWithBase", "class A(B, C):\n    pass\n", "(class A B C { pass })"},
    {"DedentsAtEndOfFile", "for a in b:\n    for c in d:\n        pass",
     "(for a b { (for c d { pass }) })"},
    {"CommentsAndBlankLinesInABlock", "for a in b:\n\n    # note\n    x = 1\n  # off\n    y = 2\nz = 3",
     "(for a b { (= x 1) (= y 2) }) ; (= z 3)"},
    {"ChainedAssignment", "M = K = N = 1024", "(= M K N 1024)"},
    {"TupleAssignment", "M, K, N = 1024, 1024, 1024", "(= (tuple M K N) (tuple 1024 1024 1024))"},
    {"ParenthesizedOneTupleTarget", "(k,) = s[C].op.reduce_axis",
     "(= (tuple k) (. (. ([] s C) op) reduce_axis))"},
    {"ListTarget", "[a, b] = f()", "(= (list a b) (call f))"},
    {"NestedTupleTarget", "(a, (b, c)) = t", "(= (tuple a (tuple b c)) t)"},
    {"ParenthesizedNameTarget", "(a) = 1", "(= a 1)"},
    {"TrailingCommaTupleValue", "t = 1,", "(= t (tuple 1))"},
    {"Placeholder", "A = te.placeholder((M, K), name=\"A\")",
     "(= A (call (. te placeholder) (tuple M K) name=\"A\"))"},
    {"ComputeWithLambda", "C = te.compute((M, N), lambda i, j: A[i, j] * 2, name='C')",
     "(= C (call (. te compute) (tuple M N) (lambda (i j) (* ([] A i j) 2)) name=\"C\"))"},
    {"ReductionInLambda", "te.compute((M,), lambda i: te.sum(A[i, k], axis=k))",
     "(call (. te compute) (tuple M) (lambda (i) (call (. te sum) ([] A i k) axis=k)))"},
    {"LambdaWithoutParameters", "f = lambda: 0", "(= f (lambda () 0))"},
    {"LambdaTrailingComma", "f = lambda i,: i", "(= f (lambda (i) i))"},
    {"SplitWithKeyword", "xo, xi = s[C].split(C.op.axis[0], factor=32)",
     "(= (tuple xo xi) (call (. ([] s C) split) ([] (. (. C op) axis) 0) factor=32))"},
    {"CallTrailingComma", "f(a, b=1, c=2,)", "(call f a b=1 c=2)"},
    {"EmptyCall", "f()", "(call f)"},
    {"PrintOfLower", "print(tvm.lower(s, [A, B, C], simple_mode=True))",
     "(call print (call (. tvm lower) s (list A B C) simple_mode=True))"},
    {"TrailerChain", "a.b.c(d)[e]", "([] (call (. (. a b) c) d) e)"},
    {"MultiplicationBindsTighter", "a + b * c", "(+ a (* b c))"},
    {"SubtractionIsLeftAssociative", "a - b - c", "(- (- a b) c)"},
    {"PowerBindsTighterThanUnaryMinus", "-2 ** 2", "(- (** 2 2))"},
    {"PowerTakesUnaryExponent", "2 ** -1", "(** 2 (- 1))"},
    {"PowerIsRightAssociative", "2 ** 3 ** 2", "(** 2 (** 3 2))"},
    {"BitwiseAndShiftLadder", "a | b ^ c & d << e + f", "(| a (^ b (& c (<< d (+ e f)))))"},
    {"TermOperators", "a // b % c @ d / e", "(/ (@ (% (// a b) c) d) e)"},
    {"ShiftsLeftAssociative", "a << b >> c", "(>> (<< a b) c)"},
    {"Parentheses", "(a + b) * c", "(* (+ a b) c)"},
    {"UnaryOperators", "x = -a, +b, ~c, --d", "(= x (tuple (- a) (+ b) (~ c) (- (- d))))"},
    {"NegativeLiteralNotFolded", "x = -1", "(= x (- 1))"},
    {"NotBindsLooserThanComparison", "not a == b", "(not (== a b))"},
    {"AndBindsTighterThanOr", "a or b and c", "(or a (and b c))"},
    {"ComparisonsInsideBoolOps", "a < b or c >= d and e != f",
     "(or (< a b) (and (>= c d) (!= e f)))"},
    {"AllComparisonOperators", "x = a < b, a <= b, a > b, a >= b, a == b, a != b",
     "(= x (tuple (< a b) (<= a b) (> a b) (>= a b) (== a b) (!= a b)))"},
    {"ComparisonBindsLooserThanBitOr", "a | b < c", "(< (| a b) c)"},
    {"ConditionalExpression", "x = a if c else b", "(= x (if c a b))"},
    {"ConditionalIsRightNested", "x = a if c else b if d else e", "(= x (if c a (if d b e)))"},
    {"LambdaBodyTakesConditional", "f = lambda i: a if i else b", "(= f (lambda (i) (if i a b)))"},
    {"SubscriptWithTupleIndex", "A[(i, k)]", "([] A (tuple i k))"},
    {"SubscriptTrailingComma", "A[i,]", "([] A i)"},
    {"EmptyTupleAndList", "x = (), []", "(= x (tuple (tuple) (list)))"},
    {"OneTupleAndTrailingCommaList", "x = (1,), [1, 2,]", "(= x (tuple (tuple 1) (list 1 2)))"},
    {"Constants", "x = True, False, None", "(= x (tuple True False None))"},
    {"Integers", "x = 0, 00, 0x1F, 0XfF, 0b101, 0o17, 1_000_000, 0x_ff",
     "(= x (tuple 0 0 31 255 5 15 1000000 255))"},
    {"LargestInteger", "x = 9223372036854775807", "(= x 9223372036854775807)"},
    {"Floats", "x = 1.0, 1e-3, .5, 1., 1_0.2_5, 2E+2, 0.0, 1.e1",
     "(= x (tuple 1.0 0.001 0.5 1.0 10.25 200.0 0.0 10.0))"},
    {"StringEscapes", R"(x = "a\tb\x41\u00e9\101\\\"\'\q")",
     "(= x \"a\\tbA\xC3\xA9" "A\\\\\"'\\\\q\")"},
    {"RawAndBytesStrings", R"(x = r"\d\"", b'x', Rb"\n", u"u")",
     "(= x (tuple \"\\\\d\\\\\"\" \"x\" \"\\\\n\" \"u\"))"},
    {"AdjacentStringsConcatenate", "x = 'ab' \"cd\"", "(= x \"abcd\")"},
    {"TripleQuotedString", "x = '''a\n'b'\n\"\"'''", "(= x \"a\\n'b'\\n\"\"\")"},
    {"StringBackslashNewlineContinues", "x = 'ab\\\ncd'", "(= x \"abcd\")"},
    {"Imports", "import tvm\nfrom tvm import te\nimport tvm.testing as t, numpy as np",
     "import ; import ; import"},
    {"FromImports", "from tvm.te import (a as b,\n c,)\nfrom . import x\nfrom tvm import *",
     "import ; import ; import"},
    {"Pass", "pass", "pass"},
    {"SemicolonsSeparateStatements", "a = 1; b = 2;\nc = 3", "(= a 1) ; (= b 2) ; (= c 3)"},
    {"ImplicitLineJoining", "f(a,\n\t\tb, # note\n\n  c)\nx = [1,\n2]",
     "(call f a b c) ; (= x (list 1 2))"},
    {"BackslashContinuation", "x = 1 + \\\n    2\ny = 3", "(= x (+ 1 2)) ; (= y 3)"},
    {"BlankAndCommentLinesIgnored", "\n# one\n   \n    # indented comment\nx = 1\n\n", "(= x 1)"},
    {"KeywordArgumentLambda", "f(fcompute=lambda i: i)", "(call f fcompute=(lambda (i) i))"},
    {"TargetConstructor", "t = tvm.target.Target(\"llvm -mcpu=skylake\")",
     "(= t (call (. (. tvm target) Target) \"llvm -mcpu=skylake\"))"},
    {"NoTrailingNewline", "x = 1\ny = 2", "(= x 1) ; (= y 2)"},
    {"EmptySource", "", ""},
    {"IfStatement", "if x:\n    a = 1\n", "(if x { (= a 1) })"},
    {"IfElifElse", "if x == 1:\n    a = 1\nelif y:\n    a = 2\nelse:\n    a = 3\nb = 4",
     "(if (== x 1) { (= a 1) } else { (if y { (= a 2) } else { (= a 3) }) }) ; (= b 4)"},
    {"IfOnOneLine", "if x: return 1", "(if x { (return 1) })"},
    {"AssertWithMessage", "assert f(\"sse4.2\"), \"old\"", "(assert (call f \"sse4.2\") \"old\")"},
    {"PlainFunctionWithIfAndReturn", "def f(i):\n    if i == 1:\n        return 0\n    return i",
     "(def f (i) { (if (== i 1) { (return 0) }) (return i) })"},
};
// clang-format on

void PrintTo(const ShapeCase& c, std::ostream* os)
{
    *os << c.source;
}

class ParserShape : public testing::TestWithParam<ShapeCase> {};

TEST_P(ParserShape, BuildsTheExpectedTree)
{
    EXPECT_EQ(dump(GetParam().source), GetParam().tree) << GetParam().source;
}

INSTANTIATE_TEST_SUITE_P(Constructs, ParserShape, testing::ValuesIn(kShapeCases),
                         [](const auto& info) { return std::string(info.param.name); });

struct ErrorCase {
    const char* name;
    const char* source;
    int line;
    int col;
    const char* message;
};

const char* const kOnlyNames =
    "; only names (or tuples and lists of names) can be assigned in a TE script";

// clang-format off
const ErrorCase kErrorCases[] = {
    // Block statements and other statements outside the subset.
    {"WhileStatement", "while True:\n    pass\n", 1, 1,
     "'while' statements are not supported in a TE script; express loops with te.compute and "
     "schedule primitives, or 'for' in TVMScript"},
    {"ElseWithoutIf", "x = 1\nelse:\n    pass\n", 2, 1,
     "'else' without an 'if' before it at the same indentation"},
    {"ElifInsideABlockWithoutIf", "for b in bs:\n    elif b:\n        pass\n", 2, 5,
     "'elif' without an 'if' before it at the same indentation"},
    {"IfWithoutColon", "if x\n    pass\n", 1, 5,
     "expected ':' to begin the block of the 'if x' line, found end of line"},
    {"ForWithoutBody", "for b in bs:\nx = 1\n", 2, 1,
     "expected an indented block after the line 1"},
    {"ForWithoutIn", "for b, c of bs:\n    pass\n", 1, 10,
     "expected 'in' in the 'for' statement, found 'of'"},
    {"ForWithoutColon", "for b in bs\n    pass\n", 1, 12,
     "expected ':' to begin the block of the 'for b in bs' line, found end of line"},
    {"BadDedent", "for b in bs:\n    x = 1\n  y = 2\n", 3, 3,
     "unindent does not match any outer indentation level"},
    {"TwoStarredTargets", "*a, *b = t", 1, 5, "only one starred name ('*rest') per assignment"},
    {"DecoratorWithoutDef", "@T.prim_func\nx = 1\n", 2, 1,
     "expected 'def' or 'class' after a decorator, found 'x'"},
    {"StarArgsParameter", "def f(*args):\n    pass\n", 1, 7,
     "parameters like '*args', '**kwargs' and '/' are not supported in a TE script"},
    {"RepeatedParameter", "def f(a, a):\n    pass\n", 1, 10, "the parameter 'a' is repeated"},
    {"TwoContextManagers", "with a, b:\n    pass\n", 1, 7,
     "one context manager per 'with' statement: nest them"},
    {"TryStatement", "try:\n    pass\nexcept:\n    pass\n", 1, 1,
     "'try' statements are not supported in a TE script"},
    {"DelStatement", "x = 1; del x", 1, 8, "'del' statements are not supported in a TE script"},
    {"GlobalStatement", "global x", 1, 1, "'global' statements are not supported in a TE script"},
    {"NonlocalStatement", "nonlocal x", 1, 1,
     "'nonlocal' statements are not supported in a TE script"},
    {"RaiseStatement", "raise ValueError()", 1, 1,
     "'raise' statements are not supported in a TE script"},
    {"BreakStatement", "break", 1, 1, "'break' statements are not supported in a TE script"},
    {"YieldStatement", "yield x", 1, 1, "'yield' statements are not supported in a TE script"},
    {"YieldExpression", "x = (yield)", 1, 6,
     "'yield' expressions are not supported in a TE script"},
    {"AsyncStatement", "async def f():\n    pass\n", 1, 1,
     "'async' statements are not supported in a TE script"},

    // Assignments outside the subset.
    {"AugmentedAssignment", "x += 1", 1, 3,
     "augmented assignment '+=' is not supported; write 'x = x + ...'"},
    {"AugmentedFloorDivOnSubscript", "s[C]  //= 2", 1, 7,
     "augmented assignment '//=' is not supported; write 's[C] = s[C] // ...'"},
    {"AnnotatedAssignment", "n: int = 3", 1, 2,
     "annotated assignments ('x: int = ...') are not supported in a TE script; drop the "
     "annotation"},
    {"WalrusOperator", "f((n := 3))", 1, 6,
     "the walrus operator ':=' is not supported in a TE script; assign with '=' in a statement "
     "of its own"},
    {"AssignToCall", "x = f() = 2", 1, 5, "cannot assign to a function call"},
    {"AssignToAttribute", "C.name = 'D'", 1, 1, "cannot assign to an attribute"},
    {"AssignToLiteral", "1 = x", 1, 1, "cannot assign to a literal"},
    {"AssignToExpression", "a + b = c", 1, 1, "cannot assign to an expression"},
    {"AssignToCallInsideTuple", "a, (b, f()) = t", 1, 8, "cannot assign to a function call"},
    {"StarredTargetAlone", "*a = t", 1, 1,
     "a starred assignment target must be in a tuple or list: write '*name,'"},

    // Expressions outside the subset.
    {"StarredOutsideAList", "x = 1 + *a", 1, 9,
     "a starred expression ('*args') can only be an argument, an item of a list or tuple, or an "
     "assignment target"},
    {"DoubleStarArgument", "f(**kw)", 1, 3,
     "'**' unpacking ('**kwargs') is not supported in a TE script"},
    {"SetLiteral", "d = f({1, 2})", 1, 9,
     "set literals are not supported in a TE script; a dict needs 'key: value'"},
    {"ListComprehension", "xs = [i * 2 for i in r]", 1, 13,
     "list comprehensions ('x for x in ...') are not supported in a TE script"},
    {"GeneratorArgument", "f(i for i in r)", 1, 5,
     "generator expressions ('x for x in ...') are not supported in a TE script"},
    {"GeneratorInParentheses", "g = (i for i in r)", 1, 8,
     "generator expressions ('x for x in ...') are not supported in a TE script"},
    {"ChainedComparison", "c = a < b < c", 1, 11,
     "chained comparisons ('a < b < c') are not supported in a TE script; write "
     "'(a < b) and (b < c)'"},
    {"InTest", "c = a in b", 1, 7, "'in' tests are not supported in a TE script"},
    {"NotInTest", "c = a not in b", 1, 7, "'not in' tests are not supported in a TE script"},
    {"IsComparison", "c = a is None", 1, 7,
     "'is' comparisons are not supported in a TE script; use '=='"},
    {"IsNotComparison", "c = a is not None", 1, 7,
     "'is not' comparisons are not supported in a TE script; use '!='"},
    {"Ellipsis", "x = ...", 1, 5, "'...' (Ellipsis) is not supported in a TE script"},

    // Calls and lambdas.
    {"PositionalAfterKeyword", "f(a=1, b)", 1, 8,
     "positional argument follows keyword argument 'a'"},
    {"RepeatedKeyword", "te.placeholder((n,), name='A', name='B')", 1, 32,
     "keyword argument 'name' is repeated"},
    {"KeywordNotAName", "f(a.b=1)", 1, 3, "a keyword argument needs a plain name before '='"},
    {"LambdaDefault", "f = lambda i=0: i", 1, 13,
     "lambda parameters with default values are not supported in a TE script"},
    {"LambdaStarArgs", "f = lambda *args: 0", 1, 12,
     "lambda parameters like '*args' and '**kwargs' are not supported in a TE script"},
    {"LambdaDuplicateParameter", "f = lambda i, i: 0", 1, 15, "duplicate lambda parameter 'i'"},
    {"LambdaMissingColon", "f = lambda i j: 0", 1, 14,
     "expected ':' after the lambda parameters, found 'j'"},

    // Lexical errors.
    {"UnexpectedIndent", "x = 1\n  y = 2\n", 2, 3, "unexpected indent"},
    {"UnexpectedTabIndent", "\tx = 1\n", 1, 2, "unexpected indent"},
    {"FString", "name = f\"A{i}\"", 1, 8, "f-strings are not supported in a TE script"},
    {"FStringUpperCasePrefix", "name = rF'x'", 1, 8, "f-strings are not supported in a TE script"},
    {"UnterminatedString", "x = 1\ny = f(\"abc)\n", 2, 7, "unterminated string literal"},
    {"UnterminatedTripleQuotedString", "x = '''abc\n\ndef\n", 1, 5,
     "unterminated triple-quoted string literal"},
    {"BadHexEscape", "x = 'a\\xZ1'", 1, 7,
     "invalid \\x escape: expected 2 hexadecimal digits"},
    {"IntegerTooLarge", "x = 9223372036854775808", 1, 5,
     "integer literal '9223372036854775808' is too large; the largest supported integer is "
     "9223372036854775807"},
    {"HexTooLarge", "x = 0x1_0000_0000_0000_0000", 1, 5,
     "integer literal '0x1_0000_0000_0000_0000' is too large; the largest supported integer is "
     "9223372036854775807"},
    {"EmptyHexLiteral", "x = 0x", 1, 5, "invalid hexadecimal literal '0x'"},
    {"BadBinaryDigit", "x = 0b102", 1, 5, "invalid binary literal '0b102'"},
    {"DoubleUnderscoreInNumber", "x = 1__000", 1, 5, "invalid decimal literal '1__000'"},
    {"TrailingUnderscoreInNumber", "x = 1_", 1, 5, "invalid decimal literal '1_'"},
    {"LetterAfterNumber", "x = 3abc", 1, 5, "invalid decimal literal '3abc'"},
    {"LeadingZero", "x = 012", 1, 5,
     "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal "
     "integers"},
    {"ComplexNumber", "x = 2j", 1, 5, "complex numbers ('2j') are not supported in a TE script"},
    {"UnexpectedCharacter", "x = a $ b", 1, 7, "unexpected character '$'"},
    {"TypographicQuotes", "A = te.placeholder((n,), name=\xE2\x80\x9C" "A\xE2\x80\x9D)", 1, 31,
     "unexpected character '\xE2\x80\x9C'; use straight quotes ' or \" around strings"},
    {"CharacterAfterBackslash", "x = 1 + \\ 2", 1, 9,
     "unexpected character after line continuation '\\'"},
    {"BackslashAtEndOfFile", "x = 1 + \\", 1, 9,
     "unexpected end of file after line continuation '\\'"},

    // Syntax errors.
    {"UnclosedParenthesisAtEndOfFile", "x = 1\ny = f(1,\n  2\n", 2, 6, "'(' was never closed"},
    {"UnclosedBracketMidExpression", "y = [1 +\n", 1, 5, "'[' was never closed"},
    {"MissingCloseParenthesis", "x = (1 2)", 1, 8, "expected ')' to close '(' at 1:5, found '2'"},
    {"MissingCloseInCall", "s[C].split(\n    x\n    factor=4)", 3, 5,
     "expected ')' to close '(' at 1:11, found 'factor'"},
    {"MismatchedClosingBracket", "f(a]", 1, 4, "closing ']' does not match '(' at 1:2"},
    {"UnmatchedClosingParenthesis", "x = 1)", 1, 6, "unmatched ')'"},
    {"MissingValue", "x = ", 1, 4, "expected an expression after '=', found end of line"},
    {"MissingOperand", "x = 1 + ;", 1, 9, "expected an expression after '+', found ';'"},
    {"DoubleSemicolon", "x = 1;;", 1, 7, "expected an expression after ';', found ';'"},
    {"JunkAfterStatement", "print \"hello\"", 1, 7, "expected end of line, found \"hello\""},
    {"ConditionalWithoutElse", "x = a if c", 1, 11,
     "expected 'else' in the conditional expression 'a if c else b', found end of line"},
    {"MissingAttributeName", "x = a.", 1, 7,
     "expected an attribute name after '.', found end of line"},
    {"EmptySubscript", "x = A[]", 1, 7, "expected an index inside '[]', found ']'"},
    {"ImportWithoutModule", "import", 1, 7,
     "expected a module name after 'import', found end of line"},
    {"FromImportWithoutNames", "from tvm import", 1, 16,
     "expected a name to import, found end of line"},
    {"FirstErrorWins", "x = 1\nwhile i:\n    y = \"unterminated\n", 2, 1,
     "'while' statements are not supported in a TE script; express loops with te.compute and "
     "schedule primitives, or 'for' in TVMScript"},
    {"ColumnsCountCharacters", "s = \"\xC3\xA9\xC3\xA9\" + $", 1, 12, "unexpected character '$'"},
};
// clang-format on

void PrintTo(const ErrorCase& c, std::ostream* os)
{
    *os << c.source;
}

class ParserError : public testing::TestWithParam<ErrorCase> {};

TEST_P(ParserError, ReportsTheConstructAtItsLocation)
{
    const ErrorCase& c = GetParam();
    ParseResult result = parseScript(c.source);
    ASSERT_FALSE(result.ok) << c.source;
    EXPECT_EQ(result.error.loc.line, c.line) << result.error.message;
    EXPECT_EQ(result.error.loc.col, c.col) << result.error.message;
    std::string expected = c.message;
    if (expected.rfind("cannot assign to", 0) == 0) expected += kOnlyNames;
    EXPECT_EQ(result.error.message, expected);
    EXPECT_TRUE(result.module.body.empty());
}

INSTANTIATE_TEST_SUITE_P(Refusals, ParserError, testing::ValuesIn(kErrorCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ParserLocations, BinaryOperandsAndOperators)
{
    Module m = parseOk("y = a + b * c");
    const Expr& sum = *m.body[0].value;
    EXPECT_EQ(sum.loc.col, 5);
    EXPECT_EQ(sum.opLoc.col, 7);
    EXPECT_EQ(sum.rhs->loc.col, 9);
    EXPECT_EQ(sum.rhs->opLoc.col, 11);
    EXPECT_EQ(m.body[0].targets[0]->loc.col, 1);
}

TEST(ParserLocations, ParenthesizedOperandStartsAtItsParenthesis)
{
    Module m = parseOk("y = (a + b) * c");
    const Expr& product = *m.body[0].value;
    EXPECT_EQ(product.loc.col, 5);
    EXPECT_EQ(product.opLoc.col, 13);
    EXPECT_EQ(product.lhs->loc.col, 6);
}

TEST(ParserLocations, UnaryAndComparisonAndBoolOp)
{
    Module m = parseOk("x = -a < b and not c");
    const Expr& boolOp = *m.body[0].value;
    ASSERT_EQ(boolOp.kind, ExprKind::BoolOp);
    EXPECT_EQ(boolOp.loc.col, 5);
    EXPECT_EQ(boolOp.opLoc.col, 12);
    const Expr& compare = *boolOp.lhs;
    EXPECT_EQ(compare.kind, ExprKind::Compare);
    EXPECT_EQ(compare.opLoc.col, 8);
    EXPECT_EQ(compare.lhs->kind, ExprKind::Unary);
    EXPECT_EQ(compare.lhs->opLoc.col, 5);
    EXPECT_EQ(boolOp.rhs->name, "not");
    EXPECT_EQ(boolOp.rhs->loc.col, 16);
    EXPECT_EQ(boolOp.rhs->value->loc.col, 20);
}

TEST(ParserLocations, CallAttributeSubscriptAndKeywords)
{
    Module m = parseOk("xo, xi = s[C].split(C.op.axis[0], factor=32)");
    const Expr& call = *m.body[0].value;
    ASSERT_EQ(call.kind, ExprKind::Call);
    EXPECT_EQ(call.loc.col, 10);
    EXPECT_EQ(call.opLoc.col, 20);
    const Expr& split = *call.value;
    EXPECT_EQ(split.kind, ExprKind::Attribute);
    EXPECT_EQ(split.loc.col, 10);
    EXPECT_EQ(split.opLoc.col, 15);
    EXPECT_EQ(split.value->kind, ExprKind::Subscript);
    EXPECT_EQ(split.value->opLoc.col, 11);
    EXPECT_EQ(call.items[0]->loc.col, 21);
    ASSERT_EQ(call.keywords.size(), 1u);
    EXPECT_EQ(call.keywords[0].loc.col, 35);
    EXPECT_EQ(call.keywords[0].value->loc.col, 42);
    const Expr& targets = *m.body[0].targets[0];
    EXPECT_EQ(targets.items[1]->loc.col, 5);
}

TEST(ParserLocations, LambdaParametersAndBody)
{
    Module m = parseOk("C = te.compute((M, N),\n    lambda i, j: A[i, j])");
    const Expr& lambda = *m.body[0].value->items[1];
    ASSERT_EQ(lambda.kind, ExprKind::Lambda);
    EXPECT_EQ(lambda.loc.line, 2);
    EXPECT_EQ(lambda.loc.col, 5);
    ASSERT_EQ(lambda.paramLocs.size(), 2u);
    EXPECT_EQ(lambda.paramLocs[0].col, 12);
    EXPECT_EQ(lambda.paramLocs[1].col, 15);
    EXPECT_EQ(lambda.value->loc.col, 18);
}

TEST(ParserLocations, ConditionalExpression)
{
    Module m = parseOk("x = a if c else b");
    const Expr& ifExp = *m.body[0].value;
    EXPECT_EQ(ifExp.loc.col, 5);
    EXPECT_EQ(ifExp.opLoc.col, 7);
}

TEST(ParserLocations, TupleStartsAtItsParenthesisOrFirstItem)
{
    Module m = parseOk("(k,) = t\nio, ii = t");
    EXPECT_EQ(m.body[0].targets[0]->loc.col, 1);
    EXPECT_EQ(m.body[0].targets[0]->items[0]->loc.col, 2);
    EXPECT_EQ(m.body[1].targets[0]->loc.col, 1);
}

TEST(ParserLocations, ColumnsCountCharactersNotBytes)
{
    Module m = parseOk("s = \"\xC3\xA9\xC3\xA9\" + x");
    EXPECT_EQ(m.body[0].value->opLoc.col, 10);
    EXPECT_EQ(m.body[0].value->rhs->loc.col, 12);
}

TEST(ParserStatements, TextAndEndLineCoverMultiLineCalls)
{
    Module m =
        parseOk("import tvm\nC = te.compute(\n    (M, N),  # shape\n    f)  # done\nx = 1\n");
    ASSERT_EQ(m.body.size(), 3u);
    EXPECT_EQ(m.body[0].kind, StmtKind::Import);
    EXPECT_EQ(m.body[0].text, "import tvm");
    EXPECT_EQ(m.body[1].loc.line, 2);
    EXPECT_EQ(m.body[1].endLine, 4);
    EXPECT_EQ(m.body[1].text, "C = te.compute(\n    (M, N),  # shape\n    f)");
    EXPECT_EQ(m.body[2].loc.line, 5);
    EXPECT_EQ(m.body[2].endLine, 5);
}

TEST(ParserStatements, SemicolonSeparatedStatementsHaveTheirOwnText)
{
    Module m = parseOk("a = 1;  b = f(a) ;\n");
    ASSERT_EQ(m.body.size(), 2u);
    EXPECT_EQ(m.body[0].text, "a = 1");
    EXPECT_EQ(m.body[1].text, "b = f(a)");
    EXPECT_EQ(m.body[1].loc.col, 9);
}

TEST(ParserStatements, TripleQuotedStringEndsOnItsLastLine)
{
    Module m = parseOk("\"\"\"Doc\nstring\n\"\"\"\nx = 1\n");
    ASSERT_EQ(m.body.size(), 2u);
    EXPECT_EQ(m.body[0].kind, StmtKind::Expr);
    EXPECT_EQ(m.body[0].endLine, 3);
    EXPECT_EQ(m.body[1].loc.line, 4);
}

TEST(ParserStatements, BackslashContinuationTextKeepsBothLines)
{
    Module m = parseOk("x = 1 + \\\n    2\n");
    EXPECT_EQ(m.body[0].text, "x = 1 + \\\n    2");
    EXPECT_EQ(m.body[0].endLine, 2);
}

TEST(ParserStatements, WindowsLineEndingsAndByteOrderMark)
{
    Module m = parseOk("\xEF\xBB\xBFx = 1\r\ny = (2,\r\n  3)\r\n");
    ASSERT_EQ(m.body.size(), 2u);
    EXPECT_EQ(m.body[0].loc.col, 1);
    EXPECT_EQ(m.body[0].text, "x = 1");
    EXPECT_EQ(m.body[1].value->items[1]->loc.line, 3);
    EXPECT_EQ(m.body[1].value->items[1]->loc.col, 3);
    EXPECT_EQ(m.body[1].endLine, 3);
}

TEST(ParserComments, CollectedWithLocationTextAndOwnLine)
{
    Module m = parseOk("#   variant: tiled  \ns = f(a,  # first\n  # inside\n  b)\n#\n");
    ASSERT_EQ(m.comments.size(), 4u);
    EXPECT_EQ(m.comments[0].text, "variant: tiled");
    EXPECT_EQ(m.comments[0].loc.line, 1);
    EXPECT_EQ(m.comments[0].loc.col, 1);
    EXPECT_TRUE(m.comments[0].ownLine);
    EXPECT_EQ(m.comments[1].text, "first");
    EXPECT_EQ(m.comments[1].loc.line, 2);
    EXPECT_EQ(m.comments[1].loc.col, 11);
    EXPECT_FALSE(m.comments[1].ownLine);
    EXPECT_EQ(m.comments[2].text, "inside");
    EXPECT_TRUE(m.comments[2].ownLine);
    EXPECT_EQ(m.comments[3].text, "");
    EXPECT_EQ(m.comments[3].loc.line, 5);
}

TEST(ParserComments, HashInsideStringIsNotAComment)
{
    Module m = parseOk("x = '# not a comment'  # a comment");
    ASSERT_EQ(m.comments.size(), 1u);
    EXPECT_EQ(m.comments[0].text, "a comment");
    EXPECT_EQ(m.body[0].value->name, "# not a comment");
}

// A TVM export goes on after "# --- run in TVM ---" with code only TVM runs; Loopscope stops there.
TEST(ParserEndOfScript, NothingAfterTheMarkerLineIsRead)
{
    Module m = parseOk("x = 1\n# variant: v\ny = 2\n# --- run in TVM ---\n# variant: later\n"
                       "dev = tvm.cpu(0)\nfor i in range(3):\n    print(i)\n");
    ASSERT_EQ(m.body.size(), 2u);
    EXPECT_EQ(dump(m.body[1]), "(= y 2)");
    ASSERT_EQ(m.comments.size(), 1u);
    EXPECT_EQ(m.comments[0].text, "variant: v");
    EXPECT_EQ(std::string(kEndOfScriptMarker), "# --- run in TVM ---");
}

TEST(ParserEndOfScript, OnlyALineThatIsExactlyTheMarkerEndsTheScript)
{
    for (const char* line : {"  # --- run in TVM ---", "# --- run in TVM --- below",
                             "# --- run in TVM --- ", "x = 1  # --- run in TVM ---",
                             "#--- run in TVM ---", "# --- run in tvm ---", "# --- run in TVM"}) {
        std::string source = std::string(line) + "\nwhile i:\n    x = i\n";
        EXPECT_EQ(dump(source).rfind("error 2:1: 'while' statements are not supported", 0), 0u)
            << line << " -> " << dump(source);
    }
}

TEST(ParserEndOfScript, MarkerAtTheStartOrEndOfTheFileAndWithWindowsLineEndings)
{
    EXPECT_EQ(dump("# --- run in TVM ---\nfor i in x:\n"), "");
    EXPECT_EQ(dump("x = 1\n# --- run in TVM ---"), "(= x 1)");
    EXPECT_EQ(dump("x = 1\r\n# --- run in TVM ---\r\nfor i in x:\r\n"), "(= x 1)");
    EXPECT_EQ(dump("\xEF\xBB\xBF# --- run in TVM ---\nfor i in x:\n"), "");
}

TEST(ParserEndOfScript, InsideAStringTheMarkerIsText)
{
    Module m = parseOk("s = \"\"\"a\n# --- run in TVM ---\nb\"\"\"\ny = 2\n");
    ASSERT_EQ(m.body.size(), 2u);
    EXPECT_EQ(m.body[0].value->name, "a\n# --- run in TVM ---\nb");
}

TEST(ParserEndOfScript, InsideBracketsTheScriptEndsWithTheBracketOpen)
{
    EXPECT_EQ(dump("x = f(1,\n# --- run in TVM ---\n2)\n"), "error 1:6: '(' was never closed");
}

TEST(ParserScripts, DesignDocumentExample)
{
    const char* script = R"(import tvm
from tvm import te

M, K, N = 1024, 1024, 1024            # integer parameters: the size sweep rebinds them
A = te.placeholder((M, K), name="A")  # dtype defaults to float32
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

# variant: naive
s = te.create_schedule(C.op)

# variant: tiled
s = te.create_schedule(C.op)
io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], x_factor=32, y_factor=32)
ko, ki = s[C].split(k, factor=4)
s[C].reorder(io, jo, ko, ii, ji, ki)
s[C].vectorize(ji)
s[C].parallel(io)
func = tvm.build(s, [A, B, C], target="llvm")
)";
    Module m = parseOk(script);
    ASSERT_EQ(m.body.size(), 15u);
    EXPECT_EQ(m.body[8].loc.line, 14);
    EXPECT_EQ(m.body[8].text, "s = te.create_schedule(C.op)");
    EXPECT_EQ(dump(m.body[12]), "(call (. ([] s C) vectorize) ji)");
    ASSERT_EQ(m.comments.size(), 4u);
    EXPECT_EQ(m.comments[3].text, "variant: tiled");
    EXPECT_EQ(m.comments[3].loc.line, 13);
    EXPECT_TRUE(m.comments[3].ownLine);
    EXPECT_FALSE(m.comments[0].ownLine);
}

TEST(Lexer, TokenKindsNewlinesAndImplicitJoining)
{
    std::vector<Token> tokens = tokenize("x = (1,\n  2.5)  # c\nif y\n");
    std::vector<TokenKind> kinds;
    for (const Token& t : tokens)
        kinds.push_back(t.kind);
    std::vector<TokenKind> expected = {TokenKind::Name, TokenKind::Op,      TokenKind::Op,
                                       TokenKind::Int,  TokenKind::Op,      TokenKind::Float,
                                       TokenKind::Op,   TokenKind::Newline, TokenKind::Keyword,
                                       TokenKind::Name, TokenKind::Newline, TokenKind::End};
    EXPECT_EQ(kinds, expected);
    EXPECT_EQ(tokens[5].floatValue, 2.5);
    EXPECT_EQ(tokens[5].loc.line, 2);
    EXPECT_EQ(tokens[5].loc.col, 3);
    // A newline stands where the line's code ends, so "found end of line" points there.
    EXPECT_EQ(tokens[7].loc.line, 2);
    EXPECT_EQ(tokens[7].loc.col, 7);
}

TEST(Lexer, OperatorsTakeTheLongestMatch)
{
    std::vector<Token> tokens = tokenize("a**=b//c>>=d:=e->f...!=g");
    std::vector<std::string> ops;
    for (const Token& t : tokens) {
        if (t.kind == TokenKind::Op) ops.push_back(t.text);
    }
    EXPECT_EQ(ops, (std::vector<std::string>{"**=", "//", ">>=", ":=", "->", "...", "!="}));
}

TEST(Lexer, ErrorsAreThrownAsUserErrors)
{
    EXPECT_THROW(tokenize("x = 'abc"), UserError);
    EXPECT_NO_THROW(tokenize("x = 'abc'"));
}

} // namespace
} // namespace loopscope::ast

namespace {
using loopscope::ast::ParseResult;
using loopscope::ast::parseScript;

// Depth: deep nesting and very long chains are refused at their place, before anything recurses
// that deep (evaluating, lowering, printing or freeing the tree); a long but bounded sum is fine.
TEST(ParserDepth, DeepNestingIsRefusedAtItsPlace)
{
    for (const std::string& deep : {std::string(100000, '(') + "1" + std::string(100000, ')'),
                                    std::string(100000, '-') + "1"}) {
        ParseResult r = parseScript("x = " + deep + "\n");
        ASSERT_FALSE(r.ok);
        EXPECT_EQ(r.error.loc.line, 1);
        EXPECT_NE(r.error.message.find("nested deeper than 200 levels"), std::string::npos)
            << r.error.message;
    }
}

TEST(ParserDepth, AVeryLongSumIsRefusedAtItsLineAndALongOneWorks)
{
    auto sum = [](int terms) {
        std::string s = "y = 1\nx = y";
        for (int i = 1; i < terms; ++i)
            s += " + y";
        return s + "\n";
    };
    ParseResult r = parseScript(sum(200000));
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.loc.line, 2);
    EXPECT_NE(r.error.message.find("nested deeper than 1000 levels"), std::string::npos);
    EXPECT_TRUE(parseScript(sum(900)).ok);
}

} // namespace
