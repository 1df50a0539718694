package bench

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/utf8guard/utf8guard/bench/internal/corpus"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// The package-level rows of the hostile-input suite (hostile_suite_test.go):
// normalize's forms and PRECIS profiles, sanitize's checks, repair and
// percent-decoding. Benign input is, for each entry point, text of the kind
// it is there for, already in the state the call wants:
//
//	normalize forms   mixed prose (corpus class mix: English, French,
//	                  German, Vietnamese, Russian, Greek, Chinese, Japanese,
//	                  Korean, emoji) already in the form (for NFKC, mix
//	                  brought to NFKC)
//	PRECIS            the usernames profiles: mixed letters and digits
//	                  joined by '.', '_' and '-', no spaces, already
//	                  enforced; OpaqueString and Nickname: mix with its line
//	                  breaks made spaces, single spaces, already enforced
//	CheckClasses,     mix, which holds none of the refused characters
//	Check, Validate,
//	ToValid
//	AppendUnescape    a query of key=value pairs with escaped non-ASCII
//	                  letters, '+' for spaces, the way browsers send them

// Sinks of the hostile benchmarks.
var (
	hostileSinkBool  bool
	hostileSinkErr   error
	hostileSinkBytes []byte
	hostileSinkStr   string
)

// fit returns p cut or padded with pad (ASCII) to exactly n octets, cut at a
// character boundary.
func fit(p []byte, n int, pad byte) []byte {
	if len(p) > n {
		k := n
		for k > 0 && !utf8.RuneStart(p[k]) {
			k--
		}
		p = p[:k]
	}
	out := make([]byte, len(p), n)
	copy(out, p)
	for len(out) < n {
		out = append(out, pad)
	}
	return out
}

// repeatTo returns unit repeated to fill n octets, the rest padded with pad.
func repeatTo(unit string, n int, pad byte) []byte {
	return fit([]byte(strings.Repeat(unit, n/len(unit))), n, pad)
}

// prefixRepeat returns head, then unit repeated to fill n octets, padded.
func prefixRepeat(head, unit string, n int, pad byte) []byte {
	k := max(0, (n-len(head))/len(unit))
	return fit([]byte(head+strings.Repeat(unit, k)), n, pad)
}

func mixText(n int) []byte { return corpus.Text("mix", n) }

// mixIn returns n octets of mix text in the form f: cut at a character
// boundary, the end of a normal text stays normal.
func mixIn(f norm.Form) func(n int) []byte {
	return func(n int) []byte { return fit(f.Bytes(corpus.Text("mix", n)), n, ' ') }
}

// nfdMix is mix decomposed, cut to n octets (decomposition lengthens it).
func nfdMix(n int) []byte { return fit(norm.NFD.Bytes(corpus.Text("mix", n)), n, ' ') }

func rep(unit string) func(int) []byte {
	return func(n int) []byte { return repeatTo(unit, n, 'q') }
}

var (
	acute   = "\u0301"
	marks30 = strings.Repeat(acute, 30) + "\u034f"
)

func init() {
	forms := []struct {
		name string
		f    normalize.Form
		nf   norm.Form
	}{{"NFC", normalize.NFC, norm.NFC}, {"NFKC", normalize.NFKC, norm.NFKC}}
	for _, fm := range forms {
		f := fm.f
		benign := mixIn(fm.nf)
		isNormal := func(tb testing.TB, p []byte) func() {
			return func() { hostileSinkBool = f.IsNormal(p) }
		}
		bytesOf := func(tb testing.TB, p []byte) func() {
			return func() { hostileSinkBytes = f.Bytes(p) }
		}
		appendTo := func(tb testing.TB, p []byte) func() {
			dst := make([]byte, 0, 4*len(p))
			return func() { dst = f.Append(dst[:0], p) }
		}
		// IsNormal: text that is normal, or that is not only far from
		// its start, but costly to decide.
		addHostile(
			hostileRow{entry: fm.name + ".IsNormal", name: "q-acute", bound: boundPackage,
				benign: benign, worst: rep("q" + acute), setup: isNormal},
			hostileRow{entry: fm.name + ".IsNormal", name: "q-marks", bound: boundPackage,
				benign: benign, worst: rep("q\u0323\u0302"), setup: isNormal},
			hostileRow{entry: fm.name + ".IsNormal", name: "marks-30", bound: boundPackage,
				benign: benign, worst: func(n int) []byte { return prefixRepeat("q", marks30, n, 'q') }, setup: isNormal},
			hostileRow{entry: fm.name + ".IsNormal", name: "hangul-lvt", bound: boundPackage,
				benign: benign, worst: rep("\uac00\u11a8 "), setup: isNormal},
		)
		// Bytes and Append: text to rewrite.
		for _, e := range []struct {
			name  string
			setup func(testing.TB, []byte) func()
		}{{".Bytes", bytesOf}, {".Append", appendTo}} {
			addHostile(
				hostileRow{entry: fm.name + e.name, name: "nfd-text", bound: boundPackage,
					benign: benign, worst: nfdMix, setup: e.setup},
				hostileRow{entry: fm.name + e.name, name: "e-acute", bound: boundPackage,
					benign: benign, worst: rep("e" + acute), setup: e.setup},
				hostileRow{entry: fm.name + e.name, name: "q-acute", bound: boundPackage,
					benign: benign, worst: rep("q" + acute), setup: e.setup},
				hostileRow{entry: fm.name + e.name, name: "long-marks", bound: boundPackage,
					benign: benign, worst: func(n int) []byte { return prefixRepeat("a", acute, n, 'q') }, setup: e.setup},
				hostileRow{entry: fm.name + e.name, name: "reorder", bound: boundPackage,
					benign: benign, worst: rep("q\u0302\u0323"), setup: e.setup},
				hostileRow{entry: fm.name + e.name, name: "hangul-lv", bound: boundPackage,
					benign: benign, worst: rep("\u1100\u1161"), setup: e.setup},
				hostileRow{entry: fm.name + e.name, name: "fdfa", bound: boundPackage,
					benign: benign, worst: rep("\ufdfa"), setup: e.setup},
				hostileRow{entry: fm.name + e.name, name: "fdfa-sparse", bound: boundPackage,
					benign: benign, worst: rep("\ufdfa" + strings.Repeat("x", 64)), setup: e.setup},
			)
		}
	}
}

// PRECIS.

// usernameBenign is a long username: letters and digits of several
// scripts joined by '.', '_' and '-', lowercase, in NFC.
func usernameBenign(n int) []byte {
	return repeatTo("zoe.angstrom_42-müller.straße_日本語-привет.", n, 'x')
}

// nicknameBenign is mix with single spaces for its line breaks.
func nicknameBenign(n int) []byte {
	p := corpus.Text("mix", n)
	p = bytes.ReplaceAll(p, []byte("\n"), []byte(" "))
	for bytes.Contains(p, []byte("  ")) {
		p = bytes.ReplaceAll(p, []byte("  "), []byte(" x"))
	}
	p = norm.NFKC.Bytes(p)
	p = bytes.TrimSpace(p)
	return fit(p, n, 'x')
}

func init() {
	profiles := []struct {
		p      normalize.Profile
		benign func(int) []byte
	}{
		{normalize.UsernameCaseMapped, usernameBenign},
		{normalize.UsernameCasePreserved, usernameBenign},
		{normalize.OpaqueString, nicknameBenign},
		{normalize.Nickname, nicknameBenign},
	}
	for _, pr := range profiles {
		prof := pr.p
		enforce := func(tb testing.TB, p []byte) func() {
			s := string(p)
			return func() { hostileSinkStr, hostileSinkErr = normalize.Enforce(prof, s) }
		}
		entry := "Enforce." + prof.String()
		// A value that fails only at its end: the offset search.
		failAtEnd := func(n int) []byte {
			p := pr.benign(n - 1)
			return append(p, 0x07) // BEL: a control, in no class
		}
		addHostile(
			hostileRow{entry: entry, name: "fdfa", bound: boundPackage,
				benign: pr.benign, worst: rep("\ufdfa"), setup: enforce},
			hostileRow{entry: entry, name: "a-acute", bound: boundPackage,
				benign: pr.benign, worst: func(n int) []byte { return prefixRepeat("a", acute, n, 'q') }, setup: enforce},
			hostileRow{entry: entry, name: "fail-at-end", bound: boundPackage,
				benign: pr.benign, worst: failAtEnd, setup: enforce},
			hostileRow{entry: entry, name: "nfd-text", bound: boundPackage,
				benign: pr.benign, worst: func(n int) []byte {
					return fit(norm.NFD.Bytes(pr.benign(n)), n, 'x')
				}, setup: enforce},
		)
	}
}

// sanitize.

// strictBody is the classes the strict preset refuses in bodies, form and
// JSON values; strictURL those it refuses in the path and the query.
var (
	strictBody = rules.Strict().JSON.Forbid
	strictURL  = rules.Strict().Query.Forbid
)

func init() {
	checkClasses := func(forbid sanitize.Class) func(testing.TB, []byte) func() {
		return func(tb testing.TB, p []byte) func() {
			if err := sanitize.CheckClasses(p, forbid); err != nil {
				tb.Fatal(err)
			}
			return func() { hostileSinkErr = sanitize.CheckClasses(p, forbid) }
		}
	}
	check := func(tb testing.TB, p []byte) func() {
		if err := sanitize.Check(p, strictBody); err != nil {
			tb.Fatal(err)
		}
		return func() { hostileSinkErr = sanitize.Check(p, strictBody) }
	}
	// Text characters whose first octets are those of refused ones: U+200D
	// (in every emoji sequence) and U+2014 start as the bidi controls
	// U+200E and U+202A do.
	for _, e := range []struct {
		entry string
		setup func(testing.TB, []byte) func()
	}{
		{"CheckClasses.body", checkClasses(strictBody)},
		{"CheckClasses.url", checkClasses(strictURL &^ sanitize.TabNewline)},
		{"Check.body", check},
	} {
		addHostile(
			hostileRow{entry: e.entry, name: "zwj", bound: boundPackage,
				benign: mixText, worst: rep("\u200d"), setup: e.setup},
			hostileRow{entry: e.entry, name: "em-dash", bound: boundPackage,
				benign: mixText, worst: rep("\u2014"), setup: e.setup},
			hostileRow{entry: e.entry, name: "punct", bound: boundPackage,
				benign: mixText, worst: rep("a\u2019\u2060\u061b\u00a0"), setup: e.setup},
		)
	}
	validate := func(tb testing.TB, p []byte) func() {
		return func() { hostileSinkErr = sanitize.Validate(p) }
	}
	addHostile(
		hostileRow{entry: "Validate", name: "emoji", bound: boundPackage,
			benign: mixText, worst: rep("\U0001F600"), setup: validate},
		hostileRow{entry: "Validate", name: "alternating", bound: boundPackage,
			benign: mixText, worst: rep("a\u00e9\u65e5\U0001F600"), setup: validate},
		hostileRow{entry: "Validate", name: "error-at-end", bound: boundPackage,
			benign: mixText, worst: func(n int) []byte { return append(mixText(n-1), 0xFF) }, setup: validate},
	)
	toValid := func(tb testing.TB, p []byte) func() {
		return func() { hostileSinkBytes = sanitize.ToValid(p) }
	}
	for _, c := range []struct{ name, unit string }{
		{"ff", "\xff"},
		{"a-ff", "a\xff"},
		{"trunc2", "\xe2\x82"},
		{"trunc3", "\xf0\x9f\x98"},
		{"overlong", "\xc0\xaf"},
		{"surrogate", "\xed\xa0\x80"},
		{"sparse", "Latin-1 caf\xe9 "},
	} {
		addHostile(hostileRow{entry: "ToValid", name: c.name, bound: boundPackage,
			benign: mixText, worst: rep(c.unit), setup: toValid})
	}
	// ff-a: ff with one valid octet at the second place, so that the
	// result is not U+FFFD up to the end of its first quarter and is
	// written block by block rather than filled (the fill of ff).
	addHostile(hostileRow{entry: "ToValid", name: "ff-a", bound: boundPackage,
		benign: mixText, worst: func(n int) []byte {
			p := bytes.Repeat([]byte{0xFF}, n)
			p[1] = 'a'
			return p
		}, setup: toValid})
	// Percent-decoding.
	queryBenign := func(n int) []byte {
		return repeatTo("q=caf%C3%A9+au+lait&lang=fr&page=2&sort=desc&name=Z%C3%B6e+%C3%85ngstr%C3%B6m&", n, 'x')
	}
	unescape := func(mode sanitize.EscapeMode) func(testing.TB, []byte) func() {
		return func(tb testing.TB, p []byte) func() {
			s := string(p)
			dst := make([]byte, 0, len(s))
			if _, err := sanitize.AppendUnescape(dst, s, mode); err != nil {
				tb.Fatal(err)
			}
			return func() { hostileSinkBytes, hostileSinkErr = sanitize.AppendUnescape(dst[:0], s, mode) }
		}
	}
	for _, e := range []struct {
		entry string
		mode  sanitize.EscapeMode
	}{
		{"AppendUnescape.query", sanitize.EscapeQuery},
		{"AppendUnescape.path", sanitize.EscapePath | sanitize.RefuseDoubleEncoding},
	} {
		addHostile(
			hostileRow{entry: e.entry, name: "escapes", bound: boundPackage,
				benign: queryBenign, worst: rep("%C3%A9"), setup: unescape(e.mode)},
			hostileRow{entry: e.entry, name: "pct25", bound: boundPackage,
				benign: queryBenign, worst: rep("%25%32"), setup: unescape(e.mode)},
			hostileRow{entry: e.entry, name: "plus", bound: boundPackage,
				benign: queryBenign, worst: rep("+"), setup: unescape(e.mode)},
		)
	}
}
