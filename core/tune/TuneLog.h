// Tuning records: one JSON object per line for every measured candidate (its steps, the
// statements they print as, its times or why it failed, the machine and threads, the features'
// version), appended as each measurement finishes, so a cancelled or killed run keeps everything
// it measured. Reading is forgiving: a line that is not a record is skipped and reported.
#pragma once

#include "protocol/Messages.h"
#include "tune/StepReplay.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loopscope {

struct TuneRecord {
    std::string workload; // the program and the start variant's pinned steps, sizes aside
    std::string variant;  // the start variant
    std::map<std::string, std::int64_t> sizes;
    std::string sketch;
    std::vector<NamedStep> steps;
    std::vector<std::string> statements;
    std::string status; // "ok", "wrong", "error", "crashed", "timeout", "invalid"
    std::string error;
    std::vector<double> ms; // the measurements (one when too slow to time)
    double msMedian = 0;
    double flops = 0;
    double gflops = 0;
    double compileMs = 0;
    bool checked = false;
    // The machine it was measured on, without its feature string (records from before a fact
    // was kept have it empty, 0).
    protocol::Machine machine;
    int threads = 0; // the measurement's
    int featuresVersion = 0;
    int trial = 0;       // 1-based, in its run
    double elapsedS = 0; // since its run started
    std::string time;    // ISO 8601, UTC

    // Checked and timed: a speed that counts (a program without arithmetic, such as a transpose,
    // has 0 GFLOPS and is compared by its time).
    bool ok() const { return status == "ok" && msMedian > 0; }
};

// One line, without the newline.
std::string recordLine(const TuneRecord& record);

// The record a line holds, or false with why not.
bool parseRecord(const std::string& line, TuneRecord* record, std::string* why);

struct LogContents {
    std::vector<TuneRecord> records;
    std::vector<std::string> problems; // "line 7: ...", one per skipped line
    bool exists = false;
};

// Every record of the file. A missing file is empty, not a problem.
LogContents readLog(const std::string& path);

// Appends one line and flushes it to the file; false with why not.
bool appendRecord(const std::string& path, const TuneRecord& record, std::string* why);

// A file with problems is moved aside as PATH.corrupt-YYYYMMDD-HHMMSS and PATH is written anew
// with the records that were whole; returns where it went (empty when nothing had to move).
std::string setAsideCorruptLog(const std::string& path, const std::vector<TuneRecord>& whole);

// Writes `text` as the whole of PATH: a new copy beside it, renamed over it once all of it is
// written, so a failed write leaves the file as it was (a script the tuner adds a variant to, a
// model's project file). False with why ("cannot write PATH: reason").
bool writeFileSafely(const std::string& path, const std::string& text, std::string* why);

// A key for the program a variant schedules and the steps it starts from, independent of the
// parameters' values (so records at one size can warm up tuning at another).
std::string workloadKey(const Variant& start);

// The file name of a script's tuning log in the app's data folder ("gemm-1a2b3c4d.jsonl": the
// script's name and a hash of its absolute path), the same for the window and the command line.
std::string tuningLogFileName(const std::string& scriptPath);

// FNV-1a of the text, its low `digits` hex digits (at most 16).
std::string fnv1aHex(const std::string& text, int digits = 16);

// The current time as ISO 8601 UTC.
std::string isoTimeNow();

} // namespace loopscope
