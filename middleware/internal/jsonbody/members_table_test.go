package jsonbody

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// TestJSONMembersTable holds the member check to its reference
// (refMembers) on bodies made at random to exercise its table of names:
// objects of up to a hundred members (the table from sixteen on, grown
// again and again), tabled objects inside tabled objects, names that
// repeat one of an enclosing object's after an inner object has closed,
// escaped names, and names that are one only in NFC or NFKC or under case
// folding.
func TestJSONMembersTable(t *testing.T) {
	t.Parallel()
	names := []string{"a", "b", "A", "é", `e\u0301`, "e\u0301", `\u00e9`, "ｑ", "q", "Q", "ſ", "s", "K", "k", "\u212b", "\u00c5",
		"long name of thirty-two octets x", "long name of thirty-two octets y"}
	rng := rand.New(rand.NewPCG(14, 2))
	var obj func(b *strings.Builder, depth int)
	obj = func(b *strings.Builder, depth int) {
		n := rng.IntN(30)
		if rng.IntN(3) == 0 {
			n += 20 + rng.IntN(50)
		}
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			// Mostly distinct names, a few that may repeat.
			if rng.IntN(50) == 0 {
				b.WriteString(`"` + names[rng.IntN(len(names))] + `":`)
			} else {
				fmt.Fprintf(b, `"n%d_%d":`, depth, i)
			}
			if depth < 3 && rng.IntN(12) == 0 {
				obj(b, depth+1)
			} else {
				b.WriteString("0")
			}
		}
		b.WriteByte('}')
	}
	n := 30
	if testing.Short() {
		n = 10
	}
	for range n {
		var b strings.Builder
		b.WriteByte('[')
		for i := range 1 + rng.IntN(3) {
			if i > 0 {
				b.WriteByte(',')
			}
			obj(&b, 0)
		}
		b.WriteByte(']')
		checkMembersRef(t, []byte(b.String()))
	}
}

// TestJSONMembersManyNames: one object of many distinct names, and the
// same with a duplicate at its end, through the table at every size up to
// where it has grown a dozen times.
func TestJSONMembersManyNames(t *testing.T) {
	t.Parallel()
	for _, n := range []int{15, 16, 17, 100, 1000, 40000} {
		var b strings.Builder
		b.WriteString(`{`)
		for i := range n {
			fmt.Fprintf(&b, `"%x":0,`, i)
		}
		clean := b.String() + `"end":0}`
		dup := b.String() + `"0":1}`
		for _, form := range []normalize.Form{normalize.None, normalize.NFC} {
			p := rules.Strict()
			p.Normalization = form
			cp := compiled.Compile(p)
			if rj := checkMembers([]byte(clean), cp, false); rj != nil {
				t.Errorf("%d names, %s: %v", n, form.Name(), rj)
			}
			rj := checkMembers([]byte(dup), cp, false)
			if rj == nil || rj.Reason.String() != "duplicate_key" || rj.Offset != len(dup)-len(`0":1}`) {
				t.Errorf("%d names and a duplicate, %s: %v", n, form.Name(), describe(rj))
			}
		}
	}
}

// TestASCIIName: asciiName, eight octets at a time, answers as the
// octet-by-octet definition does for every octet value at every place of
// names up to 24 octets long, in words of letters of both cases and in the
// tail after them.
func TestASCIIName(t *testing.T) {
	ref := func(s []byte) (ascii, lower bool) {
		lower = true
		for _, c := range s {
			if c >= 0x80 {
				return false, false
			}
			if 'A' <= c && c <= 'Z' {
				lower = false
			}
		}
		return true, lower
	}
	for n := 0; n <= 24; n++ {
		for _, fill := range []byte{'a', 'z', '@', '[', '0', 0x7F} {
			for i := 0; i < n; i++ {
				for c := 0; c < 256; c++ {
					s := bytes.Repeat([]byte{fill}, n)
					s[i] = byte(c)
					a, l := asciiName(s)
					if ra, rl := ref(s); a != ra || l != rl {
						t.Fatalf("asciiName(%q) = %v, %v, want %v, %v", s, a, l, ra, rl)
					}
				}
			}
		}
	}
	// Octets over 0x7F next to letters, where the word's carries cross
	// octets.
	for _, s := range []string{"\xffAAAAAAA", "AAAAAAA\xff", "\x80@@@@@@@", "Z\xff\xff\xff\xff\xff\xffa", "abcdefgh\xc3\xa9", "abcdefghA", "ABCDEFGH"} {
		a, l := asciiName([]byte(s))
		if ra, rl := ref([]byte(s)); a != ra || l != rl {
			t.Errorf("asciiName(%q) = %v, %v, want %v, %v", s, a, l, ra, rl)
		}
	}
}
