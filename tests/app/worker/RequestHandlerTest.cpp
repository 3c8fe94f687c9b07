// The worker's request handling without a process: one result per request, progress before it,
// errors as results (never exceptions), wrong numbers never reported as a speed.
#include "RequestHandler.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using loopscope::worker::HandlerOptions;
using loopscope::worker::RequestHandler;
using nlohmann::json;

namespace {

const char* kMatmul = R"(import tvm
from tvm import te

M = 64
K = 64
N = 64
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

# variant: naive
s = te.create_schedule(C.op)

# variant: tiled
s = te.create_schedule(C.op)
io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], x_factor=8, y_factor=8)
s[C].vectorize(ji)
s[C].parallel(io)
)";

const char* kGpuBind = R"(import tvm
from tvm import te
n = 1024
A = te.placeholder((n,), name="A")
B = te.compute((n,), lambda i: A[i] * 2, name="B")
s = te.create_schedule(B.op)
bx, tx = s[B].split(B.op.axis[0], factor=64)
s[B].bind(bx, te.thread_axis("blockIdx.x"))
s[B].bind(tx, te.thread_axis("threadIdx.x"))
)";

const char* kSymbolic = R"(import tvm
from tvm import te
n = te.var("n")
A = te.placeholder((n,), name="A")
B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
s = te.create_schedule(B.op)
)";

// Everything one request produced: progress messages, then the result.
struct Reply {
    std::vector<json> progress;
    std::vector<json> results;
    const json& result() const { return results.at(0); }
};

Reply handle(const RequestHandler& handler, const std::string& line)
{
    Reply r;
    handler.handleLine(line, [&](const std::string& text) {
        EXPECT_EQ(text.find('\n'), std::string::npos) << text;
        const json m = json::parse(text);
        EXPECT_TRUE(r.results.empty()) << "a message after the result: " << m.dump();
        if (m.value("status", "") == "progress")
            r.progress.push_back(m);
        else
            r.results.push_back(m);
    });
    return r;
}

Reply handle(const RequestHandler& handler, const json& request)
{
    Reply r = handle(handler, request.dump());
    EXPECT_EQ(r.results.size(), 1u) << request.dump();
    return r;
}

json measure(const char* script, const std::string& variant, json extra = json::object())
{
    json r{{"id", 7},     {"cmd", "measure"},   {"script", script}, {"variant", variant},
           {"repeat", 2}, {"min_repeat_ms", 1}, {"threads", 1}};
    for (auto& [k, v] : extra.items())
        r[k] = v;
    return r;
}

void expectRequestError(const json& result, const std::string& fragment)
{
    EXPECT_EQ(result.value("status", ""), "error") << result.dump();
    EXPECT_EQ(result.value("kind", ""), "request") << result.dump();
    EXPECT_NE(result.value("message", "").find(fragment), std::string::npos) << result.dump();
}

} // namespace

TEST(RequestHandlerTest, PingDescribesTheHostAndTheProtocol)
{
    RequestHandler handler;
    Reply r = handle(handler, json{{"id", 1}, {"cmd", "ping"}});
    const json& p = r.result();
    EXPECT_EQ(p["id"], 1);
    EXPECT_EQ(p["status"], "ok");
    EXPECT_EQ(p["protocol"], loopscope::worker::kProtocolVersion);
    EXPECT_FALSE(p["version"].get<std::string>().empty());
    EXPECT_FALSE(p["cpu"].get<std::string>().empty());
    EXPECT_GE(p["threads"].get<int>(), 1);
    EXPECT_EQ(p["commands"], json::array({"emit", "machine", "measure", "model", "model_choice",
                                          "ping", "sweep", "tune"}));
    EXPECT_EQ(p["testing"], false);
}

// A client of another build names another protocol: refused before the request is read, with a
// message that names both sides' versions. Its own protocol, or none (a person typing), is served.
TEST(RequestHandlerTest, AClientOfAnotherProtocolIsRefused)
{
    RequestHandler handler;
    Reply r = handle(handler, json{{"id", 4}, {"cmd", "ping"}, {"protocol", 99}});
    const json& e = r.result();
    EXPECT_EQ(e["id"], 4);
    EXPECT_EQ(e["status"], "error");
    EXPECT_EQ(e["kind"], "protocol");
    const std::string message = e["message"];
    EXPECT_NE(message.find("the client speaks worker protocol 99, this side speaks " +
                           std::to_string(loopscope::kWorkerProtocol)),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("both sides need the same build"), std::string::npos) << message;
    EXPECT_NE(message.find("this worker is Loopscope "), std::string::npos) << message;
    r = handle(handler, json{{"id", 5}, {"cmd", "ping"}, {"protocol", loopscope::kWorkerProtocol}});
    EXPECT_EQ(r.result()["status"], "ok");
    r = handle(handler, json{{"id", 6}, {"cmd", "ping"}, {"protocol", "one"}});
    EXPECT_EQ(r.result()["kind"], "request");
}

TEST(RequestHandlerTest, MalformedJsonIsAnErrorWithoutId)
{
    RequestHandler handler;
    Reply r = handle(handler, std::string("{\"id\": 3, \"cmd\": "));
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_FALSE(r.result().contains("id"));
    expectRequestError(r.result(), "not valid JSON");
}

TEST(RequestHandlerTest, BlankLinesAreIgnored)
{
    RequestHandler handler;
    EXPECT_TRUE(handle(handler, std::string("  \r")).results.empty());
}

TEST(RequestHandlerTest, BadRequestsAreErrorsWithTheirId)
{
    RequestHandler handler;
    expectRequestError(handle(handler, json::array({1, 2})).result(), "JSON object");
    expectRequestError(handle(handler, json{{"id", 4}}).result(), "no \"cmd\"");
    expectRequestError(handle(handler, json{{"id", "x"}, {"cmd", "ping"}}).result(), "\"id\"");
    Reply unknown = handle(handler, json{{"id", 5}, {"cmd", "autotune"}});
    expectRequestError(unknown.result(), "unknown command 'autotune' (commands: emit, machine, "
                                         "measure, model, model_choice, ping, sweep, tune)");
    expectRequestError(handle(handler, json{{"id", 6}, {"cmd", "tune"}}).result(), "\"script\"");
    expectRequestError(
        handle(handler, json{{"id", 6}, {"cmd", "tune"}, {"script", "x = 1"}, {"trials", -1}})
            .result(),
        "\"trials\"");
    EXPECT_EQ(unknown.result()["id"], 5);
    expectRequestError(handle(handler, json{{"id", 6}, {"cmd", "measure"}}).result(), "\"script\"");
    expectRequestError(handle(handler, measure(kMatmul, "naive", {{"step", "last"}})).result(),
                       "\"step\" must be an integer");
    expectRequestError(
        handle(handler, measure(kMatmul, "naive", {{"sets", json::array()}})).result(), "\"sets\"");
    expectRequestError(handle(handler, measure(kMatmul, "naive", {{"repeat", 0}})).result(),
                       "\"repeat\" must be at least 1");
}

TEST(RequestHandlerTest, MeasureChecksAndTimesAtTheGivenSizes)
{
    RequestHandler handler;
    Reply r = handle(handler, measure(kMatmul, "tiled", {{"sets", {{"M", 32}}}, {"threads", 2}}));
    const json& m = r.result();
    ASSERT_EQ(m["status"], "ok") << m.dump();
    EXPECT_EQ(m["id"], 7);
    EXPECT_EQ(m["variant"], "tiled");
    EXPECT_EQ(m["step"], 3);
    EXPECT_EQ(m["steps"], 3);
    EXPECT_EQ(m["parameters"]["M"], 32);
    EXPECT_DOUBLE_EQ(m["flops"].get<double>(), 2.0 * 32 * 64 * 64);
    EXPECT_TRUE(m["checked"].get<bool>());
    ASSERT_EQ(m["check"].size(), 1u);
    EXPECT_EQ(m["check"][0]["tensor"], "C");
    EXPECT_TRUE(m["check"][0]["ok"].get<bool>());
    EXPECT_GT(m["gflops"].get<double>(), 0.0);
    EXPECT_LE(m["ms_min"].get<double>(), m["ms_median"].get<double>());
    EXPECT_LE(m["ms_median"].get<double>(), m["ms_max"].get<double>());
    EXPECT_EQ(m["repeat"], 2);
    EXPECT_GE(m["number"].get<int>(), 1);
    EXPECT_GE(m["compile_ms"].get<double>(), 0.0);
    EXPECT_GE(m["lower_ms"].get<double>(), 0.0);
}

TEST(RequestHandlerTest, ProgressComesBeforeTheResultAndRises)
{
    RequestHandler handler;
    Reply r = handle(handler, measure(kMatmul, "naive", {{"repeat", 3}}));
    ASSERT_EQ(r.result()["status"], "ok");
    std::vector<std::string> phases;
    double last = -1;
    for (auto& p : r.progress) {
        EXPECT_EQ(p["id"], 7);
        double f = p["fraction"].get<double>();
        EXPECT_GE(f, last);
        EXPECT_LE(f, 1.0);
        last = f;
        if (phases.empty() || phases.back() != p["phase"]) phases.push_back(p["phase"]);
    }
    EXPECT_EQ(phases, (std::vector<std::string>{"compiling", "checking", "timing"}));
    EXPECT_DOUBLE_EQ(last, 1.0);
}

TEST(RequestHandlerTest, StepsRunTheScheduleAfterThatManySteps)
{
    RequestHandler handler;
    Reply untransformed =
        handle(handler, measure(kMatmul, "tiled", {{"step", 0}, {"time", false}}));
    EXPECT_EQ(untransformed.result()["status"], "ok");
    EXPECT_EQ(untransformed.result()["step"], 0);
    EXPECT_FALSE(untransformed.result().contains("gflops")); // not timed
    EXPECT_TRUE(untransformed.result()["checked"].get<bool>());
    expectRequestError(handle(handler, measure(kMatmul, "tiled", {{"step", 4}})).result(),
                       "variant 'tiled' has 3 steps; there is no step 4");
    expectRequestError(handle(handler, measure(kMatmul, "tiled", {{"step", -2}})).result(),
                       "there is no step -2");
}

TEST(RequestHandlerTest, UnknownVariantsAndValuesNameWhatExists)
{
    RequestHandler handler;
    expectRequestError(handle(handler, measure(kMatmul, "fast")).result(),
                       "no variant 'fast' in the script (variants: naive, tiled)");
    expectRequestError(handle(handler, measure(kMatmul, "naive", {{"sets", {{"Q", 3}}}})).result(),
                       "no parameter named Q (it has: M, K, N)");
}

TEST(RequestHandlerTest, SetsGiveSymbolicSizesTheirValue)
{
    RequestHandler handler;
    Reply r = handle(handler, measure(kSymbolic, "", {{"sets", {{"n", 100}}}}));
    ASSERT_EQ(r.result()["status"], "ok") << r.result().dump();
    EXPECT_EQ(r.result()["variant"], "s"); // the first variant when none is named
    EXPECT_EQ(r.result()["parameters"]["n"], 100);
    EXPECT_DOUBLE_EQ(r.result()["flops"].get<double>(), 100.0);
    EXPECT_TRUE(r.result()["notes"].empty());
}

TEST(RequestHandlerTest, DocumentErrorsCarryTheirLocation)
{
    RequestHandler handler;
    std::string script = std::string(kMatmul) + "s[C].vectorize(k)\n";
    Reply r = handle(handler, measure(script.c_str(), "tiled"));
    EXPECT_EQ(r.result()["status"], "error");
    EXPECT_EQ(r.result()["kind"], "document");
    EXPECT_EQ(r.result()["line"], 20);
    EXPECT_GT(r.result()["column"].get<int>(), 0);
    EXPECT_FALSE(r.result()["message"].get<std::string>().empty());

    Reply syntax = handle(handler, measure("x = (", "naive"));
    EXPECT_EQ(syntax.result()["kind"], "document");
    EXPECT_EQ(syntax.result()["line"], 1);
}

TEST(RequestHandlerTest, GpuKernelsAreCheckedOnTheCpuAndCodegenRefusalsAreErrors)
{
    RequestHandler handler;
    Reply r = handle(handler, measure(kGpuBind, ""));
    EXPECT_EQ(r.result()["status"], "ok") << r.result().dump();
    EXPECT_TRUE(r.result()["checked"].get<bool>()) << r.result().dump();
    // Without a GPU (the handler was given no runner): checked here, not timed.
    EXPECT_NE(r.result().dump().find("no GPU here: checked on the CPU, not timed"),
              std::string::npos)
        << r.result().dump();
    EXPECT_FALSE(r.result().contains("timing")) << r.result().dump();
    Reply emit = handle(handler, json{{"id", 2}, {"cmd", "emit"}, {"script", kGpuBind}});
    EXPECT_EQ(emit.result()["kind"], "codegen");
}

TEST(RequestHandlerTest, CorruptedOutputIsWrongAndHasNoSpeed)
{
    RequestHandler handler(HandlerOptions{true});
    Reply r = handle(handler, measure(kMatmul, "tiled", {{"corrupt_output", true}}));
    const json& m = r.result();
    EXPECT_EQ(m["status"], "wrong") << m.dump();
    EXPECT_FALSE(m["checked"].get<bool>());
    for (const char* speed : {"gflops", "ms_median", "ms_min", "ms_max", "run_ms"})
        EXPECT_FALSE(m.contains(speed)) << speed;
    EXPECT_EQ(m["first_mismatch"].get<std::string>().rfind("C[0, 0] = ", 0), 0u) << m.dump();
    EXPECT_GT(m["max_abs_error"].get<double>(), 1e-3);
    EXPECT_NE(m["message"].get<std::string>().find("variant 'tiled' step 3 computes wrong numbers"),
              std::string::npos);
    for (auto& p : r.progress)
        EXPECT_NE(p["phase"], "timing");
}

TEST(RequestHandlerTest, AnInternalErrorIsAnsweredAndTheWorkerGoesOn)
{
    RequestHandler handler(HandlerOptions{true});
    Reply broken = handle(handler, measure(kMatmul, "tiled", {{"internal_error", true}}));
    EXPECT_EQ(broken.result()["status"], "error") << broken.result().dump();
    EXPECT_EQ(broken.result()["kind"], "internal");
    EXPECT_EQ(broken.result()["id"], 7);
    const std::string message = broken.result()["message"];
    EXPECT_EQ(message.rfind("internal error at app/worker/RequestHandler.cpp:", 0), 0u) << message;
    EXPECT_NE(message.find("a testing hook asked for an internal error"), std::string::npos)
        << message;
    // The same handler answers the next request.
    EXPECT_EQ(handle(handler, measure(kMatmul, "tiled")).result()["status"], "ok");
}

TEST(RequestHandlerTest, EmitGivesCAndTvmScriptsAsTheCommandLineToolDoes)
{
    RequestHandler handler;
    json request{{"id", 3},       {"cmd", "emit"},        {"script", kMatmul}, {"variant", "tiled"},
                 {"format", "c"}, {"source", "matmul.py"}};
    Reply c = handle(handler, request);
    ASSERT_EQ(c.result()["status"], "ok") << c.result().dump();
    EXPECT_EQ(c.result()["suffix"], ".c");
    EXPECT_NE(c.result()["text"].get<std::string>().find("// matmul.py, variant tiled"),
              std::string::npos);
    EXPECT_NE(c.result()["text"].get<std::string>().find("void tiled(float* restrict A"),
              std::string::npos);
    request["format"] = "tvm";
    Reply tvm = handle(handler, request);
    ASSERT_EQ(tvm.result()["status"], "ok") << tvm.result().dump();
    EXPECT_EQ(tvm.result()["suffix"], ".py");
    EXPECT_NE(tvm.result()["text"].get<std::string>().find("te.create_schedule"),
              std::string::npos);
}

TEST(RequestHandlerTest, TestingHooksNeedTheTestingOption)
{
    RequestHandler handler; // as the worker runs without LOOPSCOPE_WORKER_TESTING=1
    Reply r = handle(
        handler, measure(kMatmul, "naive",
                         {{"corrupt_output", true}, {"crash", true}, {"internal_error", true}}));
    EXPECT_EQ(r.result()["status"], "ok");
}

TEST(RequestHandlerTest, EmitGivesLlvmIrOrAssembly)
{
    RequestHandler handler;
    json request{{"id", 9}, {"cmd", "emit"}, {"script", kMatmul}, {"variant", "tiled"}};
    Reply llvm = handle(handler, request);
    ASSERT_EQ(llvm.result()["status"], "ok") << llvm.result().dump();
    EXPECT_EQ(llvm.result()["format"], "llvm");
    EXPECT_EQ(llvm.result()["function"], "tiled");
    EXPECT_NE(llvm.result()["text"].get<std::string>().find("define"), std::string::npos);
    EXPECT_EQ(llvm.progress.front()["phase"], "lowering");

    request["format"] = "asm";
    request["step"] = 0;
    Reply assembly = handle(handler, request);
    ASSERT_EQ(assembly.result()["status"], "ok");
    EXPECT_EQ(assembly.result()["step"], 0);
    EXPECT_NE(assembly.result()["text"].get<std::string>().find("tiled:"), std::string::npos);

    // An object: its bytes as base64 (an ELF file) and the header with the prototype.
    request["format"] = "obj";
    Reply object = handle(handler, request);
    ASSERT_EQ(object.result()["status"], "ok") << object.result().dump();
    EXPECT_EQ(object.result()["suffix"], ".o");
    EXPECT_EQ(object.result()["data"].get<std::string>().substr(0, 6), "f0VMRg"); // "\x7fELF"
    EXPECT_NE(object.result()["header"].get<std::string>().find("void tiled(float* A"),
              std::string::npos);

    request["format"] = "pdf";
    expectRequestError(handle(handler, request).result(), "unknown format 'pdf'");
}

TEST(RequestHandlerTest, EmitFollowsTheScriptsTarget)
{
    RequestHandler handler;
    std::string script = "A = te.placeholder((256,), name=\"A\")\n"
                         "B = te.compute((256,), lambda i: A[i] * 2.0, name=\"B\")\n"
                         "s = te.create_schedule(B.op)\n"
                         "xo, xi = s[B].split(B.op.axis[0], factor=16)\n"
                         "s[B].vectorize(xi)\n"
                         "f = tvm.build(s, [A, B], target=\"llvm -mcpu=skylake-avx512\")\n";
    json request{{"id", 3}, {"cmd", "emit"}, {"script", script}, {"format", "asm"}};
    Reply r = handle(handler, request);
    ASSERT_EQ(r.result()["status"], "ok") << r.result().dump();
    EXPECT_EQ(r.result()["target"], "llvm -mcpu=skylake-avx512");
    EXPECT_NE(r.result()["text"].get<std::string>().find("%zmm"), std::string::npos);

    request["script"] = script.replace(script.find("skylake-avx512"), 14, "no-such-cpu");
    Reply bad = handle(handler, request);
    EXPECT_EQ(bad.result()["status"], "error");
    EXPECT_EQ(bad.result()["line"], 6) << bad.result().dump();
    EXPECT_NE(bad.result()["message"].get<std::string>().find("-mcpu=no-such-cpu names no CPU"),
              std::string::npos)
        << bad.result().dump();
}

TEST(RequestHandlerTest, SweepStreamsOnePointPerProgressMessage)
{
    RequestHandler handler;
    json request{
        {"id", 9},           {"cmd", "sweep"}, {"script", kMatmul}, {"params", {"M", "N", "K"}},
        {"values", {8, 16}}, {"threads", 1},   {"repeat", 1},       {"min_repeat_ms", 0.5},
        {"blas", true}};
    Reply r = handle(handler, request);
    const json& result = r.result();
    ASSERT_EQ(result["status"], "ok") << result.dump();
    bool blas = result.contains("blas");
    std::size_t total = blas ? 6u : 4u; // naive, tiled (and OpenBLAS) at 8 and 16
    EXPECT_EQ(result["total"], total);
    EXPECT_EQ(result["measured"], total);
    ASSERT_EQ(r.progress.size(), total);
    ASSERT_EQ(result["points"].size(), total);
    for (std::size_t i = 0; i < total; ++i) {
        const json& m = r.progress[i];
        EXPECT_EQ(m["id"], 9);
        EXPECT_EQ(m["phase"], "sweep");
        EXPECT_EQ(m["done"], i + 1);
        EXPECT_EQ(m["total"], total);
        EXPECT_DOUBLE_EQ(m["fraction"].get<double>(), double(i + 1) / double(total));
        const json& p = m["point"];
        EXPECT_EQ(p, result["points"][i]);
        EXPECT_EQ(p["M"], i < total / 2 ? 8 : 16);
        EXPECT_GT(p["gflops"].get<double>(), 0.0) << p.dump();
        if (!p["reference"].get<bool>()) {
            EXPECT_TRUE(p["checked"].get<bool>());
        }
    }
    EXPECT_EQ(r.progress[0]["point"]["variant"], "naive");
    EXPECT_EQ(r.progress[1]["point"]["variant"], "tiled");

    // The worker remembers: the same sweep again measures nothing.
    Reply again = handle(handler, request);
    EXPECT_EQ(again.result()["measured"], 0);
    EXPECT_TRUE(again.result()["points"][0]["cached"].get<bool>());
}

TEST(RequestHandlerTest, SweepTakesKnownPointsFromTheClient)
{
    json request{{"id", 4},
                 {"cmd", "sweep"},
                 {"script", kMatmul},
                 {"params", {"M", "N", "K"}},
                 {"values", {8}},
                 {"threads", 1},
                 {"repeat", 1},
                 {"min_repeat_ms", 0.5},
                 {"variants", {"naive", "tiled"}}};
    json first;
    {
        RequestHandler handler;
        first = handle(handler, request).result();
        ASSERT_EQ(first["status"], "ok") << first.dump();
        EXPECT_EQ(first["measured"], 2);
    }
    // A new worker (as after a cancel) that is handed the first point measures only the second.
    RequestHandler fresh;
    json again = request;
    again["known"] = json::array({first["points"][0]});
    Reply r = handle(fresh, again);
    ASSERT_EQ(r.result()["status"], "ok") << r.result().dump();
    EXPECT_EQ(r.result()["measured"], 1);
    const json& naive = r.result()["points"][0];
    EXPECT_TRUE(naive["cached"].get<bool>());
    EXPECT_EQ(naive["ms_median"], first["points"][0]["ms_median"]);
    EXPECT_FALSE(r.result()["points"][1]["cached"].get<bool>());

    // A point measured with another thread count is not taken for this one.
    json otherThreads = first["points"][1];
    otherThreads["threads"] = 2;
    again["known"] = json::array({otherThreads});
    RequestHandler third;
    EXPECT_EQ(handle(third, again).result()["measured"], 2);

    again["known"] = json::array({json{{"variant", "naive"}}});
    expectRequestError(handle(third, again).result(), "\"known\"");
}

TEST(RequestHandlerTest, SweepRequestErrors)
{
    RequestHandler handler;
    json base{{"id", 3}, {"cmd", "sweep"}, {"script", kMatmul}, {"params", {"M"}}, {"values", {8}}};
    json noParams = base;
    noParams.erase("params");
    expectRequestError(handle(handler, noParams).result(), "\"params\"");
    json badParam = base;
    badParam["params"] = {"Q"};
    expectRequestError(handle(handler, badParam).result(), "no parameter named Q");
    json badValues = base;
    badValues["values"] = {0};
    expectRequestError(handle(handler, badValues).result(), "positive");
    json badVariant = base;
    badVariant["variants"] = {"nope"};
    expectRequestError(handle(handler, badVariant).result(), "no variant 'nope'");
}

TEST(RequestHandlerTest, MachineReportsPlausibleFigures)
{
    RequestHandler handler;
    Reply r = handle(handler, json{{"id", 2}, {"cmd", "machine"}, {"threads", 1}});
    const json& m = r.result();
    ASSERT_EQ(m["status"], "ok") << m.dump();
    EXPECT_GT(m["peak_gflops"].get<double>(), 0.5);
    EXPECT_GT(m["bandwidth_gbs"].get<double>(), 0.1);
    EXPECT_EQ(m["threads"], 1);
}

// The model commands: a sample model's graph and tasks, then a checked and timed run; a task's
// choice written to the project file; a file that is not a model is a document error.
TEST(RequestHandlerTest, ModelsAreReadRunAndChosenFor)
{
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("loopscope-handler-model-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    fs::copy(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples/models/mlp", dir,
             fs::copy_options::recursive);
    const std::string model = (dir / "model.onnx").string();
    RequestHandler handler;
    Reply info =
        handle(handler, json{{"id", 1}, {"cmd", "model"}, {"model", model}, {"run", false}});
    ASSERT_EQ(info.result()["status"], "ok") << info.result().dump();
    EXPECT_EQ(info.result()["tasks"].size(), 4u);
    EXPECT_EQ(info.result()["graph"]["nodes"].size(), 6u);
    EXPECT_FALSE(info.result().contains("median_ms"));
    for (auto& t : info.result()["tasks"])
        EXPECT_NE(t["script"].get<std::string>().find("# variant: naive"), std::string::npos);

    Reply run = handle(handler, json{{"id", 2}, {"cmd", "model"}, {"model", model}, {"repeat", 3}});
    ASSERT_EQ(run.result()["status"], "ok") << run.result().dump();
    EXPECT_TRUE(run.result()["checked"].get<bool>());
    EXPECT_GT(run.result()["median_ms"].get<double>(), 0);
    double shares = 0;
    for (auto& t : run.result()["tasks"]) {
        EXPECT_TRUE(t["ok"].get<bool>()) << t.dump();
        shares += t["share"].get<double>();
    }
    EXPECT_NEAR(shares, 1.0, 1e-9);
    EXPECT_FALSE(run.progress.empty());

    const json& task = info.result()["tasks"][0];
    Reply choice = handle(handler, json{{"id", 3},
                                        {"cmd", "model_choice"},
                                        {"model", model},
                                        {"workload", task["workload"]},
                                        {"name", task["name"]},
                                        {"script", (dir / "model.tasks" / "x.py").string()},
                                        {"variant", "naive"}});
    ASSERT_EQ(choice.result()["status"], "ok") << choice.result().dump();
    std::ifstream in(dir / "model.loopscope.json");
    const json project = json::parse(in);
    EXPECT_EQ(project["tasks"][0]["script"], "model.tasks/x.py");
    EXPECT_EQ(project["tasks"][0]["variant"], "naive");

    std::ofstream(dir / "junk.onnx") << "not a model";
    Reply junk =
        handle(handler, json{{"id", 4}, {"cmd", "model"}, {"model", (dir / "junk.onnx").string()}});
    EXPECT_EQ(junk.result()["status"], "error");
    EXPECT_EQ(junk.result()["kind"], "document");
    EXPECT_NE(junk.result()["message"].get<std::string>().find("junk.onnx"), std::string::npos)
        << junk.result().dump();
    fs::remove_all(dir);
}
