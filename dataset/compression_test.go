package dataset

import "testing"

// TestCompression: the magic bytes name the compression; text that starts
// like bzip2 and input too short to tell name none.
func TestCompression(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"\x1f\x8b\x08\x00":             "gzip",
		"BZh91AY&SY":                   "bzip2",
		"BZh9\x17\x72\x45\x38\x50\x90": "bzip2",
		"BZh9 is text":                 "",
		"BZh91AY&S":                    "",
		"\x1f\x8b":                     "",
		"CVARMODL":                     "",
		"":                             "",
	} {
		if got := Compression([]byte(in)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
