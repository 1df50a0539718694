package normalize

import (
	"bytes"
	"errors"
	"sync"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/secure/bidirule"
	"golang.org/x/text/secure/precis"
	"golang.org/x/text/transform"
	"golang.org/x/text/width"

	"github.com/utf8guard/utf8guard/sanitize"
)

// AppendEnforce appends the enforced form of value under p to dst and
// returns the extended buffer, or dst and the error of Enforce: the same
// form, the same refusals, the same errors as Enforce(p, string(value)).
//
// It is for a caller that enforces many values per request (a query of
// a thousand PRECIS fields): Enforce, through x/text, allocates a few
// buffers for every value that a mapping step changes, and the string it
// returns. AppendEnforce maps value with pooled working memory and has
// x/text check the result, which then changes nothing more and so
// allocates nothing, so that enforcing an accepted value allocates only
// to grow dst. Two kinds of value still cost allocations: one
// whose mapped form holds a combining mark that stays as it is (U+0301
// after "q"), which norm's quick check cannot vouch for, so that x/text
// normalizes it again (two buffers); and one that fails, or whose mapped
// form x/text would map further (not stable), which goes the way of
// Enforce.
func AppendEnforce(dst []byte, p Profile, value []byte) ([]byte, error) {
	e := enforcers.Get().(*Enforcer)
	defer e.release()
	return e.Append(dst, p, value)
}

// An Enforcer is AppendEnforce with working memory of its own, for a
// caller that enforces many values in a row and keeps its own pools: its
// Append is AppendEnforce without the pool's cost per call. Its zero value
// is ready to use. An Enforcer must not be used by two goroutines at once.
type Enforcer struct {
	w precisWork
}

var enforcers = sync.Pool{New: func() any { return new(Enforcer) }}

// Append appends the enforced form of value under p to dst, as
// AppendEnforce does.
func (e *Enforcer) Append(dst []byte, p Profile, value []byte) ([]byte, error) {
	prof := p.precis()
	if prof == nil {
		return dst, errors.New("normalize: invalid " + p.String())
	}
	// A short value: utf8.Valid checks what Validate does (RFC 3629)
	// for less than its call costs; Validate still says what is wrong.
	if len(value) > shortValue || !utf8.Valid(value) {
		if err := sanitize.Validate(value); err != nil {
			return dst, err
		}
	}
	out, ok := e.w.enforce(dst, p, prof, value)
	e.w.reset()
	if ok {
		return out, nil
	}
	s, err := enforce(p, string(value), false)
	if err != nil {
		return dst, err
	}
	return append(dst, s...), nil
}

// Reset lets go of the Enforcer's working memory where it has grown past
// what is worth keeping for the next values (64 KiB).
func (e *Enforcer) Reset() {
	for i := range e.w.buf {
		if cap(e.w.buf[i]) > maxPooledPrecisBytes {
			e.w.buf[i] = nil
		}
	}
}

func (e *Enforcer) release() {
	e.Reset()
	enforcers.Put(e)
}

// precisWork is the working memory of an Enforcer: two buffers that the
// mapping steps alternate between, and a lowercasing Caser of its own (a
// Caser keeps state and is not to be shared), made when first needed.
type precisWork struct {
	buf   [2][]byte
	next  int
	lower transform.SpanningTransformer
}

// maxPooledPrecisBytes bounds the buffers an Enforcer keeps.
const maxPooledPrecisBytes = 64 << 10

// reset empties w's buffers for the next value.
func (w *precisWork) reset() {
	for i := range w.buf {
		w.buf[i] = w.buf[i][:0]
	}
	w.next = 0
}

// apply returns src mapped by t as x/text's profiles apply each of their
// steps (the span that t leaves as it is, then t on the rest, from a
// reset), src itself when t changes nothing, else in one of w's buffers,
// the one src is not in.
func (w *precisWork) apply(t transform.SpanningTransformer, src []byte) ([]byte, bool) {
	t.Reset()
	n, err := t.Span(src, true)
	if err != transform.ErrEndOfSpan {
		return src, err == nil
	}
	x := w.next & 1
	w.next++
	out := append(w.buf[x][:0], src[:n]...)
	out, _, err = transform.Append(t, out, src[n:])
	w.buf[x] = out[:0]
	return out, err == nil
}

// normalize returns c in the form f: c itself when it is normal, else in
// the buffer of w that c is not in. This package's forms give norm's
// results (the conformance tests hold them to it) without the allocation
// that norm's transformer makes for text it changes.
func (w *precisWork) normalize(f Form, c []byte) []byte {
	if isASCII(c) {
		return c // normal in every form
	}
	x := w.next & 1
	if len(c) <= tinyText {
		// Normalized at once and compared, rather than scanned first:
		// for a few octets the scanner's call costs more than the
		// normalizer (appendNormal). c is well-formed, so equal octets
		// mean c is normal.
		out := f.Append(w.buf[x][:0], c)
		w.buf[x] = out[:0]
		if bytes.Equal(out, c) {
			return c
		}
		w.next++
		w.buf[x] = out
		return out
	}
	if f.IsNormal(c) {
		return c
	}
	w.next++
	w.buf[x] = f.Append(w.buf[x][:0], c)
	return w.buf[x]
}

// foldFullwidthASCII returns c width-mapped, and true, when c holds only
// ASCII and the fullwidth forms of ASCII (U+FF01-U+FF5E), which width
// mapping makes the ASCII characters U+0021-U+007E (TestFoldFullwidth
// holds it to x/text): the text that a fullwidth input method types, made
// without x/text's transformer. Otherwise it returns c and false, and
// width.Fold maps it.
func (w *precisWork) foldFullwidthASCII(c []byte) ([]byte, bool) {
	x := w.next & 1
	out := w.buf[x][:0]
	for i := 0; i < len(c); {
		b := c[i]
		if b < utf8.RuneSelf {
			out = append(out, b)
			i++
			continue
		}
		if b != 0xEF || i+2 >= len(c) {
			return c, false
		}
		var r rune
		switch b1, b2 := c[i+1], c[i+2]; {
		case b1 == 0xBC && b2 >= 0x81 && b2 <= 0xBF:
			r = 0xFF00 + rune(b2-0x80)
		case b1 == 0xBD && b2 >= 0x80 && b2 <= 0x9E:
			r = 0xFF40 + rune(b2-0x80)
		default:
			return c, false
		}
		out = append(out, byte(r-0xFEE0))
		i += 3
	}
	w.buf[x] = out
	w.next++
	return out, true
}

// shortValue is the longest value that Enforcer.Append has utf8.Valid
// check first.
const shortValue = 32

// lowerASCII returns c, ASCII, with its capital letters made small, as
// the lowercasing of x/text's profiles maps ASCII (TestLowerASCII): c
// itself when it has none, else in the buffer of w that c is not in.
func (w *precisWork) lowerASCII(c []byte) []byte {
	if !hasUpperASCII(c) {
		return c
	}
	x := w.next & 1
	w.next++
	out := w.buf[x][:0]
	for _, b := range c {
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		out = append(out, b)
	}
	w.buf[x] = out
	return out
}

// spaces returns c, well-formed UTF-8, with every space of category Zs
// made U+0020: OpaqueString's additional mapping (RFC 8265, section
// 4.2.1), as x/text's runes.Map does it; c itself when it has none but
// U+0020.
func (w *precisWork) spaces(c []byte) []byte {
	i := 0
	for i < len(c) {
		r, size := decode(c, i)
		if r != ' ' && isSpaceZs(r) {
			break
		}
		i += size
	}
	if i == len(c) {
		return c
	}
	x := w.next & 1
	w.next++
	out := append(w.buf[x][:0], c[:i]...)
	for i < len(c) {
		r, size := decode(c, i)
		if isSpaceZs(r) {
			out = append(out, ' ')
		} else {
			out = append(out, c[i:i+size]...)
		}
		i += size
	}
	w.buf[x] = out
	return out
}

// The steps as interface values made once: a conversion per call would
// allocate.
var (
	foldWidthT transform.SpanningTransformer = width.Fold
)

// enforce is AppendEnforce's way without allocations: it maps value as p
// does, in w's buffers, and has x/text enforce p on the mapped form c,
// appending to dst. When x/text returns c itself, c is stable (every step
// of p leaves it as it is), so that x/text's enforcement of value, which
// maps value to c and then checks c, would have checked the very same
// text and returned c too. It reports false when it cannot tell: the
// caller then enforces value the ordinary way.
func (w *precisWork) enforce(dst []byte, p Profile, prof *precis.Profile, value []byte) ([]byte, bool) {
	c, ok := value, true
	switch p {
	case UsernameCaseMapped, UsernameCasePreserved:
		// RFC 8265, section 3.2.2 (3.3.2): width mapping, (lowercasing,)
		// NFC, in x/text's order.
		// Width mapping leaves ASCII as it is (TestLowerASCII), and
		// lowercases it one octet at a time: a short ASCII value, or
		// one that width mapping made ASCII ("ＡB"), skips x/text's
		// transformers, whose calls cost most of such a value.
		if !isASCII(c) {
			if f, folded := w.foldFullwidthASCII(c); folded {
				c = f
			} else if c, ok = w.apply(foldWidthT, c); !ok {
				return dst, false
			}
		}
		if p == UsernameCaseMapped && isASCII(c) {
			c = w.lowerASCII(c)
		} else if p == UsernameCaseMapped {
			if w.lower == nil {
				w.lower = cases.Lower(language.Und, cases.HandleFinalSigma(false))
			}
			if c, ok = w.apply(w.lower, c); !ok {
				return dst, false
			}
		}
		c = w.normalize(NFC, c)
		if !isASCII(value) && !bidirule.Valid(c) {
			// x/text holds the mapped form of a value that is not
			// ASCII to the Bidi Rule, and not that of an ASCII one,
			// which c may be.
			return dst, false
		}
		if p == UsernameCaseMapped && hasUpperASCII(c) {
			// x/text lowercases ASCII text in place, in what it is
			// given: c would then not be what it checked.
			return dst, false
		}
	case OpaqueString:
		c = w.spaces(c)
		c = w.normalize(NFC, c)
	case Nickname:
		// enforceNickname, in w's buffers: the additional mapping and
		// NFKC once, and the rounds of x/text when that is not stable.
		if !nicknameStable(unsafe.String(unsafe.SliceData(c), len(c))) {
			x := w.next & 1
			w.next++
			w.buf[x] = appendNicknameSpaces(w.buf[x][:0], c)
			c = w.buf[x]
		}
		y := w.next & 1
		w.next++
		w.buf[y] = NFKC.Append(w.buf[y][:0], c)
		c = w.buf[y]
		if !nicknameStable(unsafe.String(unsafe.SliceData(c), len(c))) {
			return dst, false
		}
		prof = nicknameOnce
	default:
		return dst, false
	}
	if len(c) == 0 {
		return dst, false // refused: Enforce says how
	}
	if isASCII(c) {
		// What x/text checks of ASCII text, its string class, comes
		// down to a range of octets: no context rule applies to an
		// ASCII character, and the Bidi Rule has been checked above
		// where x/text checks it (TestASCIIClass, and the differential
		// tests against Enforce, hold this to x/text).
		lo := byte('!') // the IdentifierClass: no space
		if prof == nicknameOnce || p == OpaqueString {
			lo = ' ' // the FreeformClass
		}
		for _, b := range c {
			if b < lo || b > '~' {
				return dst, false
			}
		}
		return append(dst, c...), true
	}
	n := len(dst)
	out, err := prof.Append(dst, c)
	if err != nil || !bytes.Equal(out[n:], c) {
		return dst, false
	}
	return out, true
}

// isASCII reports whether b is ASCII.
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// hasUpperASCII reports whether b holds an ASCII capital letter.
func hasUpperASCII(b []byte) bool {
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			return true
		}
	}
	return false
}

// appendNicknameSpaces appends s, well-formed UTF-8, to dst with the
// additional mapping of RFC 8266, section 2.1 (nicknameSpaces).
func appendNicknameSpaces[T string | []byte](dst []byte, s T) []byte {
	space, started := false, false
	for i := 0; i < len(s); {
		r, size := decode(s, i)
		if isSpaceZs(r) {
			space = true
			i += size
			continue
		}
		if space && started {
			dst = append(dst, ' ')
		}
		dst = append(dst, s[i:i+size]...)
		i += size
		space, started = false, true
	}
	return dst
}
