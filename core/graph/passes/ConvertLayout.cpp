// ConvertLayout: data kept in blocks of channels from layer to layer (N x C/B x H x W x B, as
// Relay's AlterOpLayout makes conv2d_NCHWc's chains on x86 and oneDNN keeps its blocked formats),
// converted once where the model leaves that layout instead of at every convolution.
//
// A convolution whose weights AlterConvLayout put in blocks of B output channels writes its sums
// in those blocks as they are, and reads its input in the blocks its producer wrote (or as
// N x C x H x W: the first layer). Then, in the order the nodes run:
//   - a depthwise convolution of blocked data gets its weights in the same blocks (C/B x 1 x KH
//     x KW x B) and keeps the blocks;
//   - max and average pools keep the blocks;
//   - element-wise and broadcasting operators on blocked data keep them: their per-channel
//     constants (a bias of C x 1 x 1) are laid out as C/B x 1 x 1 x B, which broadcasts the same
//     channel to the same element, and another input of the full shape is converted to blocks;
//   - a global average pool reads the blocks itself and writes N x C x 1 x 1 (the read-back
//     fused into its reduction);
//   - any other reader (a flatten, a graph output) gets the tensor as N x C x H x W from a
//     LayoutTransform, made once per tensor, under the tensor's own name.
// Values are unchanged: every operator's reference reads blocked data through its layout.
#include "graph/Operators.h"
#include "graph/Passes.h"

#include <cstring>
#include <set>

namespace loopscope {

namespace {

struct Blocks {
    std::string tensor; // the blocked copy
    std::int64_t block = 0;
};

class LayoutConverter {
public:
    explicit LayoutConverter(Graph& graph) : m_graph(graph) {}

    bool run()
    {
        std::vector<GraphNode> nodes = std::move(m_graph.nodes);
        m_graph.nodes.clear();
        for (GraphNode& node : nodes) {
            if (!convert(node))
                for (std::string& in : node.inputs)
                    if (!in.empty()) in = plain(in);
            m_graph.nodes.push_back(std::move(node));
        }
        for (const std::string& out : m_graph.outputs)
            plain(out);
        return m_changed;
    }

private:
    const Blocks* blocked(const std::string& tensor) const
    {
        auto it = m_blocked.find(tensor);
        return it == m_blocked.end() ? nullptr : &it->second;
    }

    // The tensor as N x C x H x W: itself, or a LayoutTransform of its blocked copy made once.
    std::string plain(const std::string& tensor)
    {
        const Blocks* b = blocked(tensor);
        if (!b || m_plain.count(tensor)) return tensor;
        GraphNode t;
        t.name = tensor + ".to_nchw";
        t.op = "LayoutTransform";
        t.inputs = {b->tensor};
        t.outputs = {tensor};
        t.attributes[kFromBlock].value = b->block;
        t.attributes[kToBlock].value = std::int64_t{0};
        m_graph.nodes.push_back(std::move(t));
        m_plain.insert(tensor);
        return tensor;
    }

    // A tensor of N x C x H x W converted into blocks of `block` channels, once (a node may
    // read it twice).
    std::string inBlocks(const std::string& tensor, std::int64_t block)
    {
        if (const Blocks* b = blocked(tensor)) return b->tensor;
        GraphNode n;
        n.name = tensor + ".to_blocks";
        n.op = "LayoutTransform";
        n.inputs = {tensor};
        n.outputs = {addBlocked(tensor, block)};
        n.attributes[kFromBlock].value = std::int64_t{0};
        n.attributes[kToBlock].value = block;
        m_graph.nodes.push_back(std::move(n));
        m_plain.insert(tensor);
        return m_blocked.at(tensor).tensor;
    }

    // A new tensor for `tensor` in blocks of `block` channels.
    std::string addBlocked(const std::string& tensor, std::int64_t block)
    {
        const GraphTensor& t = m_graph.tensor(tensor);
        GraphTensor b;
        b.name = m_graph.freshName(tensor + ".nchw" + std::to_string(block) + "c");
        b.dtype = t.dtype;
        b.shape = blockedShape(t.shape, block);
        b.channelBlock = block;
        const std::string name = m_graph.add(std::move(b)).name;
        m_blocked[tensor] = {name, block};
        return name;
    }

    // The node's one output written in blocks; a convolution's bias of F values laid out as
    // F/B x 1 x 1 x B, the same values in the same order.
    void blockOutput(GraphNode& node, std::int64_t block)
    {
        node.outputs[0] = addBlocked(node.outputs[0], block);
        m_changed = true;
        if (node.op != "Conv" || node.inputs.size() < 3 || node.inputs[2].empty()) return;
        const GraphTensor& bias = m_graph.tensor(node.inputs[2]);
        if (bias.isConstant() && bias.shape.size() == 1)
            node.inputs[2] = inBlocksConstant(bias, block).name;
    }

    // A constant of C values (any shape) as C/B x 1 x 1 x B.
    const GraphTensor& inBlocksConstant(const GraphTensor& t, std::int64_t block)
    {
        const std::int64_t channels = t.elementCount();
        auto values = std::make_shared<HostBuffer>(
            t.constant->dtype(), std::vector<std::int64_t>{channels / block, 1, 1, block});
        std::memcpy(values->data(), t.constant->data(),
                    static_cast<std::size_t>(t.constant->byteSize()));
        GraphTensor b;
        b.name = m_graph.freshName(t.name + ".blocks");
        b.dtype = t.dtype;
        b.shape = values->shape();
        b.constant = std::move(values);
        return m_graph.add(std::move(b));
    }

    static bool isPlain4D(const GraphTensor& t) { return t.shape.size() == 4; }

    bool convert(GraphNode& node)
    {
        if (node.outputs.size() != 1 || node.inputs.empty() || node.inputs[0].empty()) return false;
        if (node.op == "Conv") return convertConv(node);
        if (node.op == "GlobalAveragePool") {
            // Reads the blocks itself and writes N x C x 1 x 1: no layout change before it.
            const Blocks* in = blocked(node.inputs[0]);
            if (!in || !isPlain4D(m_graph.tensor(node.inputs[0]))) return false;
            node.inputs[0] = in->tensor;
            node.attributes[kInBlock].value = in->block;
            m_changed = true;
            return true;
        }
        if (node.op == "MaxPool" || node.op == "AveragePool") {
            const Blocks* in = blocked(node.inputs[0]);
            if (!in) return false;
            node.inputs[0] = in->tensor;
            node.attributes[kInBlock].value = in->block;
            node.attributes[kOutBlock].value = in->block;
            blockOutput(node, in->block);
            return true;
        }
        const OpSpec* spec = findOperator(node.op);
        if (!spec || spec->view || node.op == "BatchNormalization" ||
            (spec->pattern != OpPattern::ElemWise && spec->pattern != OpPattern::Broadcast))
            return false;
        return convertElementwise(node);
    }

    bool convertConv(GraphNode& node)
    {
        const GraphTensor& x = m_graph.tensor(node.inputs[0]);
        if (!isPlain4D(x) || node.inputs.size() < 2) return false;
        const Blocks* in = blocked(node.inputs[0]);
        const std::int64_t block = node.intAttr(kWeightBlock, 0);
        if (block > 0) {
            // Weights in blocks of output channels (one group): the sums stay in them.
            if (in) {
                node.inputs[0] = in->tensor;
                node.attributes[kInBlock].value = in->block;
            }
            node.attributes[kOutBlock].value = block;
            blockOutput(node, block);
            return true;
        }
        const GraphTensor* w = m_graph.find(node.inputs[1]);
        const std::int64_t channels = x.shape[1];
        if (!in || !w || !w->isConstant() || w->shape.size() != 4 ||
            node.intAttr("group", 1) != channels || w->shape[0] != channels || w->shape[1] != 1)
            return false;
        // Depthwise: one filter per channel, its weights in the data's blocks.
        const std::int64_t b = in->block;
        node.inputs[1] = addBlockedWeights(m_graph, node.inputs[1], b);
        node.inputs[0] = in->tensor;
        node.attributes[kWeightBlock].value = b;
        node.attributes[kInBlock].value = b;
        node.attributes[kOutBlock].value = b;
        blockOutput(node, b);
        return true;
    }

    // A constant that broadcasts along the channels of N x C x H x W only (or a scalar), as it
    // broadcasts against the blocks: C x 1 x 1 becomes C/B x 1 x 1 x B, the same values in the
    // same order. Null where it is not one.
    const GraphTensor* blockedConstant(const GraphTensor& t, std::int64_t channels,
                                       std::int64_t block)
    {
        if (t.elementCount() == 1) return &t;
        if (t.shape.size() > 4 || t.shape.size() < 3 || t.elementCount() != channels)
            return nullptr;
        if (t.shape[t.shape.size() - 3] != channels) return nullptr;
        return &inBlocksConstant(t, block);
    }

    bool convertElementwise(GraphNode& node)
    {
        const Blocks* first = nullptr;
        std::string firstName;
        for (const std::string& in : node.inputs)
            if (!in.empty() && (first = blocked(in))) {
                firstName = in;
                break;
            }
        if (!first) return false;
        const std::int64_t block = first->block;
        const GraphTensor& plainIn = m_graph.tensor(firstName);
        const GraphTensor& out = m_graph.tensor(node.outputs[0]);
        if (out.shape != plainIn.shape) return false; // the blocked input itself broadcasts
        // Decide every input before changing any.
        std::vector<std::string> inputs = node.inputs;
        std::vector<std::size_t> toConvert;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            if (inputs[i].empty()) continue;
            const GraphTensor& t = m_graph.tensor(inputs[i]);
            if (const Blocks* b = blocked(inputs[i])) {
                if (b->block != block) return false;
                inputs[i] = b->tensor;
            } else if (t.isConstant()) {
                const GraphTensor* c = blockedConstant(t, out.shape[1], block);
                if (!c) return false;
                inputs[i] = c->name;
            } else if (t.shape == out.shape) {
                toConvert.push_back(i);
            } else {
                return false;
            }
        }
        for (std::size_t i : toConvert)
            inputs[i] = inBlocks(inputs[i], block);
        node.inputs = std::move(inputs);
        blockOutput(node, block);
        return true;
    }

    Graph& m_graph;
    std::map<std::string, Blocks> m_blocked; // a tensor -> its copy in blocks
    std::set<std::string> m_plain;           // blocked tensors also made as N x C x H x W
    bool m_changed = false;
};

} // namespace

bool convertLayout(Graph& graph)
{
    return LayoutConverter(graph).run();
}

} // namespace loopscope
