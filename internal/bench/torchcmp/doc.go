// Command torchcmp puts cvar's and PyTorch's Alg 3 epochs side by side. It
// reads `cvarbench -json` reports and bench/torch_epoch.py's JSON lines.
// Each input may hold several runs, concatenated. It trains cvar for as
// many epochs as the torch run did. So it prints cvar's training CVaR
// beside torch's. It writes a Markdown table (bench.WriteTorchTable). The
// script bench/torch_compare.sh runs it.
//
// Usage:
//
//	torchcmp -cvar cvar.json -torch torch.jsonl [-mnist DIR]
//
// Without -mnist, cvar's training CVaR is left out ("?").
package main
