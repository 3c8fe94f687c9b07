// Tuning records: written and read back whole; lines that are not records are skipped, reported
// and set aside; the best record of a workload and sizes is its fastest checked one, by its
// latest measurement.
#include "tune/TuneLog.h"
#include "support/SourceFiles.h"
#include "support/TuneLogReplay.h"
#include "te/Program.h"
#include "tune/Tuner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace loopscope;

namespace {

TuneRecord sampleRecord(double ms, const std::string& factor = "16")
{
    TuneRecord r;
    r.workload = "abc";
    r.variant = "naive";
    r.sizes = {{"M", 64}, {"N", 32}};
    r.sketch = "C: tiled";
    NamedStep s =
        NamedStep("split", "C").loops("parent", {"i"}).number("factor", std::stoll(factor));
    s.names = {"i_0", "i_1"};
    r.steps = {s};
    r.statements = {"i_0, i_1 = s[C].split(i, factor=" + factor + ")"};
    r.status = "ok";
    r.ms = {ms * 0.9, ms, ms * 1.1};
    r.msMedian = ms;
    r.flops = 2e6;
    r.gflops = r.flops / ms / 1e6;
    r.checked = true;
    r.machine.cpu = "znver4";
    r.machine.vectorBits = 512;
    r.threads = 2;
    r.featuresVersion = 1;
    r.trial = 3;
    r.time = "2026-11-25T21:00:00Z";
    return r;
}

fs::path tempFile(const char* name)
{
    fs::path p = fs::temp_directory_path() / ("loopscope-tunelog-" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p / name;
}

TEST(TuneLog, RecordsRoundTrip)
{
    TuneRecord r = sampleRecord(1.5);
    TuneRecord back;
    std::string why;
    ASSERT_TRUE(parseRecord(recordLine(r), &back, &why)) << why;
    EXPECT_EQ(back.workload, r.workload);
    EXPECT_EQ(back.sizes, r.sizes);
    ASSERT_EQ(back.steps.size(), 1u);
    EXPECT_EQ(back.steps[0], r.steps[0]);
    EXPECT_EQ(back.steps[0].names, r.steps[0].names);
    EXPECT_EQ(back.statements, r.statements);
    EXPECT_DOUBLE_EQ(back.msMedian, 1.5);
    EXPECT_EQ(back.machine.cpu, "znver4");
    EXPECT_EQ(back.threads, 2);
    EXPECT_TRUE(back.ok());
}

// Steps are kept in the log's compact form, by kind ("a" the loops, "n" the number, "t" the text,
// "at" the stage), as every log so far has them; a step that form cannot hold is kept whole, by
// its arguments' names. Both read back as the step.
TEST(TuneLog, StepsAreWrittenCompactlyWhereTheyFitAndWholeWhereNot)
{
    const std::vector<NamedStep> steps = {
        NamedStep("split", "C").loops("parent", {"i"}).number("nparts", 4),
        NamedStep("compute_at", "B").stages("parent", {"C"}).loops("scope", {"i_0"}),
        NamedStep("pragma", "C")
            .loops("var", {"i_0"})
            .text("pragma_type", "auto_unroll_max_step")
            .number("pragma_value", 64),
        NamedStep("cache_read", "A").text("scope", "global").stages("readers", {"C.local"}),
        NamedStep("rfactor", "C").loops("axis", {"k_i"}).number("factor_axis", 0),
        NamedStep("fuse", "C").loops("args", {"i_0", "j_0"}),
        NamedStep("tile", "C")
            .loops("x_parent", {"i"})
            .loops("y_parent", {"j"})
            .number("x_factor", 8)
            .number("y_factor", 4),
        NamedStep("cache_read", "A").text("scope", "shared").stages("readers", {"C", "D"}),
    };
    TuneRecord r = sampleRecord(1.5);
    r.steps = steps;
    const std::string line = recordLine(r);
    EXPECT_NE(line.find(R"({"a":["i"],"n":4,"nparts":true,"p":"split","s":"C"})"),
              std::string::npos)
        << line;
    EXPECT_NE(line.find(R"({"a":["i_0"],"at":"C","p":"compute_at","s":"B"})"), std::string::npos)
        << line;
    EXPECT_NE(line.find(R"({"a":["k_i"],"p":"rfactor","s":"C"})"), std::string::npos) << line;
    EXPECT_NE(line.find(R"("args":{"x_factor":8,"x_parent":["i"],"y_factor":4,"y_parent":["j"]})"),
              std::string::npos)
        << line;
    TuneRecord back;
    std::string why;
    ASSERT_TRUE(parseRecord(line, &back, &why)) << why;
    ASSERT_EQ(back.steps.size(), steps.size());
    for (std::size_t i = 0; i < steps.size(); ++i)
        EXPECT_EQ(back.steps[i], steps[i])
            << describe(steps[i]) << " / " << describe(back.steps[i]);
}

TEST(TuneLog, LinesThatAreNotRecordsAreSkippedAndSetAside)
{
    const fs::path path = tempFile("damaged.jsonl");
    fs::remove(path);
    std::string why;
    ASSERT_TRUE(appendRecord(path, sampleRecord(2.0), &why)) << why;
    {
        std::ofstream out(path, std::ios::app);
        out << "{\"version\": 1, \"workload\": \"abc\"\n"; // cut short
        out << "not json at all\n";
        out << "{\"version\": 1, \"workload\": 3, \"variant\": \"x\"}\n"; // a value of the wrong
                                                                          // kind
    }
    ASSERT_TRUE(appendRecord(path, sampleRecord(1.0, "8"), &why)) << why;
    LogContents log = readLog(path);
    EXPECT_TRUE(log.exists);
    EXPECT_EQ(log.records.size(), 2u);
    ASSERT_EQ(log.problems.size(), 3u);
    EXPECT_EQ(log.problems[0].rfind("line 2: ", 0), 0u) << log.problems[0];
    EXPECT_EQ(log.problems[2].rfind("line 4: ", 0), 0u) << log.problems[2];

    std::string aside = setAsideCorruptLog(path, log.records);
    ASSERT_FALSE(aside.empty());
    EXPECT_TRUE(fs::exists(aside));
    LogContents again = readLog(path);
    EXPECT_EQ(again.records.size(), 2u);
    EXPECT_TRUE(again.problems.empty());
    fs::remove_all(path.parent_path());
}

TEST(TuneLog, AMissingLogIsEmpty)
{
    LogContents log = readLog("/nonexistent/folder/log.jsonl");
    EXPECT_FALSE(log.exists);
    EXPECT_TRUE(log.records.empty());
    EXPECT_TRUE(log.problems.empty());
}

TEST(TuneLog, BestRecordIsTheFastestCheckedAtThoseSizesByItsLatestMeasurement)
{
    std::vector<TuneRecord> records = {sampleRecord(3.0, "4"), sampleRecord(1.0, "8"),
                                       sampleRecord(2.0, "16")};
    records[0].checked = false; // never a best
    records[0].msMedian = 0.5;
    TuneRecord wrong = sampleRecord(0.1, "32");
    wrong.status = "wrong";
    records.push_back(wrong);
    TuneRecord other = sampleRecord(0.2, "64");
    other.sizes = {{"M", 128}, {"N", 32}};
    records.push_back(other);
    const TuneRecord* best = bestRecord(records, "abc", {{"M", 64}, {"N", 32}});
    ASSERT_NE(best, nullptr);
    EXPECT_EQ(best->steps[0].arg("factor")->number, 8);
    // Measured again later, slower: the other one is the best now.
    TuneRecord again = sampleRecord(2.5, "8");
    records.push_back(again);
    best = bestRecord(records, "abc", {{"M", 64}, {"N", 32}});
    ASSERT_NE(best, nullptr);
    EXPECT_EQ(best->steps[0].arg("factor")->number, 16);
    EXPECT_EQ(bestRecord(records, "other", {{"M", 64}, {"N", 32}}), nullptr);
}

TEST(TuneLog, TheWorkloadIgnoresSizesButNotTheProgramOrItsPins)
{
    auto key = [](const std::string& sizes, const std::string& pins) {
        std::string script = sizes + R"(
from tvm import te
A = te.placeholder((M, N), name="A")
B = te.compute((M, N), lambda i, j: A[i, j] * 2.0, name="B")
s = te.create_schedule(B.op)
)" + pins;
        EvalResult r = evaluateScript(script);
        EXPECT_TRUE(r.ok) << r.error.message;
        return workloadKey(r.program.variants.at(0));
    };
    EXPECT_EQ(key("M = 64\nN = 32", ""), key("M = 1024\nN = 8", ""));
    EXPECT_NE(key("M = 64\nN = 32", ""), key("M = 64\nN = 32", "s[B].parallel(B.op.axis[0])\n"));
}

// Integers that are fractions or out of range are refused by name (casting 1e300 to int is
// undefined behaviour, which the tuning-log fuzzer found).
TEST(TuneLog, RefusesIntegersThatAreFractionsOrOutOfRange)
{
    const std::string head = R"({"workload":"w","variant":"v","steps":[],"status":"ok",)";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {head + R"("version":1e300,"sizes":{}})", "record version"},
        {head + R"("version":1,"sizes":{"n":1e300}})", "a size"},
        {head + R"("version":1,"sizes":{"n":2.5}})", "a size"},
        {head + R"("version":1,"sizes":{},"machine":{"vector_bits":1e300}})", "vector_bits"},
        {head + R"("version":1,"sizes":{},"threads":4294967296})", "threads"},
        {head + R"("version":1,"sizes":{},"trial":18446744073709551615})", "trial"},
    };
    for (auto& [line, name] : cases) {
        SCOPED_TRACE(line);
        TuneRecord r;
        std::string why;
        EXPECT_FALSE(parseRecord(line, &r, &why));
        EXPECT_NE(why.find(name), std::string::npos) << why;
    }
    TuneRecord r;
    std::string why;
    EXPECT_TRUE(parseRecord(head + R"("version":1,"sizes":{"n":64},"threads":2})", &r, &why))
        << why;
    EXPECT_EQ(r.sizes.at("n"), 64);
    EXPECT_EQ(r.threads, 2);
}

// What the tuning-log fuzzer (fuzz/TuneLogFuzzer.cpp) once failed on: each input is read and
// replayed without a crash or an internal error, and the seed log replays whole.
TEST(FuzzerRegressions, TuningLogInputsAreReadOrRefused)
{
    const fs::path root = fs::path(LOOPSCOPE_SOURCE_DIR) / "fuzz";
    int inputs = 0;
    for (const char* folder : {"regressions/tunelog", "seeds/tunelog"}) {
        std::error_code ec;
        for (auto& e : fs::directory_iterator(root / folder, ec)) {
            SCOPED_TRACE(e.path().filename().string());
            LogReplay r = replayLogText(readText(e.path()));
            if (std::string(folder) == "seeds/tunelog") {
                EXPECT_GT(r.records, 0);
                EXPECT_EQ(r.replayed, r.records);
            }
            ++inputs;
        }
    }
    EXPECT_GE(inputs, 2);
}

} // namespace
