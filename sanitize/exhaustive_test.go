package sanitize

import (
	"fmt"
	"testing"
	"unicode/utf8"
)

// TestValidateExhaustive runs Validate over every sequence of 1, 2 and 3
// octets and every sequence of 4 octets whose first octet is F0..F7, and
// compares acceptance, Reason and Offset with refValidate (the RFC 3629 ABNF
// and the DESIGN.md table), acceptance with unicode/utf8.Valid, and the
// offset with ValidPrefix.
//
// The whole test takes about 17 s of CPU (9.5 s on 2 cores), so it runs in
// -short mode too.
func TestValidateExhaustive(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 3; n++ {
		t.Run(fmt.Sprintf("len%d", n), func(t *testing.T) {
			t.Parallel()
			exhaust(t, n, 0, 1<<(8*n))
		})
	}
	for lead := 0xF0; lead <= 0xF7; lead++ {
		t.Run(fmt.Sprintf("len4/%X", lead), func(t *testing.T) {
			t.Parallel()
			exhaust(t, 4, lead<<24, (lead+1)<<24)
		})
	}
}

// exhaust checks every n-octet sequence whose big-endian value is in
// [from, to).
func exhaust(t *testing.T, n, from, to int) {
	buf := make([]byte, n)
	failures := 0
	for v := from; v < to; v++ {
		for k := range n {
			buf[k] = byte(v >> (8 * (n - 1 - k)))
		}
		wantReason, wantOff := refValidate(buf)
		err := Validate(buf)
		var got Error
		if err != nil {
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("Validate(% X) = %T %v, want *Error", buf, err, err)
			}
			got = *e
		}
		gotOff := len(buf)
		if err != nil {
			gotOff = got.Offset
		}
		ok := got.Reason == wantReason && gotOff == wantOff && got.Class == 0
		ok = ok && utf8.Valid(buf) == (wantReason == 0)
		ok = ok && ValidPrefix(buf) == wantOff
		if !ok {
			t.Errorf("% X: Validate = %v (reason %v, offset %d); want reason %v at offset %d; utf8.Valid = %v; ValidPrefix = %d",
				buf, err, got.Reason, gotOff, wantReason, wantOff, utf8.Valid(buf), ValidPrefix(buf))
			if failures++; failures >= 20 {
				t.Fatal("too many failures")
			}
		}
	}
}

// TestReferenceSanity pins the reference against a few hand-checked
// sequences, so that a mistake in the reference cannot hide one in the code.
func TestReferenceSanity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in     string
		reason Reason
		off    int
	}{
		{"", 0, 0},
		{hx("7F C2 80 DF BF E0 A0 80 ED 9F BF EE 80 80 EF BF BF F0 90 80 80 F4 8F BF BF"), 0, 25},
		{hx("41 C0 AE"), Overlong, 1},
		{hx("ED A0 80"), Surrogate, 0},
		{hx("F4 90 80 80"), OutOfRange, 0},
		{hx("FE"), InvalidByte, 0},
		{hx("E2 82"), Truncated, 0},
		{hx("80"), UnexpectedContinuation, 0},
		{hx("F8 84 8F BF BF"), Overlong, 0},   // U+10FFFF in 5 octets
		{hx("F8 84 90 80 80"), OutOfRange, 0}, // 0x110000 in 5 octets
	} {
		if r, off := refValidate([]byte(tc.in)); r != tc.reason || off != tc.off {
			t.Errorf("refValidate(% X) = %v, %d; want %v, %d", tc.in, r, off, tc.reason, tc.off)
		}
	}
	// Every scalar value encodes to a UTF8-char of its own length, and no
	// surrogate does.
	var buf [4]byte
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		n := utf8.EncodeRune(buf[:], r)
		if got := refChar(buf[:n]); got != n {
			t.Fatalf("refChar(% X) (U+%04X) = %d, want %d", buf[:n], r, got, n)
		}
	}
}
