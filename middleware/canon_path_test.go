package middleware

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/octets"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestCanonPathReference holds canonPath, which writes the canonical path
// in pooled buffers, to the implementation it replaced (refCanonPath, a
// new slice per segment), on paths made at random of segments that
// change, grow, turn into syntax or into refused characters, with encoded
// slashes, under normalizing, rejecting and Monitor policies with a tight
// limit: the same Path and RawPath, the same rejection.
func TestCanonPathReference(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", "e%CC%81", "%C3%A9", "%EF%BC%8F", "%EF%BC%8E", "%E2%80%A4", ".", "..", "%2F", "%2f",
		"%EF%BC%85", "%EF%BC%BC", "%CD%BE", "%EF%B7%BA", "%E2%80%AE", "%EF%BB%BF", "%C3%85", "%E2%84%AB", "x%CC%81%CC%81",
		"~", "!", "%20", "%25", "%3B", "Q", "%EF%BD%91"}
	pols := []*compiled.Policy{
		compiled.Compile(canonPolicy(normalize.NFC)), compiled.Compile(canonPolicy(normalize.NFKC)),
		compiled.Compile(canonPolicy(normalize.NFKC, canonMonitoring)), compiled.Compile(canonPolicy(normalize.NFC, canonRejecting)),
		compiled.Compile(canonPolicy(normalize.NFKC, func(p *rules.Policy) { p.Limits.PathBytes = 40 })),
		compiled.Compile(canonPolicy(normalize.NFKC, func(p *rules.Policy) { p.Path.Forbid |= sanitize.DefaultIgnorable })),
	}
	rng := rand.New(rand.NewPCG(14, 3))
	s := getScratch()
	defer putScratch(s)
	n, rewritten, refused := 3000, 0, 0
	if testing.Short() {
		n = 600
	}
	for range n {
		var b strings.Builder
		for range 1 + rng.IntN(5) {
			b.WriteByte('/')
			for range rng.IntN(4) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		target := "/p" + b.String() // not "//", which Parse takes for a host
		for _, p := range pols {
			r1 := httptest.NewRequest(http.MethodGet, "/", nil)
			r2 := httptest.NewRequest(http.MethodGet, "/", nil)
			var err error
			if r1.URL, err = r1.URL.Parse(target); err != nil {
				t.Fatal(err)
			}
			u := *r1.URL
			*r2.URL = u
			got, want := s.canonPath(r1, p), refCanonPath(p, r2)
			if describe(got) != describe(want) || got != nil && got.Sample != want.Sample ||
				r1.URL.Path != r2.URL.Path || r1.URL.RawPath != r2.URL.RawPath {
				t.Fatalf("%q, %+v:\n got %q %q %s\nwant %q %q %s", target, p.Policy,
					r1.URL.Path, r1.URL.RawPath, describe(got), r2.URL.Path, r2.URL.RawPath, describe(want))
			}
			switch {
			case want != nil:
				refused++
			case r2.URL.Path != u.Path || r2.URL.RawPath != u.RawPath:
				rewritten++
			}
		}
	}
	t.Logf("%d paths: %d rewritten, %d refused", n*len(pols), rewritten, refused)
	if rewritten == 0 || refused == 0 {
		t.Error("the paths reach neither a rewrite nor a refusal")
	}
}

// refCanonPath is canonPath as it was, a new slice per segment.
func refCanonPath(p *compiled.Policy, r *http.Request) *Rejection {
	if p.Norm == normalize.None {
		return nil
	}
	path := r.URL.Path
	if p.RejectUnnormalized {
		if err := p.Norm.CheckString(path); err != nil {
			return finding.Reject(err, rules.Path, "", path)
		}
		return nil
	}
	if p.Norm.IsNormalString(path) {
		return nil
	}
	var dec, enc []byte
	off := 0
	for seg := range strings.SplitSeq(r.URL.EscapedPath(), "/") {
		d, _ := sanitize.AppendUnescape(nil, seg, sanitize.EscapePathSegment)
		nd := p.Norm.Bytes(d)
		if addsSyntax(d, nd) {
			return syntaxRejection("", octets.StringBytes(path), off)
		}
		off += len(d) + 1
		dec = append(append(dec, nd...), '/')
		enc = append(sanitize.AppendEscape(enc, octets.BytesString(nd), sanitize.EscapePathSegment), '/')
	}
	dec, enc = dec[:len(dec)-1], enc[:len(enc)-1]
	if p.Limits.PathBytes >= 0 && len(enc) > p.Limits.PathBytes {
		return finding.TooLarge(rules.Path, "", int64(p.Limits.PathBytes))
	}
	if rj := compiled.Recheck(rules.Path, "", dec, p.Path.Forbid&^sanitize.BOM, -1, 0); rj != nil {
		return rj
	}
	if p.Mode == rules.Monitor {
		return nil
	}
	r.URL.Path = string(dec)
	r.URL.RawPath = ""
	if r.URL.EscapedPath() != string(enc) {
		r.URL.RawPath = string(enc)
	}
	return nil
}
