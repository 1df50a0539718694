package sanitize

import (
	"errors"
	"strconv"
)

// Reason is the kind of a rejection, one entry of the rejection taxonomy.
// Its String method returns the stable name used in logs and configuration
// files ("overlong", "surrogate", ...). The zero Reason is not a valid reason.
//
// The taxonomy is shared by every package of utf8guard: sanitize reports the
// encoding reasons and forbidden_char, normalize reports not_normalized and
// precis, and the middleware reports the rest (too_large, bad_charset,
// canonical_syntax, unsupported_media_type, bad_media_type, key_collision,
// duplicate_key, forbidden_trailer, body_unreadable, parsed_before_check,
// unsupported_encoding, ambiguous_header).
type Reason uint8

// The rejection reasons. Offsets are 0-based octet offsets into the decoded
// value, pointing at the first octet of the offending sequence; for
// BadEscape and DoubleEncoding, where the first octet of the offending
// escape would be once decoded (the number of octets decoded before it).
const (
	// Overlong: C0 or C1 followed by a continuation octet; E0 80-9F;
	// F0 80-8F; an RFC 2279 5- or 6-octet form (F8-FD lead with all its
	// continuations) whose value is at most U+10FFFF.
	Overlong Reason = iota + 1
	// Surrogate: ED A0-BF, a UTF-16 surrogate (U+D800..U+DFFF) encoded in
	// UTF-8, CESU-8 pairs included; or a JSON \uD800-\uDFFF escape that is
	// not part of a well-formed high+low pair.
	Surrogate
	// OutOfRange: F4 90-BF; an F5-F7 lead with its three continuations; a
	// complete 5- or 6-octet form of a value above U+10FFFF.
	OutOfRange
	// InvalidByte: FE or FF; C0 or C1 not followed by a continuation; an
	// F5-FD lead not followed by all its continuations.
	InvalidByte
	// Truncated: a valid lead (C2-F4) whose continuation octets stop early,
	// after a valid prefix, at the end of the input or at an octet that is
	// not a continuation.
	Truncated
	// UnexpectedContinuation: an octet 80-BF where a character must start.
	UnexpectedContinuation
	// BadEscape: a '%' not followed by two hexadecimal digits.
	BadEscape
	// DoubleEncoding: an escape whose decoded text is itself an escape, such
	// as %25 followed by two hexadecimal digits, where that is refused.
	DoubleEncoding
	// ForbiddenChar: a well-formed character of a class the policy refuses.
	ForbiddenChar
	// NotNormalized: text not in the normalization form the policy requires.
	NotNormalized
	// TooLarge: a body, a field or a count over the policy's limit.
	TooLarge
	// BadCharset: a body that declares a charset other than UTF-8 or
	// US-ASCII where the policy refuses that.
	BadCharset
	// Precis: a value that a PRECIS profile (RFC 8264) disallows.
	Precis
	// CanonicalSyntax: a value whose canonical form (NFC, NFKC or a PRECIS
	// profile) holds syntax its decoded form did not: in the path, a '/',
	// '\\', '%', ';', '?', '#' or a dot segment ("．．" under NFKC is "..").
	CanonicalSyntax
	// UnsupportedMediaType: a body whose media type the policy neither
	// checks as text nor lists as binary, or a body without a Content-Type,
	// where the policy accepts listed types only.
	UnsupportedMediaType
	// BadMediaType: a Content-Type that mime.ParseMediaType cannot parse,
	// on a route that checks bodies.
	BadMediaType
	// KeyCollision: two distinct keys of one query, form, multipart body or
	// JSON object that are equal in the route's canonical form, such as
	// "\u00e9" and "e\u0301" under NFC.
	KeyCollision
	// DuplicateKey: a JSON object with two members of the same name (after
	// unescaping), which parsers resolve differently (I-JSON, RFC 7493).
	DuplicateKey
	// ForbiddenTrailer: a chunked trailer field carrying a header the
	// policy checks, where the body is not read before the handler.
	ForbiddenTrailer
	// BodyUnreadable: a body the policy checks that could not be read
	// whole (the client went away, a broken chunked encoding), so that
	// none of it could be checked.
	BodyUnreadable
	// ParsedBeforeCheck: a request whose query or form something before
	// the middleware had parsed already (Request.Form, PostForm or
	// MultipartForm set), so that the handler would read values no check
	// saw. A mistake of the server's, not the client's: the middleware
	// must be mounted before whatever parsed them.
	ParsedBeforeCheck
	// UnsupportedEncoding: a body the policy checks whose Content-Encoding
	// names a content coding the middleware does not decode (br, zstd,
	// compress, an unknown name), or more than one coding.
	UnsupportedEncoding
	// SpoolFull: a body that would take the octets the spooled bodies of
	// the server's requests hold on disk together past their budget: the
	// server's want of room, not the client's fault (503).
	SpoolFull
	// AmbiguousHeader: a header that parsers read differently, where the
	// policy refuses that: a multipart part header with a field or a
	// parameter given twice, of which Go's reader takes one and other
	// parsers the other.
	AmbiguousHeader

	numReasons = iota + 1
)

var reasonNames = [numReasons]string{
	Overlong:               "overlong",
	Surrogate:              "surrogate",
	OutOfRange:             "out_of_range",
	InvalidByte:            "invalid_byte",
	Truncated:              "truncated",
	UnexpectedContinuation: "unexpected_continuation",
	BadEscape:              "bad_escape",
	DoubleEncoding:         "double_encoding",
	ForbiddenChar:          "forbidden_char",
	NotNormalized:          "not_normalized",
	TooLarge:               "too_large",
	BadCharset:             "bad_charset",
	Precis:                 "precis",
	CanonicalSyntax:        "canonical_syntax",
	UnsupportedMediaType:   "unsupported_media_type",
	BadMediaType:           "bad_media_type",
	KeyCollision:           "key_collision",
	DuplicateKey:           "duplicate_key",
	ForbiddenTrailer:       "forbidden_trailer",
	BodyUnreadable:         "body_unreadable",
	ParsedBeforeCheck:      "parsed_before_check",
	UnsupportedEncoding:    "unsupported_encoding",
	SpoolFull:              "spool_full",
	AmbiguousHeader:        "ambiguous_header",
}

// String returns the taxonomy name of r, such as "overlong", or
// "Reason(N)" for a value that is not a reason.
func (r Reason) String() string {
	if r > 0 && int(r) < numReasons {
		return reasonNames[r]
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// ParseReason returns the Reason whose taxonomy name is name.
func ParseReason(name string) (Reason, error) {
	for r := Reason(1); int(r) < numReasons; r++ {
		if reasonNames[r] == name {
			return r, nil
		}
	}
	return 0, errors.New("sanitize: unknown reason " + strconv.Quote(name))
}

// Sentinel errors, one per Reason, for errors.Is. Every *Error unwraps to the
// sentinel of its Reason, so errors.Is(err, ErrOverlong) reports whether err
// is an overlong encoding, whichever package returned it.
var (
	ErrOverlong               = errors.New("sanitize: overlong encoding")
	ErrSurrogate              = errors.New("sanitize: encoded surrogate")
	ErrOutOfRange             = errors.New("sanitize: code point above U+10FFFF")
	ErrInvalidByte            = errors.New("sanitize: invalid byte")
	ErrTruncated              = errors.New("sanitize: truncated sequence")
	ErrUnexpectedContinuation = errors.New("sanitize: unexpected continuation byte")
	ErrBadEscape              = errors.New("sanitize: malformed percent-escape")
	ErrDoubleEncoding         = errors.New("sanitize: double percent-encoding")
	ErrForbiddenChar          = errors.New("sanitize: forbidden character")
	ErrNotNormalized          = errors.New("sanitize: text not normalized")
	ErrTooLarge               = errors.New("sanitize: over the size limit")
	ErrBadCharset             = errors.New("sanitize: charset not UTF-8")
	ErrPrecis                 = errors.New("sanitize: disallowed by PRECIS profile")
	ErrCanonicalSyntax        = errors.New("sanitize: canonical form adds syntax")
	ErrUnsupportedMediaType   = errors.New("sanitize: media type not accepted")
	ErrBadMediaType           = errors.New("sanitize: malformed media type")
	ErrKeyCollision           = errors.New("sanitize: keys collide in canonical form")
	ErrDuplicateKey           = errors.New("sanitize: duplicate key")
	ErrForbiddenTrailer       = errors.New("sanitize: checked header in trailer")
	ErrBodyUnreadable         = errors.New("sanitize: body could not be read")
	ErrParsedBeforeCheck      = errors.New("sanitize: form parsed before the check")
	ErrUnsupportedEncoding    = errors.New("sanitize: content coding not supported")
	ErrSpoolFull              = errors.New("sanitize: no room to spool the body")
	ErrAmbiguousHeader        = errors.New("sanitize: header field or parameter given twice")
)

var sentinels = [numReasons]error{
	Overlong:               ErrOverlong,
	Surrogate:              ErrSurrogate,
	OutOfRange:             ErrOutOfRange,
	InvalidByte:            ErrInvalidByte,
	Truncated:              ErrTruncated,
	UnexpectedContinuation: ErrUnexpectedContinuation,
	BadEscape:              ErrBadEscape,
	DoubleEncoding:         ErrDoubleEncoding,
	ForbiddenChar:          ErrForbiddenChar,
	NotNormalized:          ErrNotNormalized,
	TooLarge:               ErrTooLarge,
	BadCharset:             ErrBadCharset,
	Precis:                 ErrPrecis,
	CanonicalSyntax:        ErrCanonicalSyntax,
	UnsupportedMediaType:   ErrUnsupportedMediaType,
	BadMediaType:           ErrBadMediaType,
	KeyCollision:           ErrKeyCollision,
	DuplicateKey:           ErrDuplicateKey,
	ForbiddenTrailer:       ErrForbiddenTrailer,
	BodyUnreadable:         ErrBodyUnreadable,
	ParsedBeforeCheck:      ErrParsedBeforeCheck,
	UnsupportedEncoding:    ErrUnsupportedEncoding,
	SpoolFull:              ErrSpoolFull,
	AmbiguousHeader:        ErrAmbiguousHeader,
}

// Sentinel returns the sentinel error of r (ErrOverlong for Overlong, ...),
// or nil if r is not a reason.
func (r Reason) Sentinel() error {
	if r > 0 && int(r) < numReasons {
		return sentinels[r]
	}
	return nil
}

// Error describes the first violation found in a text. Validate,
// AppendUnescape, Check and the other functions of this package return it as
// a *Error; it unwraps to the sentinel of its Reason.
type Error struct {
	Reason Reason // what is wrong
	// Offset is the 0-based octet offset of the first octet of the offending
	// sequence in the decoded value, for every reason: for BadEscape and
	// DoubleEncoding, the number of octets decoded before the offending
	// escape (EscapedOffset gives the escape's offset in the escaped text).
	Offset int
	// Class is the character class that matched, for ForbiddenChar; zero
	// otherwise.
	Class Class
}

// Error returns a message such as "sanitize: overlong encoding at offset 7".
func (e *Error) Error() string {
	msg := "sanitize: " + e.Reason.String()
	if s := e.Reason.Sentinel(); s != nil {
		msg = s.Error()
	}
	if e.Reason == ForbiddenChar && e.Class != 0 {
		msg += " (" + e.Class.String() + ")"
	}
	return msg + " at offset " + strconv.Itoa(e.Offset)
}

// Unwrap returns the sentinel error of e.Reason.
func (e *Error) Unwrap() error { return e.Reason.Sentinel() }
