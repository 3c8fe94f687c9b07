// What resuming a tuning log does with a log's text, for the tuning-log fuzzer (fuzz/) and the
// replay of what it once found (tests/core/tune): every line read as a record (or reported), each
// record's steps replayed onto a matmul-with-bias schedule, written as statements and as a
// measuring script. A damaged or hostile log may be refused line by line, never crash.
#pragma once

#include "te/Program.h"
#include "tune/Space.h"
#include "tune/TuneLog.h"

#include <cstdlib>
#include <sstream>
#include <string>

namespace loopscope {

// The lines that were records, and of them the ones whose steps replayed.
struct LogReplay {
    int records = 0;
    int replayed = 0;
};

inline LogReplay replayLogText(const std::string& text)
{
    static const EvalResult program = evaluateScript(R"(from tvm import te
A = te.placeholder((64, 48), name="A")
B = te.placeholder((48, 32), name="B")
k = te.reduce_axis((0, 48), name="k")
C = te.compute((64, 32), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
D = te.compute((64, 32), lambda i, j: C[i, j] + 1.0, name="D")
s = te.create_schedule(D.op)
)");
    if (!program.ok) std::abort();
    const Variant& start = program.program.variants.front();
    LogReplay out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        TuneRecord r;
        std::string why;
        if (!parseRecord(line, &r, &why)) continue;
        ++out.records;
        Realized replay = replaySteps(start, r.steps, true);
        if (replay.ok) {
            ++out.replayed;
            (void)scriptWithVariant("x = 1\n", start, "tuned", replay.statements, true);
        }
        (void)recordLine(r);
    }
    return out;
}

} // namespace loopscope
