package normalize

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"

	"github.com/utf8guard/utf8guard/sanitize"
)

// fuzzSeeds are texts worth starting from: the cases of the unit tests and
// ill-formed octets in the places that matter to the scanner.
var fuzzSeeds = []string{
	"",
	"plain ASCII text, long enough for the eight-octet fast path",
	"cafe\u0301 caf\u00e9",
	"\u1100\u1161\u11a8 \uac00\u11a8 \uac01",
	"a\u0323\u0302 a\u0302\u0323 \u1ead",
	"\u212b \u2126 \u00c5 \u03a9",
	"\ufb01 \u00b2 \uff21 \u1d2e\u1d35\u1d33",
	"x\u0302\u0323",
	"\u0ba4\u0bbe \u0bc6\u0bbe \u0bca",
	"\u0f73\u0f72\u0f71",
	"a" + string(bytes.Repeat([]byte("\u0301"), 40)),
	"\u05d0\u05b8\u05c1 \u0627\u0653",
	"\U0001d15e \U0002f800 \U0001f600 \U000e0100",
	"e\xff\u0301", "\xffe\u0301", "e\u0301\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	"\xe2\x84", "a\xc3", "\xcc", "\u0301\x80\u0301",
	// Long stretches to rewrite, which go to norm in bulk.
	strings.Repeat("cafe\u0301 ", 60) + "\xff" + strings.Repeat("a\u0308", 100) + strings.Repeat("x", 70) + "\u212b",
	strings.Repeat("\u1100\u1161\u11a8", 100) + strings.Repeat("\ufb01", 100),
}

// FuzzNormalize checks the normalize package against
// golang.org/x/text/unicode/norm: on well-formed UTF-8 every method must give
// norm's answer; on ill-formed input nothing may panic, the text is never
// normal, and the output keeps the ill-formed octets where they were and
// normalizes the well-formed text between them, each piece on its own.
func FuzzNormalize(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	if d, err := loadConformanceOnce(); err == nil {
		// The specific cases, canonical order and PRI #29 tests, and a
		// sample of the character by character ones.
		for i, cl := range d.lines {
			if cl.part != 1 || i%64 == 0 {
				f.Add([]byte(cl.c[0]))
				if cl.c[2] != cl.c[0] {
					f.Add([]byte(cl.c[2]))
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		for _, fm := range []struct {
			f  Form
			nf norm.Form
		}{{NFC, norm.NFC}, {NFKC, norm.NFKC}} {
			differential(t, fm.f, fm.nf, p)
			bothScanners(t, fm.f, p)
		}
	})
}

// bothScanners checks that the way of scanning that this CPU does not use
// (see formInfo.prevalidate) gives the answers of the one it uses, which
// differential has checked.
func bothScanners(t *testing.T, f Form, p []byte) {
	t.Helper()
	fi := f.info()
	other := *fi
	other.prevalidate = !fi.prevalidate
	from, n, bad := firstDiff(fi, p)
	from2, n2, bad2 := firstDiff(&other, p)
	if from2 != from || n2 != n || bad2 != bad {
		t.Fatalf("%s, %+q: firstDiff = %d, %d, %v (prevalidate %v), %d, %d, %v (prevalidate %v)",
			f.Name(), p, from, n, bad, fi.prevalidate, from2, n2, bad2, other.prevalidate)
	}
	if got, want := appendNormal(&other, nil, p, 0), appendNormal(fi, nil, p, 0); !bytes.Equal(got, want) {
		t.Fatalf("%s, %+q: appendNormal = %+q (prevalidate %v), %+q (prevalidate %v)",
			f.Name(), p, want, fi.prevalidate, got, other.prevalidate)
	}
}

// pieces is the normal form that the package documents for any input: each
// maximal well-formed piece of p normalized by norm on its own, each
// ill-formed octet copied as it is. On well-formed text it is norm's answer.
func pieces(nf norm.Form, p []byte) []byte {
	var out []byte
	for len(p) > 0 {
		i := 0
		for i < len(p) {
			r, size := utf8.DecodeRune(p[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		out = append(out, nf.Bytes(p[:i])...)
		if i < len(p) {
			out = append(out, p[i])
			i++
		}
		p = p[i:]
	}
	return out
}

func differential(t *testing.T, f Form, nf norm.Form, p []byte) {
	t.Helper()
	s := string(p)
	valid := utf8.Valid(p)
	var want []byte
	if valid {
		want = nf.Bytes(p)
		if got := nf.IsNormal(p); got != f.IsNormal(p) {
			t.Fatalf("%s.IsNormal(%+q) = %v, norm says %v", f.Name(), p, !got, got)
		}
	} else {
		want = pieces(nf, p)
	}
	normal := valid && bytes.Equal(want, p)

	got := f.Bytes(p)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s.Bytes(%+q) = %+q, want %+q", f.Name(), p, got, want)
	}
	if normal && len(p) > 0 && &got[0] != &p[0] {
		t.Fatalf("%s.Bytes(%+q) copied normal text", f.Name(), p)
	}
	gs := f.String(s)
	if gs != string(want) {
		t.Fatalf("%s.String(%+q) = %+q, want %+q", f.Name(), s, gs, want)
	}
	if normal && len(s) > 0 && unsafe.StringData(gs) != unsafe.StringData(s) {
		t.Fatalf("%s.String(%+q) copied normal text", f.Name(), s)
	}
	if got := f.Append([]byte("e"), p); string(got) != "e"+string(want) {
		t.Fatalf("%s.Append(\"e\", %+q) = %+q", f.Name(), p, got)
	}
	if got := f.AppendString(nil, s); string(got) != string(want) {
		t.Fatalf("%s.AppendString(nil, %+q) = %+q", f.Name(), s, got)
	}
	if f.IsNormal(p) != normal || f.IsNormalString(s) != normal {
		t.Fatalf("%s.IsNormal(%+q) = %v, want %v", f.Name(), p, !normal, normal)
	}

	n := f.FirstNonNormal(p)
	if m := f.FirstNonNormalString(s); m != n {
		t.Fatalf("%s: FirstNonNormal(%+q) = %d, FirstNonNormalString = %d", f.Name(), p, n, m)
	}
	bad := sanitize.ValidPrefix(p) // the first ill-formed octet, or len(p)
	err := f.Check(p)
	if errS := f.CheckString(s); errString(err) != errString(errS) {
		t.Fatalf("%s: Check(%+q) = %v, CheckString = %v", f.Name(), p, err, errS)
	}
	switch {
	case normal:
		if n != -1 || err != nil {
			t.Fatalf("%s: normal %+q: FirstNonNormal = %d, Check = %v", f.Name(), p, n, err)
		}
	case n == bad:
		// The first problem is an ill-formed sequence: Check reports it
		// as sanitize.Validate does.
		if !errors.Is(err, errors.Unwrap(sanitize.Validate(p))) || errString(err) != errString(sanitize.Validate(p)) {
			t.Fatalf("%s.Check(%+q) = %v, sanitize.Validate says %v", f.Name(), p, err, sanitize.Validate(p))
		}
	default:
		// A character that normalization changes, before any ill-formed
		// octet: the well-formed prefix p[:bad] tells which.
		if n > bad {
			t.Fatalf("%s.FirstNonNormal(%+q) = %d, after the ill-formed octet at %d", f.Name(), p, n, bad)
		}
		if msg := checkOffset(string(p[:bad]), string(pieces(nf, p[:bad])), n); msg != "" {
			t.Fatalf("%s, %+q: %s", f.Name(), p, msg)
		}
		if !isError(err, sanitize.NotNormalized, n) {
			t.Fatalf("%s.Check(%+q) = %v, want not_normalized at %d", f.Name(), p, err, n)
		}
	}
}
