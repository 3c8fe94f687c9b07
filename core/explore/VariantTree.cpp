#include "explore/VariantTree.h"

#include "explore/Explorer.h"

#include <algorithm>
#include <cctype>

namespace loopscope {

namespace {

std::string normalized(const std::string& s)
{
    std::string out;
    for (char c : s)
        if (!std::isspace(static_cast<unsigned char>(c))) out += c;
    return out;
}

} // namespace

std::vector<VariantTreeNode> variantTree(const std::vector<std::vector<std::string>>& statements)
{
    std::vector<std::vector<std::string>> norm;
    for (auto& v : statements) {
        norm.emplace_back();
        for (auto& s : v)
            norm.back().push_back(normalized(s));
    }
    std::vector<VariantTreeNode> nodes(norm.size());
    for (std::size_t v = 0; v < norm.size(); ++v) {
        int best = -1;
        std::size_t bestShared = 0;
        bool bestWhole = false;
        for (std::size_t u = 0; u < v; ++u) {
            std::size_t shared = 0;
            while (shared < norm[u].size() && shared < norm[v].size() &&
                   norm[u][shared] == norm[v][shared])
                ++shared;
            if (shared == 0) continue;
            const bool whole = shared == norm[u].size();
            // Later candidates win ties of both measures: the nearest one above.
            if (best < 0 || shared > bestShared ||
                (shared == bestShared && (whole || !bestWhole))) {
                best = static_cast<int>(u);
                bestShared = shared;
                bestWhole = whole;
            }
        }
        if (best < 0) {
            for (std::size_t u = 0; u < v; ++u)
                if (norm[u].empty()) {
                    best = static_cast<int>(u);
                    break;
                }
        }
        nodes[v].parent = best;
        nodes[v].sharedSteps = static_cast<int>(bestShared);
        if (best >= 0)
            nodes[static_cast<std::size_t>(best)].children.push_back(static_cast<int>(v));
    }
    return nodes;
}

std::vector<VariantTreeNode> variantTree(const std::vector<VariantView>& variants)
{
    std::vector<std::vector<std::string>> statements;
    for (const VariantView& v : variants) {
        statements.emplace_back();
        for (std::size_t k = 1; k < v.steps.size(); ++k)
            statements.back().push_back(v.steps[k].label);
    }
    return variantTree(statements);
}

} // namespace loopscope
