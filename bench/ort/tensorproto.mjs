// ONNX TensorProto files for the benchmark scripts, float32 only: written with the fields ONNX's
// test data uses (dims, data_type, name, raw_data) and read back from raw_data or float_data.
// No protobuf library: the few fields are encoded by hand.
import { readFileSync, writeFileSync } from 'node:fs';

function varint(n) {
    const bytes = [];
    let v = BigInt(n);
    do {
        let b = Number(v & 0x7fn);
        v >>= 7n;
        if (v > 0n) b |= 0x80;
        bytes.push(b);
    } while (v > 0n);
    return bytes;
}

export function writeTensor(path, name, tensor) {
    if (tensor.type !== 'float32') throw new Error(`${name}: ${tensor.type}, not float32`);
    const out = [];
    for (const d of tensor.dims) out.push(0x08, ...varint(d));
    out.push(0x10, 1); // FLOAT
    const nameBytes = Buffer.from(name, 'utf8');
    out.push(0x42, ...varint(nameBytes.length), ...nameBytes);
    const raw = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
    writeFileSync(path, Buffer.concat([Buffer.from(out), Buffer.from([0x4a, ...varint(raw.length)]), raw]));
}

export function readTensor(path) {
    const b = readFileSync(path);
    let i = 0;
    const read = () => {
        let v = 0n, shift = 0n;
        for (;;) {
            const c = b[i++];
            v |= BigInt(c & 0x7f) << shift;
            if (!(c & 0x80)) return v;
            shift += 7n;
        }
    };
    const dims = [];
    let values = null;
    const floats = [];
    while (i < b.length) {
        const key = Number(read()), field = key >> 3, wire = key & 7;
        if (wire === 0) {
            const v = read();
            if (field === 1) dims.push(Number(v));
        } else if (wire === 2) {
            const n = Number(read());
            const body = b.subarray(i, i + n);
            i += n;
            if (field === 9) values = new Float32Array(body.buffer.slice(body.byteOffset, body.byteOffset + n));
            if (field === 4) for (let k = 0; k + 4 <= n; k += 4) floats.push(body.readFloatLE(k));
            if (field === 1) { let j = 0; while (j < n) { let v = 0, s = 0, c; do { c = body[j++]; v += (c & 0x7f) * 2 ** s; s += 7; } while (c & 0x80); dims.push(v); } }
        } else if (wire === 5) {
            if (field === 4) floats.push(b.readFloatLE(i));
            i += 4;
        } else if (wire === 1) {
            i += 8;
        } else {
            throw new Error(`${path}: not a TensorProto this script reads`);
        }
    }
    return { dims, data: values ?? Float32Array.from(floats) };
}
