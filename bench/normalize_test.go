package bench

import (
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/utf8guard/utf8guard/normalize"
)

// Sinks of the normalization benchmarks.
var (
	nfcSinkBool  bool
	nfcSinkErr   error
	nfcSinkBytes []byte
)

// nfcInput is one input of the normalization benchmarks.
type nfcInput struct {
	class, size string
	p           []byte
}

// nfcInputs returns the inputs of the validation benchmarks at 1 KiB and
// 64 KiB, all already in NFC, and the latin and mix classes decomposed
// (NFD: every accented letter a base letter and combining marks), whose
// size names are those of the text before decomposition.
func nfcInputs(tb testing.TB) []nfcInput {
	var in []nfcInput
	for _, i := range inputs() {
		if i.size != "1KiB" && i.size != "64KiB" {
			continue
		}
		if !norm.NFC.IsNormal(i.p) {
			tb.Fatalf("%s/%s: not in NFC", i.class, i.size)
		}
		in = append(in, nfcInput{i.class, i.size, i.p})
	}
	for _, i := range inputs() {
		if (i.class == "latin" || i.class == "mix") && (i.size == "1KiB" || i.size == "64KiB") {
			d := norm.NFD.Bytes(i.p)
			if norm.NFC.IsNormal(d) {
				tb.Fatalf("%s/%s: no decomposition", i.class, i.size)
			}
			in = append(in, nfcInput{i.class + "-nfd", i.size, d})
		}
	}
	return in
}

// TestNFCInputs checks the normalization inputs and that both
// implementations agree on them.
func TestNFCInputs(t *testing.T) {
	for _, in := range nfcInputs(t) {
		if got, want := normalize.NFC.IsNormal(in.p), norm.NFC.IsNormal(in.p); got != want {
			t.Errorf("%s/%s: IsNormal %v, norm says %v", in.class, in.size, got, want)
		}
		if got, want := normalize.NFC.Bytes(in.p), norm.NFC.Bytes(in.p); string(got) != string(want) {
			t.Errorf("%s/%s: Bytes differs from norm's", in.class, in.size)
		}
	}
}

// BenchmarkNFCIsNormal compares normalize.NFC.IsNormal with
// norm.NFC.IsNormal.
func BenchmarkNFCIsNormal(b *testing.B) {
	benchNFC(b, func(b *testing.B, p []byte) {
		for b.Loop() {
			nfcSinkBool = norm.NFC.IsNormal(p)
		}
	}, func(b *testing.B, p []byte) {
		for b.Loop() {
			nfcSinkBool = normalize.NFC.IsNormal(p)
		}
	})
}

// BenchmarkNFCCheck compares normalize.NFC.Check, the reject mode (which
// also finds the offset), with norm.NFC.IsNormal, which only answers yes or
// no.
func BenchmarkNFCCheck(b *testing.B) {
	benchNFC(b, func(b *testing.B, p []byte) {
		for b.Loop() {
			nfcSinkBool = norm.NFC.IsNormal(p)
		}
	}, func(b *testing.B, p []byte) {
		for b.Loop() {
			nfcSinkErr = normalize.NFC.Check(p)
		}
	})
}

// BenchmarkNFCBytes compares normalize.NFC.Bytes, the rewrite mode, with
// norm.NFC.Bytes.
func BenchmarkNFCBytes(b *testing.B) {
	benchNFC(b, func(b *testing.B, p []byte) {
		for b.Loop() {
			nfcSinkBytes = norm.NFC.Bytes(p)
		}
	}, func(b *testing.B, p []byte) {
		for b.Loop() {
			nfcSinkBytes = normalize.NFC.Bytes(p)
		}
	})
}

// benchNFC runs norm and normalize on every input, one right after the
// other, under names class=.../size=.../impl=norm|normalize.
func benchNFC(b *testing.B, base, ours func(*testing.B, []byte)) {
	for _, in := range nfcInputs(b) {
		b.Run("class="+in.class+"/size="+in.size, func(b *testing.B) {
			for _, impl := range []struct {
				name string
				f    func(*testing.B, []byte)
			}{{"norm", base}, {"normalize", ours}} {
				b.Run("impl="+impl.name, func(b *testing.B) {
					b.SetBytes(int64(len(in.p)))
					b.ReportAllocs()
					impl.f(b, in.p)
				})
			}
		})
	}
}
