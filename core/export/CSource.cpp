#include "export/CSource.h"

#include "codegen/Codegen.h"
#include "ir/IRUtil.h"
#include "ir/Printer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

namespace loopscope {

namespace {

// Buffers up to this size live on the stack; larger or symbolic ones come from aligned_alloc.
// Smaller than the JIT's limit: the C may run on OpenMP threads with small stacks.
constexpr std::int64_t kMaxStackBytes = 64 * 1024;

// C operator precedence, higher binds tighter.
enum Prec : int {
    kCond = 3,
    kOr = 4,
    kAnd = 5,
    kEq = 9,
    kRel = 10,
    kAdd = 12,
    kMul = 13,
    kUnary = 15,
    kPrimary = 16,
};

struct CExpr {
    std::string text;
    int prec = kPrimary;
};

// Names a generated identifier must not take: C keywords and what the file calls.
const std::set<std::string>& reservedNames()
{
    static const std::set<std::string> names = {"auto",     "break",         "case",     "char",
                                                "const",    "continue",      "default",  "do",
                                                "double",   "else",          "enum",     "extern",
                                                "float",    "for",           "goto",     "if",
                                                "inline",   "int",           "long",     "register",
                                                "restrict", "return",        "short",    "signed",
                                                "sizeof",   "static",        "struct",   "switch",
                                                "typedef",  "union",         "unsigned", "void",
                                                "volatile", "while",         "bool",     "true",
                                                "false",    "exp",           "expf",     "log",
                                                "logf",     "sqrt",          "sqrtf",    "tanh",
                                                "tanhf",    "fabs",          "fabsf",    "pow",
                                                "powf",     "floor",         "floorf",   "ceil",
                                                "ceilf",    "fmod",          "fmodf",    "malloc",
                                                "free",     "aligned_alloc", "abort",    "main",
                                                "NAN",      "INFINITY",      "size_t",   "int8_t",
                                                "int16_t",  "int32_t",       "int64_t",  "uint8_t",
                                                "uint16_t", "uint32_t",      "uint64_t"};
    return names;
}

std::string cType(DataType t)
{
    switch (t.code) {
    case DataType::Float: return t.bits == 64 ? "double" : t.bits == 16 ? "_Float16" : "float";
    case DataType::Bool: return "uint8_t";
    case DataType::UInt: return "uint" + std::to_string(t.bits) + "_t";
    case DataType::Int: return "int" + std::to_string(t.bits) + "_t";
    case DataType::Handle: return "void*";
    }
    return "void*";
}

// A short tag for helper names: f32, i64, u8, b1.
std::string typeTag(DataType t)
{
    const char* code = t.isFloat() ? "f" : t.isInt() ? "i" : t.isUInt() ? "u" : "b";
    return code + std::to_string(t.bits);
}

// The shortest decimal that reads back as the same float (or double).
std::string floatLiteral(double v, DataType t)
{
    bool single = t.bits != 64;
    std::string s;
    if (std::isnan(v)) {
        s = single ? "NAN" : "(double)NAN";
    } else if (std::isinf(v)) {
        s = std::string(v < 0 ? "-" : "") + (single ? "INFINITY" : "(double)INFINITY");
    } else {
        char buf[64];
        for (int digits = single ? 6 : 15; digits <= 17; ++digits) {
            std::snprintf(buf, sizeof buf, "%.*g", digits, v);
            double back = std::strtod(buf, nullptr);
            if (single ? static_cast<float>(back) == static_cast<float>(v) : back == v) break;
        }
        s = buf;
        if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
        if (single) s += "f";
    }
    if (t.bits == 16) s = "(_Float16)" + s;
    return s;
}

CExpr intLiteral(std::int64_t v, DataType t)
{
    if (t.isBool()) return {v ? "1" : "0", kPrimary};
    if (t.bits == 64) {
        if (t.isInt() && v == std::numeric_limits<std::int64_t>::min())
            return {"INT64_MIN", kPrimary};
        std::string digits =
            t.isUInt() ? std::to_string(static_cast<std::uint64_t>(v)) : std::to_string(v);
        return {(t.isUInt() ? "UINT64_C(" : "INT64_C(") + digits + ")", kPrimary};
    }
    if (t.isInt() && t.bits == 32 && v == std::numeric_limits<std::int32_t>::min())
        return {"INT32_MIN", kPrimary};
    if (t.isUInt() && t.bits == 32)
        return {std::to_string(static_cast<std::uint32_t>(v)) + "u", kPrimary};
    return {std::to_string(v), v < 0 ? kUnary : kPrimary};
}

// Writes one function. Vector values never exist as C values: every vector expression is printed
// for one lane at a time (`lane` names the lane), inside a loop over the lanes of the statement
// that needs it.
class CWriter {
public:
    std::string write(const PrimFunc& f, const std::string& title)
    {
        std::vector<Var> sizes = sizeParameters(f);
        for (auto& p : f.params)
            reserve(p->data.get(), scriptName(p->name));
        for (auto& s : sizes)
            reserve(s.get(), scriptName(s.name()));
        m_lane = fresh("lane");

        // The definition repeats cPrototype() with restrict pointers: parameters never alias.
        std::string prototype = cPrototype(f);
        std::string withRestrict;
        for (char c : prototype) {
            withRestrict += c;
            if (c == '*') withRestrict += " restrict";
        }
        // float16 parameters are uint16_t in the prototype (the bits); the body reads them as
        // _Float16 through an alias.
        for (auto& p : f.params) {
            if (!(p->dtype.isFloat() && p->dtype.bits == 16)) continue;
            std::string alias = fresh(scriptName(p->name) + "_f16");
            line("_Float16* restrict " + alias + " = (_Float16*)" + m_names.at(p->data.get()) +
                 ";");
            m_names[p->data.get()] = alias;
        }
        stmt(f.body);

        std::ostringstream out;
        out << "// " << (title.empty() ? scriptName(f.name) : title) << "\n"
            << "// C source generated by Loopscope from the lowered loop program (TIR).\n"
            << "// Build: cc -std=c11 -O3 -march=native -fopenmp -c " << scriptName(f.name)
            << ".c\n"
            << "// (without -fopenmp the parallel loops run on one thread).\n"
            << "#include <math.h>\n#include <stdint.h>\n#include <stdlib.h>\n\n";
        for (auto& [name, definition] : m_helpers)
            out << definition;
        if (!m_helpers.empty()) out << "\n";
        out << withRestrict << "\n{\n" << m_body.str() << "}\n";
        return out.str();
    }

private:
    // ---- names ----

    void reserve(const VarNode* v, const std::string& name)
    {
        m_used.insert(name);
        m_names[v] = name;
    }

    std::string fresh(const std::string& hint)
    {
        std::string base = scriptName(hint);
        if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v_" + base;
        if (base.rfind("ls_", 0) == 0 || reservedNames().count(base)) base += "_";
        std::string name = base;
        for (int k = 1; m_used.count(name); ++k)
            name = base + "_" + std::to_string(k);
        m_used.insert(name);
        return name;
    }

    // Every declaration gets a name of its own, so nested and repeated scopes never shadow.
    std::string declare(const Var& v)
    {
        std::string name = fresh(v.name());
        m_names[v.get()] = name;
        return name;
    }

    const std::string& nameOf(const VarNode* v) const
    {
        auto it = m_names.find(v);
        LS_ASSERT(it != m_names.end(), "C export: variable '" + v->name + "' is not defined");
        return it->second;
    }

    std::string helper(const std::string& name, const std::string& definition)
    {
        m_helpers.emplace(name, definition);
        return name;
    }

    // ---- expressions ----

    static std::string wrap(const CExpr& e, int minPrec)
    {
        return e.prec >= minPrec ? e.text : "(" + e.text + ")";
    }

    std::string sub(const Expr& e, const std::string& lane, int minPrec)
    {
        return wrap(expr(e, lane), minPrec);
    }

    std::string call(const std::string& fn, const std::vector<std::string>& args)
    {
        std::string s = fn + "(";
        for (std::size_t i = 0; i < args.size(); ++i)
            s += (i ? ", " : "") + args[i];
        return s + ")";
    }

    // A lane of a vector expression, or the scalar itself (`lane` is ignored for scalars).
    CExpr expr(const Expr& e, std::string lane)
    {
        if (e.type().lanes == 1) lane.clear();
        LS_ASSERT(e.type().lanes == 1 || !lane.empty(),
                  "C export: vector expression outside a lane loop: " + printExpr(e));
        switch (e.kind()) {
        case ExprKind::IntImm: return intLiteral(e.as<IntImmNode>()->value, e.type());
        case ExprKind::FloatImm: {
            std::string s = floatLiteral(e.as<FloatImmNode>()->value, e.type());
            return {s, s[0] == '-' || s[0] == '(' ? kUnary : kPrimary};
        }
        case ExprKind::StringImm: throw CodegenError("string values cannot be computed");
        case ExprKind::Var: {
            const std::string& name = nameOf(e.as<VarNode>());
            return {lane.empty() ? name : name + "[" + lane + "]", kPrimary};
        }
        case ExprKind::Not: return {"!" + sub(e.as<NotNode>()->a, lane, kUnary), kUnary};
        case ExprKind::Select: {
            auto* s = e.as<SelectNode>();
            return conditional(s->cond, s->t, s->f, lane);
        }
        case ExprKind::Cast: return cast(e.as<CastNode>(), lane);
        case ExprKind::Call: return callExpr(e.as<CallNode>(), e.type(), lane);
        case ExprKind::BufferLoad:
            return {access(e.as<BufferLoadNode>()->buffer, e.as<BufferLoadNode>()->indices, lane),
                    kPrimary};
        case ExprKind::Ramp: {
            auto* r = e.as<RampNode>();
            std::string base = sub(r->base, "", kAdd);
            if (isOne(r->stride)) return {base + " + " + lane, kAdd};
            return {base + " + " + sub(r->stride, "", kMul) + " * " + lane, kAdd};
        }
        case ExprKind::Broadcast: return expr(e.as<BroadcastNode>()->value, "");
        case ExprKind::Let: {
            // C has no let expression; the value is pure, so it is substituted.
            auto* l = e.as<LetNode>();
            return expr(substitute(l->body, VarMap{{l->var.get(), l->value}}), lane);
        }
        case ExprKind::TensorLoad:
        case ExprKind::Reduce: LS_ASSERT(false, "C export: unlowered tensor expression"); return {};
        default: return binary(e.as<BinaryNode>(), lane);
        }
    }

    CExpr conditional(const Expr& c, const Expr& t, const Expr& f, const std::string& lane)
    {
        // C's ?: evaluates only the branch taken, which if_then_else needs (padding reads).
        return {sub(c, lane, kOr) + " ? " + sub(t, lane, kOr) + " : " + sub(f, lane, kCond), kCond};
    }

    CExpr cast(const CastNode* op, const std::string& lane)
    {
        DataType to = op->type.element(), from = op->value.type().element();
        if (to.isBool()) return {sub(op->value, lane, kRel) + " != 0", kEq};
        if (to == from) return expr(op->value, lane);
        return {"(" + cType(to) + ")" + sub(op->value, lane, kUnary), kUnary};
    }

    CExpr callExpr(const CallNode* op, DataType type, const std::string& lane)
    {
        DataType t = type.element();
        switch (op->op) {
        case CallOp::Likely: return expr(op->args[0], lane);
        case CallOp::IfThenElse: return conditional(op->args[0], op->args[1], op->args[2], lane);
        default: break;
        }
        if (isIntrinsicCall(op->op))
            throw CodegenError(std::string("C export: T.") + callOpName(op->op) +
                               " (a tensorized loop's) has no C spelling here; export the "
                               "variant as a TVM script instead");
        std::vector<std::string> args;
        for (auto& a : op->args)
            args.push_back(expr(a, lane).text);
        if (!t.isFloat()) {
            LS_ASSERT(op->op == CallOp::Fabs,
                      std::string("C export: ") + callOpName(op->op) + " of an integer");
            std::string ty = cType(t), name = "ls_abs_" + typeTag(t);
            return {call(helper(name, "static inline " + ty + " " + name + "(" + ty +
                                          " x) { return x < 0 ? (" + ty + ")-x : x; }\n"),
                         args),
                    kPrimary};
        }
        // libm's float functions for float32 (float16 computes in float), double ones for float64.
        bool dbl = t.bits == 64, half = t.bits == 16;
        auto fn = [&](const char* base) { return std::string(base) + (dbl ? "" : "f"); };
        if (half)
            for (auto& a : args)
                a = "(float)" + wrap({a, kPrimary}, kUnary);
        std::string text;
        switch (op->op) {
        case CallOp::Exp: text = call(fn("exp"), args); break;
        case CallOp::Log: text = call(fn("log"), args); break;
        case CallOp::Sqrt: text = call(fn("sqrt"), args); break;
        case CallOp::Tanh: text = call(fn("tanh"), args); break;
        case CallOp::Fabs: text = call(fn("fabs"), args); break;
        case CallOp::Pow: text = call(fn("pow"), args); break;
        case CallOp::Floor: text = call(fn("floor"), args); break;
        case CallOp::Ceil: text = call(fn("ceil"), args); break;
        case CallOp::Nearbyint: text = call(fn("nearbyint"), args); break;
        case CallOp::Sigmoid: {
            std::string ty = dbl ? "double" : "float",
                        name = std::string("ls_sigmoid_") + (dbl ? "f64" : "f32");
            std::string one = dbl ? "1.0" : "1.0f";
            text =
                call(helper(name, "static inline " + ty + " " + name + "(" + ty + " x) { return " +
                                      one + " / (" + one + " + " + fn("exp") + "(-x)); }\n"),
                     args);
            break;
        }
        default: LS_ASSERT(false, "C export: unknown call"); break;
        }
        if (half) return {"(_Float16)" + text, kUnary};
        return {text, kPrimary};
    }

    // Integer arithmetic on types narrower than int wraps to its type, as the compiled code does.
    CExpr narrow(CExpr e, DataType t)
    {
        if (t.isIntegral() && t.bits < 32) return {"(" + cType(t) + ")(" + e.text + ")", kUnary};
        return e;
    }

    CExpr binary(const BinaryNode* op, const std::string& lane)
    {
        DataType t = op->a.type().element();
        auto infix = [&](const char* o, int prec) {
            // Left-associative: the right operand needs strictly tighter binding.
            return CExpr{sub(op->a, lane, prec) + " " + o + " " + sub(op->b, lane, prec + 1), prec};
        };
        auto twoArgs = [&](const std::string& name, const std::string& body) {
            std::string ty = cType(t);
            std::string def = "static inline " + ty + " " + name + "(" + ty + " a, " + ty +
                              " b)\n{\n" + body + "}\n";
            return CExpr{call(helper(name, def), {expr(op->a, lane).text, expr(op->b, lane).text}),
                         kPrimary};
        };
        std::string tag = typeTag(t), ty = cType(t);
        switch (op->kind) {
        case ExprKind::Add: return narrow(infix("+", kAdd), t);
        case ExprKind::Sub: return narrow(infix("-", kAdd), t);
        case ExprKind::Mul: return narrow(infix("*", kMul), t);
        case ExprKind::Div: return narrow(infix("/", kMul), t); // C truncates, as T.truncdiv does
        case ExprKind::Mod:
            if (t.isFloat()) {
                std::string fn = t.bits == 64 ? "fmod" : "fmodf";
                return {call(fn, {expr(op->a, lane).text, expr(op->b, lane).text}), kPrimary};
            }
            return narrow(infix("%", kMul), t);
        case ExprKind::FloorDiv:
        case ExprKind::FloorMod: {
            bool div = op->kind == ExprKind::FloorDiv;
            if (t.isUInt() || t.isBool()) return narrow(infix(div ? "/" : "%", kMul), t);
            std::string name = std::string(div ? "ls_floordiv_" : "ls_floormod_") + tag;
            if (t.isFloat()) {
                std::string floorFn = t.bits == 64 ? "floor" : "floorf";
                return twoArgs(name, div ? "    return " + floorFn + "(a / b);\n"
                                         : "    return a - " + floorFn + "(a / b) * b;\n");
            }
            // C rounds toward zero; step down when the remainder's sign differs from the divisor's.
            return twoArgs(name,
                           "    " + ty +
                               " r = a % b;\n    int adjust = r != 0 && ((r < 0) != (b < 0));\n" +
                               (div ? "    return (" + ty + ")(a / b - adjust);\n"
                                    : "    return adjust ? (" + ty + ")(r + b) : r;\n"));
        }
        case ExprKind::Min: return twoArgs("ls_min_" + tag, "    return a < b ? a : b;\n");
        case ExprKind::Max: return twoArgs("ls_max_" + tag, "    return a < b ? b : a;\n");
        case ExprKind::EQ: return infix("==", kEq);
        case ExprKind::NE: return infix("!=", kEq);
        case ExprKind::LT: return infix("<", kRel);
        case ExprKind::LE: return infix("<=", kRel);
        case ExprKind::GT: return infix(">", kRel);
        case ExprKind::GE: return infix(">=", kRel);
        case ExprKind::And:
        case ExprKind::Or: {
            // Mixed && and || always get parentheses (and compilers stop warning).
            bool isAnd = op->kind == ExprKind::And;
            int prec = isAnd ? kAnd : kOr;
            auto operand = [&](const Expr& x) {
                CExpr c = expr(x, lane);
                bool other = x.kind() == (isAnd ? ExprKind::Or : ExprKind::And);
                return other ? "(" + c.text + ")" : wrap(c, prec);
            };
            return {operand(op->a) + (isAnd ? " && " : " || ") + operand(op->b), prec};
        }
        default: LS_ASSERT(false, "C export: unknown binary operator"); return {};
        }
    }

    // `name[index]` for one lane. A buffer of vector type (float32x32) is an array of its
    // elements, so its index is scaled by the vector width.
    std::string access(const Buffer& b, const std::vector<Expr>& indices, const std::string& lane)
    {
        LS_ASSERT(indices.size() == 1, "C export: buffer '" + b->name + "' is not flat");
        const Expr& index = indices[0];
        const std::string& name = nameOf(b->data.get());
        int width = b->dtype.lanes;
        if (width == 1) return name + "[" + expr(index, lane).text + "]";
        std::string w = std::to_string(width);
        if (index.type().lanes == 1)
            return name + "[" + sub(index, "", kMul) + " * " + w + " + " + lane + "]";
        return name + "[" + sub(index, "(" + lane + " / " + w + ")", kMul) + " * " + w + " + " +
               lane + " % " + w + "]";
    }

    // ---- statements ----

    void line(const std::string& s)
    {
        m_body << std::string(static_cast<std::size_t>(m_indent) * 4, ' ') << s << "\n";
    }

    // Lanes a store writes: the index's lanes times the buffer's vector width.
    static int storeLanes(const BufferStoreNode* op)
    {
        return op->indices[0].type().lanes * op->buffer->dtype.lanes;
    }

    void laneLoop(int lanes, const std::string& statement)
    {
        line("#pragma omp simd");
        line("for (int32_t " + m_lane + " = 0; " + m_lane + " < " + std::to_string(lanes) + "; ++" +
             m_lane + ") {");
        ++m_indent;
        line(statement);
        --m_indent;
        line("}");
    }

    void stmt(const Stmt& s)
    {
        if (!s.defined()) return;
        switch (s.kind()) {
        case StmtKind::For: forLoop(s.as<ForNode>()); return;
        case StmtKind::BufferStore: {
            auto* op = s.as<BufferStoreNode>();
            int lanes = storeLanes(op);
            if (lanes == 1) {
                line(access(op->buffer, op->indices, "") + " = " + expr(op->value, "").text + ";");
                return;
            }
            laneLoop(lanes, access(op->buffer, op->indices, m_lane) + " = " +
                                expr(op->value, m_lane).text + ";");
            return;
        }
        case StmtKind::LetStmt: {
            auto* op = s.as<LetStmtNode>();
            DataType t = op->value.type();
            std::string value = expr(op->value, t.lanes == 1 ? "" : m_lane).text;
            std::string name = declare(op->var);
            if (t.lanes == 1) {
                line("const " + cType(t) + " " + name + " = " + value + ";");
            } else {
                // A vector value is an array with one element per lane.
                line(cType(t.element()) + " " + name + "[" + std::to_string(t.lanes) + "];");
                laneLoop(t.lanes, name + "[" + m_lane + "] = " + value + ";");
            }
            stmt(op->body);
            return;
        }
        case StmtKind::IfThenElse: {
            auto* op = s.as<IfThenElseNode>();
            line("if (" + expr(op->cond, "").text + ") {");
            block(op->thenCase);
            if (op->elseCase.defined()) {
                line("} else {");
                block(op->elseCase);
            }
            line("}");
            return;
        }
        case StmtKind::Seq:
            for (auto& x : s.as<SeqNode>()->stmts)
                stmt(x);
            return;
        case StmtKind::Attr: {
            auto* op = s.as<AttrNode>();
            if (op->key == "thread_extent") {
                throw CodegenError("the loop bound to GPU thread axis '" + op->target +
                                   "' is kept for export but GPU thread axes have no C equivalent");
            }
            stmt(op->body);
            return;
        }
        case StmtKind::Evaluate: {
            const Expr& v = s.as<EvaluateNode>()->value;
            if (v.kind() == ExprKind::IntImm || v.kind() == ExprKind::FloatImm) return;
            line("(void)(" + expr(v, "").text + ");");
            return;
        }
        case StmtKind::Allocate: allocate(s.as<AllocateNode>()); return;
        case StmtKind::TensorStore:
        case StmtKind::Realize:
        case StmtKind::Block: LS_ASSERT(false, "C export: unflattened statement"); return;
        }
    }

    void block(const Stmt& s)
    {
        ++m_indent;
        stmt(s);
        --m_indent;
    }

    void forLoop(const ForNode* op)
    {
        if (op->forKind == ForKind::ThreadBinding) {
            throw CodegenError("loop '" + scriptName(op->var.name()) +
                               "' is bound to GPU thread axis '" + op->threadTag +
                               "'; GPU thread axes have no C equivalent");
        }
        std::string begin = expr(op->min, "").text;
        std::string end = isZero(op->min)
                              ? sub(op->extent, "", kRel + 1)
                              : sub(op->min, "", kAdd) + " + " + sub(op->extent, "", kAdd + 1);
        std::string name = declare(op->var);
        bool parallel = op->forKind == ForKind::Parallel && !m_insideParallel;
        if (parallel) line("#pragma omp parallel for");
        line("for (" + cType(op->var.type()) + " " + name + " = " + begin + "; " + name + " < " +
             end + "; ++" + name + ") {");
        bool saved = m_insideParallel;
        m_insideParallel = m_insideParallel || parallel;
        block(op->body);
        m_insideParallel = saved;
        line("}");
    }

    void allocate(const AllocateNode* op)
    {
        const Buffer& b = op->buffer;
        LS_ASSERT(b->shape.size() == 1, "C export: allocation '" + b->name + "' is not flat");
        DataType elem = b->dtype.element();
        std::string ty = cType(elem);
        int width = b->dtype.lanes;
        std::string name = declare(b->data);
        std::int64_t count = 0;
        bool constant = isConstInt(b->shape[0], &count);
        std::int64_t elements = count * width;
        if (constant && elements * elem.bytes() <= kMaxStackBytes) {
            line("_Alignas(64) " + ty + " " + name + "[" +
                 std::to_string(std::max<std::int64_t>(elements, 1)) + "];");
            stmt(op->body);
            return;
        }
        std::string n = constant ? std::to_string(elements)
                                 : "(size_t)" + sub(b->shape[0], "", kUnary) +
                                       (width > 1 ? " * " + std::to_string(width) : "");
        line(ty + "* " + name + " = (" + ty + "*)aligned_alloc(64, (" + n + " * sizeof(" + ty +
             ") + 63) / 64 * 64);");
        stmt(op->body);
        line("free(" + name + ");");
    }

    std::ostringstream m_body;
    int m_indent = 1;
    std::map<std::string, std::string> m_helpers; // name -> definition, emitted in name order
    std::unordered_map<const VarNode*, std::string> m_names;
    std::set<std::string> m_used;
    std::string m_lane;
    bool m_insideParallel = false;
};

} // namespace

std::string exportCSource(const PrimFunc& f, const std::string& title)
{
    return CWriter().write(f, title);
}

std::string exportCHeader(const PrimFunc& f)
{
    std::string guard;
    for (char c : scriptName(f.name))
        guard += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    guard = "LOOPSCOPE_" + guard + "_H";
    // The object calls Loopscope's runtime for parallel loops and large temporary buffers; the
    // header declares it and carries a small OpenMP implementation for programs outside Loopscope.
    static const char* runtime =
        R"(// The object calls these for parallel loops and large temporary buffers. Define
// LOOPSCOPE_RUNTIME_IMPLEMENTATION in one C file before including this header to get an
// implementation (OpenMP when compiled with -fopenmp, else serial).
void loopscope_parallel_for(int64_t n, void (*body)(int64_t begin, int64_t end, void* closure),
                            void* closure);
void* loopscope_alloc(int64_t bytes);  // 64-byte aligned
void loopscope_free(void* p);

#if defined(LOOPSCOPE_RUNTIME_IMPLEMENTATION) && !defined(LOOPSCOPE_RUNTIME_IMPLEMENTED)
#define LOOPSCOPE_RUNTIME_IMPLEMENTED
#include <stdlib.h>
void loopscope_parallel_for(int64_t n, void (*body)(int64_t, int64_t, void*), void* closure)
{
#pragma omp parallel for
    for (int64_t i = 0; i < n; ++i) body(i, i + 1, closure);
}
void* loopscope_alloc(int64_t bytes)
{
    return aligned_alloc(64, bytes > 0 ? (size_t)((bytes + 63) / 64 * 64) : 64);
}
void loopscope_free(void* p) { free(p); }
#endif
)";
    return "// " + scriptName(f.name) +
           ": generated by Loopscope, the function of the object file next to this header.\n"
           "// Buffers are dense row-major arrays, 64-byte aligned; size arguments follow them.\n"
           "#ifndef " +
           guard + "\n#define " + guard + "\n\n#include <stdint.h>\n\n" +
           "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n" + cPrototype(f) + ";\n\n" + runtime +
           "\n#ifdef __cplusplus\n}\n#endif\n\n#endif  // " + guard + "\n";
}

} // namespace loopscope
