#!/bin/bash
# Makes the LLVM IR that samples/tensorize_tutorial.py imports (pragma import_llvm):
# the tensorize tutorial's C functions gemv_update and gemv_reset, compiled once with clang (as
# the tutorial does with tvm.contrib.clang.create_llvm) and written in LLVM 16's opaque-pointer
# form without metadata, so that the sample carries it as a string. Run from the project root:
#   scripts/make-gemv-ll.sh > /tmp/gemv.ll
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/gemv.c" <<'C'
int gemv_update(float *cc, float *aa, float *bb, int m, int l, int stride) {
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < l; ++j) {
            cc[i] += aa[j] * bb[i * stride + j];
        }
    }
    return 0;
}
int gemv_reset(float *cc, int m) {
    for (int i = 0; i < m; ++i) {
        cc[i] = 0.0;
    }
    return 0;
}
C
clang -S -emit-llvm -O1 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize -march=x86-64 \
    -o "$dir/gemv.ll" "$dir/gemv.c"
# Typed pointers become opaque ones (LLVM 16), metadata, attributes and comments go.
grep -v '^!\|^attributes\|^;\|^source_filename\|^target\|^$' "$dir/gemv.ll" |
    sed -e 's/, !tbaa ![0-9]*//; s/, !llvm.loop ![0-9]*//; s/ #[0-9]* {$/ {/; s/ #[0-9]*$//' \
        -e 's/ *;.*$//; s/float\*/ptr/g; s/i8\*/ptr/g; s/p0i8/p0/g' \
        -e 's/= bitcast ptr \(%[0-9]*\) to ptr/= getelementptr i8, ptr \1, i64 0/'
