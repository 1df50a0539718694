package normalize

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/utf8guard/utf8guard/sanitize"
)

// A Form is a Unicode normalization form, or None. Its methods follow those
// of golang.org/x/text/unicode/norm.Form and give the same results on
// well-formed UTF-8, with three differences: they skip text that is already
// normal faster and without allocating; octets that are not well-formed
// UTF-8 are never normal (IsNormal, FirstNonNormal and Check report them)
// and never combine with anything (Bytes, String and Append copy them as
// they are); and Append does not renormalize what dst already holds.
//
// The zero Form is None. Form values other than None, NFC and NFKC are not
// valid: the methods panic on them, as norm's do. ParseForm and
// UnmarshalText return only valid values.
type Form uint8

const (
	// None is no normalization: every text is in it, as it is. Its methods
	// do not look at the text at all: IsNormal is always true, Check always
	// nil, Bytes and String return their input. It does not validate.
	None Form = iota
	// NFC is Normalization Form C, canonical decomposition followed by
	// canonical composition (UAX #15): é stays or becomes U+00E9, and
	// compatibility characters such as U+FB01 (ﬁ) are kept. It is the form
	// of RFC 5198 (Net-Unicode) and of the W3C character model, and the one
	// to rewrite request text into.
	NFC
	// NFKC is Normalization Form KC, compatibility decomposition followed by
	// canonical composition: it also folds compatibility characters (U+FB01
	// becomes "fi", U+00B2 becomes "2", U+FF21 becomes "A"). It loses
	// information, so it suits identifiers (PRECIS Nickname is built on it),
	// not free text.
	NFKC
)

var formNames = [...]string{None: "none", NFC: "nfc", NFKC: "nfkc"}

// ParseForm returns the Form named name: "none", "nfc" or "nfkc", in any
// case (so "NFC" as well), as written in configuration files.
func ParseForm(name string) (Form, error) {
	for f, n := range formNames {
		if strings.EqualFold(name, n) {
			return Form(f), nil
		}
	}
	return None, errors.New("normalize: unknown normalization form " + strconv.Quote(name))
}

// Name returns the name of f as ParseForm reads it: "none", "nfc" or
// "nfkc", or "Form(N)" for a value that is not a Form. (Form has no String
// method of that kind: String normalizes a string, as norm.Form.String
// does.)
func (f Form) Name() string {
	if int(f) < len(formNames) {
		return formNames[f]
	}
	return "Form(" + strconv.Itoa(int(f)) + ")"
}

// MarshalText returns the name of f, so that a Form reads and writes itself
// in JSON, YAML or TOML configuration. It fails for an invalid Form.
func (f Form) MarshalText() ([]byte, error) {
	if int(f) >= len(formNames) {
		return nil, errors.New("normalize: invalid " + f.Name())
	}
	return []byte(formNames[f]), nil
}

// UnmarshalText sets f to the Form named by text, as ParseForm does.
func (f *Form) UnmarshalText(text []byte) error {
	g, err := ParseForm(string(text))
	if err != nil {
		return err
	}
	*f = g
	return nil
}

// info returns the scanner's description of f, or nil for None; it panics
// for an invalid Form.
func (f Form) info() *formInfo {
	switch f {
	case None:
		return nil
	case NFC, NFKC:
		return &formInfos[f]
	}
	panic("normalize: invalid " + f.Name())
}

// IsNormal reports whether p is well-formed UTF-8 in the form f. It does
// not allocate when p is.
func (f Form) IsNormal(p []byte) bool { return isNormal(f, p) }

// IsNormalString reports whether s is well-formed UTF-8 in the form f. It
// does not allocate when s is.
func (f Form) IsNormalString(s string) bool { return isNormal(f, s) }

func isNormal[T string | []byte](f Form, p T) bool {
	fi := f.info()
	if fi == nil {
		return true
	}
	_, n, _ := firstDiff(fi, p)
	return n < 0
}

// FirstNonNormal returns -1 if p is well-formed UTF-8 in the form f.
// Otherwise it returns the offset of the first octet of the first character
// that normalizing p changes, or of the first octet that is not well-formed
// UTF-8, whichever comes first.
//
// In terms of the output: p[:n] is then both well-formed and a prefix of
// f.Bytes(p), while the character at n is not reproduced there, as in
//
//	NFC.FirstNonNormal([]byte("cafe\u0301")) == 3 // "e" + U+0301 becomes U+00E9
//	NFC.FirstNonNormal([]byte("x\u0302\u0323")) == 1 // U+0323 sorts first
//
// The offset is the longest common prefix of p and its normal form backed
// up to the start of a character, so it can lie within a normalization
// segment (the second line) rather than at its start, where norm.QuickSpan
// would stop. It does not allocate when p is normal.
func (f Form) FirstNonNormal(p []byte) int { return firstNonNormal(f, p) }

// FirstNonNormalString is FirstNonNormal for a string.
func (f Form) FirstNonNormalString(s string) int { return firstNonNormal(f, s) }

func firstNonNormal[T string | []byte](f Form, p T) int {
	fi := f.info()
	if fi == nil {
		return -1
	}
	_, n, _ := firstDiff(fi, p)
	return n
}

// Check returns nil if p is well-formed UTF-8 in the form f. Otherwise it
// returns a *sanitize.Error for the first problem in p: Reason
// sanitize.NotNormalized at the offset FirstNonNormal reports, or, where an
// ill-formed sequence comes first, the error sanitize.Validate reports for
// it (Reason Overlong, Surrogate, ... at its offset). Every error unwraps
// to its sentinel, so errors.Is(err, sanitize.ErrNotNormalized) works. It
// does not allocate when p is normal.
func (f Form) Check(p []byte) error { return check(f, p) }

// CheckString is Check for a string.
func (f Form) CheckString(s string) error { return check(f, s) }

func check[T string | []byte](f Form, p T) error {
	fi := f.info()
	if fi == nil {
		return nil
	}
	_, n, bad := firstDiff(fi, p)
	switch {
	case n < 0:
		return nil
	case bad:
		// p[:n] is well-formed, so the first malformation starts at n.
		var err error
		switch q := any(p).(type) {
		case string:
			err = sanitize.ValidateString(q[n:])
		case []byte:
			err = sanitize.Validate(q[n:])
		}
		var e *sanitize.Error
		if errors.As(err, &e) {
			return &sanitize.Error{Reason: e.Reason, Offset: n + e.Offset, Class: e.Class}
		}
		return &sanitize.Error{Reason: sanitize.InvalidByte, Offset: n}
	}
	return &sanitize.Error{Reason: sanitize.NotNormalized, Offset: n}
}

// Bytes returns p in the form f. When p is already normal (IsNormal), it
// returns p itself: no copy, no allocation, the same backing array. Otherwise
// it returns a new slice; octets of p that are not well-formed UTF-8 are
// copied to it as they are.
func (f Form) Bytes(p []byte) []byte {
	fi := f.info()
	if fi == nil {
		return p
	}
	from, n, _ := firstDiff(fi, p)
	if n < 0 {
		return p
	}
	return normalFrom(fi, p, from)
}

// String returns s in the form f. When s is already normal
// (IsNormalString), it returns s itself, without allocating. Otherwise
// octets of s that are not well-formed UTF-8 are copied as they are.
func (f Form) String(s string) string {
	fi := f.info()
	if fi == nil {
		return s
	}
	from, n, _ := firstDiff(fi, s)
	if n < 0 {
		return s
	}
	return string(normalFrom(fi, s, from))
}

// normalFrom returns f(p) in a new slice, given a boundary from before which
// p is normal and well-formed.
func normalFrom[T string | []byte](fi *formInfo, p T, from int) []byte {
	// Normal forms are rarely much longer than their input: leave a little
	// room (a sixteenth) rather than grow; a text that expands more has
	// its grower size the buffer (grow.go).
	out := make([]byte, 0, len(p)+len(p)>>4+80)
	out = append(out, p[:from]...)
	return appendNormal(fi, out, p, from)
}

// Append appends src in the form f to dst and returns the extended buffer:
// f applied to src alone, whatever dst holds (norm.Form.Append, unlike it,
// normalizes across the junction and needs dst to be normal). The bytes are
// always copied, even when src is already normal. Octets of src that are not
// well-formed UTF-8 are copied as they are.
//
// Aliasing: Append writes only to dst[len(dst):cap(dst)]. src may be part of
// dst[:len(dst)] (it is read before any growth of dst moves the bytes), but
// it must not overlap dst[len(dst):cap(dst)], which Append may overwrite
// before it has read all of src.
func (f Form) Append(dst, src []byte) []byte {
	fi := f.info()
	if fi == nil {
		return append(dst, src...)
	}
	return appendNormal(fi, reserve(dst, len(src)), src, 0)
}

// reserve grows dst, if it must, to hold n octets more and a little: once,
// rather than by the appends of each piece of the normal form.
func reserve(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	return slices.Grow(dst, n+n>>4+80) // as normalFrom
}

// AppendString is Append for a string src.
func (f Form) AppendString(dst []byte, src string) []byte {
	fi := f.info()
	if fi == nil {
		return append(dst, src...)
	}
	return appendNormal(fi, reserve(dst, len(src)), src, 0)
}
