package dataset

import (
	"slices"
	"strconv"
	"testing"
)

// Numbers leave the classes to TaskInference; a text that is not a
// number, as the readers take numbers, makes every text a class, in
// byte-wise order, whatever the order of the parts' merges.
func TestClassTexts(t *testing.T) {
	var num ClassTexts
	for _, s := range []string{"1", "-2.5", "1e3", "0"} {
		num.Add(s)
	}
	if c, err := num.Classes(); c != nil || err != nil {
		t.Errorf("numbers: classes %q, %v", c, err)
	}
	var a, b ClassTexts
	for _, s := range []string{"dog", "1", "cat"} {
		a.Add(s)
	}
	b.Add("0x10") // hexadecimal is no number of a data file
	b.Add("dog")
	enc, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back ClassTexts
	if err := back.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	back.Merge(&b)
	b.Merge(&a)
	want := []string{"0x10", "1", "cat", "dog"}
	for _, c := range []*ClassTexts{&back, &b} {
		if got, err := c.Classes(); !slices.Equal(got, want) || err != nil {
			t.Errorf("classes %q, %v; want %q", got, err, want)
		}
	}
	var many ClassTexts
	for i := range MaxClassTexts + 1 {
		many.Add("c" + strconv.Itoa(i))
	}
	if _, err := many.Classes(); err == nil {
		t.Error("more than MaxClassTexts texts were taken")
	}
}
