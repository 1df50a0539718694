//go:build amd64 && !purego

package sanitize

import (
	"bytes"
	"strings"
	"testing"
)

// skipText is well-formed text of every length of character, so that a
// run of it puts characters across every block boundary.
const skipText = "aé€😀bж\u0800\U00010000\U0010FFFFz\u07ff\uffef"

// skipErrs are ill-formed sequences of each kind that end a valid run.
var skipErrs = []string{"\xff", "\x80", "\xe2\x82", "\xf0\x9f\x98", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80"}

// TestToValidSkipsValidRuns checks ToValid, ToValidString and AppendValid
// on "error, long valid run, error" against refRepair, with the second
// error at every offset from before the kernels hand a run to skipValid
// to well after it, which covers every octet within 3 of each multiple of
// 64 and of blockStep there, and with the run's characters in every
// phase against the blocks.
//
// With -sweep, the second error goes at every offset (1 s of CPU). The
// default run (and -short) puts it at every 11th, and still within 3
// octets of each multiple of 64 and of blockStep around the hand-over.
func TestToValidSkipsValidRuns(t *testing.T) {
	needRepairKernel(t)
	t.Parallel()
	// The kernels start after the first edge (a block) and hand over
	// after validRun blocks more.
	switchAt := (validRun + 1) * blockStep
	step := 11
	if sweepTests() {
		step = 1
	}
	for _, first := range []int{0, 1, kernelBefore, 63, 64, 65} {
		for phase := range 4 {
			text := strings.Repeat(skipText, 40)[phase:]
			for at := first + 1; at < switchAt+4*64; at += step {
				for _, e := range skipErrs {
					p := []byte(text[:at+len(e)+100])
					copy(p[first:], "\xff")
					copy(p[at:], e)
					checkRepair(t, p)
				}
			}
		}
	}
	// And the table: the second error within 3 octets of each multiple of
	// 64 and of blockStep near the switch, however step goes.
	for _, m := range []int{64, blockStep} {
		for c := switchAt - 2*m; c <= switchAt+3*m; c += m - c%m {
			for d := -3; d <= 3; d++ {
				for _, e := range skipErrs {
					p := []byte(strings.Repeat(skipText, 40)[:c+d+len(e)+200])
					copy(p[0:], "\xff")
					copy(p[c+d:], e)
					checkRepair(t, p)
				}
			}
		}
	}
}

// TestToValidSkipCalls checks that a long valid run after an error goes
// through skipValid, once per pass, which covers nearly all of it (not
// parallel: it sets testHookValidPrefix).
func TestToValidSkipCalls(t *testing.T) {
	needRepairKernel(t)
	p := []byte("\xff" + strings.Repeat(skipText, 2000) + "\xff")
	calls, covered := 0, 0
	testHookValidPrefix = func(k int) { calls++; covered += k }
	got := ToValid(p)
	testHookValidPrefix = nil
	if want := refRepair(p); !bytes.Equal(got, want) {
		t.Fatalf("ToValid of a long run differs from refRepair")
	}
	if calls != 2 || covered < 2*(len(p)-(validRun+2)*blockStep) {
		t.Errorf("ToValid of a long run: %d calls of the validator covering %d octets of %d", calls, covered, len(p))
	}
}

// checkRepair checks ToValid, ToValidString and AppendValid on p against
// refRepair.
func checkRepair(t *testing.T, p []byte) {
	t.Helper()
	want := refRepair(p)
	if got := ToValid(p); !bytes.Equal(got, want) {
		t.Fatalf("ToValid(% X) = % X, reference says % X", p, got, want)
	}
	if got := ToValidString(string(p)); got != string(want) {
		t.Fatalf("ToValidString(% X) = % X, reference says % X", p, got, want)
	}
	if got := AppendValid([]byte("dst"), p); string(got) != "dst"+string(want) {
		t.Fatalf("AppendValid(% X) = % X, reference says % X", p, got, want)
	}
}

// TestToValidAlternatingRuns checks inputs that alternate runs of valid
// text, of about validRun blocks, with errors, so that the kernels hand
// over to skipValid and take back again and again, against refRepair.
func TestToValidAlternatingRuns(t *testing.T) {
	needRepairKernel(t)
	t.Parallel()
	for run := validRun*blockStep - 8; run <= validRun*blockStep+blockStep+8; run++ {
		for _, e := range skipErrs {
			checkRepair(t, alternating(run, e, 4<<10))
		}
	}
}

// alternating returns about n octets of skipText runs of run octets (cut
// at any octet), each followed by e.
func alternating(run int, e string, n int) []byte {
	text := strings.Repeat(skipText, run/len(skipText)+1)[:run]
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(text)
		b.WriteString(e)
	}
	return b.Bytes()
}

// TestRepairKernelsStopForRuns checks that the kernels of each pair stop after
// validRun all-valid blocks in a row (the assembly's literal), and not
// before, whatever errors come earlier.
func TestRepairKernelsStopForRuns(t *testing.T) {
	needRepairKernel(t)
	text := strings.Repeat(skipText, 100)
	for errs := range 3 {
		// errs blocks with an error, then valid ones.
		p := []byte(text[:kernelBefore+(errs+validRun+3)*blockStep+kernelAfter])
		for b := range errs {
			copy(p[kernelBefore+b*blockStep+b:], "\xff")
		}
		blocks := errs + validRun + 3
		want := 0
		for b := range errs + validRun {
			want += countSpan(p, kernelBefore+b*blockStep, kernelBefore+(b+1)*blockStep)
		}
		for _, k := range repairKernels {
			done, m, _ := repairCount(k.kernel, &p[kernelBefore], blocks)
			if done != errs+validRun || m != want {
				t.Errorf("%s, %d errors: repairCount = %d, %d; want %d blocks", k, errs, done, m, errs+validRun)
			}
			out := make([]byte, 3*len(p)+64)
			done, n, run := repairWrite(k.kernel, &p[kernelBefore], blocks, &out[0], len(out))
			if done != errs+validRun || !run || n != m {
				t.Errorf("%s, %d errors: repairWrite = %d, %d, %v; want %d blocks, %d octets, true", k, errs, done, n, run, errs+validRun, m)
			}
		}
	}
}
