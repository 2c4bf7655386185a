// Package jsonfloat holds the JSON forms of float64 values that may be NaN
// or infinite, which encoding/json refuses. There are two, because the
// program writes two kinds of JSON:
//
//   - [Lossy], for reports read by people and scripts (the command's -json
//     output): a non-finite value is null, "no number".
//   - [Exact], for files read back by this program (model file headers):
//     NaN, +Inf and −Inf are the strings "NaN", "+Inf" and "-Inf", so that
//     a value round-trips.
//
// Declare a struct field of either type and encoding/json writes it in that
// form; Exact also reads it back. Both write a finite value the same way.
// They write the shortest decimal that reads back to the same float64
// (strconv 'g', −1).
package jsonfloat
