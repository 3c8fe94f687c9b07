// One variant exported in any format, the one code path the command-line tool and the window
// (through the worker) share: a standalone TVM script, C source, LLVM IR, assembly, or an object
// file with its C header.
#pragma once

#include "ir/PrimFunc.h"
#include "te/Program.h"

#include <cstdint>
#include <map>
#include <string>

namespace loopscope {

struct ExportOptions {
    std::string format;     // "tvm", "tvm-trace", "c", "llvm", "asm", "obj", "ptx" or "cuda"
    std::string target;     // overrides the variant's target (LLVM IR, assembly, objects, tvm)
    std::string sourceName; // the script's file name, named in the exported text
    std::map<std::string, std::int64_t> symbols; // values of symbolic sizes (tvm format)
    int step = -1; // the variant's step (-1: after its last); not for tvm
    // tvm: the release the script is for, "0.17" to "0.26" (empty: 0.17). Up to 0.19 a TE
    // variant's te.create_schedule form; from 0.20 a TensorIR variant's TVMScript and trace, in
    // v0.20-v0.23's spelling or v0.24-v0.26's.
    std::string tvmRelease;
    // LLVM IR, assembly and objects carry line info pointing at lines of the variant's printed
    // TIR (`lower`'s text): !dbg locations, `.loc 1 LINE` directives, a DWARF line table.
    bool lineInfo = false;
};

struct ExportResult {
    std::string text;     // the export (an object's bytes for obj)
    std::string header;   // obj: the C header with the typed function's prototype
    std::string function; // the exported function's name (tvm.build's name=, else the variant's)
    std::string suffix;   // ".py", ".c", ".ll", ".s", ".o", ".ptx" or ".cu"
    bool binary = false;
};

// The formats, in the order the command-line tool lists them.
inline constexpr const char* kExportFormats[] = {"tvm", "tvm-trace", "c",   "llvm",
                                                 "asm", "obj",       "ptx", "cuda"};

// The TVM releases `--tvm` names: 0.17 to 0.26.
bool isTvmRelease(const std::string& release);
// A release's minor version (0.26: 26), and the TensorIR spelling of a release from 0.20 on
// (v0.20-v0.23's or v0.24-v0.26's).
int tvmMinor(const std::string& release);
TirSpelling tirSpellingOf(const std::string& release);

// Throws UserError for a problem of the script (located), CodegenError when the target is not one
// code can be generated for or the variant cannot be expressed in the format, and
// std::invalid_argument for an unknown format.
ExportResult exportVariant(const std::string& scriptText, const Program& program,
                           const Variant& variant, const ExportOptions& options);

} // namespace loopscope
