// libFuzzer target for schedules: the input's bytes make the random generator's choices (which
// program, its sizes and type, which primitives with which arguments), and the case is lowered,
// compiled, run and compared with the reference interpreter. Wrong numbers, an unexpected
// exception, a crash in generated code or a sanitizer report is a finding.
#include "support/FuzzRunner.h"
#include "support/RandomSchedule.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    loopscope::installCrashReporter();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace loopscope;
    const FuzzCase c = generateCase(data, size);
    CurrentCase current(c.script, c.description);
    const CaseOutcome r = runScriptChecked(c.script, 1);
    if (r.status == CaseOutcome::Status::Failed) {
        std::fprintf(stderr, "wrong result: %s\n%s---- script ----\n%s---- end ----\n",
                     c.description.c_str(), r.message.c_str(), c.script.c_str());
        std::abort();
    }
    return 0;
}
