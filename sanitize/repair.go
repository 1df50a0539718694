package sanitize

// replacement is U+FFFD REPLACEMENT CHARACTER in UTF-8.
const replacement = "\uFFFD"

// ToValid returns p with every maximal subpart of an ill-formed sequence
// replaced by U+FFFD, the substitution that the Unicode Standard (section
// 3.9, "U+FFFD Substitution of Maximal Subparts") recommends and the WHATWG
// Encoding Standard requires. A maximal subpart is the longest prefix of a
// well-formed sequence (Table 3-7), or a single octet where no well-formed
// sequence starts: F0 80 80 gives three U+FFFD, E2 82 41 gives U+FFFD then
// "A", C0 AE gives two U+FFFD.
//
// If p is already valid, ToValid returns p itself: no copy, no allocation.
// Otherwise it returns a newly allocated slice and p is left unchanged.
func ToValid(p []byte) []byte {
	i := validPrefix(p)
	if i == len(p) {
		return p
	}
	return appendValid(make([]byte, 0, len(p)+8), p, i)
}

// ToValidString is like ToValid but for a string; it returns s itself when s
// is valid.
func ToValidString(s string) string {
	i := validPrefix(s)
	if i == len(s) {
		return s
	}
	return string(appendValid(make([]byte, 0, len(s)+8), s, i))
}

// AppendValid appends p to dst with each maximal subpart of an ill-formed
// sequence replaced by U+FFFD, as ToValid does, and returns the extended
// slice. dst and p must not overlap.
func AppendValid(dst, p []byte) []byte {
	return appendValid(dst, p, 0)
}

// appendValid appends p to dst, repairing from p[i:] on; p[:i] is known valid.
func appendValid[T string | []byte](dst []byte, p T, i int) []byte {
	dst = append(dst, p[:i]...)
	for i < len(p) {
		if k := validPrefix(p[i:]); k > 0 {
			dst = append(dst, p[i:i+k]...)
			i += k
			continue
		}
		dst = append(dst, replacement...)
		i += maximalSubpart(p, i)
	}
	return dst
}

// maximalSubpart returns the length of the maximal subpart of the ill-formed
// sequence at p[i]: the number of its octets that still begin a well-formed
// sequence, and at least 1.
func maximalSubpart[T string | []byte](p T, i int) int {
	x := first[p[i]]
	size := int(x & 7)
	if size < 2 {
		return 1
	}
	ar := acceptRanges[x>>4]
	k := 1
	for k < size && i+k < len(p) {
		c := p[i+k]
		lo, hi := byte(0x80), byte(0xBF)
		if k == 1 {
			lo, hi = ar.lo, ar.hi
		}
		if c < lo || hi < c {
			break
		}
		k++
	}
	if k == size { // cannot happen for an ill-formed sequence
		return 1
	}
	return k
}
