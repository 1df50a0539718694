package bench

import (
	"fmt"
	"strconv"
	"testing"
)

// The hostile-input suite measures, for each entry point of utf8guard that
// takes request text, what the worst inputs known for it cost beside benign
// input of the same size, at 16 KiB, 64 KiB, 256 KiB and 1 MiB:
//
//	BenchmarkHostile/entry=NFC.IsNormal/case=q-acute/bound=20/size=64KiB/impl=benign
//	BenchmarkHostile/entry=NFC.IsNormal/case=q-acute/bound=20/size=64KiB/impl=worst
//
// Each row of hostileTable is one construction against one entry point: a
// builder of benign input, a builder of the worst input, and the call to
// measure, which must be linear in the size of its input. bound is the
// highest worst/benign ratio the goals allow for it: 20 for a call of a
// package, and for a request served through the middleware 10 on a strict
// route, 20 on one that normalizes or enforces PRECIS. The benign and the
// worst input of one size run back to back, so that noise on a shared
// machine hits both; cmd/hostile reads the output and prints, per entry
// point, the time at each size, the growth exponent from 16 KiB to 1 MiB
// (the slope of log time against log size, 1 for a linear call), the
// worst/benign ratios, the allocations per input octet and a verdict
// against the goals. bench/run.sh -only hostile runs it in interleaved
// rounds; by hand:
//
//	go test -run '^$' -bench 'Hostile/entry=NFC' -benchmem -cpu=1 -benchtime=200ms ./bench/ > out.txt
//	go run ./bench/cmd/hostile out.txt
//
// Middleware-level rows (entry=echo.JSON, echo.Query, ...) serve a request
// through Echo's ServeHTTP: add such a row to the table with a builder of
// the request body or query and a run function made by hostileServe.
// TestHostileTable checks that every row's inputs have the promised size
// and that the call accepts both (or refuses both: hostileRow.refused).

// A hostileRow is one construction against one entry point.
type hostileRow struct {
	// entry names the entry point: "NFC.IsNormal", "sanitize.ToValid",
	// "echo.JSON".
	entry string
	// name names the construction: "q-acute".
	name string
	// bound is the highest worst/benign ratio the goals allow.
	bound int
	// benign and worst return inputs of exactly n octets (for the
	// middleware, the body or the query), or close to it where the
	// construction cannot fill n exactly (sizeSlack).
	benign, worst func(n int) []byte
	// setup prepares the call on an input: it returns the function that
	// the benchmark loop calls. It may fail the benchmark (b.Fatal) on an
	// unexpected answer.
	setup func(tb testing.TB, in []byte) func()
	// sizeSlack is how far under n an input may fall (0: exactly n).
	sizeSlack int
}

// hostileBounds are the bounds of the goals.
const (
	boundPackage     = 20 // a call of a package
	boundStrictRoute = 10 // a request on a route that only checks
	boundNormRoute   = 20 // a request on a route that normalizes or enforces PRECIS
)

// hostileTable holds every row; the files hostile_*_test.go add theirs in
// init functions, so that the rows of one area stay together.
var hostileTable []hostileRow

func addHostile(rows ...hostileRow) { hostileTable = append(hostileTable, rows...) }

var hostileSizes = []struct {
	name string
	n    int
}{{"16KiB", 16 << 10}, {"64KiB", 64 << 10}, {"256KiB", 256 << 10}, {"1MiB", 1 << 20}}

func BenchmarkHostile(b *testing.B) {
	for _, row := range hostileTable {
		name := "entry=" + row.entry + "/case=" + row.name + "/bound=" + strconv.Itoa(row.bound)
		b.Run(name, func(b *testing.B) {
			for _, size := range hostileSizes {
				b.Run("size="+size.name, func(b *testing.B) {
					for _, in := range []struct {
						impl  string
						build func(int) []byte
					}{{"benign", row.benign}, {"worst", row.worst}} {
						b.Run("impl="+in.impl, func(b *testing.B) {
							p := in.build(size.n)
							f := row.setup(b, p)
							b.SetBytes(int64(len(p)))
							b.ReportAllocs()
							b.ResetTimer()
							reportCPU(b, func() {
								for b.Loop() {
									f()
								}
							})
						})
					}
				})
			}
		})
	}
}

// TestHostileTable checks the rows: unique names, inputs of the promised
// size, and a call that does what its setup expects on both, at the
// smallest size (the largest with -long... is left to the benchmark).
func TestHostileTable(t *testing.T) {
	if len(hostileTable) == 0 {
		t.Fatal("no rows")
	}
	seen := map[string]bool{}
	for _, row := range hostileTable {
		key := row.entry + "/" + row.name
		if seen[key] {
			t.Errorf("%s: two rows", key)
		}
		seen[key] = true
		if row.bound <= 0 || row.benign == nil || row.worst == nil || row.setup == nil {
			t.Errorf("%s: incomplete row", key)
			continue
		}
		for _, n := range []int{hostileSizes[0].n} {
			for _, in := range []struct {
				impl  string
				build func(int) []byte
			}{{"benign", row.benign}, {"worst", row.worst}} {
				t.Run(fmt.Sprintf("%s/%s/%s", row.entry, row.name, in.impl), func(t *testing.T) {
					p := in.build(n)
					if len(p) > n || len(p) < n-row.sizeSlack {
						t.Fatalf("%d octets, want %d (slack %d)", len(p), n, row.sizeSlack)
					}
					row.setup(t, p)()
				})
			}
		}
	}
}
