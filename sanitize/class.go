package sanitize

import (
	"errors"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Class is a set of character classes that a policy may refuse in otherwise
// well-formed text. Classes combine with |; the zero Class refuses nothing.
//
// The classes overlap where Unicode does: U+200E is both BidiMark and
// DefaultIgnorable, U+FEFF at offset 0 is both BOM and DefaultIgnorable.
type Class uint16

// The character classes.
const (
	// NUL is U+0000.
	NUL Class = 1 << iota
	// C0 is the C0 controls U+0001..U+001F other than TAB, LF and CR.
	C0
	// TabNewline is TAB, LF and CR (U+0009, U+000A, U+000D), the C0
	// controls that text bodies commonly carry. Refuse C0|TabNewline to
	// refuse every C0 control but NUL.
	TabNewline
	// DEL is U+007F.
	DEL
	// C1 is the C1 controls U+0080..U+009F.
	C1
	// BidiControl is the bidirectional embeddings, overrides and isolates
	// that the Trojan Source attack (CVE-2021-42574) uses to display text
	// in an order other than the one in which it is read: U+202A..U+202E
	// (LRE, RLE, PDF, LRO, RLO) and U+2066..U+2069 (LRI, RLI, FSI, PDI).
	BidiControl
	// BidiMark is the implicit directional marks: U+061C ARABIC LETTER
	// MARK, U+200E LEFT-TO-RIGHT MARK and U+200F RIGHT-TO-LEFT MARK.
	// They act as an invisible strong letter, not as a bracket around
	// text: right-to-left text carries them as ordinary characters (a
	// Hebrew "ב-10:00\u200f"), but they make two names that look alike
	// differ. Refuse them in names (identifiers, keys), not in free text.
	BidiMark
	// Noncharacter is the 66 noncharacters: U+FDD0..U+FDEF and every code
	// point whose low 16 bits are FFFE or FFFF.
	Noncharacter
	// PrivateUse is the private use areas: U+E000..U+F8FF,
	// U+F0000..U+FFFFD and U+100000..U+10FFFD.
	PrivateUse
	// BOM is U+FEFF as the first character of a value (RFC 3629 section 6).
	// U+FEFF elsewhere is not a BOM; it belongs to DefaultIgnorable.
	BOM
	// DefaultIgnorable is the Default_Ignorable_Code_Point property of
	// Unicode 15.0: characters that render invisibly, such as U+00AD, U+200B,
	// U+2060 and the tag characters U+E0000..U+E0FFF.
	DefaultIgnorable

	numClasses = iota
)

// Bidi is every bidirectional formatting character, BidiControl and
// BidiMark: U+061C, U+200E, U+200F, U+202A..U+202E and U+2066..U+2069.
// Its name for ParseClass is "bidi".
const Bidi = BidiControl | BidiMark

// AllClasses is every character class.
const AllClasses Class = 1<<numClasses - 1

// asciiClasses are the classes that contain ASCII characters.
const asciiClasses = NUL | C0 | TabNewline | DEL

var classNames = [numClasses]string{
	"nul", "c0", "tab_newline", "del", "c1", "bidi_control", "bidi_mark",
	"noncharacter", "private_use", "bom", "default_ignorable",
}

// String returns the names of the classes in c joined by "|", such as
// "nul|c0", or "none" for the zero Class.
func (c Class) String() string {
	if c == 0 {
		return "none"
	}
	var b strings.Builder
	for i, name := range classNames {
		if c&(1<<i) != 0 {
			if b.Len() > 0 {
				b.WriteByte('|')
			}
			b.WriteString(name)
		}
	}
	if rest := c &^ AllClasses; rest != 0 {
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString("Class(" + strconv.Itoa(int(rest)) + ")")
	}
	return b.String()
}

// ParseClass returns the class named name, one of the names String uses
// ("nul", "c0", "tab_newline", "del", "c1", "bidi_control", "bidi_mark",
// "noncharacter", "private_use", "bom", "default_ignorable"), or Bidi
// (both bidi classes) for "bidi", the name of the two before they were
// told apart. An unknown name is an error.
func ParseClass(name string) (Class, error) {
	if name == "bidi" {
		return Bidi, nil
	}
	for i, n := range classNames {
		if n == name {
			return 1 << i, nil
		}
	}
	return 0, errors.New("sanitize: unknown character class " + strconv.Quote(name))
}

// ClassOf returns the classes that r belongs to, BOM excepted (BOM depends on
// the position; see Class). It returns 0 for a rune outside every class and
// for a value that is not a Unicode scalar value.
func ClassOf(r rune) Class {
	if r < 0 {
		return 0
	}
	if r < 0x80 {
		switch {
		case r == 0:
			return NUL
		case r == '\t' || r == '\n' || r == '\r':
			return TabNewline
		case r < 0x20:
			return C0
		case r == 0x7F:
			return DEL
		}
		return 0
	}
	if r < 0xA0 {
		return C1
	}
	if r < 0xAD || r > utf8.MaxRune || (0xD800 <= r && r <= 0xDFFF) {
		return 0
	}
	return classesIn(r, AllClasses)
}

// classesIn returns the classes in forbid that r belongs to, for a scalar
// value r of U+00A0 or above: ClassOf(r) & forbid, without the search of
// the default ignorable ranges when forbid does not hold them.
func classesIn(r rune, forbid Class) Class {
	var c Class
	switch {
	case r < 0xA0:
		return ClassOf(r) & forbid
	case 0x202A <= r && r <= 0x202E, 0x2066 <= r && r <= 0x2069:
		c |= BidiControl
	case r == 0x061C, r == 0x200E, r == 0x200F:
		c |= BidiMark
	case 0xFDD0 <= r && r <= 0xFDEF, r&0xFFFE == 0xFFFE:
		c |= Noncharacter
	case 0xE000 <= r && r <= 0xF8FF, 0xF0000 <= r && r <= 0x10FFFD:
		c |= PrivateUse
	}
	if forbid&DefaultIgnorable != 0 && isDefaultIgnorable(r) {
		c |= DefaultIgnorable
	}
	return c & forbid
}

// defaultIgnorable is Default_Ignorable_Code_Point from Unicode 15.0's
// DerivedCoreProperties.txt, with adjacent ranges merged.
var defaultIgnorable = [...]struct{ lo, hi rune }{
	{0x00AD, 0x00AD},
	{0x034F, 0x034F},
	{0x061C, 0x061C},
	{0x115F, 0x1160},
	{0x17B4, 0x17B5},
	{0x180B, 0x180F},
	{0x200B, 0x200F},
	{0x202A, 0x202E},
	{0x2060, 0x206F},
	{0x3164, 0x3164},
	{0xFE00, 0xFE0F},
	{0xFEFF, 0xFEFF},
	{0xFFA0, 0xFFA0},
	{0xFFF0, 0xFFF8},
	{0x1BCA0, 0x1BCA3},
	{0x1D173, 0x1D17A},
	{0xE0000, 0xE0FFF},
}

func isDefaultIgnorable(r rune) bool {
	for _, rg := range defaultIgnorable {
		if r < rg.lo {
			return false
		}
		if r <= rg.hi {
			return true
		}
	}
	return false
}

// CheckClasses reports the first character of p that belongs to a class in
// forbid, as a *Error with Reason ForbiddenChar, the offset of the
// character's first octet and the matching classes (those of forbid it
// belongs to). It returns nil if there is none.
//
// CheckClasses expects valid UTF-8 (see Check, which validates too):
// ill-formed octets belong to no class and are passed over.
func CheckClasses(p []byte, forbid Class) error { return checkClasses(p, forbid) }

// CheckClassesString is like CheckClasses but for a string.
func CheckClassesString(s string, forbid Class) error { return checkClasses(s, forbid) }

// Check validates p as Validate does and refuses the classes in forbid as
// CheckClasses does, returning the first violation of either kind: the one
// at the lower offset.
func Check(p []byte, forbid Class) error { return check(p, forbid) }

// CheckString is like Check but for a string.
func CheckString(s string, forbid Class) error { return check(s, forbid) }

func check[T string | []byte](p T, forbid Class) error {
	if len(p) < 8 {
		// A short value of ASCII (a cookie, a query or form value, a
		// small JSON body) in one loop: well formed, and its first
		// octet of a class in forbid is the first violation.
		if i, ascii := shortASCIIClass(p, &asciiMasks[forbid&asciiClasses]); ascii {
			if i < 0 {
				return nil
			}
			return &Error{Reason: ForbiddenChar, Offset: i, Class: ClassOf(rune(p[i])) & forbid}
		}
	}
	if shortPrintable(asString(p)) {
		// A value of 8 to 32 octets of printable ASCII (most header
		// values, cookies and query values) holds no octet of any class:
		// a few word tests, without the class scan.
		return nil
	}
	if len(p) >= fusedFrom && forbid != 0 {
		return checkFused(p, forbid)
	}
	// validPrefix, spelled out as in validate.
	var k int
	if len(p) >= simdFrom {
		k = validPrefixSIMD(p)
	} else {
		k = validPrefixGeneric(p)
	}
	if err := checkClassesScan(p[:k], forbid); err != nil {
		return err
	}
	if k < len(p) {
		return classify(p, k)
	}
	return nil
}

// asciiMasks[c] has bit b set when the ASCII octet b belongs to a class
// in c, for every c made of asciiClasses (NUL|C0|TabNewline|DEL: bits 0-3).
var asciiMasks = func() (m [asciiClasses + 1][2]uint64) {
	for c := range m {
		for b := rune(0); b < utf8.RuneSelf; b++ {
			if ClassOf(b)&Class(c) != 0 {
				m[c][b>>6] |= 1 << (b & 63)
			}
		}
	}
	return m
}()

// shortASCIIClass reports whether p, under 8 octets, is all ASCII, and
// then the offset of its first octet in mask (asciiMasks), or -1.
func shortASCIIClass[T string | []byte](p T, mask *[2]uint64) (first int, ascii bool) {
	var or byte
	first = -1
	for i := len(p) - 1; i >= 0; i-- {
		b := p[i]
		or |= b
		if mask[(b>>6)&1]&(1<<(b&63)) != 0 {
			first = i
		}
	}
	return first, or < utf8.RuneSelf
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

func checkClasses[T string | []byte](p T, forbid Class) error {
	if forbid == 0 {
		return nil
	}
	if len(p) >= fusedFrom {
		// The fused kernel validates too, but its second tier tells the
		// characters of the classes from their neighbours (U+200D from
		// U+200E, U+2014 from U+202A) in the vector registers, where the
		// attention scan below flags every character that starts like
		// one and looks at each: text dense in them costs the same as
		// any other.
		return checkClassesFused(p, forbid)
	}
	return checkClassesScan(p, forbid)
}

// checkClassesScan is checkClasses with the attention scan.
func checkClassesScan[T string | []byte](p T, forbid Class) error {
	if forbid == 0 {
		return nil
	}
	n := len(p)
	if forbid&BOM != 0 && n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF {
		return &Error{Reason: ForbiddenChar, Offset: 0, Class: forbid & (BOM | DefaultIgnorable)}
	}
	t := &attnTables[forbid&AllClasses]
	asciiMask := &asciiMasks[forbid&asciiClasses]
	// The octets that need attention, a block of 64 at a time: the SIMD
	// kernel skips the blocks without any, attnMask does the last one.
	for base := 0; base < n; {
		w := min(n-base, 64)
		var mask uint64
		if n-base >= attnSIMDFrom {
			var off int
			off, mask = attnBlocks(p[base:], t)
			base += off
			if mask == 0 {
				continue // the rest, under 64 octets, is left
			}
			w = 64
		} else {
			mask = attnMask(p[base:base+w], t)
		}
		for ; mask != 0; mask &= mask - 1 {
			i := base + bits.TrailingZeros64(mask)
			b := p[i]
			if b < utf8.RuneSelf {
				if asciiMask[b>>6]&(1<<(b&63)) != 0 {
					return &Error{Reason: ForbiddenChar, Offset: i, Class: ClassOf(rune(b)) & forbid}
				}
				continue
			}
			// A lead octet (continuations never need attention) that
			// starts a character of one of the classes in forbid. Decode
			// it only if its second octet agrees; ill-formed octets are
			// in no class.
			if i+1 >= n || classPairs[b-0xC0]>>(p[i+1]&63)&1 == 0 {
				continue
			}
			// A 3-octet character: its third octet too, class by class
			// (U+200D, in every emoji sequence, starts as U+200E does).
			if b&0xF0 == 0xE0 && i+2 < n && !inThirds(b, p[i+1], p[i+2], forbid) {
				continue
			}
			if r, _ := decodeRune(p[i:]); r != utf8.RuneError {
				if c := classesIn(r, forbid); c != 0 {
					return &Error{Reason: ForbiddenChar, Offset: i, Class: c}
				}
			}
		}
		base += w
	}
	return nil
}

// load64 returns the eight octets of p at i as a little-endian word.
func load64[T string | []byte](p T, i int) uint64 {
	q := p[i : i+8] // one bounds check; the compiler merges the loads
	return uint64(q[0]) | uint64(q[1])<<8 | uint64(q[2])<<16 | uint64(q[3])<<24 |
		uint64(q[4])<<32 | uint64(q[5])<<40 | uint64(q[6])<<48 | uint64(q[7])<<56
}
