// The side-by-side alignment of two TIR printings: rows, changed parts of lines, changed loops,
// on small texts and on the TIR of real schedule steps.
#include "views/TirDiff.h"
#include "explore/Explorer.h"

#include "support/QtTestMain.h"

#include <QFile>
#include <QTest>

#include <algorithm>
#include <set>

using namespace loopscope;

namespace {

std::string partOf(const std::string& line, const CharRange& r)
{
    return line.substr(std::size_t(r.start), std::size_t(r.length));
}

std::vector<std::string> partsOf(const std::string& line, const std::vector<CharRange>& ranges)
{
    std::vector<std::string> out;
    for (const CharRange& r : ranges)
        out.push_back(partOf(line, r));
    return out;
}

// Every line of both sides appears exactly once, in order, and the row kinds match the sides set.
void checkRowsCoverBothSides(const TirDiff& d)
{
    int l = 0, r = 0;
    for (const DiffRow& row : d.rows) {
        switch (row.kind) {
        case DiffKind::Same:
        case DiffKind::Changed:
            QCOMPARE(row.left, l++);
            QCOMPARE(row.right, r++);
            break;
        case DiffKind::Removed:
            QCOMPARE(row.left, l++);
            QCOMPARE(row.right, -1);
            break;
        case DiffKind::Added:
            QCOMPARE(row.left, -1);
            QCOMPARE(row.right, r++);
            break;
        }
        if (row.kind == DiffKind::Same) QCOMPARE(d.leftLines[row.left], d.rightLines[row.right]);
    }
    QCOMPARE(l, int(d.leftLines.size()));
    QCOMPARE(r, int(d.rightLines.size()));
}

std::string readSample(const char* name)
{
    QFile f(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/") + QLatin1String(name));
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read sample %s", name);
    return f.readAll().toStdString();
}

const VariantView& variantNamed(const Exploration& x, const std::string& name)
{
    for (const VariantView& v : x.variants)
        if (v.name == name) return v;
    qFatal("no variant %s", name.c_str());
}

int stepWithLabel(const VariantView& v, const std::string& label)
{
    for (std::size_t k = 0; k < v.steps.size(); ++k)
        if (v.steps[k].label == label) return int(k);
    qFatal("no step %s", label.c_str());
}

std::set<std::string> trimmedLines(const std::vector<std::string>& lines,
                                   const std::vector<int>& which)
{
    std::set<std::string> out;
    for (int i : which) {
        const std::string& s = lines[std::size_t(i)];
        out.insert(s.substr(s.find_first_not_of(' ')));
    }
    return out;
}

} // namespace

class TirDiffTest : public QObject {
    Q_OBJECT

private:
    Exploration m_ladder; // samples/matmul_ladder.py at 64x64x64

private slots:
    void initTestCase()
    {
        m_ladder = explore(readSample("matmul_ladder.py"), {{"M", 64}, {"N", 64}, {"K", 64}});
        QVERIFY(m_ladder.ok);
    }

    void splitsLines()
    {
        QCOMPARE(splitLines(""), std::vector<std::string>{});
        QCOMPARE(splitLines("a\nb\n"), (std::vector<std::string>{"a", "b"}));
        QCOMPARE(splitLines("a\r\n\nb"), (std::vector<std::string>{"a", "", "b"}));
    }

    void identicalTextsAreAllSame()
    {
        const TirDiff d =
            diffTir("for i in range(4):\n    A[i] = 0\n", "for i in range(4):\n    A[i] = 0\n");
        QCOMPARE(d.rows.size(), std::size_t(2));
        for (const DiffRow& row : d.rows)
            QCOMPARE(row.kind, DiffKind::Same);
        QVERIFY(changedLoopLines(d).empty());
    }

    void emptySides()
    {
        TirDiff d = diffTir("", "a\nb\n");
        QCOMPARE(d.rows.size(), std::size_t(2));
        QCOMPARE(d.rows[0].kind, DiffKind::Added);
        checkRowsCoverBothSides(d);
        d = diffTir("a\nb\n", "");
        QCOMPARE(d.rows.size(), std::size_t(2));
        QCOMPARE(d.rows[1].kind, DiffKind::Removed);
        checkRowsCoverBothSides(d);
    }

    void addedAndRemovedLines()
    {
        const TirDiff d = diffTir("keep one\nkeep two\ndropped entirely\n",
                                  "keep one\nT.func_attr({})\nkeep two\n");
        checkRowsCoverBothSides(d);
        QCOMPARE(d.rows.size(), std::size_t(4));
        QCOMPARE(d.rows[0].kind, DiffKind::Same);
        QCOMPARE(d.rows[1].kind, DiffKind::Added);
        QCOMPARE(d.rows[1].right, 1);
        QCOMPARE(d.rows[2].kind, DiffKind::Same);
        QCOMPARE(d.rows[3].kind, DiffKind::Removed);
        QCOMPARE(d.rows[3].left, 2);
    }

    void changedLineHasItsChangedParts()
    {
        const TirDiff d =
            diffTir("    C[i * 64 + j] = T.float32(0)\n", "    C[i * 1024 + j] = T.float32(0)\n");
        QCOMPARE(d.rows.size(), std::size_t(1));
        const DiffRow& row = d.rows[0];
        QCOMPARE(row.kind, DiffKind::Changed);
        // A number is one token: "64" became "1024", not digits that happen to differ.
        QCOMPARE(partsOf(d.leftLines[0], row.leftRanges), std::vector<std::string>{"64"});
        QCOMPARE(partsOf(d.rightLines[0], row.rightRanges), std::vector<std::string>{"1024"});
        QVERIFY(row.rightRanges[0] == (CharRange{10, 4}));
    }

    void changedPartsMergeAcrossSpaces()
    {
        std::vector<CharRange> left, right;
        diffLineParts("x = a + b", "x = c - d", left, right);
        QCOMPARE(partsOf("x = a + b", left), std::vector<std::string>{"a + b"});
        QCOMPARE(partsOf("x = c - d", right), std::vector<std::string>{"c - d"});
        // Only an insertion: nothing to mark on the left.
        diffLineParts("f(a)", "f(a, b)", left, right);
        QVERIFY(left.empty());
        QCOMPARE(partsOf("f(a, b)", right), std::vector<std::string>{", b"});
    }

    void indentationIsNotAChangedPart()
    {
        // The line moved into a new loop: a changed row, nothing inside it marked.
        TirDiff d = diffTir("for i in range(4):\n    A[i] = 0\n",
                            "for i in range(4):\n    for j in range(2):\n        A[i] = 0\n");
        checkRowsCoverBothSides(d);
        QCOMPARE(d.rows.size(), std::size_t(3));
        QCOMPARE(d.rows[2].kind, DiffKind::Changed);
        QVERIFY(d.rows[2].leftRanges.empty());
        QVERIFY(d.rows[2].rightRanges.empty());
        // Moved and changed: the part starts after the indentation.
        std::vector<CharRange> left, right;
        diffLineParts("    x = 1", "        y = 1", left, right);
        QCOMPARE(partsOf("    x = 1", left), std::vector<std::string>{"x"});
        QCOMPARE(partsOf("        y = 1", right), std::vector<std::string>{"y"});
    }

    void changedPartsNeverSplitACharacter()
    {
        std::vector<CharRange> left, right;
        const std::string a = "x = \xC3\xA9t\xC3\xA9",
                          b = "x = \xC3\xA0t\xC3\xA9"; // "été" / "àté"
        diffLineParts(a, b, left, right);
        QCOMPARE(right.size(), std::size_t(1));
        QCOMPARE(partOf(b, right[0]), std::string("\xC3\xA0")); // both bytes of the character
        QCOMPARE(partOf(a, left[0]), std::string("\xC3\xA9"));
    }

    void dissimilarLinesAreNotPaired()
    {
        const TirDiff d =
            diffTir("a\nfor i in range(64):\nz\n", "a\nT.func_attr({\"tir.noalias\": True})\nz\n");
        checkRowsCoverBothSides(d);
        QCOMPARE(d.rows.size(), std::size_t(4));
        QCOMPARE(d.rows[1].kind, DiffKind::Removed);
        QCOMPARE(d.rows[2].kind, DiffKind::Added);
    }

    void pairsTheLinesThatResembleEachOther()
    {
        // One hunk: two removed lines, two added; the first removed line resembles the second
        // added.
        const TirDiff d = diffTir("top\nfor i_outer, j in T.grid(2, 64):\nx = 1\nbottom\n",
                                  "top\nA_1 = T.allocate([4096], \"float32\", \"global\")\n"
                                  "for i_outer, j_outer in T.grid(2, 2):\nbottom\n");
        checkRowsCoverBothSides(d);
        QCOMPARE(d.rows.size(), std::size_t(5));
        QCOMPARE(d.rows[1].kind, DiffKind::Added);
        QCOMPARE(d.rows[1].right, 1);
        QCOMPARE(d.rows[2].kind, DiffKind::Changed);
        QCOMPARE(d.rows[2].left, 1);
        QCOMPARE(d.rows[2].right, 2);
        QCOMPARE(d.rows[3].kind, DiffKind::Removed);
        QCOMPARE(d.rows[3].left, 2);
    }

    void parsesLoopHeaders()
    {
        const std::string line = "        for i_outer, j_inner in T.grid(2, T.min(4, n)):";
        const LoopHeader h = parseLoopHeader(line);
        QCOMPARE(h.names, (std::vector<std::string>{"i_outer", "j_inner"}));
        QCOMPARE(partOf(line, h.nameRanges[1]), std::string("j_inner"));
        QCOMPARE(h.extentRanges.size(), std::size_t(2));
        QCOMPARE(partOf(line, h.extentRanges[1]), std::string("T.min(4, n)"));

        const LoopHeader single = parseLoopHeader("for k in T.parallel(64):");
        QCOMPARE(single.names, std::vector<std::string>{"k"});
        QVERIFY(single.extentRanges.empty());

        QVERIFY(!isLoopHeader("    C[i] = T.float32(0)"));
        QVERIFY(!isLoopHeader("    # for i in range(4):"));
        QVERIFY(!isLoopHeader("    format = 1"));
        QVERIFY(!isLoopHeader("    for i in range(4)")); // no colon: not a header
    }

    void changedLoopsIgnoreLoopsOnlyPushedDeeper()
    {
        const std::string before = "for i in range(64):\n"
                                   "    for j in range(64):\n"
                                   "        C[i, j] = 0\n";
        const std::string after = "for i_outer in range(2):\n"
                                  "    for i_inner in range(32):\n"
                                  "        for j in range(64):\n"
                                  "            C[i_outer * 32 + i_inner, j] = 0\n";
        QCOMPARE(changedLoopLines(before, after), (std::vector<int>{0, 1}));
    }

    void changedLoopsIncludeMovedLoops()
    {
        const std::string before = "for a in range(2):\n"
                                   "    for b in range(4):\n"
                                   "        for c in range(8):\n"
                                   "            x = 0\n";
        const std::string after = "for a in range(2):\n"
                                  "    for c in range(8):\n"
                                  "        for b in range(4):\n"
                                  "            x = 0\n";
        const std::vector<int> loops = changedLoopLines(before, after);
        QCOMPARE(loops.size(), std::size_t(1)); // one of b and c moved past the other
        QVERIFY(loops[0] == 1 || loops[0] == 2);
    }

    // Real steps of samples/matmul_ladder.py ("unroll" climbs every rung).
    void splitStepOnRealTir()
    {
        const VariantView& v = variantNamed(m_ladder, "unroll");
        const int k = stepWithLabel(v, "io, ii = s[C].split(i, factor=32)");
        const StepView& before = v.steps[std::size_t(k - 1)];
        const StepView& after = v.steps[std::size_t(k)];

        // Structured printing: the i loop becomes i_outer, i_inner; indices change, the k loop
        // stays.
        TirDiff d = diffTir(before.structured, after.structured);
        checkRowsCoverBothSides(d);
        QCOMPARE(trimmedLines(d.rightLines, changedLoopLines(d)),
                 std::set<std::string>{"for i_outer, i_inner, j in T.grid(2, 32, 64):"});
        int changed = 0;
        for (const DiffRow& row : d.rows) {
            QVERIFY(row.kind != DiffKind::Added && row.kind != DiffKind::Removed);
            if (row.kind != DiffKind::Changed) continue;
            ++changed;
            QVERIFY2(!row.rightRanges.empty(), d.rightLines[row.right].c_str());
            for (const CharRange& r : row.rightRanges)
                QVERIFY2(partOf(d.rightLines[row.right], r).find("i_") != std::string::npos ||
                             partOf(d.rightLines[row.right], r).find_first_of("0123456789") !=
                                 std::string::npos,
                         partOf(d.rightLines[row.right], r).c_str());
        }
        QCOMPARE(changed, 3); // the loop header, the init store and the update

        // TVM printing: the same loop header changes; every line is accounted for.
        d = diffTir(before.tir, after.tir);
        checkRowsCoverBothSides(d);
        QCOMPARE(trimmedLines(d.rightLines, changedLoopLines(d)),
                 std::set<std::string>{"for i_outer, i_inner, j in T.grid(2, 32, 64):"});
    }

    void splitOfTheReductionAddsALoopOnRealTir()
    {
        const VariantView& v = variantNamed(m_ladder, "unroll");
        const int k = stepWithLabel(v, "ko, ki = s[C].split(k, factor=4)");
        const TirDiff d =
            diffTir(v.steps[std::size_t(k - 1)].structured, v.steps[std::size_t(k)].structured);
        checkRowsCoverBothSides(d);
        QCOMPARE(trimmedLines(d.rightLines, changedLoopLines(d)),
                 std::set<std::string>{"for k_outer, k_inner in T.grid(16, 4):"});
        // "for k in range(64):" does not resemble the new header enough to be shown as its change.
        bool removedK = false;
        for (const DiffRow& row : d.rows)
            if (row.kind == DiffKind::Removed &&
                d.leftLines[row.left].find("for k in range(64):") != std::string::npos)
                removedK = true;
        QVERIFY(removedK);
    }

    void parallelMarksTheNewOuterLoopsOnRealTir()
    {
        const VariantView& v = variantNamed(m_ladder, "unroll");
        const int k = stepWithLabel(v, "s[C].parallel(io)");
        const TirDiff d =
            diffTir(v.steps[std::size_t(k - 1)].structured, v.steps[std::size_t(k)].structured);
        checkRowsCoverBothSides(d);
        // The fused T.grid header splits into a parallel loop and a serial one; the inner loops
        // only move one level deeper and are not marked.
        QCOMPARE(
            trimmedLines(d.rightLines, changedLoopLines(d)),
            (std::set<std::string>{"for i_outer in T.parallel(2):", "for j_outer in range(2):"}));
    }

    void unrollChangesOneLoopOnRealTir()
    {
        const VariantView& v = variantNamed(m_ladder, "unroll");
        const int k = stepWithLabel(v, "s[C].unroll(ki)");
        const TirDiff d =
            diffTir(v.steps[std::size_t(k - 1)].structured, v.steps[std::size_t(k)].structured);
        checkRowsCoverBothSides(d);
        const std::vector<int> loops = changedLoopLines(d);
        QCOMPARE(trimmedLines(d.rightLines, loops),
                 std::set<std::string>{"for k_inner in T.unroll(4):"});
        const auto row = std::find_if(d.rows.begin(), d.rows.end(),
                                      [&](const DiffRow& r) { return r.right == loops[0]; });
        QCOMPARE(row->kind, DiffKind::Changed);
        QCOMPARE(partsOf(d.rightLines[row->right], row->rightRanges),
                 std::vector<std::string>{"T.unroll"});
        QCOMPARE(partsOf(d.leftLines[row->left], row->leftRanges),
                 std::vector<std::string>{"range"});
    }

    void everyStepOfEverySampleAligns()
    {
        for (const char* sample : {"matmul_ladder.py", "opt_gemm.py", "conv2d.py", "softmax.py"}) {
            const std::string script = readSample(sample);
            const bool matmul = script.find("\nM = ") != std::string::npos ||
                                script.find("\nM, ") != std::string::npos;
            const Exploration x =
                matmul ? explore(script, {{"M", 64}, {"N", 64}, {"K", 64}}) : explore(script);
            QVERIFY2(x.ok, qPrintable(QString::fromStdString(std::string(sample) + ": " +
                                                             x.error.message)));
            int compared = 0;
            for (const VariantView& v : x.variants)
                for (std::size_t k = 1; k < v.steps.size(); ++k, ++compared) {
                    checkRowsCoverBothSides(diffTir(v.steps[k - 1].tir, v.steps[k].tir));
                    checkRowsCoverBothSides(
                        diffTir(v.steps[k - 1].structured, v.steps[k].structured));
                    if (QTest::currentTestFailed())
                        qWarning("in %s, %s step %zu", sample, v.name.c_str(), k);
                }
            // Every sample has variants with several steps: the loop above compared something.
            QVERIFY2(compared >= 3, sample);
        }
    }
};

LOOPSCOPE_QTEST_MAIN(TirDiffTest)
#include "TirDiffTest.moc"
