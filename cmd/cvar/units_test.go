package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRegressionReportOneUnit: a regression report on standardised
// targets shows the initial losses' VaR in the target's units on the step
// line as on the τ line, and no constants of the theorems (+Inf on
// K = R^d) under the practical rule.
func TestRegressionReportOneUnit(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range 600 {
		a, c := float64(i%17)-8, float64(i%13)-6
		fmt.Fprintf(&b, "%g,%g,%g\n", a, c, 100*(2*a-c)+float64(i%7*30))
	}
	out := ok(t, "train", "-data", write(t, t.TempDir(), "r.csv", b.String()), "-epochs", "2")
	eps := regexp.MustCompile(`VaR_0\.1 of \d+ initial losses \(([^)]+)\)\)`).FindStringSubmatch(out)
	tau := regexp.MustCompile(`from ([^ ]+) \(VaR_0\.1 of \d+ initial losses\)`).FindStringSubmatch(out)
	if eps == nil || tau == nil {
		t.Fatalf("no initial VaR on the step and τ lines:\n%s", out)
	}
	ve, err1 := strconv.ParseFloat(eps[1], 64)
	vt, err2 := strconv.ParseFloat(tau[1], 64)
	if err1 != nil || err2 != nil || vt < 100 || ve < 0.999*vt || ve > 1.001*vt {
		t.Errorf("the initial VaR is %s on the step line and %s on the τ line; want both in the target's units:\n%s", eps[1], tau[1], out)
	}
	if strings.Contains(out, "constants") || strings.Contains(out, "+Inf") {
		t.Errorf("the practical rule's report shows the theorems' constants:\n%s", out)
	}
}
