#include "graph/Graph.h"

#include <limits>

#include "ir/Diagnostic.h"

#include <set>

namespace loopscope {

std::int64_t GraphNode::intAttr(const std::string& attr, std::int64_t fallback) const
{
    auto it = attributes.find(attr);
    if (it == attributes.end()) return fallback;
    if (auto* v = std::get_if<std::int64_t>(&it->second.value)) return *v;
    if (auto* v = std::get_if<double>(&it->second.value)) return static_cast<std::int64_t>(*v);
    return fallback;
}

double GraphNode::floatAttr(const std::string& attr, double fallback) const
{
    auto it = attributes.find(attr);
    if (it == attributes.end()) return fallback;
    if (auto* v = std::get_if<double>(&it->second.value)) return *v;
    if (auto* v = std::get_if<std::int64_t>(&it->second.value)) return static_cast<double>(*v);
    return fallback;
}

std::string GraphNode::stringAttr(const std::string& attr, const std::string& fallback) const
{
    auto it = attributes.find(attr);
    if (it == attributes.end()) return fallback;
    if (auto* v = std::get_if<std::string>(&it->second.value)) return *v;
    return fallback;
}

std::vector<std::int64_t> GraphNode::intsAttr(const std::string& attr,
                                              std::vector<std::int64_t> fallback) const
{
    auto it = attributes.find(attr);
    if (it == attributes.end()) return fallback;
    if (auto* v = std::get_if<std::vector<std::int64_t>>(&it->second.value)) return *v;
    if (auto* v = std::get_if<std::int64_t>(&it->second.value)) return {*v};
    return fallback;
}

const HostBuffer* GraphNode::tensorAttr(const std::string& attr) const
{
    auto it = attributes.find(attr);
    if (it == attributes.end()) return nullptr;
    if (auto* v = std::get_if<std::shared_ptr<const HostBuffer>>(&it->second.value))
        return v->get();
    return nullptr;
}

std::int64_t GraphTensor::elementCount() const
{
    // A shape a model declares can say anything: past int64's range the count saturates rather
    // than wrap around (undefined); import refuses such a tensor where it is made.
    std::int64_t n = 1;
    for (auto d : shape)
        if (__builtin_mul_overflow(n, d, &n)) return std::numeric_limits<std::int64_t>::max();
    return n;
}

GraphTensor& Graph::tensor(const std::string& name)
{
    auto it = m_tensors.find(name);
    LS_ASSERT(it != m_tensors.end(), "no tensor '" << name << "' in the graph");
    return it->second;
}

const GraphTensor& Graph::tensor(const std::string& name) const
{
    auto it = m_tensors.find(name);
    LS_ASSERT(it != m_tensors.end(), "no tensor '" << name << "' in the graph");
    return it->second;
}

const GraphTensor* Graph::find(const std::string& name) const
{
    auto it = m_tensors.find(name);
    return it == m_tensors.end() ? nullptr : &it->second;
}

GraphTensor& Graph::add(GraphTensor t)
{
    std::string name = t.name;
    auto [it, inserted] = m_tensors.insert_or_assign(name, std::move(t));
    (void)inserted;
    return it->second;
}

int Graph::producer(const std::string& tensor) const
{
    for (std::size_t i = 0; i < nodes.size(); ++i)
        for (auto& o : nodes[i].outputs)
            if (o == tensor) return static_cast<int>(i);
    return -1;
}

std::vector<int> Graph::consumers(const std::string& tensor) const
{
    std::vector<int> out;
    for (std::size_t i = 0; i < nodes.size(); ++i)
        for (auto& in : nodes[i].inputs)
            if (in == tensor) {
                out.push_back(static_cast<int>(i));
                break;
            }
    return out;
}

void Graph::removeUnusedTensors()
{
    std::set<std::string> used(inputs.begin(), inputs.end());
    used.insert(outputs.begin(), outputs.end());
    for (auto& n : nodes) {
        used.insert(n.inputs.begin(), n.inputs.end());
        used.insert(n.outputs.begin(), n.outputs.end());
    }
    for (auto it = m_tensors.begin(); it != m_tensors.end();)
        it = used.count(it->first) ? std::next(it) : m_tensors.erase(it);
}

std::string Graph::freshName(const std::string& base) const
{
    if (!m_tensors.count(base)) return base;
    for (int i = 1;; ++i) {
        std::string n = base + "_" + std::to_string(i);
        if (!m_tensors.count(n)) return n;
    }
}

std::string Graph::addConstant(const std::string& base, std::shared_ptr<const HostBuffer> value)
{
    GraphTensor t;
    t.name = freshName(base);
    t.dtype = value->dtype();
    t.shape = value->shape();
    t.constant = std::move(value);
    return add(std::move(t)).name;
}

std::string dimsText(const std::vector<std::int64_t>& shape)
{
    if (shape.empty()) return "scalar";
    std::string s;
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? "x" : "") + std::to_string(shape[i]);
    return s;
}

std::vector<std::int64_t> blockedShape(const std::vector<std::int64_t>& plain, std::int64_t block)
{
    std::vector<std::int64_t> s = plain;
    s[1] /= block;
    s.push_back(block);
    return s;
}

std::vector<std::int64_t> plainShape(const std::vector<std::int64_t>& blocked)
{
    std::vector<std::int64_t> s(blocked.begin(), blocked.end() - 1);
    s[1] *= blocked.back();
    return s;
}

std::string tensorShapeText(const GraphTensor& t)
{
    if (t.channelBlock <= 0 || t.shape.size() < 3) return dimsText(t.shape);
    return dimsText(plainShape(t.shape)) + " NCHW" + std::to_string(t.channelBlock) + "c";
}

} // namespace loopscope
