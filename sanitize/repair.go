package sanitize

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"
)

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
//
// Its time is linear in len(p) however the errors lie, and it allocates
// once, the result (it counts the octets of the result first: U+FFFD is
// three octets, so an octet of input can become three). On amd64 with
// AVX-512 VBMI2, or with AVX2, both passes go 56 octets at a time
// (repair_block.go), and hand a run of 8 blocks with no error to the SIMD
// validator, which finds the end of the run (skipValid).
func ToValid(p []byte) []byte {
	i := validPrefix(p)
	if i == len(p) {
		return p
	}
	return repair(p, i)
}

// ToValidString is like ToValid but for a string; it returns s itself when s
// is valid, and otherwise allocates once, the result.
func ToValidString(s string) string {
	i := validPrefix(s)
	if i == len(s) {
		return s
	}
	// The repair is new memory that nothing else refers to or writes:
	// the string is made of it, not of a copy.
	b := repair(s, i)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// AppendValid appends p to dst with each maximal subpart of an ill-formed
// sequence replaced by U+FFFD, as ToValid does, and returns the extended
// slice. dst and p must not overlap.
func AppendValid(dst, p []byte) []byte {
	i := validPrefix(p)
	dst = append(dst, p[:i]...)
	if i == len(p) {
		return dst
	}
	if useBlocks(len(p) - i) {
		need, _, _ := repairLenBlocks(p, i)
		dst = slices.Grow(dst, need)
		n := len(dst)
		if o := repairIntoBlocks(dst[n:n+need], 0, p, i); o != need {
			panic("sanitize: repair wrote a length other than it counted")
		}
		return dst[:n+need]
	}
	need := repairLen(p, i)
	dst = slices.Grow(dst, need+utf8.UTFMax) // repairInto wants room for a character
	n := len(dst)
	o, _ := repairInto(dst[n:n+need+utf8.UTFMax], 0, p, i)
	return dst[:n+o]
}

// repair returns p repaired, given that p[:i] is valid and p[i] starts an
// ill-formed sequence: it counts the octets of the result first, so as to
// allocate them once and exactly. With the kernels, when the count finds
// that a quarter of the result or more, from i on, is U+FFFD alone (dense
// errors), it has replaceAll allocate and fill the result with U+FFFD and
// writes only from the first valid octet on.
func repair[T string | []byte](p T, i int) []byte {
	if useBlocks(len(p) - i) {
		rest, _, fill := repairLenBlocks(p, i)
		need := i + rest
		if fill.in == len(p) {
			return replaceAll(p, i, need)
		}
		var out []byte
		if 4*fill.out >= rest {
			// At least a quarter of the result is U+FFFD from i on:
			// fill it all so, and write from where it ends.
			out = replaceAll(p, i, need)
		} else {
			out = make([]byte, need)
			copy(out, p[:i])
			fill = fillEnd{in: i}
		}
		if o := repairIntoBlocks(out, i+fill.out, p, fill.in); o != need {
			panic("sanitize: repair wrote a length other than it counted")
		}
		return out
	}
	need := i + repairLen(p, i)
	out := make([]byte, need+utf8.UTFMax) // repairInto wants room for a character
	copy(out, p[:i])
	repairInto(out, i, p, i)
	return out[:need:need]
}

// replaceAll returns p[:i] followed by U+FFFD repeated to the length
// need, which is ToValid's result when no octet of p[i:] is valid: every
// one starts a maximal subpart or ends one, as in the densest errors (FF,
// C0 AF, ED A0 80, E2 82, F0 9F 98 repeated, binary data). bytes.Repeat
// allocates the result without clearing it first and fills it by copies
// of what it has filled so far, at about the cost of the clearing alone:
// make and the writing kernel cost that clearing and as much again
// (a quarter of the time of ToValid on 16 KiB of FF, the rest
// being mostly the collector's work for the 48 KiB allocated).
//
// The pattern repeated is U+FFFD turned so that its first octet falls at
// i. When i is not a multiple of 3, it asks the allocator for 1 or 2
// octets more than need, which the result does not hold (its capacity is
// need) and which its size classes almost always round up to anyway.
func replaceAll[T string | []byte](p T, i, need int) []byte {
	out := bytes.Repeat(fffdFrom[i%3][:], (need+2)/3)[:need:need]
	copy(out, p[:i])
	return out
}

// fffdFrom[r] is U+FFFD turned so that, repeated, it has its first octet
// (EF) at the positions r modulo 3.
var fffdFrom = [3][3]byte{{0xEF, 0xBF, 0xBD}, {0xBD, 0xEF, 0xBF}, {0xBF, 0xBD, 0xEF}}

// repairInto writes p[i:] repaired into out from out[o], given that i is a
// character boundary, and returns where it stopped in both: at len(p), or
// where out has no room left for what comes next (a U+FFFD, a character,
// or a run of well-formed text).
//
// It goes one octet or character at a time, and after 16 well-formed
// characters in a row it has validPrefix (SIMD on amd64) find the end of
// the run: right after an error the next is often close (Latin-1 text read
// as UTF-8, binary data), and a call of the SIMD validator costs as much as
// a few dozen characters, so it runs once per 16 octets or more.
func repairInto[T string | []byte](out []byte, o int, p T, i int) (int, int) {
	n := len(p)
	run := 0
	for i < n {
		if len(out)-o < utf8.UTFMax {
			return o, i
		}
		w := out[o : o+utf8.UTFMax]
		b := p[i]
		if b < utf8.RuneSelf {
			w[0] = b
			o++
			i++
		} else if size, k := scanChar(p, i); k == 0 {
			for j := range size {
				w[j] = p[i+j]
			}
			o += size
			i += size
		} else {
			run = 0
			if k == 1 && i+8 <= n && len(out)-o >= 24+utf8.UTFMax && isLone8(p, i) {
				// Eight octets that start no sequence: binary data, or
				// text in another encoding.
				binary.LittleEndian.PutUint64(out[o:], fffd8[0])
				binary.LittleEndian.PutUint64(out[o+8:], fffd8[1])
				binary.LittleEndian.PutUint64(out[o+16:], fffd8[2])
				o += 24
				i += 8
				continue
			}
			w[0], w[1], w[2] = replacement[0], replacement[1], replacement[2]
			o += len(replacement)
			i += k
			continue
		}
		if run++; run >= 16 {
			run = 0
			k := validPrefix(p[i:])
			if testHookValidPrefix != nil {
				testHookValidPrefix(k)
			}
			if len(out)-o < k {
				return o, i
			}
			o += copy(out[o:], p[i:i+k])
			i += k
		}
	}
	return o, i
}

// repairLen returns the length of p[i:] repaired, for a character boundary
// i: repairInto's loop, counting.
func repairLen[T string | []byte](p T, i int) int {
	n := len(p)
	m := 0
	run := 0
	for i < n {
		if p[i] < utf8.RuneSelf {
			m++
			i++
		} else if size, k := scanChar(p, i); k == 0 {
			m += size
			i += size
		} else {
			run = 0
			if k == 1 && i+8 <= n && isLone8(p, i) {
				m += 24
				i += 8
				continue
			}
			m += len(replacement)
			i += k
			continue
		}
		if run++; run >= 16 {
			run = 0
			k := validPrefix(p[i:])
			if testHookValidPrefix != nil {
				testHookValidPrefix(k)
			}
			m += k
			i += k
		}
	}
	return m
}

// testHookValidPrefix, when set by a test, is called with the length of
// each well-formed run that repairInto and repairLen have validPrefix
// find: FuzzToValidBudget counts the calls and the octets they cover.
var testHookValidPrefix func(k int)

// scanChar looks at the sequence that p[i], not ASCII, starts: it returns
// its length and 0 if it is a well-formed character, or 0 and the length of
// its maximal subpart (at least 1) if it is ill-formed.
func scanChar[T string | []byte](p T, i int) (size, subpart int) {
	x := first[p[i]]
	size = int(x & 7)
	if size < 2 {
		return 0, 1
	}
	ar := acceptRanges[x>>4]
	k := 1
	if i+1 < len(p) {
		if c := p[i+1]; ar.lo <= c && c <= ar.hi {
			k = 2
			for k < size && i+k < len(p) && p[i+k]&0xC0 == 0x80 {
				k++
			}
		}
	}
	if k == size {
		return size, 0
	}
	return 0, k
}

// lone has 1 for the octets that start no sequence (80-C1, F5-FF), each a
// maximal subpart of one octet.
var lone = func() (t [256]byte) {
	for b := range t {
		if b >= 0x80 && first[b]&7 < 2 {
			t[b] = 1
		}
	}
	return t
}()

// isLone8 reports whether p[i:i+8] are all lone octets.
func isLone8[T string | []byte](p T, i int) bool {
	q := p[i : i+8]
	return lone[q[0]]&lone[q[1]]&lone[q[2]]&lone[q[3]]&lone[q[4]]&lone[q[5]]&lone[q[6]]&lone[q[7]] != 0
}

// fffd8 is eight U+FFFD as three little-endian words.
var fffd8 = func() (w [3]uint64) {
	b := []byte(strings.Repeat(replacement, 8))
	for k := range w {
		w[k] = binary.LittleEndian.Uint64(b[8*k:])
	}
	return w
}()
