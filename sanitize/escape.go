package sanitize

import "unicode/utf8"

// EscapeMode selects the percent-encoding rules of one part of a URL (RFC
// 3986) or of an application/x-www-form-urlencoded body. One of EscapePath,
// EscapePathSegment and EscapeQuery, optionally combined with
// RefuseDoubleEncoding: EscapePath|RefuseDoubleEncoding.
type EscapeMode uint8

const (
	// EscapePath is a whole path: '+' is itself; the encoder keeps '/'.
	EscapePath EscapeMode = iota
	// EscapePathSegment is one path segment: decoded as EscapePath; the
	// encoder also escapes '/', so a segment never splits in two.
	EscapePathSegment
	// EscapeQuery is a query or form key or value: '+' decodes to a space,
	// and the encoder writes a space as '+' and escapes every octet but the
	// unreserved ones (ALPHA, DIGIT, '-', '.', '_', '~').
	EscapeQuery

	// RefuseDoubleEncoding makes the decoder report DoubleEncoding for an
	// escape of '%' whose decoded text is itself an escape: "%25" followed
	// by two hexadecimal digits ("%252e"), or by escapes of them
	// ("%25%32%65"). Without it such input decodes one round ("%2e").
	RefuseDoubleEncoding EscapeMode = 0x80

	modeMask = 0x7F
)

// AppendUnescape percent-decodes s following mode, appends the result to dst
// and validates the decoded octets as Validate does. It returns the extended
// slice and nil, or a *Error:
//
//   - BadEscape if a '%' is not followed by two hexadecimal digits (either
//     case). IIS-style "%uXXXX" escapes are bad escapes. dst is returned
//     unextended.
//   - DoubleEncoding, under RefuseDoubleEncoding, at the "%25" escape. dst
//     is returned unextended.
//   - A Validate reason if the decoded octets are not well-formed UTF-8.
//     The decoded value is returned appended to dst, so that a caller may
//     repair it with ToValid.
//
// Every offset, whatever the reason, is into the decoded value (not into
// dst, nor into s): for BadEscape and DoubleEncoding, the number of octets
// decoded before the offending escape, where its first octet would be.
// EscapedOffset gives back the escape's offset in s.
//
// AppendUnescape does not allocate when dst has room for the decoded value,
// which is never longer than s.
func AppendUnescape(dst []byte, s string, mode EscapeMode) ([]byte, error) {
	start := len(dst)
	query := mode&modeMask == EscapeQuery
	refuseDouble := mode&RefuseDoubleEncoding != 0
	lit := 0 // start of the pending run of literal octets
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if lit < i {
				dst = append(dst, s[lit:i]...)
			}
			if i+2 >= len(s) {
				return dst[:start], &Error{Reason: BadEscape, Offset: len(dst) - start}
			}
			// One lookup per digit, which also tells a digit from
			// anything else: a value is often a run of escapes (every
			// octet of text that is not ASCII), and this loop was most
			// of the cost of decoding it.
			hi, lo := hexValue[s[i+1]], hexValue[s[i+2]]
			if hi|lo > 0x0F {
				return dst[:start], &Error{Reason: BadEscape, Offset: len(dst) - start}
			}
			v := hi<<4 | lo
			if v == '%' && refuseDouble && escapesHexPair(s, i+3, query) {
				return dst[:start], &Error{Reason: DoubleEncoding, Offset: len(dst) - start}
			}
			dst = append(dst, v)
			i += 2
			lit = i + 1
		case c == '+' && query:
			dst = append(dst, s[lit:i]...)
			dst = append(dst, ' ')
			lit = i + 1
		}
	}
	dst = append(dst, s[lit:]...)
	dec := dst[start:]
	if len(dec) <= shortDecoded && utf8.Valid(dec) {
		// A short value (a query or form field): utf8.Valid vouches for
		// it for less than the call of validPrefix costs, and checks
		// the same thing (RFC 3629). validPrefix still diagnoses an
		// error.
		return dst, nil
	}
	if k := validPrefix(dec); k < len(dec) {
		return dst, classify(dec, k)
	}
	return dst, nil
}

// shortDecoded is the longest decoded value that AppendUnescape has
// utf8.Valid check first.
const shortDecoded = 32

// hexValue maps an octet to its value as a hexadecimal digit (either
// case), and every other octet to 0xFF.
var hexValue = func() (t [256]byte) {
	for c := range t {
		t[c] = 0xFF
		if isHex(byte(c)) {
			t[c] = unhex(byte(c))
		}
	}
	return t
}()

// Unescape is like AppendUnescape but returns a string. When s holds nothing
// to decode it returns s itself, validated, without allocating.
func Unescape(s string, mode EscapeMode) (string, error) {
	if !needsUnescape(s, mode&modeMask == EscapeQuery) {
		return s, validate(s)
	}
	b, err := AppendUnescape(make([]byte, 0, len(s)), s, mode)
	if err != nil {
		if e := err.(*Error); e.Reason == BadEscape || e.Reason == DoubleEncoding {
			return "", err
		}
	}
	return string(b), err
}

// EscapedOffset returns the offset in the escaped text s of the octet at
// offset off of its decoded value: the offset of the '%' of the escape that
// a BadEscape or DoubleEncoding from AppendUnescape or Unescape at off
// points at, or of the unit (a literal octet, a '+' or a well-formed %XX
// escape) that decodes to that octet. Each well-formed escape counts one
// decoded octet and three octets of s, every other octet of s one and one,
// so the result does not depend on the EscapeMode. It is len(s) when off
// is at or past the end of the decoded value.
func EscapedOffset(s string, off int) int {
	i := 0
	for n := 0; n < off && i < len(s); n++ {
		if s[i] == '%' && i+2 < len(s) && hexValue[s[i+1]]|hexValue[s[i+2]] <= 0x0F {
			i += 3
		} else {
			i++
		}
	}
	return i
}

// needsUnescape reports whether s holds a '%', or a '+' in a query.
func needsUnescape(s string, query bool) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '%' || c == '+' && query {
			return true
		}
	}
	return false
}

// escapesHexPair reports whether the next two units of s from i, each a
// literal octet or a well-formed escape, decode to hexadecimal digits: that
// is, whether a '%' decoded just before i starts an escape once decoded.
func escapesHexPair(s string, i int, query bool) bool {
	for range 2 {
		if i >= len(s) {
			return false
		}
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			c = unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 3
		case c == '+' && query:
			return false
		default:
			i++
		}
		if !isHex(c) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// AppendEscape percent-encodes s following mode and appends it to dst, with
// upper-case hexadecimal digits. What it keeps unescaped is:
//
//   - EscapePath: the RFC 3986 pchar set (unreserved, sub-delims, ':', '@')
//     and '/'.
//   - EscapePathSegment: the pchar set; '/' is escaped.
//   - EscapeQuery: the unreserved set; a space becomes '+'.
//
// Every other octet, '%' and all non-ASCII octets included, is escaped, so
// AppendUnescape with the same mode (without RefuseDoubleEncoding) gives s
// back for every valid UTF-8 s.
func AppendEscape(dst []byte, s string, mode EscapeMode) []byte {
	keep := keepSet(mode)
	query := keep == &keepQuery
	lit := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if keep[c>>6]&(1<<(c&63)) != 0 {
			continue
		}
		dst = append(dst, s[lit:i]...)
		if c == ' ' && query {
			dst = append(dst, '+')
		} else {
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
		}
		lit = i + 1
	}
	return append(dst, s[lit:]...)
}

// Escape is like AppendEscape but returns a string: s itself, without
// allocating, when nothing in it needs escaping.
func Escape(s string, mode EscapeMode) string {
	keep := keepSet(mode)
	for i := 0; i < len(s); i++ {
		if c := s[i]; keep[c>>6]&(1<<(c&63)) == 0 {
			return string(AppendEscape(make([]byte, 0, len(s)+16), s, mode))
		}
	}
	return s
}

func keepSet(mode EscapeMode) *octetSet {
	switch mode & modeMask {
	case EscapePathSegment:
		return &keepSegment
	case EscapeQuery:
		return &keepQuery
	}
	return &keepPath
}

const upperHex = "0123456789ABCDEF"

// octetSet is a set of octets as a 256-bit bitmap.
type octetSet [4]uint64

func makeOctetSet(chars string) (s octetSet) {
	for i := 0; i < len(chars); i++ {
		c := chars[i]
		s[c>>6] |= 1 << (c & 63)
	}
	return s
}

const (
	unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
	subDelims  = "!$&'()*+,;="
)

var (
	keepQuery   = makeOctetSet(unreserved)
	keepSegment = makeOctetSet(unreserved + subDelims + ":@")
	keepPath    = makeOctetSet(unreserved + subDelims + ":@/")
)
