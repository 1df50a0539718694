package sanitize

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// errorUnits are constructions in which no octet is valid, each octet
// starting or ending a maximal subpart: with the kernels, ToValid fills
// their result with U+FFFD (replaceAll) rather than write it block by
// block. The multi-octet ones straddle the boundaries of blocks (56
// octets) at every offset as they repeat.
var errorUnits = []string{
	"\xff", "\x80", "\xbf", "\xc0\xaf", "\xc1\xbf", "\xf5\x80", "\xed\xa0\x80", "\xed\xbf\xbf",
	"\xe0\x80\x80", "\xe2\x82", "\xf0\x9f\x98", "\xf4\x90\x80\x80", "\xf0\x80", "\xe0\x9f",
	"\xdf\xc0", "\xe2\x82\xf0\x9f\x98\xff",
}

// fillHeads are well-formed prefixes of every length modulo 3, which puts
// the first U+FFFD of the result at each phase of the pattern.
var fillHeads = []string{"", "a", "ab", "abc", "é", "€", "😀", "a€", strings.Repeat("x", 61)}

// TestToValidReplaceAll checks ToValid, ToValidString and AppendValid
// against refRepair on inputs with no valid octet after a well-formed
// head, at lengths around whole numbers of blocks, and that the kernels
// count no valid octet in them (so that repair takes replaceAll).
func TestToValidReplaceAll(t *testing.T) {
	t.Parallel()
	for _, unit := range errorUnits {
		for _, head := range fillHeads {
			for _, n := range []int{64, 65, 111, 112, 113, 167, 168, 169, 300, 448, 449, 1000} {
				p := []byte(head + strings.Repeat(unit, n/len(unit)+1)[:n])
				checkFill(t, p, len(head), true)
			}
		}
	}
}

// TestToValidOneValid puts one valid octet, or one character, at each
// position of errors that otherwise have none: the kernels must count it
// (in a block, an edge, or a block's first or last octet), or ToValid
// would fill its place with U+FFFD.
func TestToValidOneValid(t *testing.T) {
	t.Parallel()
	for _, unit := range []string{"\xff", "\xc0\xaf", "\xe2\x82", "\xf0\x9f\x98"} {
		base := strings.Repeat(unit, 260/len(unit))
		for _, c := range []string{"a", "é", "€", "😀"} {
			for k := 0; k <= len(base); k++ {
				p := []byte(base[:k] + c + base[k:])
				checkFill(t, p, 0, false)
			}
		}
	}
}

// TestToValidFillThenWrite puts one valid character among long errors
// around where the count pass changes pace (fillChunk blocks) and near
// the end: repair fills the result up to the block of the character and
// writes from there, and the two must meet exactly.
//
// With -sweep, the character goes at every offset within 70 of the change
// of pace and of the end (1 s of CPU). The default run (and -short) puts
// it at every 9th of those offsets, a different ninth for each error,
// character and head, so that every offset still comes up.
func TestToValidFillThenWrite(t *testing.T) {
	t.Parallel()
	chunk := windowFirst + 1 + fillChunk*blockStep // kernelBefore on amd64
	const near = 70
	step := 9
	if sweepTests() {
		step = 1
	}
	turn := 0
	for _, unit := range []string{"\xff", "\xed\xa0\x80", "\xe2\x82"} {
		base := strings.Repeat(unit, 4000/len(unit))
		for _, c := range []string{"a", "€", "😀", "\xe2\x82\xac"} {
			for _, head := range []string{"", "é"} {
				filled := 0
				turn++
				for k := chunk - near; k <= len(base); k++ {
					if k == chunk+near {
						k = len(base) - near
					}
					if (k+turn)%step != 0 {
						continue
					}
					p := []byte(head + base[:k] + c + base[k:])
					checkFill(t, p, len(head), false)
					if useBlocks(1 << 20) {
						rest, _, fill := repairLenBlocks(p, len(head))
						if fill.in > len(head)+k {
							t.Fatalf("repairLenBlocks(%+q...) fills to %d, past the valid octet at %d", p[:16], fill.in, len(head)+k)
						}
						if 4*fill.out >= rest {
							filled++
						}
					}
				}
				if useBlocks(1<<20) && filled == 0 {
					t.Errorf("%+q, %+q: no input filled", unit, c)
				}
			}
		}
	}
}

// TestToValidReplaceAllRandom checks ToValid against refRepair on random
// strings of error pieces, which two neighbours can turn into a valid
// character (E2 82 then 80 is €): either way the result must be the
// reference's, and enough of them must take replaceAll.
func TestToValidReplaceAllRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(14, 19))
	fills := 0
	const count = 300
	for range count {
		var b strings.Builder
		head := fillHeads[r.IntN(len(fillHeads))]
		b.WriteString(head)
		for b.Len() < 64+len(head)+r.IntN(500) {
			b.WriteString(errorUnits[r.IntN(len(errorUnits))])
		}
		if checkFill(t, []byte(b.String()), len(head), false) {
			fills++
		}
	}
	if useBlocks(1<<20) && fills < count/4 {
		t.Errorf("%d of %d inputs took replaceAll, want at least a quarter", fills, count)
	}
}

// checkFill checks the repair of p, whose first head octets are
// well-formed, against refRepair, and reports whether the kernels count no
// valid octet after them (ToValid then takes replaceAll); with all, it
// fails if they count one.
func checkFill(t *testing.T, p []byte, head int, all bool) (fill bool) {
	t.Helper()
	want := refRepair(p)
	got := ToValid(p)
	if !bytes.Equal(got, want) {
		t.Fatalf("ToValid(% X) = % X, reference says % X", p, got, want)
	}
	if len(got) != cap(got) {
		t.Fatalf("ToValid(% X): len %d, cap %d", p, len(got), cap(got))
	}
	if s := ToValidString(string(p)); s != string(want) {
		t.Fatalf("ToValidString(% X) = % X, reference says % X", p, s, want)
	}
	if a := AppendValid([]byte("dst"), p); string(a) != "dst"+string(want) {
		t.Fatalf("AppendValid(% X) = % X, reference says % X", p, a, want)
	}
	if !useBlocks(len(p) - head) {
		return false
	}
	m, valid, _ := repairLenBlocks(p, head)
	if head+m != len(want) {
		t.Fatalf("repairLenBlocks(% X, %d) = %d, reference says %d", p, head, m, len(want)-head)
	}
	if all && valid != 0 {
		t.Fatalf("repairLenBlocks(% X, %d): %d valid octets, want 0", p, head, valid)
	}
	return valid == 0
}
