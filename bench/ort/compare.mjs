// Compares two float32 TensorProto files (Loopscope's output against ONNX Runtime's): prints
// "compare A B max_abs_diff largest_abs_value max_abs_diff/largest elements".
//
//   node bench/ort/compare.mjs A.pb B.pb
import { readTensor } from './tensorproto.mjs';

const [a, b] = process.argv.slice(2).map(readTensor);
if (!a || !b || a.data.length !== b.data.length) {
    console.error('compare.mjs: two tensors of the same size, please');
    process.exit(2);
}
let diff = 0, largest = 0;
for (let i = 0; i < a.data.length; ++i) {
    diff = Math.max(diff, Math.abs(a.data[i] - b.data[i]));
    largest = Math.max(largest, Math.abs(b.data[i]));
}
console.log(`compare ${process.argv[2]} ${process.argv[3]} ${diff.toPrecision(4)} ${largest.toPrecision(4)} ${(diff / (largest || 1)).toPrecision(3)} ${a.data.length}`);
