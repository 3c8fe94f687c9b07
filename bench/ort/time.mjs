// Times an ONNX model with ONNX Runtime (CPU) for the model benchmark: the reference a user runs
// an ONNX model with. Only bench/models-vs-ort.sh runs this; nothing in the build or the tests
// does. Inputs are seeded uniform values in [-1, 1) of each input's declared shape (symbolic
// dimensions are 1), or the dimensions given with --shape NAME=D0xD1...
//
//   node bench/ort/time.mjs MODEL.onnx [--threads N] [--runs R] [--warmup W] [--shape NAME=DIMS]
//                           [--save DIR]
//
// Prints one line: "ort MODEL median_ms min_ms max_ms runs threads". --save DIR also writes the
// inputs it fed and the outputs ONNX Runtime computed as TensorProto files (input_0.pb, ...,
// output_0.pb, ..., as ONNX's test data names them), for `loopscope-cli model run --input` and
// compare.mjs.
import * as ort from 'onnxruntime-node';
import { writeTensor } from './tensorproto.mjs';

const args = process.argv.slice(2);
if (args.length < 1) {
    console.error('usage: node time.mjs MODEL.onnx [--threads N] [--runs R] [--warmup W] [--shape NAME=DIMS]');
    process.exit(2);
}
const model = args[0];
let threads = 2, runs = 50, warmup = 5, save = '';
const shapes = {};
for (let i = 1; i < args.length; ++i) {
    const a = args[i], v = args[i + 1];
    if (a === '--threads') { threads = Number(v); ++i; }
    else if (a === '--runs') { runs = Number(v); ++i; }
    else if (a === '--warmup') { warmup = Number(v); ++i; }
    else if (a === '--save') { save = v; ++i; }
    else if (a === '--shape') { const [n, d] = v.split('='); shapes[n] = d.split('x').map(Number); ++i; }
    else { console.error(`time.mjs: unknown option ${a}`); process.exit(2); }
}

const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
});

// A small linear congruential generator, so that every run feeds the same values.
let state = 12345;
const next = () => { state = (state * 1103515245 + 12345) % 2147483648; return state / 2147483648 * 2 - 1; };

const feeds = {};
for (const meta of session.inputMetadata) {
    const name = meta.name;
    const dims = shapes[name] ?? meta.shape.map(d => (typeof d === 'number' && d > 0 ? d : 1));
    const n = dims.reduce((a, b) => a * b, 1);
    if (meta.type === 'float32' || meta.type === undefined) {
        const data = new Float32Array(n);
        for (let j = 0; j < n; ++j) data[j] = next();
        feeds[name] = new ort.Tensor('float32', data, dims);
    } else if (meta.type === 'int64') {
        feeds[name] = new ort.Tensor('int64', new BigInt64Array(n), dims);
    } else {
        console.error(`time.mjs: input ${name} has type ${meta.type}, which this script does not fill`);
        process.exit(2);
    }
}

for (let i = 0; i < warmup; ++i) await session.run(feeds);
const times = [];
for (let i = 0; i < runs; ++i) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
console.log(`ort ${model} ${median.toFixed(3)} ${times[0].toFixed(3)} ${times[times.length - 1].toFixed(3)} ${runs} ${threads}`);
if (save) {
    const outputs = await session.run(feeds);
    session.inputNames.forEach((n, i) => writeTensor(`${save}/input_${i}.pb`, n, feeds[n]));
    session.outputNames.forEach((n, i) => writeTensor(`${save}/output_${i}.pb`, n, outputs[n]));
}
