package cvar_test

import (
	"flag"
	"testing"

	"github.com/cvarlearn/cvar/internal/apitest"
)

// The public surface of every package a user can import is kept in
// testdata/api, one file a package, so that a change of it shows as a diff
// of those files. After a deliberate change, regenerate them with
//
//	go test -run TestAPI -update .
var updateAPI = flag.Bool("update", false, "rewrite testdata/api from the packages' go doc -all")

// TestAPI compares each public package's declarations, as go doc -all
// lists them without their doc text, with its file in testdata/api.
func TestAPI(t *testing.T) {
	t.Parallel()
	apitest.Check(t, "github.com/cvarlearn/cvar", "go test -run TestAPI -update .", *updateAPI)
}
