module github.com/cvarlearn/cvar/python/capi

go 1.26.0

require github.com/cvarlearn/cvar v0.0.0

require (
	github.com/klauspost/cpuid/v2 v2.4.2 // indirect
	golang.org/x/sys v0.49.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)

replace github.com/cvarlearn/cvar => ../..
