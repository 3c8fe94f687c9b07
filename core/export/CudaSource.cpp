#include "export/CudaSource.h"

#include "codegen/Codegen.h"
#include "codegen/SplitHostDevice.h"
#include "ir/Diagnostic.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/ModularSet.h"
#include "ir/Printer.h"
#include "lower/gpu/ThreadAllreduce.h"
#include "schedule/ThreadScope.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

namespace loopscope {

namespace {

// TVM's preamble for a kernel file of 32-bit floats and integers (codegen_cuda.cc's Finish).
constexpr const char* kPreamble =
    R"(#if (((__CUDACC_VER_MAJOR__ == 11) && (__CUDACC_VER_MINOR__ >= 4)) || \
     (__CUDACC_VER_MAJOR__ > 11))
#define TVM_ENABLE_L2_PREFETCH 1
#else
#define TVM_ENABLE_L2_PREFETCH 0
#endif

#ifdef _WIN32
  using uint = unsigned int;
  using uchar = unsigned char;
  using ushort = unsigned short;
  using int64_t = long long;
  using uint64_t = unsigned long long;
#else
  #define uint unsigned int
  #define uchar unsigned char
  #define ushort unsigned short
  #define int64_t long long
  #define uint64_t unsigned long long
#endif
)";

// Printed first where a kernel shuffles: the forms without a mask for GPUs before Volta.
constexpr const char* kShufflePreamble = R"(
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 700)
#define __shfl_sync(mask, var, lane, width) \
        __shfl((var), (lane), (width))

#define __shfl_down_sync(mask, var, offset, width) \
        __shfl_down((var), (offset), (width))

#define __shfl_up_sync(mask, var, offset, width) \
        __shfl_up((var), (offset), (width))
#endif

)";

std::string cudaType(DataType t)
{
    std::string base;
    switch (t.code) {
    case DataType::Float: base = t.bits == 64 ? "double" : t.bits == 16 ? "half" : "float"; break;
    case DataType::Bool: base = "bool"; break;
    case DataType::UInt:
        base = t.bits == 32 ? "uint" : t.bits == 64 ? "uint64_t" : t.bits == 8 ? "uchar" : "ushort";
        break;
    case DataType::Int:
        base = t.bits == 32   ? "int"
               : t.bits == 64 ? "int64_t"
               : t.bits == 8  ? "signed char"
                              : "short";
        break;
    case DataType::Handle: return "void*";
    }
    if (t.lanes > 1) base += std::to_string(t.lanes);
    return base;
}

// As TVM: six digits in scientific notation (more where six would not read back as the same
// float), `f` for single precision.
std::string floatLiteral(double v, DataType t)
{
    const bool single = t.bits != 64;
    if (std::isinf(v))
        return std::string(v < 0 ? "-" : "") + (single ? "CUDART_INF_F" : "CUDART_INF");
    if (std::isnan(v)) return single ? "CUDART_NAN_F" : "CUDART_NAN";
    char buf[64];
    for (int digits = 6; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*e", digits, v);
        const double back = std::strtod(buf, nullptr);
        if (single ? static_cast<float>(back) == static_cast<float>(v) : back == v) break;
    }
    return std::string(buf) + (single ? "f" : "");
}

int log2Exact(std::int64_t v)
{
    if (v <= 0 || (v & (v - 1)) != 0) return -1;
    int k = 0;
    while ((std::int64_t{1} << k) < v)
        ++k;
    return k;
}

class KernelPrinter {
public:
    KernelPrinter(const DeviceKernel& k, std::set<std::string>& used) : m_k(k), m_used(used)
    {
        collectThreads(k.body);
    }

    std::string signature()
    {
        std::int64_t threads = 1;
        bool constant = true;
        for (const Expr& e : m_k.info.block) {
            std::int64_t n = 0;
            if (isConstInt(e, &n)) {
                threads *= n;
            } else {
                constant = false;
            }
        }
        std::string out = "extern \"C\" __global__ void ";
        if (constant && threads != 1) out += "__launch_bounds__(" + std::to_string(threads) + ") ";
        out += m_k.info.name + "(";
        bool first = true;
        for (const Buffer& b : m_k.buffers) {
            out += (first ? "" : ", ") + cudaType(b->dtype) + "* __restrict__ " +
                   name(b->data.get(), b->name);
            first = false;
        }
        for (const Var& v : m_k.info.sizes) {
            out += (first ? "" : ", ") + cudaType(v.type()) + " " + name(v.get(), v.name());
            first = false;
        }
        return out + ")";
    }

    std::string body()
    {
        m_out.str("");
        stmt(m_k.body, 1);
        return m_out.str();
    }

    bool shuffles = false;

private:
    void collectThreads(const Stmt& s)
    {
        class Finder : public IRVisitor {
        public:
            std::unordered_map<const void*, std::string>& out;
            explicit Finder(std::unordered_map<const void*, std::string>& o) : out(o) {}

        protected:
            void visitAttr(const AttrNode* op) override
            {
                if (op->key == "thread_extent") out[op->ref] = op->target;
                IRVisitor::visitAttr(op);
            }
        };
        Finder f(m_threadTags);
        f.visit(s);
    }

    // A name unique in the kernel: TVM's hint with dots as underscores, then _1, _2, ...
    std::string name(const void* key, const std::string& hint)
    {
        auto known = m_names.find(key);
        if (known != m_names.end()) return known->second;
        std::string base = scriptName(hint);
        std::string n = base;
        for (int i = 1; m_used.count(n); ++i)
            n = base + "_" + std::to_string(i);
        m_used.insert(n);
        return m_names[key] = n;
    }

    void line(int depth, const std::string& text)
    {
        m_out << std::string(static_cast<std::size_t>(depth) * 2, ' ') << text << "\n";
    }

    void stmt(const Stmt& s, int depth)
    {
        if (!s.defined()) return;
        switch (s.kind()) {
        case StmtKind::Seq:
            for (const Stmt& c : s.as<SeqNode>()->stmts)
                stmt(c, depth);
            return;
        case StmtKind::Attr: {
            auto* op = s.as<AttrNode>();
            if (op->key == "tvm_storage_sync") {
                if (op->target == "shared") line(depth, "__syncthreads();");
                return;
            }
            stmt(op->body, depth);
            return;
        }
        case StmtKind::Allocate: {
            auto* op = s.as<AllocateNode>();
            const Buffer& b = op->buffer;
            std::string extent = b->shape.empty() ? "1" : expr(b->shape[0]);
            line(depth,
                 std::string(b->scope == "shared" ? "__shared__ " : "") +
                     cudaType(b->dtype.element()) + " " + name(b->data.get(), b->name) + "[" +
                     (b->dtype.lanes > 1 ? "(" + extent + ") * " + std::to_string(b->dtype.lanes)
                                         : extent) +
                     "];");
            stmt(op->body, depth);
            return;
        }
        case StmtKind::LetStmt: {
            auto* op = s.as<LetStmtNode>();
            line(depth, cudaType(op->value.type()) + " " + name(op->var.get(), op->var.name()) +
                            " = " + expr(op->value) + ";");
            m_lets[op->var.get()] = op->value;
            stmt(op->body, depth);
            m_lets.erase(op->var.get());
            return;
        }
        case StmtKind::For: {
            auto* op = s.as<ForNode>();
            const std::string v = name(op->var.get(), op->var.name());
            if (op->forKind == ForKind::Unrolled) line(depth, "#pragma unroll");
            const std::string end = isZero(op->min) ? expr(op->extent) : expr(op->min + op->extent);
            line(depth, "for (" + cudaType(op->var.type()) + " " + v + " = " + expr(op->min) +
                            "; " + v + " < " + end + "; ++" + v + ") {");
            stmt(op->body, depth + 1);
            line(depth, "}");
            return;
        }
        case StmtKind::IfThenElse: {
            auto* op = s.as<IfThenElseNode>();
            std::string c = expr(op->cond);
            if (c.empty() || c.front() != '(') c = "(" + c + ")";
            line(depth, "if " + c + " {");
            stmt(op->thenCase, depth + 1);
            if (op->elseCase.defined()) {
                line(depth, "} else {");
                stmt(op->elseCase, depth + 1);
            }
            line(depth, "}");
            return;
        }
        case StmtKind::BufferStore: store(s.as<BufferStoreNode>(), depth); return;
        case StmtKind::Evaluate: return;
        default:
            throw CodegenError("CUDA source: a statement of a kind a kernel does not hold: " +
                               printStmt(s));
        }
    }

    void store(const BufferStoreNode* op, int depth)
    {
        const std::string buf = name(op->buffer->data.get(), op->buffer->name);
        const Expr& index = op->indices.back();
        const int lanes = op->value.type().lanes;
        if (lanes == 1) {
            line(depth, buf + "[" + expr(index) + "] = " + expr(op->value) + ";");
            return;
        }
        // A copy of contiguous, aligned elements as one vector access, as TVM prints it.
        auto* ramp = index.as<RampNode>();
        auto* load = op->value.as<BufferLoadNode>();
        auto* from = load ? load->indices.back().as<RampNode>() : nullptr;
        if (ramp && from && isOne(ramp->stride) && isOne(from->stride) &&
            (lanes == 2 || lanes == 4) && op->value.type().bytes() == 4 &&
            multipleOf(ramp->base, lanes) && multipleOf(from->base, lanes)) {
            const std::string t = cudaType(op->value.type());
            line(depth, "*(" + t + "*)(" + buf + " + " + expr(ramp->base) + ") = *(" + t + "*)(" +
                            name(load->buffer->data.get(), load->buffer->name) + " + " +
                            expr(from->base) + ");");
            return;
        }
        // Otherwise lane by lane.
        for (int lane = 0; lane < lanes; ++lane)
            line(depth, buf + "[" + expr(index, lane) + "] = " + expr(op->value, lane) + ";");
    }

    // Whether `e` (with the let-bound variables in scope) is a multiple of n.
    bool multipleOf(const Expr& e, std::int64_t n) const
    {
        return modularSet(substituteLets(e, m_lets)).divisibleBy(n);
    }

    std::string binary(const char* op, const std::string& a, const std::string& b)
    {
        return "(" + a + " " + op + " " + b + ")";
    }

    // One expression; `lane` picks one lane of a vector expression.
    std::string expr(const Expr& e, int lane = -1)
    {
        switch (e.kind()) {
        case ExprKind::IntImm: {
            auto* op = e.as<IntImmNode>();
            const DataType t = e.type();
            if (t.isBool()) return op->value ? "true" : "false";
            if (t == DataType::int32()) return std::to_string(op->value);
            if (t.isUInt() && t.bits == 32)
                return "(uint)" + std::to_string(static_cast<std::uint32_t>(op->value));
            return "(" + cudaType(t) + ")" + std::to_string(op->value);
        }
        case ExprKind::FloatImm: return floatLiteral(e.as<FloatImmNode>()->value, e.type());
        case ExprKind::StringImm: return "\"\"";
        case ExprKind::Var: {
            auto* v = e.as<VarNode>();
            auto tag = m_threadTags.find(v);
            if (tag != m_threadTags.end())
                return "((" + cudaType(v->type) + ")" + tag->second + ")";
            return name(v, v->name);
        }
        case ExprKind::Add: return bin(e, "+", lane);
        case ExprKind::Sub: return bin(e, "-", lane);
        case ExprKind::Mul: return bin(e, "*", lane);
        case ExprKind::Div: return bin(e, "/", lane);
        case ExprKind::Mod: return e.type().isFloat() ? call2("fmodf", e, lane) : bin(e, "%", lane);
        case ExprKind::FloorDiv:
        case ExprKind::FloorMod: return floorOp(e, lane);
        case ExprKind::Min: return call2("min", e, lane);
        case ExprKind::Max: return call2("max", e, lane);
        case ExprKind::EQ: return bin(e, "==", lane);
        case ExprKind::NE: return bin(e, "!=", lane);
        case ExprKind::LT: return bin(e, "<", lane);
        case ExprKind::LE: return bin(e, "<=", lane);
        case ExprKind::GT: return bin(e, ">", lane);
        case ExprKind::GE: return bin(e, ">=", lane);
        case ExprKind::And: return bin(e, "&&", lane);
        case ExprKind::Or: return bin(e, "||", lane);
        case ExprKind::Not: return "(!" + expr(e.as<NotNode>()->a, lane) + ")";
        case ExprKind::Select: {
            auto* op = e.as<SelectNode>();
            return "(" + expr(op->cond, lane) + " ? " + expr(op->t, lane) + " : " +
                   expr(op->f, lane) + ")";
        }
        case ExprKind::Cast: {
            auto* op = e.as<CastNode>();
            return "((" + cudaType(e.type().element()) + ")" + expr(op->value, lane) + ")";
        }
        case ExprKind::Call: return callExpr(e.as<CallNode>(), lane);
        case ExprKind::BufferLoad: {
            auto* op = e.as<BufferLoadNode>();
            return name(op->buffer->data.get(), op->buffer->name) + "[" +
                   expr(op->indices.back(), lane) + "]";
        }
        case ExprKind::Ramp: {
            auto* op = e.as<RampNode>();
            LS_ASSERT(lane >= 0, "a vector index printed as one value");
            if (lane == 0) return expr(op->base);
            return "(" + expr(op->base) + " + " +
                   expr(op->stride * makeInt(lane, op->stride.type())) + ")";
        }
        case ExprKind::Broadcast: return expr(e.as<BroadcastNode>()->value);
        case ExprKind::Let: {
            auto* op = e.as<LetNode>();
            return expr(substitute(op->body, VarMap{{op->var.get(), op->value}}), lane);
        }
        default:
            throw CodegenError("CUDA source: an expression a kernel does not hold: " +
                               printExpr(e));
        }
    }

    std::string bin(const Expr& e, const char* op, int lane)
    {
        auto* b = e.as<BinaryNode>();
        return binary(op, expr(b->a, lane), expr(b->b, lane));
    }

    std::string call2(const char* fn, const Expr& e, int lane)
    {
        auto* b = e.as<BinaryNode>();
        return std::string(fn) + "(" + expr(b->a, lane) + ", " + expr(b->b, lane) + ")";
    }

    // Floor division and remainder as TVM's LowerIntrin leaves them: a shift and a mask by a
    // power of two, else the C operators corrected for a negative dividend.
    std::string floorOp(const Expr& e, int lane)
    {
        auto* b = e.as<BinaryNode>();
        const bool div = e.kind() == ExprKind::FloorDiv;
        std::int64_t d = 0;
        const std::string a = expr(b->a, lane);
        if (isConstInt(b->b, &d) && d > 0) {
            if (int k = log2Exact(d); k >= 0)
                return div ? binary(">>", a, std::to_string(k))
                           : binary("&", a, std::to_string(d - 1));
            const std::string c = std::to_string(d);
            if (div)
                return "(" + binary(">=", a, "0") + " ? " + binary("/", a, c) + " : " +
                       binary("-", binary("/", binary("+", a, "1"), c), "1") + ")";
            return "(" + binary("%", binary("+", binary("%", a, c), c), c) + ")";
        }
        const std::string y = expr(b->b, lane);
        if (div) {
            return "(" + binary("/", a, y) + " - ((" + binary("%", a, y) + " != 0) && ((" + a +
                   " < 0) != (" + y + " < 0))))";
        }
        return "(" + binary("%", binary("+", binary("%", a, y), y), y) + ")";
    }

    std::string callExpr(const CallNode* op, int lane)
    {
        auto arg = [&](std::size_t i) { return expr(op->args[i], lane); };
        const bool dbl = op->type.bits == 64;
        auto fn = [&](const char* f32, const char* f64) {
            return std::string(dbl ? f64 : f32) + "(" + arg(0) + ")";
        };
        switch (op->op) {
        case CallOp::Exp: return fn("__expf", "exp");
        case CallOp::Log: return fn("__logf", "log");
        case CallOp::Sqrt: return fn("sqrtf", "sqrt");
        case CallOp::Tanh: return fn("tanhf", "tanh");
        case CallOp::Fabs: return fn("fabsf", "fabs");
        case CallOp::Floor: return fn("floorf", "floor");
        case CallOp::Ceil: return fn("ceilf", "ceil");
        case CallOp::Nearbyint: return fn("rintf", "rint");
        case CallOp::Pow: return std::string(dbl ? "pow(" : "powf(") + arg(0) + ", " + arg(1) + ")";
        case CallOp::Sigmoid: {
            const std::string one = floatLiteral(1.0, op->type);
            return "(" + one + " / (" + one + " + " + (dbl ? "exp(" : "__expf(") + "(-" + arg(0) +
                   "))))";
        }
        case CallOp::Likely: return arg(0);
        case CallOp::IfThenElse: return "(" + arg(0) + " ? " + arg(1) + " : " + arg(2) + ")";
        case CallOp::WarpActiveMask: shuffles = true; return "__activemask()";
        case CallOp::WarpShuffleDown:
            shuffles = true;
            return "__shfl_down_sync(" + arg(0) + ", " + arg(1) + ", " + arg(2) + ", " + arg(3) +
                   ")";
        case CallOp::WarpShuffle:
            shuffles = true;
            return "__shfl_sync(" + arg(0) + ", " + arg(1) + ", " + arg(2) + ", " + arg(3) + ")";
        case CallOp::ThreadAllreduce: break;
        default:
            if (isIntrinsicCall(op->op))
                throw CodegenError("CUDA source: T." + std::string(callOpName(op->op)) +
                                   " (a tensor intrinsic's) has no CUDA spelling here");
            break;
        }
        throw CodegenError("CUDA source: T." + std::string(callOpName(op->op)) +
                           " reached code generation unlowered");
    }

    const DeviceKernel& m_k;
    std::set<std::string>& m_used;
    std::unordered_map<const void*, std::string> m_names;
    std::unordered_map<const void*, std::string> m_threadTags;
    VarMap m_lets;
    std::ostringstream m_out;
};

} // namespace

std::string exportCudaSource(const PrimFunc& f)
{
    PrimFunc device = f;
    device.body = lowerForDevice(f.body, false);
    std::vector<DeviceKernel> kernels = splitHostDevice(device).kernels;
    std::string declarations, definitions;
    bool shuffles = false;
    for (const DeviceKernel& k : kernels) {
        std::set<std::string> used;
        KernelPrinter p(k, used);
        const std::string signature = p.signature();
        const std::string body = p.body();
        shuffles |= p.shuffles;
        declarations += signature + ";\n";
        definitions += signature + " {\n" + body + "}\n\n";
    }
    return std::string(shuffles ? kShufflePreamble : "\n") + kPreamble + declarations + definitions;
}

} // namespace loopscope
