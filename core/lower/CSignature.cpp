#include "lower/CSignature.h"

#include "ir/FreeVars.h"
#include "ir/Printer.h"

#include <algorithm>

namespace loopscope {

std::vector<Var> sizeParameters(const PrimFunc& f)
{
    FreeVarCollector fv;
    for (auto& p : f.params) {
        fv.defined.insert(p->data.get());
        for (auto& s : p->shape)
            fv.visit(s);
    }
    fv.visit(f.body);
    std::vector<Var> sizes;
    for (auto& v : fv.free)
        if (v.type().isIntegral()) sizes.push_back(v);
    std::stable_sort(sizes.begin(), sizes.end(),
                     [](const Var& a, const Var& b) { return a.name() < b.name(); });
    return sizes;
}

std::string cPrototypeType(DataType t)
{
    switch (t.code) {
    case DataType::Float: return t.bits == 64 ? "double" : t.bits == 16 ? "uint16_t" : "float";
    case DataType::Bool: return "uint8_t";
    case DataType::UInt: return "uint" + std::to_string(t.bits) + "_t";
    default: return "int" + std::to_string(t.bits) + "_t";
    }
}

std::string cPrototype(const PrimFunc& f)
{
    std::string s = "void " + scriptName(f.name) + "(";
    bool first = true;
    for (auto& p : f.params) {
        s += (first ? "" : ", ") + cPrototypeType(p->dtype) + "* " + scriptName(p->name);
        first = false;
    }
    for (auto& v : sizeParameters(f)) {
        s += (first ? "" : ", ") + cPrototypeType(v.type()) + " " + scriptName(v.name());
        first = false;
    }
    return s + ")";
}

} // namespace loopscope
