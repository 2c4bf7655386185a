// Command torchcmp puts cvar's and PyTorch's Alg 3 epochs side by side: it
// reads `cvarbench -json` reports and bench/torch_epoch.py's JSON lines
// (each possibly several runs, concatenated), trains cvar for as many epochs
// as the torch run did to print cvar's training CVaR beside torch's, and
// writes a Markdown table (bench.WriteTorchTable). bench/torch_compare.sh
// runs it.
//
// Usage:
//
//	torchcmp -cvar cvar.json -torch torch.jsonl [-mnist DIR]
//
// Without -mnist, cvar's training CVaR is left out ("?").
package main
