# Makes the sample models in this folder, once, offline: small real networks exported by PyTorch
# (Debian 12's python3-torch 1.13 and python3-torchvision 0.14) to ONNX, opset 14, in eval
# mode, each with a seeded input and PyTorch's own output in ONNX's test-data layout
# (NAME/model.onnx, NAME/test_data_set_0/input_0.pb, output_0.pb).
#
#   /usr/bin/python3 samples/models/make_models.py samples/models
#
# Nothing in the build or the tests runs this; Loopscope reads the files it wrote.
import os
import sys

import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper

torch.manual_seed(0)


class BasicBlock(nn.Module):
    """A ResNet basic block: two 3x3 convolutions with batch norms, a residual add, and a 1x1
    convolution on the shortcut when the block downsamples."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (self.down(x) if self.down is not None else x))


class ResNetTiny(nn.Module):
    """ResNet-18's structure at a small size: a stem with max pool, four stages of two basic
    blocks (the later three downsampling through 1x1 convolutions), global average pool, dense."""

    def __init__(self, width=12, classes=10):
        super().__init__()
        w = width
        self.stem = nn.Sequential(nn.Conv2d(3, w, 3, 1, 1, bias=False), nn.BatchNorm2d(w), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        stages = []
        cin = w
        for i, cout in enumerate([w, 2 * w, 4 * w, 8 * w]):
            stages += [BasicBlock(cin, cout, 1 if i == 0 else 2), BasicBlock(cout, cout, 1)]
            cin = cout
        self.stages = nn.Sequential(*stages)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.stages(self.stem(x))
        x = F.adaptive_avg_pool2d(x, 1)
        return self.fc(torch.flatten(x, 1))


class InvertedResidual(nn.Module):
    """MobileNetV2's block: 1x1 expansion, 3x3 depthwise convolution, 1x1 projection, ReLU6
    (exported as Clip), and a residual add where the shape allows."""

    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.residual = stride == 1 and cin == cout
        self.body = nn.Sequential(
            nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.body(x)
        return x + y if self.residual else y


class MobileNetTiny(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU6())
        self.blocks = nn.Sequential(InvertedResidual(16, 16, 1, 4), InvertedResidual(16, 24, 2, 4),
                                    InvertedResidual(24, 24, 1, 4), InvertedResidual(24, 32, 2, 4),
                                    InvertedResidual(32, 32, 1, 4))
        self.head = nn.Sequential(nn.Conv2d(32, 128, 1, bias=False), nn.BatchNorm2d(128), nn.ReLU6())
        self.fc = nn.Linear(128, classes)

    def forward(self, x):
        x = self.head(self.blocks(self.stem(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 256)
        self.fc2 = nn.Linear(256, 128)
        self.fc3 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return F.softmax(self.fc3(x), dim=-1)


class EncoderBlock(nn.Module):
    """One transformer encoder block written out: multi-head self-attention (MatMul, Softmax,
    Reshape, Transpose), LayerNorm decomposed into ReduceMean, Sub, Pow, Sqrt, Div (opset 14 has
    no LayerNormalization), and a feed-forward layer with GELU through Erf."""

    def __init__(self, dim=64, heads=4, hidden=128):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln1 = nn.LayerNorm(dim)
        self.ln2 = nn.LayerNorm(dim)
        self.ff1 = nn.Linear(dim, hidden)
        self.ff2 = nn.Linear(hidden, dim)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q = q.reshape(b, t, h, d // h).transpose(1, 2)
        k = k.reshape(b, t, h, d // h).transpose(1, 2)
        v = v.reshape(b, t, h, d // h).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-2, -1) / (d // h) ** 0.5, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.ff2(F.gelu(self.ff1(self.ln2(x))))


def export(model, example, folder):
    model.eval()
    # Batch norms with statistics that are not the identity, so that folding them matters.
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    # PRESERVE keeps BatchNormalization nodes (EVAL would fold them into the convolutions),
    # which Loopscope's graph passes fold themselves.
    torch.onnx.export(model, example, path, opset_version=14, do_constant_folding=True,
                      training=torch.onnx.TrainingMode.PRESERVE, input_names=["input"],
                      output_names=["output"])
    with torch.no_grad():
        out = model(example)
    for name, value in (("input_0.pb", example), ("output_0.pb", out)):
        t = numpy_helper.from_array(value.numpy(), "input" if name.startswith("input") else "output")
        with open(os.path.join(folder, "test_data_set_0", name), "wb") as f:
            f.write(t.SerializeToString())
    onnx.checker.check_model(onnx.load(path))
    print(folder, os.path.getsize(path), "bytes")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    export(ResNetTiny(), torch.randn(1, 3, 32, 32), os.path.join(out, "resnet_tiny"))
    export(MobileNetTiny(), torch.randn(1, 3, 32, 32), os.path.join(out, "mobilenet_tiny"))
    export(Mlp(), torch.randn(1, 64), os.path.join(out, "mlp"))
    export(EncoderBlock(), torch.randn(1, 16, 64), os.path.join(out, "encoder_block"))


if __name__ == "__main__":
    main()
