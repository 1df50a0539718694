// Package sanitize decodes and validates text strictly: UTF-8 exactly as RFC
// 3629 defines it, percent-escapes exactly as RFC 3986 defines them, and the
// character classes a policy may refuse. It is the core of utf8guard and
// imports the standard library, and on amd64 golang.org/x/sys/cpu to choose
// its SIMD kernel; it knows nothing of HTTP.
//
// # The threat
//
// RFC 3629 section 10 describes the attack this package exists for: a
// security check looks for "/../" in the raw octets, a lax decoder later
// turns the overlong sequence 2F C0 AE 2E 2F into "/../", and the check is
// bypassed. The same family smuggles NUL as C0 80, encodes UTF-16 surrogates
// in UTF-8 (ED A0 80, CESU-8), writes code points above U+10FFFF or the 5-
// and 6-octet forms of RFC 2279, and hides escapes inside escapes ("%252e").
// A decoder that repairs or skips such input silently lets two layers of a
// program see two different strings.
//
// # Validation
//
// Validate and ValidateString accept exactly the UTF8-octets of RFC 3629 and
// report the first malformation as a *Error with a Reason (Overlong,
// Surrogate, OutOfRange, InvalidByte, Truncated, UnexpectedContinuation) and
// the offset of its first octet. Each Reason has a sentinel error for
// errors.Is:
//
//	if err := sanitize.Validate(p); errors.Is(err, sanitize.ErrOverlong) { ... }
//
// Validation does not allocate on valid input. On amd64, inputs of 35
// octets or more are checked with an AVX2 or AVX-512 kernel (the lookup
// algorithm of Keiser and Lemire, chosen at run time from the CPU's
// features); an error it finds is handed to the portable code from the
// last character boundary, so reasons and offsets are the same on every
// path. The build tag purego keeps only the portable code.
//
// # Repair
//
// ToValid replaces each maximal subpart of an ill-formed sequence with
// U+FFFD, the Unicode and WHATWG substitution, for routes that repair rather
// than reject. It returns its input itself when it is already valid.
//
// # Percent-decoding
//
// AppendUnescape decodes a path, a path segment or a query/form component
// into a caller-owned buffer, refusing a '%' not followed by two hex digits
// (BadEscape, never skipped), optionally refusing escapes of escapes
// (DoubleEncoding), and then validates the decoded octets. AppendEscape is
// the way back and round-trips with it.
//
// # Character classes
//
// Well-formed text can still carry characters a route should refuse: NUL, C0
// and C1 controls, DEL, the bidirectional embeddings, overrides and
// isolates of the Trojan Source attack (BidiControl), noncharacters,
// private use characters, a leading BOM, invisible default-ignorable
// characters. The bidi marks LRM, RLM and ALM (BidiMark) are a class of
// their own: right-to-left text carries them as ordinary characters, so a
// policy refuses them in names and identifiers rather than in free text;
// Bidi is both. Check validates and refuses a Class set in one call;
// CheckClasses only refuses, over text already validated. A refusal is a
// *Error with Reason ForbiddenChar, the offset and the Class.
// On CPUs with AVX-512, Check of 96 octets or more validates and looks
// for the classes in one pass (with AVX2 only, from 67 octets): table
// lookups per 64 octets find the octets that can start a character of the
// refused classes, more narrow them down to the characters, and only what
// is left is decoded. CheckClasses runs the same pass (it validates too,
// but reports only classes; from an ill-formed sequence on it goes on with
// the scan below), so that text dense in characters that start like
// refused ones (U+200D, U+2014 start as bidi controls do) costs what other
// text costs. Without a SIMD kernel, Check and CheckClasses validate and
// then look at each octet that can start a refused character.
//
// # Errors and offsets
//
// Offsets are 0-based and count octets of the decoded value, for every
// reason: a BadEscape or a DoubleEncoding is at the number of octets
// decoded before the offending escape, where its first octet would be, so
// that "%41%41%zz" has its bad escape at 2, not at 6. EscapedOffset maps
// such an offset back into the escaped text, for a caller that shows it.
package sanitize
