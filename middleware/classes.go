package middleware

import "github.com/utf8guard/utf8guard/sanitize"

// The class checks of bodies. sanitize.CheckClasses decodes every non-ASCII
// character and looks up all its classes; in a body of Cyrillic, Greek or
// CJK text no character is in any class, so most of that work is wasted.
// checkClasses gives the same answer while decoding only the characters
// whose first two octets could start a character of some class
// (classCandidates), and handing those to sanitize.CheckClasses.

// asciiClassBits are the classes that hold ASCII characters.
const asciiClassBits = sanitize.NUL | sanitize.C0 | sanitize.TabNewline | sanitize.DEL

// asciiForbid[c] has bit b set when the ASCII octet b belongs to a class in
// c, for every c made of asciiClassBits.
var asciiForbid = func() (m [asciiClassBits + 1][2]uint64) {
	for c := range m {
		for b := rune(0); b < 0x80; b++ {
			if sanitize.ClassOf(b)&sanitize.Class(c) != 0 {
				m[c][b>>6] |= 1 << (b & 63)
			}
		}
	}
	return m
}()

// classCandidates[lead] has bit (second&63) set when a character whose
// UTF-8 form starts with the octets lead, second may belong to a class (BOM
// included). It may say yes too often, never too rarely:
// TestClassCandidates checks every code point against sanitize.ClassOf.
var classCandidates = func() (t [256]uint64) {
	set := func(lead byte, seconds ...byte) {
		for _, c := range seconds {
			t[lead] |= 1 << (c & 63)
		}
	}
	all := func(lead byte) { t[lead] = ^uint64(0) }
	all(0xC2)                               // C1 controls, U+00AD
	all(0xCD)                               // U+034F
	all(0xD8)                               // U+061C
	set(0xE1, 0x85, 0x9E, 0xA0)             // U+115F, U+1160, U+17B4, U+17B5, U+180B..U+180F
	set(0xE2, 0x80, 0x81)                   // U+200B..U+200F, U+202A..U+202E, U+2060..U+206F
	set(0xE3, 0x85)                         // U+3164
	all(0xEE)                               // private use
	all(0xEF)                               // private use, noncharacters, U+FE00.., U+FEFF, U+FFA0, U+FFF0..
	set(0xF0, 0x9B, 0x9D, 0x9F, 0xAF, 0xBF) // U+1BCA0.., U+1D173.., U+xFFFE/F
	set(0xF1, 0x8F, 0x9F, 0xAF, 0xBF)       // U+xFFFE/F
	set(0xF2, 0x8F, 0x9F, 0xAF, 0xBF)       // U+xFFFE/F
	set(0xF3, 0x8F, 0x9F, 0xA0, 0xAF, 0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7,
		0xB8, 0xB9, 0xBA, 0xBB, 0xBC, 0xBD, 0xBE, 0xBF) // tags U+E0000.., private use
	all(0xF4) // private use, U+10FFFE/F
	return t
}()

// attention[c][b] says whether the octet b needs a closer look when the
// classes c (made of asciiClassBits) and some non-ASCII class are refused:
// an ASCII octet of a class in c, or a lead octet that classCandidates
// flags for some second octet. Continuation octets and the leads of
// class-free scripts never do.
var attention = func() (t [asciiClassBits + 1][256]uint8) {
	for c := range t {
		for b := range 256 {
			if b < 0x80 && asciiForbid[c][b>>6]&(1<<(b&63)) != 0 || b >= 0x80 && classCandidates[b] != 0 {
				t[c][b] = 1
			}
		}
	}
	return t
}()

// checkClasses is sanitize.CheckClasses(p, forbid) for p valid UTF-8: the
// same *sanitize.Error for the same first refused character, or nil.
func checkClasses(p []byte, forbid sanitize.Class) error {
	if forbid&^asciiClassBits == 0 {
		return sanitize.CheckClasses(p, forbid) // ASCII only: sanitize skips the rest
	}
	if forbid&sanitize.BOM != 0 && len(p) >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF {
		return sanitize.CheckClasses(p[:3], forbid)
	}
	t := &attention[forbid&asciiClassBits]
	n := len(p)
	for i := 0; i < n; {
		// Eight octets at a time while none needs a look; then one by one
		// to the one that does.
		for i+8 <= n {
			q := p[i : i+8 : i+8]
			if t[q[0]]|t[q[1]]|t[q[2]]|t[q[3]]|t[q[4]]|t[q[5]]|t[q[6]]|t[q[7]] != 0 {
				break
			}
			i += 8
		}
		for i < n && t[p[i]] == 0 {
			i++
		}
		if i >= n {
			break
		}
		c := p[i]
		if c < 0x80 {
			return &sanitize.Error{Reason: sanitize.ForbiddenChar, Offset: i, Class: sanitize.ClassOf(rune(c)) & forbid}
		}
		size := 2
		if c >= 0xF0 {
			size = 4
		} else if c >= 0xE0 {
			size = 3
		}
		if i+size > n { // not valid UTF-8, which the caller promised: as sanitize does
			if err := sanitize.CheckClasses(p[i:], forbid&^sanitize.BOM); err != nil {
				e := err.(*sanitize.Error)
				e.Offset += i
				return e
			}
			return nil
		}
		if classCandidates[c]>>(p[i+1]&63)&1 != 0 {
			// BOM only counts at offset 0, handled above.
			if err := sanitize.CheckClasses(p[i:i+size], forbid&^sanitize.BOM); err != nil {
				e := err.(*sanitize.Error)
				e.Offset += i
				return e
			}
		}
		i += size
	}
	return nil
}

// checkUTF8Text is sanitize.Check(p, forbid) with the class check above: the
// first violation, UTF-8 or class, at the lowest offset.
func checkUTF8Text(p []byte, forbid sanitize.Class) error {
	k := sanitize.ValidPrefix(p)
	if err := checkClasses(p[:k], forbid); err != nil {
		return err
	}
	if k < len(p) {
		return sanitize.Validate(p)
	}
	return nil
}
