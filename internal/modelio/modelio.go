// Package modelio reads a model file by path for cvar and cvarbeam. So
// both programs name the file alike in their errors.
package modelio

import (
	"fmt"
	"os"
	"strings"

	"github.com/cvarlearn/cvar"
)

// Read loads the model file at path. A file that is not a valid model
// gives an error that starts with the path.
func Read(path string) (*cvar.ModelFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := cvar.LoadModel(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "cvar: "))
	}
	return m, nil
}
