package batch

import "testing"

// TestRegistry checks that every kind builds a model of that name whose
// parameter count is NumParams', and that Kinds hands out its own slice.
func TestRegistry(t *testing.T) {
	t.Parallel()
	kinds := Kinds()
	if len(kinds) != 5 {
		t.Fatalf("Kinds() = %v", kinds)
	}
	kinds[0] = "changed"
	if Kinds()[0] != KindLogistic {
		t.Fatal("changing the slice Kinds returned changed the registry")
	}
	for _, kind := range Kinds() {
		d, k, hidden := 7, 0, 0
		switch kind {
		case KindLogistic:
			k = 2
		case KindSoftmax:
			k = 3
		case KindMLP:
			k, hidden = 4, 5
		}
		m, err := NewModel[float32](kind, d, k, hidden)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		p, err := NumParams(kind, d, k, hidden)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if m.Name() != kind || m.NumParams() != p {
			t.Errorf("%s: model %s with %d parameters; NumParams says %d", kind, m.Name(), m.NumParams(), p)
		}
	}
	m, err := NewModel[float64](KindMLP, 3, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if h := m.(*MLP[float64]).Hidden(); h != DefaultHidden {
		t.Errorf("NewModel mlp with hidden 0 has %d hidden units, want DefaultHidden %d", h, DefaultHidden)
	}
}
