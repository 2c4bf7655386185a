module github.com/cvarlearn/cvar/onnx/_gen

go 1.24

require google.golang.org/protobuf v1.36.12
