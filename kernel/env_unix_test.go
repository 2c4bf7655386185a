//go:build unix

package kernel_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/cvarlearn/cvar/kernel"
)

// envChild names the implementation the child process of
// TestCVARKernelSetByProgram sets CVAR_KERNEL to.
const envChild = "CVAR_KERNEL_TEST_CHILD"

// TestCVARKernelSetByProgram runs this test binary again without CVAR_KERNEL:
// the child sets it with os.Setenv before its first use of the package, as a
// program's main may, and its default must follow.
func TestCVARKernelSetByProgram(t *testing.T) {
	if name := os.Getenv(envChild); name != "" {
		os.Setenv("CVAR_KERNEL", name)
		if got, info := kernel.Default().Name(), kernel.Info(); got != name || info.Reason != "CVAR_KERNEL="+name {
			t.Fatalf("CVAR_KERNEL=%s set before the first use: default %s (%s)", name, got, info)
		}
		return
	}
	impls := kernel.Impls()
	name := impls[len(impls)-1].Name()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCVARKernelSetByProgram$", "-test.count=1")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CVAR_KERNEL=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, envChild+"="+name)
	out, err := cmd.CombinedOutput()
	if errors.Is(err, syscall.ENOEXEC) {
		// User-mode emulation without binfmt_misc cannot start the binary;
		// TestDefaultReadsEnvOnFirstUse checks the rule there.
		t.Skipf("the test binary cannot start itself here: %v", err)
	}
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("child with %s=%s: %v\n%s", envChild, name, err, out)
	}
}
