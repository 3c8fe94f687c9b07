// Tensor intrinsics as TVM 0.17 declares them: tvm.tir.decl_buffer, tvm.tir.ir_builder and its
// statements (Buffer.vload, vstore, access_ptr), the calls an intrinsic's body makes
// (tir.reinterpret, call_llvm_pure_intrin, call_extern) and te.decl_tensor_intrin, which calls
// the script's function to make the intrinsic's statements (python/tvm/te/tensor_intrin.py).
#include "te/EvaluatorInternal.h"

#include "ir/LlvmIntrinsics.h"
#include "te/Builtins.h"

namespace loopscope::te_detail {

namespace {

std::string bitsText(DataType t)
{
    return t.str() + " (" + std::to_string(t.bits * t.lanes) + " bits)";
}

} // namespace

DataType Evaluator::vectorDtypeArg(const Arg& a)
{
    std::string s = stringArg(a, "dtype");
    auto t = DataType::parse(s);
    if (!t)
        throw UserError(a.loc, "unknown dtype '" + s +
                                   "'; supported: float32, float64, float16, int8, int16, int32, "
                                   "int64, uint8, uint16, uint32, bool, and vectors of them "
                                   "(int32x16)");
    return *t;
}

Expr Evaluator::castTo(DataType t, const Expr& x)
{
    if (t.lanes > 1 && x.type().lanes == 1) return makeBroadcast(makeCast(t.element(), x), t.lanes);
    return makeCast(t, x);
}

loopscope::Stmt Evaluator::stmtArg(const Value& v, SourceLoc loc, const std::string& what)
{
    if (v.kind == VKind::Stmt) return v.stmt;
    if (v.kind == VKind::Expr) return makeEvaluate(v.expr);
    if (v.kind == VKind::None) return {};
    throw UserError(loc, what +
                             " must be a statement (ib.get(), a buffer's vstore) or a call, "
                             "not " +
                             typeName(v));
}

Value Evaluator::intrinsicBuiltin(const std::string& name, const CallArgs& c)
{
    const Builtin* fn = findBuiltin(name);
    switch (fn->call) {
    case BuiltinCall::DeclBuffer: return declBuffer(c);
    case BuiltinCall::DeclTensorIntrin: return declTensorIntrin(c);
    case BuiltinCall::IrBuilder: {
        Bound b(c, {});
        Value v;
        v.kind = VKind::IRBuilder;
        v.builder = std::make_shared<std::vector<loopscope::Stmt>>();
        return v;
    }
    case BuiltinCall::CallIntrin:
    case BuiltinCall::Reinterpret: {
        const bool viaCallIntrin = fn->call == BuiltinCall::CallIntrin;
        const std::size_t need = viaCallIntrin ? 3 : 2;
        if (c.positional.size() != need || !c.keywords.empty()) {
            throw UserError(c.loc, viaCallIntrin
                                       ? "tvm.tir.call_intrin takes the dtype, \"tir.reinterpret\" "
                                         "and the value here"
                                       : "tvm.tir.reinterpret takes the dtype and the value");
        }
        if (viaCallIntrin) {
            const std::string op = stringArg(c.positional[1], "the intrinsic's name");
            if (op != "tir.reinterpret" && op != "reinterpret")
                throw UserError(c.positional[1].loc,
                                "tvm.tir.call_intrin of '" + op +
                                    "' is not supported; of TVM's intrinsics a script may call "
                                    "tir.reinterpret this way");
        }
        const DataType t = vectorDtypeArg(c.positional[0]);
        const Arg& value = c.positional.back();
        Expr x = toExpr(value.value, value.loc);
        if (t.bits * t.lanes != x.type().bits * x.type().lanes)
            throw UserError(value.loc, "reinterpret keeps the bits: " + bitsText(t) +
                                           " cannot be made of " + bitsText(x.type()));
        return Value::ofExpr(makeCall(t, CallOp::Reinterpret, {x}));
    }
    case BuiltinCall::CallLlvmIntrin:
    case BuiltinCall::CallExtern: {
        if (c.positional.size() < 2 || !c.keywords.empty())
            throw UserError(c.loc, name + " takes the dtype, the function's name and its "
                                          "arguments");
        const DataType t = vectorDtypeArg(c.positional[0]);
        const std::string callee = stringArg(c.positional[1], "the function's name");
        const bool llvm = fn->call == BuiltinCall::CallLlvmIntrin;
        if (llvm && llvmIntrinsicId(callee) == 0)
            throw UserError(c.positional[1].loc,
                            "Unknown llvm intrinsic function '" + callee +
                                "': this LLVM has no intrinsic of that name (LLVM's names: "
                                "llvm.x86.avx512.vpdpbusd.512, llvm.x86.avx2.pmadd.wd, ...)");
        std::vector<Expr> args = {std::make_shared<StringImmNode>(callee)};
        for (std::size_t i = 2; i < c.positional.size(); ++i)
            args.push_back(toExpr(c.positional[i].value, c.positional[i].loc));
        const bool pure = name.find("pure") != std::string::npos;
        const CallOp op = llvm ? (pure ? CallOp::LlvmPureIntrin : CallOp::LlvmIntrin)
                               : (pure ? CallOp::CallPureExtern : CallOp::CallExtern);
        return Value::ofExpr(makeCall(t, op, std::move(args)));
    }
    case BuiltinCall::LlvmIntrinsicId: {
        Bound b(c, {{"name", true}});
        return Value::integer(llvmIntrinsicId(stringArg(b["name"], "the intrinsic's name")));
    }
    case BuiltinCall::TargetHasFeatures:
    case BuiltinCall::Simd32BitLanes: {
        // TOPI asks the current target; a script's target is this machine's CPU (the JIT's), by
        // LLVM's feature names.
        const std::set<std::string>& features = hostCpuFeatureNames();
        auto has = [&](const std::string& f) { return features.count(f) != 0; };
        if (fn->call == BuiltinCall::Simd32BitLanes) {
            Bound b(c, {});
            return Value::integer(has("avx512f") ? 16 : has("avx2") ? 8 : 4);
        }
        Bound b(c, {{"features", true}, {"target", false}});
        if (b.has("target") && b["target"].value.kind != VKind::None)
            throw UserError(b["target"].loc, "target_has_features asks this machine's CPU; "
                                             "its target argument is not supported");
        const Value& f = b["features"].value;
        std::vector<Value> items = f.isSeq() ? f.items : std::vector<Value>{f};
        bool all = true;
        for (const Value& v : items) {
            if (v.kind != VKind::Str)
                throw UserError(b["features"].loc, "target_has_features takes feature names");
            all = all && has(v.s); // TVM's feature names are LLVM's
        }
        return Value::boolean(all);
    }
    default: break;
    }
    throw UserError(c.loc, name + "() is not supported");
}

// decl_buffer(shape, dtype=None, name="buffer", data=None, strides=None, elem_offset=None,
// scope="", data_alignment=-1, offset_factor=0, buffer_type="", axis_separators=None)
Value Evaluator::declBuffer(const CallArgs& c)
{
    Bound b(c, {{"shape", true},
                {"dtype", false},
                {"name", false},
                {"data", false},
                {"strides", false},
                {"elem_offset", false},
                {"scope", false},
                {"data_alignment", false},
                {"offset_factor", false},
                {"buffer_type", false},
                {"axis_separators", false}});
    auto given = [&](const char* n) { return b.has(n) && b[n].value.kind != VKind::None; };
    auto buf = std::make_shared<BufferNode>();
    buf->name = given("name") ? stringArg(b["name"], "name") : "buffer";
    buf->dtype = given("dtype") ? dtypeArg(b["dtype"]) : DataType::float32();
    buf->shape = shapeArg(b["shape"], buf->name);
    for (const char* unsupported : {"data", "buffer_type", "axis_separators"})
        if (given(unsupported))
            throw UserError(b[unsupported].loc, std::string("decl_buffer's ") + unsupported +
                                                    " is not supported: an intrinsic's buffer "
                                                    "takes its data from the tensor it binds");
    if (given("scope")) {
        std::string scope = stringArg(b["scope"], "scope");
        if (!scope.empty()) buf->scope = scope;
    }
    if (given("strides")) {
        const Value& s = b["strides"].value;
        std::vector<Value> items = s.isSeq() ? s.items : std::vector<Value>{s};
        for (const Value& v : items)
            buf->strides.push_back(toIntExpr(v, b["strides"].loc));
        if (!buf->strides.empty() && buf->strides.size() != buf->shape.size())
            throw UserError(b["strides"].loc,
                            "'" + buf->name + "' has " + std::to_string(buf->shape.size()) +
                                " dimensions and " + std::to_string(buf->strides.size()) +
                                " strides: give one stride per dimension, or none");
    }
    if (given("offset_factor")) {
        buf->offsetFactor = intArg(b["offset_factor"], "offset_factor");
        if (buf->offsetFactor < 0)
            throw UserError(b["offset_factor"].loc, "offset_factor must not be negative");
    }
    if (given("data_alignment")) buf->dataAlignment = intArg(b["data_alignment"], "alignment");
    if (given("elem_offset"))
        buf->elemOffset = toIntExpr(b["elem_offset"].value, b["elem_offset"].loc);
    else if (buf->offsetFactor != 0)
        buf->elemOffset = Var(buf->name + "_elem_offset");
    else
        buf->elemOffset = makeInt(0);
    buf->data = Var(buf->name, DataType::handle());
    // A stride or start given as te.var is the binding's to set, not a size of the program.
    auto& sizes = m_program.sizeVars;
    sizes.erase(std::remove_if(sizes.begin(), sizes.end(),
                               [&](const auto& sv) {
                                   if (buf->elemOffset.same(sv.var)) return true;
                                   for (const Expr& st : buf->strides)
                                       if (st.same(sv.var)) return true;
                                   return false;
                               }),
                sizes.end());
    Value v;
    v.kind = VKind::Buffer;
    v.buffer = buf;
    return v;
}

// te.decl_tensor_intrin(op, fcompute, name="tensor_intrin", binds=None, scalar_params=None,
// default_buffer_params=None): a buffer per input and the output (a bound one, or one made with
// the default parameters), then fcompute(ins, outs): the body, or (body, reset, update).
Value Evaluator::declTensorIntrin(const CallArgs& c)
{
    Bound b(c, {{"op", true},
                {"fcompute", true},
                {"name", false},
                {"binds", false},
                {"scalar_params", false},
                {"default_buffer_params", false}});
    auto given = [&](const char* n) { return b.has(n) && b[n].value.kind != VKind::None; };
    const Value& opValue = b["op"].value;
    if (opValue.kind != VKind::Op && opValue.kind != VKind::Tensor)
        throw UserError(b["op"].loc, "decl_tensor_intrin's op is a computation's operation "
                                     "(C.op), not " +
                                         typeName(opValue));
    const Tensor op = opValue.tensor;
    if (!op->isCompute())
        throw UserError(b["op"].loc, "decl_tensor_intrin's op must be a te.compute, not a "
                                     "placeholder");
    if (b["fcompute"].value.kind != VKind::Function)
        throw UserError(b["fcompute"].loc, "decl_tensor_intrin's fcompute is a function of the "
                                           "script (def f(ins, outs)), not " +
                                               typeName(b["fcompute"].value));
    if (given("scalar_params") && b["scalar_params"].value.isSeq() &&
        !b["scalar_params"].value.items.empty())
        throw UserError(b["scalar_params"].loc,
                        "scalar_params are not supported: TVM substitutes them only in "
                        "te.compute's tensor intrinsic calls, never in s[C].tensorize");

    auto intrin = std::make_shared<TensorIntrinNode>();
    intrin->op = op;
    intrin->loc = c.loc;
    if (given("name")) intrin->name = stringArg(b["name"], "name");
    for (const Tensor& t : inputTensors(op)) {
        if (!t->isPlaceholder())
            throw UserError(b["op"].loc, "the intrinsic's computation reads '" + t->name +
                                             "', which is not a te.placeholder (TVM: \"Do not "
                                             "yet support composition op\")");
        intrin->tensors.push_back(t);
    }
    intrin->tensors.push_back(op);

    // binds: {tensor: buffer}
    std::vector<std::pair<Tensor, Arg>> binds;
    if (given("binds")) {
        const Value& d = b["binds"].value;
        if (d.kind != VKind::Dict)
            throw UserError(b["binds"].loc, "binds is a dict of tensors to their buffers");
        for (std::size_t i = 0; i + 1 < d.items.size(); i += 2) {
            if (d.items[i].kind != VKind::Tensor || d.items[i + 1].kind != VKind::Buffer)
                throw UserError(b["binds"].loc,
                                "binds maps a tensor to a buffer (tvm.tir.decl_buffer), not " +
                                    typeName(d.items[i]) + " to " + typeName(d.items[i + 1]));
            binds.push_back({d.items[i].tensor, {d.items[i + 1], b["binds"].loc}});
        }
    }
    CallArgs defaults;
    defaults.function = "decl_buffer";
    defaults.loc = c.loc;
    if (given("default_buffer_params")) {
        const Value& d = b["default_buffer_params"].value;
        if (d.kind != VKind::Dict)
            throw UserError(b["default_buffer_params"].loc,
                            "default_buffer_params is a dict of decl_buffer's parameters");
        for (std::size_t i = 0; i + 1 < d.items.size(); i += 2) {
            if (d.items[i].kind != VKind::Str)
                throw UserError(b["default_buffer_params"].loc,
                                "default_buffer_params' keys are decl_buffer's parameter names");
            defaults.keywords.push_back(
                {d.items[i].s, {d.items[i + 1], b["default_buffer_params"].loc}});
        }
    }
    for (const Tensor& t : intrin->tensors) {
        auto bound = std::find_if(binds.begin(), binds.end(),
                                  [&](const auto& p) { return p.first.get() == t.get(); });
        if (bound != binds.end()) {
            const Buffer& buf = bound->second.value.buffer;
            if (buf->dtype != t->dtype || buf->shape.size() != t->shape.size())
                throw UserError(bound->second.loc,
                                "the buffer '" + buf->name + "' bound to '" + t->name + "' is " +
                                    buf->dtype.str() + " in " + std::to_string(buf->shape.size()) +
                                    " dimensions; '" + t->name + "' is " + t->dtype.str() + " in " +
                                    std::to_string(t->shape.size()));
            intrin->buffers.push_back(buf);
            continue;
        }
        CallArgs call = defaults;
        std::vector<Value> dims;
        for (const Expr& e : t->shape)
            dims.push_back(exprValue(e));
        call.positional = {{Value::seq(VKind::Tuple, std::move(dims)), c.loc},
                           {Value::str(t->dtype.str()), c.loc},
                           {Value::str(t->name), c.loc}};
        intrin->buffers.push_back(declBuffer(call).buffer);
    }

    std::vector<Value> ins, outs;
    for (std::size_t i = 0; i < intrin->buffers.size(); ++i) {
        Value v;
        v.kind = VKind::Buffer;
        v.buffer = intrin->buffers[i];
        (i + 1 < intrin->buffers.size() ? ins : outs).push_back(v);
    }
    CallArgs call;
    call.loc = b["fcompute"].loc;
    call.positional = {{Value::seq(VKind::List, ins), c.loc},
                       {Value::seq(VKind::List, outs), c.loc}};
    const Value made = callFunction(b["fcompute"].value, call);
    const std::string what = "what " + b["fcompute"].value.def->name + " returns";
    std::vector<Value> parts = made.isSeq() ? made.items : std::vector<Value>{made};
    if (parts.empty() || parts.size() > 3)
        throw UserError(b["fcompute"].loc, what +
                                               " is the intrinsic's body, or (body, reduce_reset, "
                                               "reduce_update): 1 to 3 statements, not " +
                                               std::to_string(parts.size()));
    intrin->body = stmtArg(parts[0], b["fcompute"].loc, what);
    if (parts.size() > 1) intrin->reduceInit = stmtArg(parts[1], b["fcompute"].loc, what);
    if (parts.size() > 2) intrin->reduceUpdate = stmtArg(parts[2], b["fcompute"].loc, what);
    Value v;
    v.kind = VKind::TensorIntrin;
    v.intrin = intrin;
    return v;
}

Value Evaluator::intrinsicAttribute(const Value& obj, const std::string& a, SourceLoc loc)
{
    if (obj.kind == VKind::Buffer) {
        const Buffer& buf = obj.buffer;
        if (a == "shape" || a == "strides") {
            std::vector<Value> items;
            for (const Expr& e : a == "shape" ? buf->shape : buf->strides)
                items.push_back(exprValue(e));
            return Value::seq(VKind::List, std::move(items));
        }
        if (a == "dtype") return Value::str(buf->dtype.str());
        if (a == "name") return Value::str(buf->name);
        if (a == "elem_offset") return exprValue(buf->elemOffset);
        if (a == "data") return Value::ofExpr(buf->data);
        if (a == "offset_factor") return Value::integer(buf->offsetFactor);
        if (a == "scope") return Value::str(buf->scope);
        if (a == "vload" || a == "vstore" || a == "access_ptr") return method(obj, a);
    } else if (obj.kind == VKind::IRBuilder) {
        if (a == "emit" || a == "get") return method(obj, a);
        if (a == "for_range" || a == "if_scope" || a == "else_scope" || a == "allocate" ||
            a == "new_scope" || a == "let" || a == "buffer_ptr" || a == "pointer")
            throw UserError(loc, "ir_builder." + a +
                                     " is not supported: an intrinsic's statements here are "
                                     "what emit takes (vstore, calls), made with the script's "
                                     "own loops and conditions");
    } else if (obj.kind == VKind::TensorIntrin) {
        if (a == "name") return Value::str(obj.intrin->name);
        if (a == "op") return Value::ofTensor(VKind::Op, obj.intrin->op);
    }
    throw UserError(loc, typeName(obj) + " has no attribute '" + a + "'");
}

Value Evaluator::intrinsicMethod(const Value& self, const std::string& name, const CallArgs& c)
{
    if (self.kind == VKind::IRBuilder) {
        if (name == "emit") {
            Bound b(c, {{"stmt", true}});
            const Value& v = b["stmt"].value;
            if (v.kind == VKind::Expr && !v.expr.as<CallNode>())
                throw UserError(b["stmt"].loc, "ir_builder.emit takes a statement or a call, "
                                               "not a value that is not a call");
            self.builder->push_back(stmtArg(v, b["stmt"].loc, "what ir_builder.emit takes"));
            return Value::none();
        }
        Bound b(c, {});
        Value v;
        v.kind = VKind::Stmt;
        const auto& emitted = *self.builder;
        v.stmt = emitted.empty()       ? makeEvaluate(makeInt(0))
                 : emitted.size() == 1 ? emitted.front()
                                       : makeSeq(emitted);
        return v;
    }
    const Buffer& buf = self.buffer;
    // The index of each dimension: a number, an expression, or a list of them.
    auto indices = [&](const Arg& a) {
        std::vector<Value> items = a.value.isSeq() ? a.value.items : std::vector<Value>{a.value};
        if (items.size() != buf->shape.size())
            throw UserError(a.loc, "'" + buf->name + "' has " + std::to_string(buf->shape.size()) +
                                       " dimensions: give " + name + " one index for each, not " +
                                       std::to_string(items.size()));
        std::vector<Expr> out;
        for (const Value& v : items)
            out.push_back(toIntExpr(v, a.loc));
        return out;
    };
    // As Buffer::vload: a vector of the buffer's elements is read along the last dimension.
    auto lanesAlongLast = [&](std::vector<Expr> idx, DataType t, SourceLoc loc, const char* verb) {
        if (t.element() != buf->dtype)
            throw UserError(loc, std::string("Cannot ") + verb + " " + t.str() +
                                     (std::string(verb) == "load" ? " from" : " into") +
                                     " buffer of " + buf->dtype.str() + " ('" + buf->name + "')");
        if (t.lanes > 1) idx.back() = makeRamp(idx.back(), makeInt(1), t.lanes);
        return idx;
    };
    if (name == "vload") {
        Bound b(c, {{"begin", true}, {"dtype", false}, {"predicate", false}});
        if (b.has("predicate") && b["predicate"].value.kind != VKind::None)
            throw UserError(b["predicate"].loc, "vload's predicate is not supported");
        const DataType t = b.has("dtype") && b["dtype"].value.kind != VKind::None
                               ? vectorDtypeArg(b["dtype"])
                               : buf->dtype;
        return Value::ofExpr(
            makeBufferLoad(buf, lanesAlongLast(indices(b["begin"]), t, b["begin"].loc, "load")));
    }
    if (name == "vstore") {
        Bound b(c, {{"begin", true}, {"value", true}, {"predicate", false}});
        if (b.has("predicate") && b["predicate"].value.kind != VKind::None)
            throw UserError(b["predicate"].loc, "vstore's predicate is not supported");
        Expr value = toExpr(b["value"].value, b["value"].loc, buf->dtype);
        Value v;
        v.kind = VKind::Stmt;
        v.stmt = makeBufferStore(
            buf, lanesAlongLast(indices(b["begin"]), value.type(), b["value"].loc, "store"), value);
        return v;
    }
    if (name == "access_ptr") {
        Bound b(c, {{"access_mask", true},
                    {"ptr_type", false},
                    {"content_lanes", false},
                    {"offset", false},
                    {"extent", false}});
        int mask = 0;
        const Value& m = b["access_mask"].value;
        if (m.kind == VKind::Str) {
            for (char ch : m.s) {
                if (ch == 'r')
                    mask |= 1;
                else if (ch == 'w')
                    mask |= 2;
                else
                    throw UserError(b["access_mask"].loc,
                                    "an access mask is made of \"r\" and \"w\", not '" + m.s + "'");
            }
        } else {
            mask = intArg(b["access_mask"], "access_mask");
        }
        if (b.has("content_lanes") && intArg(b["content_lanes"], "content_lanes") != 1)
            throw UserError(b["content_lanes"].loc, "access_ptr's content_lanes other than 1 is "
                                                    "not supported");
        if (b.has("ptr_type") && stringArg(b["ptr_type"], "ptr_type") != "handle")
            throw UserError(b["ptr_type"].loc, "access_ptr's ptr_type is \"handle\" here");
        Expr offset = b.has("offset") ? toIntExpr(b["offset"].value, b["offset"].loc) : makeInt(0);
        Expr extent;
        if (b.has("extent") && b["extent"].value.kind != VKind::None) {
            extent = toIntExpr(b["extent"].value, b["extent"].loc);
        } else if (!buf->strides.empty()) {
            extent = simplify(buf->strides[0] * buf->shape[0] - offset);
        } else {
            Expr n = makeInt(1);
            for (const Expr& d : buf->shape)
                n = n * d;
            extent = simplify(n - offset);
        }
        Expr start = simplify(buf->elemOffset + offset);
        return Value::ofExpr(makeCall(DataType::handle(), CallOp::AccessPtr,
                                      {makeCall(buf->dtype, CallOp::TypeAnnotation, {}), buf->data,
                                       start, extent, makeInt(mask)}));
    }
    throw UserError(c.loc, typeName(self) + " has no method '" + name + "'");
}

} // namespace loopscope::te_detail
