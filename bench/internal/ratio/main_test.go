package main

import "testing"

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		line                string
		bench, params, impl string
		ns, mbs, allocs     float64
		ok                  bool
	}{
		{"BenchmarkValidate/class=ascii/size=64B/impl=stdlib         \t 7063947\t        17.52 ns/op\t3653.77 MB/s\t       0 B/op\t       0 allocs/op",
			"Validate", "class=ascii/size=64B", "stdlib", 17.52, 3653.77, 0, true},
		{"BenchmarkValidateString/class=cjk/size=1KiB/impl=sanitize-2 \t 100\t 614.4 ns/op\t1666.59 MB/s\t 0 B/op\t 1 allocs/op",
			"ValidateString", "class=cjk/size=1KiB", "sanitize", 614.4, 1666.59, 1, true},
		{"BenchmarkOther/size=1KiB-8 \t 100\t 614.4 ns/op", "", "", "", 0, 0, 0, false}, // no impl
		{"goos: linux", "", "", "", 0, 0, 0, false},
		{"PASS", "", "", "", 0, 0, 0, false},
	} {
		bench, params, impl, s, ok := parse(tc.line)
		if ok != tc.ok {
			t.Errorf("parse(%q): ok = %v, want %v", tc.line, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if bench != tc.bench || params != tc.params || impl != tc.impl ||
			s.nsPerOp != tc.ns || s.mbPerS != tc.mbs || s.allocs != tc.allocs {
			t.Errorf("parse(%q) = %q %q %q %+v", tc.line, bench, params, impl, s)
		}
	}
}
