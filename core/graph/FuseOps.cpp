#include "graph/FuseOps.h"

#include "graph/Operators.h"
#include "ir/Diagnostic.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace loopscope {

namespace {

int rank(OpPattern p)
{
    switch (p) {
    case OpPattern::ElemWise: return 0;
    case OpPattern::Broadcast: return 1;
    case OpPattern::Injective: return 2;
    case OpPattern::CommReduce: return 3;
    case OpPattern::OutEWiseFusable: return 4;
    case OpPattern::Opaque: return 8;
    }
    return 8;
}

// Whether a node of pattern `node` may join a group of pattern `group` (Relay's rules).
bool mayJoin(OpPattern group, OpPattern node)
{
    switch (node) {
    case OpPattern::ElemWise:
    case OpPattern::Broadcast: // into anything but a reduction group or an opaque one
        return group != OpPattern::CommReduce && group != OpPattern::Opaque;
    case OpPattern::Injective: return rank(group) <= rank(OpPattern::Injective);
    case OpPattern::CommReduce: return rank(group) <= rank(OpPattern::Broadcast);
    default: return false;
    }
}

std::string attributeText(const Attribute& a)
{
    std::ostringstream out;
    std::visit(
        [&](const auto& v) {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, std::int64_t> || std::is_same_v<V, double> ||
                          std::is_same_v<V, std::string>)
                out << v;
            else if constexpr (std::is_same_v<V, std::shared_ptr<const HostBuffer>>)
                out << (v ? v->describe() : "null");
            else
                for (auto& x : v)
                    out << x << ",";
        },
        a.value);
    return out.str();
}

} // namespace

std::string viewSource(const Graph& graph, const std::string& tensor)
{
    std::string t = tensor;
    for (int guard = 0; guard < 10000; ++guard) {
        const int p = graph.producer(t);
        if (p < 0) return t;
        const GraphNode& n = graph.nodes[static_cast<std::size_t>(p)];
        const OpSpec* spec = findOperator(n.op);
        if (!spec || !spec->view || n.outputs.size() != 1 || n.outputs[0] != t) return t;
        t = n.inputs[0];
    }
    return t;
}

std::vector<Task> fuseOps(const Graph& graph, const FuseOptions& options)
{
    struct Group {
        std::vector<int> nodes;
        OpPattern pattern = OpPattern::ElemWise;
        std::string output;
    };
    std::vector<Group> groups;
    std::map<std::string, int> groupOfTensor; // a group's output -> the group
    const std::set<std::string> outputs(graph.outputs.begin(), graph.outputs.end());

    for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
        const GraphNode& n = graph.nodes[i];
        const OpSpec* spec = findOperator(n.op);
        LS_ASSERT(spec, "fusion met an unsupported operator " << n.op);
        if (spec->view && n.outputs.size() == 1) continue;
        // A node with several outputs (Split) makes one task per output, none fused.
        if (n.outputs.size() > 1) {
            for (auto& o : n.outputs) {
                if (o.empty()) continue;
                groups.push_back({{static_cast<int>(i)}, OpPattern::Opaque, o});
            }
            continue;
        }
        int joined = -1;
        if (options.fuse) {
            for (const std::string& in : n.inputs) {
                if (in.empty()) continue;
                auto it = groupOfTensor.find(in);
                if (it == groupOfTensor.end()) continue;
                Group& g = groups[static_cast<std::size_t>(it->second)];
                const auto readers = graph.consumers(in);
                if (readers.size() != 1 || outputs.count(in) ||
                    static_cast<int>(g.nodes.size()) >= options.maxGroupNodes ||
                    !mayJoin(g.pattern, spec->pattern))
                    continue;
                joined = it->second;
                break;
            }
        }
        if (joined < 0) {
            groups.push_back({{static_cast<int>(i)}, spec->pattern, n.outputs[0]});
        } else {
            Group& g = groups[static_cast<std::size_t>(joined)];
            groupOfTensor.erase(g.output);
            g.nodes.push_back(static_cast<int>(i));
            if (rank(spec->pattern) > rank(g.pattern)) g.pattern = spec->pattern;
            g.output = n.outputs[0];
        }
        groupOfTensor[n.outputs[0]] = joined < 0 ? static_cast<int>(groups.size()) - 1 : joined;
    }

    // A group runs when its last node would: every producer of its members is earlier in the
    // graph, and (a joined tensor having no other reader) no earlier group reads what it makes.
    std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
        return a.nodes.back() < b.nodes.back();
    });
    std::vector<Task> tasks;
    std::map<std::string, int> anchors;
    for (const Group& g : groups) {
        Task t;
        t.nodes = g.nodes;
        t.output = g.output;
        std::set<std::string> produced;
        for (int i : g.nodes)
            for (auto& o : graph.nodes[static_cast<std::size_t>(i)].outputs)
                produced.insert(o);
        for (int i : g.nodes)
            for (auto& in : graph.nodes[static_cast<std::size_t>(i)].inputs)
                if (!in.empty() && !produced.count(in) &&
                    std::find(t.inputs.begin(), t.inputs.end(), in) == t.inputs.end())
                    t.inputs.push_back(in);
        // The anchor: the group's most complex operator.
        int best = g.nodes.front();
        for (int i : g.nodes)
            if (rank(findOperator(graph.nodes[static_cast<std::size_t>(i)].op)->pattern) >
                rank(findOperator(graph.nodes[static_cast<std::size_t>(best)].op)->pattern))
                best = i;
        t.anchor = graph.nodes[static_cast<std::size_t>(best)].op;
        std::string base;
        for (char c : t.anchor)
            base += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        for (int i : g.nodes) {
            const std::string& op = graph.nodes[static_cast<std::size_t>(i)].op;
            if (i == best || base.size() > 40) continue;
            base += "_";
            for (char c : op)
                base += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        t.name = base + "_" + std::to_string(anchors[base]++);
        // The workload: operators, attributes, and the shapes, types and constness of what they
        // read and write, names aside.
        std::ostringstream w;
        std::map<std::string, int> local;
        auto id = [&](const std::string& tensor) {
            auto it = local.find(tensor);
            if (it == local.end()) it = local.emplace(tensor, static_cast<int>(local.size())).first;
            return it->second;
        };
        for (auto& in : t.inputs) {
            const GraphTensor& x = graph.tensor(in);
            w << "in" << id(in) << ":" << x.dtype.str() << dimsText(x.shape)
              << (x.isConstant() && x.elementCount() == 1 ? "=" + std::to_string(x.constant->get(0))
                                                          : "")
              << ";";
        }
        for (int i : g.nodes) {
            const GraphNode& n = graph.nodes[static_cast<std::size_t>(i)];
            w << n.op << "(";
            for (auto& in : n.inputs)
                w << (in.empty() ? -1 : id(in)) << ",";
            w << ")->";
            for (auto& o : n.outputs)
                w << (o.empty() ? -1 : id(o)) << (o == t.output ? "*" : "") << ",";
            for (auto& [k, a] : n.attributes)
                w << k << "=" << attributeText(a) << ";";
            w << "|";
        }
        t.workload = w.str();
        tasks.push_back(std::move(t));
    }
    std::map<std::string, int> counts;
    for (auto& t : tasks)
        ++counts[t.workload];
    for (auto& t : tasks)
        t.weight = counts[t.workload];
    return tasks;
}

} // namespace loopscope
