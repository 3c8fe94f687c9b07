// The worker protocol's codec: every message comes back from its line as it went in, a request of
// another protocol version is refused, a bad field is named, and lines stay one line.
#include "protocol/Codec.h"
#include "protocol/Protocol.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

using namespace loopscope::protocol;

namespace {

template <typename T> T requestRoundTrip(const T& request, std::int64_t id = 42)
{
    RequestLimits limits{2048, 1 << 20};
    const std::string line = encodeRequest(request, id, limits);
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    std::optional<std::int64_t> seen;
    const IncomingRequest in = decodeRequest(line, &seen);
    EXPECT_EQ(seen, id);
    EXPECT_EQ(in.id, id);
    EXPECT_EQ(in.limits, limits);
    EXPECT_EQ(peekCommand(line), commandName(request));
    EXPECT_EQ(peekId(line), id);
    return std::get<T>(in.request);
}

Incoming parsed(const std::string& line, std::int64_t id)
{
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    Incoming in = Incoming::parse(line);
    EXPECT_EQ(in.id(), id);
    return in;
}

SweepPoint samplePoint(bool measured)
{
    SweepPoint p;
    p.variant = "tiled";
    p.values = {256, 512};
    p.threads = 2;
    p.checked = true;
    p.cached = true;
    p.flops = 2e9;
    p.bytes = 3e6;
    p.intensity = 2e9 / 3e6;
    p.runMs = 4.5;
    if (measured) {
        p.msMedian = 4.25;
        p.msMin = 4.0;
        p.msMax = 5.0;
        p.gflops = 470.5;
    } else {
        p.skipped = true;
        p.message = "over the per-point limit";
    }
    return p;
}

} // namespace

TEST(ProtocolCodec, EveryRequestComesBackAsItWent)
{
    EXPECT_EQ(requestRoundTrip(PingRequest{}), PingRequest{});

    MeasureRequest m;
    m.script = "import tvm\n# ü\n";
    m.variant = "tiled";
    m.step = 3;
    m.sets = {{"M", 512}, {"n", 7}};
    m.threads = 2;
    m.check = false;
    m.time = false;
    m.repeat = 9;
    m.number = 4;
    m.minRepeatMs = 12.5;
    m.seed = 77;
    m.optLevel = 1;
    m.maxRunMs = 900;
    m.profileSeconds = 2.5;
    m.hold = true;
    m.testing = {true, true, true, 30};
    EXPECT_EQ(requestRoundTrip(m), m);

    EXPECT_EQ(requestRoundTrip(GoRequest{7, 15.5, 120}), (GoRequest{7, 15.5, 120}));

    EmitRequest e;
    e.script = "s";
    e.variant = "v";
    e.step = 0;
    e.sets = {{"N", 64}};
    e.format = "obj";
    e.source = "opt_gemm.py";
    e.lines = true;
    EXPECT_EQ(requestRoundTrip(e), e);

    SweepRequest s;
    s.script = "s";
    s.parameters = {"M", "N"};
    s.values = {64, 128};
    s.variants = {"naive", "tiled"};
    s.threads = 1;
    s.maxPointSeconds = 2;
    s.check = false;
    s.blas = true;
    s.repeat = 2;
    s.minRepeatMs = 7;
    s.known = {samplePoint(true), samplePoint(false)};
    EXPECT_EQ(requestRoundTrip(s), s);

    EXPECT_EQ(requestRoundTrip(MachineRequest{3}), MachineRequest{3});

    TuneRequest t;
    t.script = "s";
    t.variant = "naive";
    t.sets = {{"M", 1024}};
    t.trials = 0;
    t.seconds = 30;
    t.threads = 2;
    t.forbid = {"rfactor", "pragma"};
    t.log = "/tmp/x.json";
    t.resume = true;
    t.seed = 5;
    t.peak = true;
    t.hand = true;
    t.crashFirst = true;
    t.runner = "srun -N1 -n1 --exclusive 'loopscope-worker'";
    t.runners = 8;
    EXPECT_EQ(requestRoundTrip(t), t);

    ModelRequest mo;
    mo.model = "/models/resnet18.onnx";
    mo.schedules = "none";
    mo.shapes = {{"input", {1, 3, 224, 224}}};
    mo.run = false;
    mo.check = false;
    mo.repeat = 3;
    mo.threads = 1;
    mo.seed = 9;
    EXPECT_EQ(requestRoundTrip(mo), mo);

    ModelChoiceRequest c;
    c.model = "m.onnx";
    c.schedules = "m.loopscope.json";
    c.workload = "conv2d_1x64";
    c.name = "conv_relu_3";
    c.script = "conv.py";
    c.log = "";
    c.reset = true;
    EXPECT_EQ(requestRoundTrip(c), c);
    c.script.reset();
    c.variant = "tuned";
    EXPECT_EQ(requestRoundTrip(c), c);
}

TEST(ProtocolCodec, EveryReplyComesBackAsItWent)
{
    PingReply ping{
        "0.9.0",
        loopscope::kWorkerProtocol,
        {"emit", "ping"},
        "x86_64-pc-linux-gnu",
        {"cascadelake", "Intel(R) Xeon(R) Gold 6248", "node7", "+avx2,+fma", 512, 2, "16.0.6"},
        "cascadelake",
        "",
        true};
    EXPECT_EQ(parsed(encodeReply(1, ping), 1).ping(), ping);

    MeasureReply m;
    m.variant = "tiled";
    m.step = 4;
    m.steps = 4;
    m.threads = 2;
    m.parameters = {{"M", 64}};
    m.notes = {"n took its default, 128"};
    m.lowerMs = 1.5;
    m.compileMs = 20;
    m.runMs = 0.5;
    m.flops = 5e5;
    m.checked = true;
    m.checkRan = true;
    m.checks = {{"C", true, 4096, 1e-6, 2e-7, "", "", "half left out"}};
    m.timing = Timing{0.25, 0.2, 0.3, 4, 5, 2.0};
    StepProfile p;
    p.tir = "@T.prim_func\n";
    p.method = "cpu-clock";
    p.threads = 2;
    p.runs = 100;
    p.seconds = 1;
    p.samples = 900;
    p.inKernel = 850;
    p.lost = 1;
    p.profileMs = 1100;
    p.lineShare = {0.5, 0.5};
    p.loopShare = {-1, 1};
    p.instructions = {{16, "vfmadd231ps %zmm0, %zmm1, %zmm2", 2, 700}};
    p.counters = true;
    p.cycles = 1000000;
    p.instructionsRetired = 2500000;
    p.ipc = 2.5;
    p.l1dMisses = 1200;
    m.profile = p;
    const Incoming ok = parsed(encodeReply(2, m), 2);
    EXPECT_EQ(ok.kind(), Incoming::Kind::Ok);
    EXPECT_EQ(ok.measure(), m);

    MeasureReply wrong;
    wrong.status = MeasureReply::Status::Wrong;
    wrong.variant = "bad";
    wrong.checkRan = true;
    wrong.checks = {{"C", false, 4096, 2.5, 1.0, "C[0, 0] = 3 but expected 1", "", ""}};
    wrong.message = "variant 'bad' step 2 computes wrong numbers: C[0, 0] = 3 but expected 1";
    wrong.firstMismatch = "C[0, 0] = 3 but expected 1";
    wrong.maxAbsError = 2.5;
    StepProfile failed;
    failed.error = "no sampling here";
    wrong.profile = failed;
    const Incoming w = parsed(encodeReply(3, wrong), 3);
    EXPECT_EQ(w.kind(), Incoming::Kind::Wrong);
    EXPECT_EQ(w.measure(), wrong);

    EmitReply e;
    e.format = "obj";
    e.variant = "tiled";
    e.step = 2;
    e.steps = 3;
    e.function = "tiled";
    e.suffix = ".o";
    e.target = "llvm -mcpu=znver4";
    for (int b = 0; b < 256; ++b)
        e.data += static_cast<char>(b);
    e.header = "void tiled(float*);\n";
    e.text = e.header;
    EXPECT_EQ(parsed(encodeReply(4, e), 4).emitted(), e);

    SweepReply s;
    s.points = {samplePoint(true), samplePoint(false)};
    s.parameters = {"M", "N"};
    s.variants = {"tiled"};
    s.total = 2;
    s.measured = 1;
    s.threads = 2;
    s.blas = "OpenBLAS 0.3.21";
    s.blasNote = "";
    EXPECT_EQ(parsed(encodeReply(5, s), 5).sweep(), s);

    MachineReply machine{416.5, 512, 40.25, 2, 3.5};
    EXPECT_EQ(parsed(encodeReply(6, machine), 6).machine(), machine);

    TuneReply t;
    t.start = "naive";
    t.name = "tuned from naive";
    t.trials = 64;
    t.reused = 2;
    t.failed = 3;
    t.bestTrial = 17;
    t.bestGflops = 350;
    t.bestMs = 6.1;
    t.sketch = "C: tiled";
    t.statements = {"s[C].reorder(i, j)"};
    t.bestTir = "@T.prim_func";
    t.notes = {"a note"};
    t.log = "/tmp/log.json";
    EXPECT_EQ(parsed(encodeReply(7, t), 7).tune(), t);

    ModelReply mo;
    mo.model = "resnet18.onnx";
    mo.project = "resnet18.loopscope.json";
    mo.importMs = 12;
    mo.notes = {"folded 20 constants"};
    mo.nodes = {{"conv1", "Conv", {"input"}, {{"c1", "1x64x112x112"}}, 0},
                {"flat", "Flatten", {"c1"}, {{"f", "1x802816"}}, -1}};
    mo.inputs = {{"input", "1x3x224x224"}};
    mo.outputs = {"f"};
    ModelTask task;
    task.name = "conv_relu_1";
    task.workload = "conv2d 1x3x224x224";
    task.anchor = "conv1";
    task.nodes = {"conv1"};
    task.weight = 2;
    task.output = "c1";
    task.gflop = 0.23;
    task.script = "import tvm";
    task.scriptFile = "conv.py";
    task.logFile = "conv.log";
    task.source = "default";
    task.variant = "v";
    task.stale = "chosen on 2026-11-20 on znver4; this is znver1";
    task.measured = true;
    task.ms = 1.5;
    task.share = 0.25;
    task.gflops = 153;
    task.checked = true;
    task.ok = false;
    task.maxAbsError = 0.5;
    task.maxRelError = 0.1;
    task.first = "c1[0] = 1 but expected 2";
    mo.tasks = {task, ModelTask{}};
    mo.tasks[1].source = "default";
    mo.ran = true;
    mo.compileMs = 800;
    mo.bufferBytes = 1e8;
    mo.threads = 2;
    mo.medianMs = 13.5;
    mo.minMs = 13;
    mo.maxMs = 14;
    mo.checked = true;
    mo.checkPassed = false;
    mo.firstWrongTask = "conv_relu_1";
    mo.outputChecks = {{"f", false, 0.5, 0.1, "f[3] = 1 but expected 2"}};
    EXPECT_EQ(parsed(encodeReply(8, mo), 8).model(), mo);

    EXPECT_EQ(parsed(encodeReply(9, ModelChoiceReply{"p.json"}), 9).modelChoice(),
              ModelChoiceReply{"p.json"});

    GpuRunReply gpu;
    gpu.device = {"NVIDIA H100 80GB HBM3", 90, 132, 12040, 49152, 1024};
    gpu.kernels = {{"main_kernel", 40, 0, 8192, 1024}};
    gpu.ms = {1.25, 1.5};
    gpu.outputs = {std::string("\0\x80\xff\x01", 4)};
    gpu.log = "ptxas info";
    EXPECT_EQ(parsed(encodeReply(10, gpu), 10).gpuRun(), gpu);
    PingReply runner;
    runner.triple = "nvptx64-nvidia-cuda";
    runner.gpu = gpu.device;
    EXPECT_EQ(parsed(encodeReply(11, runner), 11).ping(), runner);
}

TEST(ProtocolCodec, AGpuRunComesBackAsItWentAndIsNoWorkerCommand)
{
    GpuRunRequest r;
    r.ptx = ".version 7.8\n.target sm_90\n";
    r.buffers = {{"A", "float32", {64, 64}, 7, false}, {"C", "float16", {64}, std::nullopt, true}};
    r.launches = {{"main_kernel", {4, 4, 1}, {16, 16, 1}, 0, {0, 1}, {64}}};
    r.warmup = 2;
    r.number = 3;
    r.repeat = 9;
    r.device = 1;
    EXPECT_EQ(requestRoundTrip(r), r);
    const auto& commands = workerCommands();
    EXPECT_EQ(std::find(commands.begin(), commands.end(), "gpu_run"), commands.end());
}

TEST(ProtocolCodec, ProgressAndErrorsComeBackAsTheyWent)
{
    const Incoming p = parsed(encodeProgress(3, Progress{"compiling", 0.25}), 3);
    EXPECT_TRUE(p.isProgress());
    EXPECT_EQ(p.progress(), (Progress{"compiling", 0.25}));

    SweepUpdate s{0.5, 1, 2, {"M", "N"}, samplePoint(true)};
    EXPECT_EQ(parsed(encodeProgress(4, s), 4).sweepUpdate(), s);

    TuneUpdate first;
    first.planned = 64;
    first.startTir = "@T.prim_func";
    first.referenceName = "oneDNN 2.6.3";
    first.referenceGflops = 386;
    first.peakGflops = 416;
    first.handName = "blocking";
    first.handGflops = 200;
    first.handMs = 10;
    first.machine = {"znver4", "AMD Ryzen 9 7950X", "node7", "", 512, 16, "16.0.6"};
    EXPECT_EQ(parsed(encodeProgress(5, first), 5).tuneUpdate(), first);

    TuneUpdate later;
    later.fraction = 0.5;
    later.done = 32;
    later.planned = 64;
    later.elapsedS = 12.5;
    later.remainingS = 12;
    later.trial =
        TuneTrial{32, "crashed", 0, 0, "the generated code crashed (SIGSEGV)", "C: tiled"};
    later.bestTrial = 30;
    later.bestGflops = 300;
    later.bestMs = 7;
    later.bestStatements = {"s[C].parallel(i)"};
    later.bestTir = "@T.prim_func";
    EXPECT_EQ(parsed(encodeProgress(6, later), 6).tuneUpdate(), later);

    const ErrorReply e{ErrorReply::Kind::Codegen, "this CPU has no AVX-512", 6, 12};
    const Incoming in = parsed(encodeError(7, e), 7);
    EXPECT_EQ(in.kind(), Incoming::Kind::Error);
    EXPECT_EQ(in.error(), e);
    // An error about a line with no id (it was not JSON) has no id.
    EXPECT_EQ(Incoming::parse(encodeError(std::nullopt, e)).id(), std::nullopt);
}

// A peer of another build names another version: refused before anything else of the request
// is read, with both versions named. A request with no version (a person typing) is served.
TEST(ProtocolCodec, ARequestOfAnotherVersionIsRefused)
{
    try {
        decodeRequest(R"({"id": 1, "cmd": "measure", "protocol": 99, "repeat": "x"})");
        FAIL() << "accepted";
    } catch (const ProtocolError& e) {
        EXPECT_EQ(e.kind(), ErrorReply::Kind::Protocol);
        EXPECT_NE(std::string(e.what()).find("speaks worker protocol 99"), std::string::npos)
            << e.what();
    }
    EXPECT_NO_THROW(decodeRequest(R"({"id": 1, "cmd": "ping"})"));
    EXPECT_EQ(loopscope::protocolMismatch(loopscope::kWorkerProtocol, "the client"), "");
}

TEST(ProtocolCodec, ABadRequestNamesItsField)
{
    auto message = [](const std::string& line) {
        try {
            decodeRequest(line);
        } catch (const ProtocolError& e) {
            EXPECT_EQ(e.kind(), ErrorReply::Kind::Request);
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_EQ(message(R"({"cmd": "measure", "script": "s", "repeat": 0})"),
              "\"repeat\" must be at least 1");
    EXPECT_EQ(message(R"({"cmd": "measure", "script": "s", "step": "last"})"),
              "\"step\" must be an integer");
    EXPECT_EQ(message(R"({"cmd": "measure"})"), "the request needs \"script\", the script's text");
    EXPECT_EQ(message(R"({"cmd": "sweep", "script": "s", "params": []})"),
              "\"params\" must name at least one parameter");
    EXPECT_EQ(message(R"({"cmd": "sweep", "script": "s", "params": ["M"], "known": [{}]})"),
              "\"known\" holds a point without variant, threads or one value per parameter");
    EXPECT_EQ(message(R"({"cmd": "measure", "script": "s", "profile_seconds": 31})"),
              "\"profile_seconds\" is at most 30");
    EXPECT_EQ(message(R"([1, 2])"), "a request must be a JSON object");
    EXPECT_EQ(message(R"({"id": 1})"), "the request has no \"cmd\"");
    EXPECT_NE(message(R"({"cmd": "fly"})").find("unknown command 'fly' (commands: emit, machine,"),
              std::string::npos);
    EXPECT_NE(message("{not json").find("the request is not valid JSON"), std::string::npos);
}

TEST(ProtocolCodec, LinesStayOneLineEvenWithInvalidUtf8)
{
    const std::string line =
        encodeError(1, ErrorReply{ErrorReply::Kind::Document, "a\nb\xff", 0, 0});
    EXPECT_EQ(line.find('\n'), std::string::npos);
    EXPECT_FALSE(Incoming::parse(line).error().message.empty());
}

TEST(ProtocolCodec, SweepPointsKeptOutsideTheWorkerComeBack)
{
    const std::vector<SweepPoint> points = {samplePoint(true), samplePoint(false)};
    for (const SweepPoint& p : points)
        EXPECT_EQ(decodeSweepPoint(encodeSweepPoint(p, {"M", "N"})), p);
    EXPECT_EQ(decodeSweepPoint("{\"variant\": \"x\"}"), std::nullopt);
    EXPECT_EQ(decodeSweepPoint("not json"), std::nullopt);
}

TEST(ProtocolCodec, AMessageOfTheWrongShapeIsAProtocolError)
{
    EXPECT_THROW(Incoming::parse("not json"), ProtocolError);
    EXPECT_THROW(Incoming::parse(R"({"id": 1, "status": "maybe"})"), ProtocolError);
    const Incoming in = Incoming::parse(R"({"id": 1, "status": "ok", "peak_gflops": "fast"})");
    EXPECT_THROW(in.machine(), ProtocolError);
}
