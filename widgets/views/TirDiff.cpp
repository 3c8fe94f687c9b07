#include "views/TirDiff.h"

#include <dtl/dtl.hpp>

#include <algorithm>
#include <cstdint>

namespace loopscope {

namespace {

using Tokens = std::vector<std::string>;

// One step of an edit script between two sequences, in order.
enum class Edit { Common, Delete, Add };

template <typename Sequence> std::vector<Edit> editScript(const Sequence& a, const Sequence& b)
{
    std::vector<Edit> out;
    if (a.empty() || b.empty()) {
        out.assign(a.size(), Edit::Delete);
        out.insert(out.end(), b.size(), Edit::Add);
        return out;
    }
    dtl::Diff<typename Sequence::value_type, Sequence> d(a, b);
    d.compose();
    for (const auto& e : d.getSes().getSequence()) {
        switch (e.second.type) {
        case dtl::SES_COMMON: out.push_back(Edit::Common); break;
        case dtl::SES_DELETE: out.push_back(Edit::Delete); break;
        default: out.push_back(Edit::Add); break;
        }
    }
    return out;
}

bool isWordByte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool isSpace(char c)
{
    return c == ' ' || c == '\t';
}

// Identifiers and numbers, runs of spaces, and every other character on its own (a UTF-8 sequence
// stays whole), so a changed "1024" is one part, not the digits that happen to differ.
Tokens tokenize(std::string_view s)
{
    Tokens out;
    std::size_t i = 0;
    while (i < s.size()) {
        std::size_t j = i + 1;
        auto c = static_cast<unsigned char>(s[i]);
        if (isWordByte(c)) {
            while (j < s.size() && isWordByte(static_cast<unsigned char>(s[j])))
                ++j;
        } else if (isSpace(s[i])) {
            while (j < s.size() && isSpace(s[j]))
                ++j;
        } else if (c >= 0x80) {
            while (j < s.size() && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80)
                ++j;
        }
        out.emplace_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

std::string_view trimmed(std::string_view s)
{
    std::size_t b = 0;
    while (b < s.size() && isSpace(s[b]))
        ++b;
    std::size_t e = s.size();
    while (e > b && (isSpace(s[e - 1]) || s[e - 1] == '\r'))
        --e;
    return s.substr(b, e - b);
}

std::size_t indentOf(std::string_view s)
{
    std::size_t n = 0;
    while (n < s.size() && isSpace(s[n]))
        ++n;
    return n;
}

// Character bigrams of a line's text (indentation ignored), sorted, for a Dice similarity.
std::vector<std::uint16_t> bigrams(std::string_view line)
{
    std::string_view t = trimmed(line);
    std::vector<std::uint16_t> out;
    if (t.size() < 2) {
        if (!t.empty()) out.push_back(static_cast<unsigned char>(t[0]));
        return out;
    }
    out.reserve(t.size() - 1);
    for (std::size_t i = 0; i + 1 < t.size(); ++i)
        out.push_back(static_cast<std::uint16_t>(static_cast<unsigned char>(t[i]) << 8 |
                                                 static_cast<unsigned char>(t[i + 1])));
    std::sort(out.begin(), out.end());
    return out;
}

double dice(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b)
{
    if (a.empty() && b.empty()) return 1.0;
    std::size_t common = 0, i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i] == b[j])
            ++common, ++i, ++j;
        else if (a[i] < b[j])
            ++i;
        else
            ++j;
    }
    return 2.0 * double(common) / double(a.size() + b.size());
}

// Below this, a removed and an added line are shown as two rows rather than as one changed line.
constexpr double kPairThreshold = 0.45;
// Hunks larger than this (removed x added lines) are paired in order instead of by best match.
constexpr std::size_t kMaxPairingCells = 40000;

// Emits the rows of one hunk: removed lines [l0, l1) and added lines [r0, r1). Lines that resemble
// each other are paired (an order-preserving alignment maximizing total similarity); the others
// become Removed / Added rows, removed first, at their place between the pairs.
void emitHunk(const TirDiff& d, int l0, int l1, int r0, int r1, std::vector<DiffRow>& rows)
{
    const int n = l1 - l0, m = r1 - r0;
    std::vector<std::pair<int, int>> pairs; // (left, right), increasing in both
    if (n > 0 && m > 0) {
        std::vector<std::vector<std::uint16_t>> lb(n), rb(m);
        for (int i = 0; i < n; ++i)
            lb[i] = bigrams(d.leftLines[l0 + i]);
        for (int j = 0; j < m; ++j)
            rb[j] = bigrams(d.rightLines[r0 + j]);
        auto score = [&](int i, int j) {
            double s = dice(lb[i], rb[j]);
            if (s < kPairThreshold) return 0.0;
            // Same depth breaks ties between look-alike lines (the init and the update loop).
            if (indentOf(d.leftLines[l0 + i]) == indentOf(d.rightLines[r0 + j])) s += 0.05;
            return s;
        };
        if (std::size_t(n) * std::size_t(m) <= kMaxPairingCells) {
            std::vector<double> best(std::size_t(n + 1) * std::size_t(m + 1), 0.0);
            auto at = [&](int i, int j) -> double& { return best[std::size_t(i) * (m + 1) + j]; };
            for (int i = 1; i <= n; ++i)
                for (int j = 1; j <= m; ++j) {
                    double s = score(i - 1, j - 1);
                    double v = std::max(at(i - 1, j), at(i, j - 1));
                    if (s > 0) v = std::max(v, at(i - 1, j - 1) + s);
                    at(i, j) = v;
                }
            int i = n, j = m;
            while (i > 0 && j > 0) {
                double s = score(i - 1, j - 1);
                if (s > 0 && at(i, j) == at(i - 1, j - 1) + s) {
                    pairs.emplace_back(l0 + i - 1, r0 + j - 1);
                    --i, --j;
                } else if (at(i, j) == at(i - 1, j)) {
                    --i;
                } else {
                    --j;
                }
            }
            std::reverse(pairs.begin(), pairs.end());
        } else {
            for (int k = 0; k < std::min(n, m); ++k)
                if (score(k, k) > 0) pairs.emplace_back(l0 + k, r0 + k);
        }
    }
    int l = l0, r = r0;
    auto flushUntil = [&](int lEnd, int rEnd) {
        for (; l < lEnd; ++l)
            rows.push_back({l, -1, DiffKind::Removed, {}, {}});
        for (; r < rEnd; ++r)
            rows.push_back({-1, r, DiffKind::Added, {}, {}});
    };
    for (auto [pl, pr] : pairs) {
        flushUntil(pl, pr);
        DiffRow row{pl, pr, DiffKind::Changed, {}, {}};
        diffLineParts(d.leftLines[pl], d.rightLines[pr], row.leftRanges, row.rightRanges);
        if (d.leftLines[pl] == d.rightLines[pr]) row.kind = DiffKind::Same;
        rows.push_back(std::move(row));
        ++l, ++r;
    }
    flushUntil(l1, r1);
}

// Ranges of the tokens marked `changed`, merged across gaps of spaces only.
std::vector<CharRange> rangesOf(const Tokens& tokens, const std::vector<bool>& changed)
{
    std::vector<CharRange> out;
    int pos = 0;
    int gapStart = -1; // start of the run of unchanged spaces after the last range, if any
    for (std::size_t k = 0; k < tokens.size(); ++k) {
        int len = int(tokens[k].size());
        if (changed[k]) {
            if (!out.empty() && gapStart >= 0 && out.back().start + out.back().length == gapStart)
                out.back().length = pos + len - out.back().start;
            else if (!out.empty() && out.back().start + out.back().length == pos)
                out.back().length += len;
            else
                out.push_back({pos, len});
            gapStart = pos + len;
        } else if (!isSpace(tokens[k][0])) {
            gapStart = -1;
        }
        pos += len;
    }
    // A change of indentation is the line moving in or out of a loop: the row says so already,
    // and marking the leading spaces would paint a block of color with nothing to read in it.
    if (!out.empty() && out.front().start == 0 && !tokens.empty() && isSpace(tokens.front()[0])) {
        const int indent = int(tokens.front().size());
        out.front().start += indent;
        out.front().length -= indent;
        if (out.front().length <= 0) out.erase(out.begin());
    }
    return out;
}

} // namespace

std::vector<std::string> splitLines(std::string_view text)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t nl = text.find('\n', start);
        std::size_t end = nl == std::string_view::npos ? text.size() : nl;
        std::size_t e = end;
        if (e > start && text[e - 1] == '\r') --e;
        out.emplace_back(text.substr(start, e - start));
        if (nl == std::string_view::npos) break;
        start = nl + 1;
    }
    return out;
}

void diffLineParts(std::string_view left, std::string_view right,
                   std::vector<CharRange>& leftRanges, std::vector<CharRange>& rightRanges)
{
    Tokens a = tokenize(left), b = tokenize(right);
    std::vector<bool> aChanged(a.size(), false), bChanged(b.size(), false);
    std::size_t i = 0, j = 0;
    for (Edit e : editScript(a, b)) {
        switch (e) {
        case Edit::Common: ++i, ++j; break;
        case Edit::Delete: aChanged[i++] = true; break;
        case Edit::Add: bChanged[j++] = true; break;
        }
    }
    leftRanges = rangesOf(a, aChanged);
    rightRanges = rangesOf(b, bChanged);
}

TirDiff diffTir(std::string_view before, std::string_view after)
{
    TirDiff d;
    d.leftLines = splitLines(before);
    d.rightLines = splitLines(after);
    int l = 0, r = 0;
    int hunkL = 0, hunkR = 0; // start of the pending run of removed / added lines
    for (Edit e : editScript(d.leftLines, d.rightLines)) {
        switch (e) {
        case Edit::Common:
            emitHunk(d, hunkL, l, hunkR, r, d.rows);
            d.rows.push_back({l, r, DiffKind::Same, {}, {}});
            hunkL = ++l;
            hunkR = ++r;
            break;
        case Edit::Delete: ++l; break;
        case Edit::Add: ++r; break;
        }
    }
    emitHunk(d, hunkL, l, hunkR, r, d.rows);
    return d;
}

std::vector<int> changedLoopLines(const TirDiff& diff)
{
    // Loop headers of each side by text without indentation; a header of the after-text that is
    // not part of the longest common subsequence is new, changed, or moved past another loop.
    std::vector<std::string> beforeHeaders, afterHeaders;
    std::vector<int> afterLines;
    for (const auto& line : diff.leftLines)
        if (isLoopHeader(line)) beforeHeaders.emplace_back(trimmed(line));
    for (std::size_t k = 0; k < diff.rightLines.size(); ++k)
        if (isLoopHeader(diff.rightLines[k])) {
            afterHeaders.emplace_back(trimmed(diff.rightLines[k]));
            afterLines.push_back(int(k));
        }
    std::vector<int> out;
    std::size_t j = 0;
    for (Edit e : editScript(beforeHeaders, afterHeaders)) {
        if (e == Edit::Add) out.push_back(afterLines[j]);
        if (e != Edit::Delete) ++j;
    }
    return out;
}

std::vector<int> changedLoopLines(std::string_view before, std::string_view after)
{
    return changedLoopLines(diffTir(before, after));
}

LoopHeader parseLoopHeader(std::string_view line)
{
    LoopHeader h;
    std::size_t p = indentOf(line);
    if (line.substr(p, 4) != "for ") return h;
    p += 4;
    std::vector<std::string> names;
    std::vector<CharRange> ranges;
    // for NAME (, NAME)* in ITER:
    for (;;) {
        while (p < line.size() && isSpace(line[p]))
            ++p;
        std::size_t s = p;
        while (p < line.size() && isWordByte(static_cast<unsigned char>(line[p])))
            ++p;
        if (p == s) return h;
        names.emplace_back(line.substr(s, p - s));
        ranges.push_back({int(s), int(p - s)});
        while (p < line.size() && isSpace(line[p]))
            ++p;
        if (p < line.size() && line[p] == ',') {
            ++p;
            continue;
        }
        break;
    }
    if (line.substr(p, 3) != "in " && line.substr(p, 3) != "in\t") return h;
    std::string_view rest = trimmed(line.substr(p + 3));
    if (rest.empty() || rest.back() != ':') return h;
    h.names = std::move(names);
    h.nameRanges = std::move(ranges);

    // T.grid(e0, e1, ...): the extent of each variable, split at top-level commas.
    std::size_t g = line.find("T.grid(", p);
    if (g == std::string_view::npos) return h;
    std::size_t q = g + 7;
    std::vector<CharRange> extents;
    int depth = 0;
    std::size_t argStart = q;
    auto pushArg = [&](std::size_t end) {
        std::size_t a = argStart, b = end;
        while (a < b && isSpace(line[a]))
            ++a;
        while (b > a && isSpace(line[b - 1]))
            --b;
        extents.push_back({int(a), int(b - a)});
    };
    for (; q < line.size(); ++q) {
        char c = line[q];
        if (c == '(' || c == '[')
            ++depth;
        else if ((c == ')' || c == ']') && depth > 0)
            --depth;
        else if (c == ')') {
            pushArg(q);
            break;
        } else if (c == ',' && depth == 0) {
            pushArg(q);
            argStart = q + 1;
        }
    }
    if (extents.size() == h.names.size()) h.extentRanges = std::move(extents);
    return h;
}

bool isLoopHeader(std::string_view line)
{
    return !parseLoopHeader(line).names.empty();
}

} // namespace loopscope
