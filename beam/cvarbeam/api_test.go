package cvarbeam_test

import (
	"flag"
	"testing"

	"github.com/cvarlearn/cvar/internal/apitest"
)

// cvarbeam's public surface is kept in testdata/api, so that a change of it
// shows as a diff. After a deliberate change, regenerate it with
//
//	go test -run TestAPI ./cvarbeam -update-api
var updateAPI = flag.Bool("update-api", false, "rewrite testdata/api from the package's go doc -all")

// TestAPI compares cvarbeam's declarations, as go doc -all lists them
// without their doc text, with testdata/api/cvarbeam.txt.
func TestAPI(t *testing.T) {
	t.Parallel()
	apitest.Check(t, "github.com/cvarlearn/cvar/beam", "go test -run TestAPI ./cvarbeam -update-api", *updateAPI)
}
