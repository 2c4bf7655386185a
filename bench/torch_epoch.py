#!/usr/bin/env python3
"""One epoch of cvar's CVaR-SGD (Alg 3) in PyTorch, timed.

The PyTorch side of cvar's comparison with PyTorch (bench/torch_compare.sh runs it
beside cvarbench). It trains exactly the epoch that cvarbench times for
`-methods alg3` (bench.EpochConfig):

  data     MNIST's 60000 training rows, pixels / 255, float32; logistic
           regression on the binary task "class >= 5" (labels +-1), softmax
           and the MLP on the 10 classes
  models   logistic: nn.Linear(784, 1), zeros; softmax: nn.Linear(784, 10),
           zeros; MLP: 784 -> 100 (ReLU) -> 10 with nn.Linear's default init
           (every weight and bias uniform in +-1/sqrt(fan_in), which is what
           batch.MLP.InitParams copies); losses log(1 + e^(-y m)) and
           softmax cross-entropy
  step     minibatch of 512 rows drawn uniformly with replacement, and
           118 = ceil(60000 / 512) steps an epoch; alpha = 0.1, eps = 0.1,
           eta = 0.01 on the raw losses (L = 1), tau's step eta / alpha,
           tau kept >= 0; tau starts at VaR_alpha of the losses at the start
           on 4096 rows spread evenly over the data
  update   theta -= eta * grad_theta F, tau -= (eta / alpha) * dF/dtau with
           F = tau + 1/(alpha b) * sum_i eps * softplus((l_i - tau) / eps),
           so grad_theta F = sum_i sigmoid((l_i - tau) / eps) grad l_i / (alpha b)
           and dF/dtau = 1 - sum_i sigmoid(...) / (alpha b): cvar's step

The default variant is what a PyTorch user writes: autograd on F and
torch.optim.SGD with a parameter group for tau. --variant manual computes the
same gradients by hand (no autograd graph), to show what autograd costs.

It times one untimed (warm) epoch and then --epochs epochs, and prints one
JSON line per model: the best epoch's wall time, the process's CPU time in
that epoch, and the training CVaR_alpha of the losses over all 60000 rows at
the end (cvar's CVaR: the mean of the worst alpha-fraction), so that a reader
can see that both implementations do the same job.

  python3 bench/torch_epoch.py [--mnist DIR] [--models logistic,softmax,mlp]
                               [--threads 1] [--epochs 2] [--variant autograd]
"""

import argparse
import gzip
import json
import math
import os
import struct
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

ALPHA, EPS, LR, BATCH, HIDDEN, INIT_SAMPLE = 0.1, 0.1, 0.01, 512, 100, 4096


def find(dirname, names):
    for name in names:
        for suffix in (".gz", ""):
            p = os.path.join(dirname, name + suffix)
            if os.path.exists(p):
                return p
    raise FileNotFoundError(f"no {names[0]} or {names[0]}.gz in {dirname}")


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    zero, dtype, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype != 0x08:
        raise ValueError(f"{path}: not an IDX file of unsigned bytes")
    dims = struct.unpack(">" + "I" * ndim, data[4 : 4 + 4 * ndim])
    body = bytearray(data[4 + 4 * ndim :])
    return torch.frombuffer(body, dtype=torch.uint8).reshape(dims)


def load_mnist(dirname):
    images = read_idx(find(dirname, ["train-images-idx3-ubyte", "train-images.idx3-ubyte"]))
    labels = read_idx(find(dirname, ["train-labels-idx1-ubyte", "train-labels.idx1-ubyte"]))
    x = images.reshape(images.shape[0], -1).to(torch.float32) / 255
    return x.contiguous(), labels.to(torch.int64)


def make_model(name, d):
    if name == "logistic":
        m = nn.Linear(d, 1)
        nn.init.zeros_(m.weight), nn.init.zeros_(m.bias)
    elif name == "softmax":
        m = nn.Linear(d, 10)
        nn.init.zeros_(m.weight), nn.init.zeros_(m.bias)
    elif name == "mlp":
        m = nn.Sequential(nn.Linear(d, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 10))
    else:
        raise ValueError(f"unknown model {name!r}")
    return m


def losses_of(name, model, x, y):
    """Per-row losses; y is the 0/1 target for logistic, the class otherwise."""
    out = model(x)
    if name == "logistic":
        return F.binary_cross_entropy_with_logits(out.squeeze(1), y, reduction="none")
    return F.cross_entropy(out, y, reduction="none")


def var_cvar(losses, alpha):
    """cvar's VaR_alpha and CVaR_alpha: l_(k+1) and the mean of the worst
    alpha-fraction (the boundary loss counted fractionally), k = floor(alpha n)."""
    s = torch.sort(losses.to(torch.float64), descending=True).values
    n = s.numel()
    an = alpha * n
    k = int(math.floor(an + 1e-9))
    var = s[min(k, n - 1)].item()
    cvar = (s[:k].sum().item() + (an - k) * (s[k].item() if k < n else 0.0)) / an
    return var, cvar


class Trainer:
    def __init__(self, name, x, labels, variant, seed):
        self.name, self.variant = name, variant
        self.x = x
        self.y = (labels >= 5).to(torch.float32) if name == "logistic" else labels
        torch.manual_seed(seed)
        self.model = make_model(name, x.shape[1])
        self.gen = torch.Generator().manual_seed(seed)
        n = x.shape[0]
        rows = torch.tensor([i * n // min(n, INIT_SAMPLE) for i in range(min(n, INIT_SAMPLE))])
        with torch.no_grad():
            init = losses_of(name, self.model, x[rows], self.y[rows])
        tau0, _ = var_cvar(init, ALPHA)
        self.tau = torch.tensor(max(tau0, 0.0), dtype=torch.float32, requires_grad=(variant == "autograd"))
        self.opt = torch.optim.SGD(
            [{"params": self.model.parameters(), "lr": LR}, {"params": [self.tau], "lr": LR / ALPHA}], lr=LR
        )
        self.step = self.step_autograd if variant == "autograd" else self.step_manual

    def batch(self):
        idx = torch.randint(0, self.x.shape[0], (BATCH,), generator=self.gen)
        return self.x.index_select(0, idx), self.y.index_select(0, idx)

    def step_autograd(self):
        xb, yb = self.batch()
        self.opt.zero_grad(set_to_none=True)
        loss = losses_of(self.name, self.model, xb, yb)
        obj = self.tau + F.softplus(loss - self.tau, beta=1 / EPS).sum() / (ALPHA * BATCH)
        obj.backward()
        self.opt.step()
        with torch.no_grad():
            self.tau.clamp_(min=0)

    @torch.no_grad()
    def step_manual(self):
        xb, yb = self.batch()
        tau, c0 = self.tau, 1 / (ALPHA * BATCH)
        if self.name == "logistic":
            w, b = self.model.weight, self.model.bias
            m = torch.addmv(b, xb, w[0])
            ys = 2 * yb - 1
            loss = F.softplus(-ys * m)
            v = torch.sigmoid((loss - tau) / EPS)
            dm = v * (-ys * torch.sigmoid(-ys * m)) * c0
            w[0].sub_(xb.t().mv(dm), alpha=LR)
            b.sub_(dm.sum(), alpha=LR)
        else:
            if self.name == "softmax":
                z = F.linear(xb, self.model.weight, self.model.bias)
            else:
                l1, _, l2 = self.model
                h = F.relu(F.linear(xb, l1.weight, l1.bias))
                z = F.linear(h, l2.weight, l2.bias)
            logp = F.log_softmax(z, dim=1)
            loss = -logp.gather(1, yb[:, None]).squeeze(1)
            v = torch.sigmoid((loss - tau) / EPS)
            dz = logp.exp_()
            dz[torch.arange(BATCH), yb] -= 1
            dz.mul_((v * c0)[:, None])
            if self.name == "softmax":
                self.model.weight.sub_(dz.t().mm(xb), alpha=LR)
                self.model.bias.sub_(dz.sum(0), alpha=LR)
            else:
                dh = dz.mm(l2.weight).mul_(h > 0)
                l2.weight.sub_(dz.t().mm(h), alpha=LR)
                l2.bias.sub_(dz.sum(0), alpha=LR)
                l1.weight.sub_(dh.t().mm(xb), alpha=LR)
                l1.bias.sub_(dh.sum(0), alpha=LR)
        g_tau = 1 - v.sum() * c0
        tau.sub_(g_tau, alpha=LR / ALPHA).clamp_(min=0)

    def epoch(self, steps):
        for _ in range(steps):
            self.step()

    @torch.no_grad()
    def training_risk(self):
        parts = [losses_of(self.name, self.model, xs, ys) for xs, ys in zip(self.x.split(8192), self.y.split(8192))]
        losses = torch.cat(parts)
        _, cvar = var_cvar(losses, ALPHA)
        return cvar, losses.to(torch.float64).mean().item()


def blas_libraries():
    """The BLAS and LAPACK libraries this process has loaded (Linux), resolved:
    Debian's torch calls whatever libblas.so.3 points to, the reference BLAS
    unless OpenBLAS (or another) is installed or put on LD_LIBRARY_PATH."""
    found = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                base = os.path.basename(path)
                if ("blas" in base or "mkl" in base or "blis" in base) and ".so" in base:
                    real = os.path.realpath(path)
                    if real not in found:
                        found.append(real)
    except OSError:
        pass
    return found


def main(argv=None):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mnist", default=os.path.join(root, "..", "shared", "data", "mnist"), help="directory of MNIST's IDX files (gzipped or not)")
    ap.add_argument("--models", default="logistic,softmax,mlp")
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    ap.add_argument("--epochs", type=int, default=2, help="timed epochs after one untimed one; the best is reported")
    ap.add_argument("--warm", type=int, default=1, help="untimed epochs first")
    ap.add_argument("--variant", default="autograd", choices=["autograd", "manual"])
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    x, labels = load_mnist(a.mnist)
    steps = -(-x.shape[0] // BATCH)
    for name in a.models.split(","):
        t = Trainer(name.strip(), x, labels, a.variant, a.seed)
        for _ in range(a.warm):
            t.epoch(steps)
        best = None
        for _ in range(a.epochs):
            w0, c0 = time.perf_counter(), time.process_time()
            t.epoch(steps)
            w, c = time.perf_counter() - w0, time.process_time() - c0
            if best is None or w < best[0]:
                best = (w, c)
        cvar, mean = t.training_risk()
        print(
            json.dumps(
                {
                    "model": t.name,
                    "impl": "torch",
                    "variant": a.variant,
                    "threads": a.threads,
                    "s_per_epoch": best[0],
                    "cpu_s": best[1],
                    "timed": f"best of {a.epochs} epochs",
                    "steps_per_epoch": steps,
                    "epochs_trained": a.warm + a.epochs,
                    "train_cvar": cvar,
                    "train_mean_loss": mean,
                    "tau": float(torch.as_tensor(t.tau).detach()),
                    "torch": torch.__version__,
                    "python": sys.version.split()[0],
                    "blas": blas_libraries(),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
