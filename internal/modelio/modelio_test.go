package modelio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadNamesFile: a missing file and a file that is not a model both
// fail, the second with an error that starts with its path and drops the
// library's prefix.
func TestReadNamesFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(filepath.Join(dir, "missing.cvar")); err == nil {
		t.Error("a missing file was read")
	}
	bad := filepath.Join(dir, "bad.cvar")
	if err := os.WriteFile(bad, []byte("not a model\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(bad)
	if err == nil || !strings.HasPrefix(err.Error(), bad+": ") || strings.HasPrefix(strings.TrimPrefix(err.Error(), bad+": "), "cvar: ") {
		t.Errorf("error %v; want one starting %q without the library's prefix", err, bad+": ")
	}
}
