package rules

import (
	"strconv"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Location is a part of a request that a policy can check. Its String method
// returns the name used in logs and configuration files.
type Location uint8

// The request locations.
const (
	Path      Location = iota // the URL path
	Query                     // the URL query: every key and value
	Form                      // application/x-www-form-urlencoded bodies
	JSON                      // application/json, +json and application/csp-report bodies
	Multipart                 // multipart/form-data: field names, file names, text parts
	Body                      // text/* and the other bodies Policy.BodyTypes names
	Header                    // the headers Policy.Headers names, cookies and trailers
	XML                       // application/xml, text/xml and +xml bodies

	// NumLocations is the number of locations, for arrays indexed by Location.
	NumLocations = iota
)

var locationNames = [NumLocations]string{"path", "query", "form", "json", "multipart", "body", "header", "xml"}

// String returns the location's name: "path", "query", "form", "json",
// "multipart", "body", "header" or "xml".
func (l Location) String() string {
	if l < NumLocations {
		return locationNames[l]
	}
	return "Location(" + strconv.Itoa(int(l)) + ")"
}

// FileContents says whether the contents of multipart file parts are text
// (checked) or data (passed on unread).
//
// Names are always text: a file name reaches logs, file systems and
// pages. Whether the file itself is text is the route's choice. A route
// whose files are text its application reads (a CSV it imports, a config
// it parses) wants them checked: TextFiles. A route that stores what it is
// given (an upload service, attachments) must take files in whatever
// encoding people have: a .txt that Windows Notepad saved as "Unicode"
// (UTF-16 with a byte order mark, sent as text/plain), or a CSV that Excel
// saved in Windows-1252 (sent as text/csv), is not UTF-8, and TextFiles
// refuses both. DataFiles takes them as they are.
type FileContents uint8

const (
	// TextFiles checks the contents of the file parts whose media type
	// MultipartTextTypes lists (text/* by default) as text, like fields;
	// those of other types are data.
	TextFiles FileContents = iota
	// DataFiles passes the contents of every file part on unread, as
	// data, bounded by Limits.FileBytes and Limits.BinaryBodyBytes.
	DataFiles
)

// String returns "text" or "data", the names the policy file uses.
func (f FileContents) String() string {
	switch f {
	case TextFiles:
		return "text"
	case DataFiles:
		return "data"
	}
	return "FileContents(" + strconv.Itoa(int(f)) + ")"
}

// Mode says what happens to a request that breaks its policy.
type Mode uint8

const (
	// Enforce rejects the request: the handler does not run.
	Enforce Mode = iota
	// Monitor logs the violation and passes the request on unchanged, for a
	// safe roll-out: nothing is rejected, repaired or normalized.
	Monitor
)

// String returns "enforce" or "monitor".
func (m Mode) String() string {
	if m == Monitor {
		return "monitor"
	}
	return "enforce"
}

// Check is what a policy does at one location. The zero Check checks
// nothing.
type Check struct {
	// On turns the checks of this location on: strict percent-decoding
	// where the location is percent-encoded, and RFC 3629 validation.
	On bool
	// Forbid is the set of character classes refused in the decoded text
	// (ForbiddenChar).
	Forbid sanitize.Class
	// Names is the set of classes refused in the names of this location
	// in addition to Forbid: query and form keys, JSON member names
	// (escaped or not), XML element and attribute names and
	// processing-instruction targets, multipart field names and file
	// names (and the rest of a part's header), cookie names (under
	// Header). A class refused only there, such as sanitize.BidiMark in
	// the strict preset, may appear in values: names are identifiers,
	// which a mark makes differ from a name that looks the same, where
	// values are text. Path and Body have no names apart from their
	// text, and Validate refuses Names there: put the classes in Forbid.
	Names sanitize.Class
	// RefuseDoubleEncoding refuses an escape of an escape, "%252e"
	// (DoubleEncoding). It applies to the path, the query and form bodies.
	RefuseDoubleEncoding bool
	// Repair replaces ill-formed UTF-8 with U+FFFD (maximal subparts)
	// instead of rejecting it. Malformed escapes, forbidden characters and
	// limits are still rejected: a repair must not hide an attack.
	Repair bool
}

// Limits bounds what one request may hold. A zero field means the default
// given for it; -1 means no limit (other negative values are mistakes,
// which Policy.Validate refuses).
//
// Text and data have limits of their own. What utf8guard reads as text is
// held in memory while it is checked, and bounded by BodyBytes, FieldBytes
// and the counts; what it passes on as data (a binary body, the contents
// of a multipart file part that the route treats as data) is streamed,
// never held in memory, and bounded by FileBytes and BinaryBodyBytes. A
// multipart body has both: its text (field names and values, file names,
// part headers, text file parts, delimiters) is bounded by BodyBytes, the
// contents of its data file parts by FileBytes each and BinaryBodyBytes
// together.
type Limits struct {
	// BodyBytes is the largest text body, in octets, on a route that
	// checks bodies: a form, JSON, XML or text body, and the text of a
	// multipart body (all of it but the contents of its data file parts).
	// Text is read up to it and refused past it (413). Bodies of a text
	// type that are passed on unread (another charset, a location that is
	// off) are bounded by it as binary bodies are by BinaryBodyBytes.
	// Default 1 MiB.
	BodyBytes int64
	// BinaryBodyBytes is the largest body that utf8guard passes on as data
	// (a media type it does not check as text: BinaryTypes, or any
	// unlisted type on a route that does not refuse them), and the largest
	// total of the contents of the data file parts of one multipart body.
	// A binary body is never read by utf8guard: one whose declared length
	// (Content-Length) is over the limit is refused before the handler
	// runs (too_large, 413); one of unknown length (chunked) is cut off
	// past it, the handler's read fails with an *http.MaxBytesError, and
	// a too_large line is logged. A multipart body over it is refused
	// (413) before the handler runs. Default 32 MiB.
	BinaryBodyBytes int64
	// FileBytes is the largest content of one multipart file part whose
	// contents are data (Policy.FileContents), refused past it (too_large,
	// 413, the part's field name in the log). Default 32 MiB.
	FileBytes int64
	// Fields is the largest number of query fields, and separately of form
	// or multipart fields. Default 1000.
	Fields int
	// FieldBytes is the longest decoded key or value of a query, form or
	// multipart text field, and the longest checked header value. Default
	// 64 KiB.
	FieldBytes int
	// PathBytes is the longest raw (escaped) path. Default 8 KiB.
	PathBytes int
	// QueryBytes is the longest raw (escaped) query, URL.RawQuery: the
	// text after '?', in octets, on a route that checks the query. It is
	// checked before any key or value is decoded, and it bounds the
	// query a repair or a rewrite to the canonical form makes too. A
	// query over it is too_large in location query, answered 400 as a
	// path over PathBytes is (413 is for bodies). Default 64 KiB: the
	// longest field FieldBytes allows by default still fits, while
	// Fields times FieldBytes alone (1000 fields of 64 KiB) would let a
	// query of 64 MB through; common servers and proxies refuse request
	// lines past 8 to 64 KiB anyway, so no real client meets it. A
	// route that takes longer queries raises it, as a route that takes
	// larger bodies raises BodyBytes.
	QueryBytes int
	// JSONDepth is the deepest nesting of JSON arrays and objects.
	// Default 512.
	JSONDepth int
	// MultipartParts is the largest number of parts of a multipart body.
	// Default 100.
	MultipartParts int
	// MultipartHeaderLines is the largest number of lines in the header of
	// one part of a multipart body (nested bodies included), a folded
	// field counting each of its lines. Go's reader allocates for every
	// header line and allows 10,000 per part, so without it a body of
	// short header lines costs many times a body of text of its size;
	// with it, the header work of a request is bounded by MultipartParts
	// times this. A part over it is refused before its header is parsed
	// (too_large in location multipart, 400 as a count). Default 6:
	// RFC 7578 form-data parts carry one to three (Content-Disposition,
	// Content-Type, Content-Transfer-Encoding; some clients add a
	// Content-Length), which leaves room for a Content-ID or a
	// Content-Description; a route that takes mail-like MIME parts with
	// folded fields raises it.
	MultipartHeaderLines int
}

// The default limits of data. They are the size of Go's own form parser:
// Request.FormFile and ParseMultipartForm hold 32 MiB of a form in memory
// and spill the rest to disk, so an upload of that size is one Go servers
// already expect (documents, photos); a route that takes larger files
// (video, backups) raises them.
const (
	DefaultBinaryBodyBytes = 32 << 20
	DefaultFileBytes       = 32 << 20
)

// The default limits.
const (
	DefaultBodyBytes            = 1 << 20
	DefaultFields               = 1000
	DefaultFieldBytes           = 64 << 10
	DefaultPathBytes            = 8 << 10
	DefaultQueryBytes           = 64 << 10
	DefaultJSONDepth            = 512
	DefaultMultipartParts       = 100
	DefaultMultipartHeaderLines = 6
)

// WithDefaults returns l with each zero field set to its default.
func (l Limits) WithDefaults() Limits {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def64 := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	def64(&l.BodyBytes, DefaultBodyBytes)
	def64(&l.BinaryBodyBytes, DefaultBinaryBodyBytes)
	def64(&l.FileBytes, DefaultFileBytes)
	def(&l.Fields, DefaultFields)
	def(&l.FieldBytes, DefaultFieldBytes)
	def(&l.PathBytes, DefaultPathBytes)
	def(&l.QueryBytes, DefaultQueryBytes)
	def(&l.JSONDepth, DefaultJSONDepth)
	def(&l.MultipartParts, DefaultMultipartParts)
	def(&l.MultipartHeaderLines, DefaultMultipartHeaderLines)
	return l
}

// Policy is what one route wants checked, and how. It is plain data: copy a
// preset and edit the copy.
//
//	p := rules.Strict()
//	p.Query.Forbid |= sanitize.DefaultIgnorable
//	p.Limits.BodyBytes = 4 << 20
type Policy struct {
	// Mode is Enforce (reject) or Monitor (log only).
	Mode Mode

	// The checks, one per location.
	Path, Query, Form, JSON, XML, Multipart, Body, Header Check

	// Headers lists the header names checked when Header.On (canonical
	// or not; matching ignores case).
	Headers []string
	// Cookies checks the name and the value of every cookie in the
	// request's Cookie headers, each as UTF-8 text under the Header
	// check's classes and repair, whether or not Header.On (reason in
	// location header, field "Cookie:name"). Values are not
	// percent-decoded: RFC 6265 defines no decoding. net/http's
	// Request.Cookie silently drops cookies whose values are not ASCII, but
	// a handler reading the Cookie header sees them; this sees them too.
	Cookies bool
	// BodyTypes lists media types, besides text/*, whose bodies are checked
	// as text under Body, such as "application/yaml". A type/* pattern
	// matches every subtype, a type/*+suffix pattern every subtype with
	// that structured syntax suffix ("application/*+yaml"). A type the
	// middleware reads as a structure keeps that structure's check,
	// listed or not: forms, JSON and +json, JSON lines, XML and +xml,
	// multipart (so "application/*+xml" here changes nothing).
	BodyTypes []string
	// FileContents says what the contents of multipart file parts are to
	// the route: TextFiles (the zero value) checks those of the types
	// MultipartTextTypes lists as text, as the application will interpret
	// them; DataFiles passes every file's contents on unread, as data the
	// application stores. Field names, file names and the other part
	// headers are text either way, and checked; so are the parts without
	// a file name (form fields).
	FileContents FileContents
	// MultipartTextTypes lists, under TextFiles, the media types of the
	// file parts whose contents are checked as text; other file parts
	// (images, archives, ...) are data, passed through. A type/* pattern
	// matches every subtype, a type/*+suffix pattern every subtype with
	// that suffix. Nil means text/*; an empty non-nil list means no file
	// part is text. Under DataFiles it is not used.
	MultipartTextTypes []string
	// RefuseCharsets rejects a body whose Content-Type declares a charset
	// other than UTF-8 or US-ASCII (BadCharset), and an XML body whose XML
	// declaration names another encoding. Without it such a body is passed
	// on unchecked, since its octets are not UTF-8.
	RefuseCharsets bool
	// RefuseUnlistedTypes accepts a request body only when its media type
	// is one the policy checks as text (a form, JSON, XML, multipart,
	// text/* or BodyTypes) or one BinaryTypes lists; any other body, and a
	// body without a Content-Type, is refused (UnsupportedMediaType, 415).
	// A positive list, as OWASP CRS rule 920420 keeps one: a handler that
	// decodes a body by a looser rule than the middleware's (JSON sent as
	// application/octet-stream to json.NewDecoder) then meets only checked
	// text.
	RefuseUnlistedTypes bool
	// BinaryTypes lists the media types of bodies that pass unread under
	// RefuseUnlistedTypes, such as "application/octet-stream" or "image/*"
	// on an upload route. A handler must never decode such a body as
	// text: utf8guard has not checked it.
	BinaryTypes []string
	// RefuseDuplicateKeys rejects a JSON body in which one object has two
	// members of the same name, after unescaping (DuplicateKey): parsers
	// disagree on which one wins, and I-JSON (RFC 7493) forbids them.
	// Names equal under simple case folding (strings.EqualFold) count as
	// the same: encoding/json, and so Echo's c.Bind, fills one struct
	// field from both, the last one winning.
	RefuseDuplicateKeys bool
	// RefuseAmbiguousParts rejects a multipart part whose header is read
	// one way by Go and another way by other parsers (AmbiguousHeader): a
	// header field given twice (Content-Disposition, Content-Type, any
	// field, names compared without regard to case), where Go's reader
	// takes the first and others the last; or a parameter of its
	// Content-Disposition or Content-Type given twice, where Go takes the
	// RFC 2231 extended form and parsers that do not know it the plain
	// one: the same name twice, an extended value beside continuations
	// or continuations Go does not join, or a plain value beside an
	// extended one that reads otherwise (filename="a.txt";
	// filename*=UTF-8''a.exe). A plain and an extended value that read
	// alike pass.
	RefuseAmbiguousParts bool

	// Normalization is the form accepted text is brought to (or checked
	// against, with RejectUnnormalized): normalize.None (the zero value:
	// text is left as it came), normalize.NFC (canonical composition: é
	// as U+00E9 or e+U+0301 become one) or normalize.NFKC (compatibility
	// composition too: "ﬁ" becomes "fi", which loses distinctions; for
	// identifiers, not free text).
	Normalization normalize.Form
	// RejectUnnormalized rejects text that is not in Normalization
	// (NotNormalized) instead of rewriting it.
	RejectUnnormalized bool

	// Precis applies PRECIS profiles (RFC 8264) to named identifier
	// fields: the handler sees the enforced form, and a value the profile
	// disallows is rejected (reason precis). A field with a profile is not
	// also brought to Normalization: the profile fixes its form.
	Precis []PrecisField

	// Limits bounds the request.
	Limits Limits
}

// PrecisField names one field and the PRECIS profile it must satisfy.
type PrecisField struct {
	// Location is where the field is: Path (Field is a route parameter
	// name, "id" for "/users/:id"), Query or Form (a key), JSON (an RFC 6901
	// JSON pointer such as "/user/name") or Multipart (a form field name).
	// A field of Query, Form or Multipart holds in the other two as well,
	// unless a field of that name is named there itself: r.FormValue,
	// c.FormValue and Echo's form binder read a name from any of them.
	Location Location
	// Field names the field within Location.
	Field string
	// Profile is the PRECIS profile: usernames, passwords, nicknames.
	Profile normalize.Profile
}

// Location returns a pointer to the Check of l in p, or nil for an unknown
// location.
func (p *Policy) Location(l Location) *Check {
	switch l {
	case Path:
		return &p.Path
	case Query:
		return &p.Query
	case Form:
		return &p.Form
	case JSON:
		return &p.JSON
	case Multipart:
		return &p.Multipart
	case Body:
		return &p.Body
	case Header:
		return &p.Header
	case XML:
		return &p.XML
	}
	return nil
}

// hasNames reports whether the location l has names that Check.Names
// applies to: keys (Query, Form), member names (JSON), element and
// attribute names (XML), field and file names (Multipart), cookie names
// (Header).
func hasNames(l Location) bool {
	return l == Query || l == Form || l == JSON || l == XML || l == Multipart || l == Header
}

// Off reports whether p checks nothing at all.
func (p *Policy) Off() bool {
	if p.Cookies {
		return false
	}
	for l := range Location(NumLocations) {
		if p.Location(l).On {
			return false
		}
	}
	return true
}

// AsMonitor returns a copy of p in Monitor mode: what p would reject is
// logged and passed on unchanged.
func (p Policy) AsMonitor() Policy {
	p.Mode = Monitor
	p.Headers = clone(p.Headers)
	p.BodyTypes = clone(p.BodyTypes)
	p.BinaryTypes = clone(p.BinaryTypes)
	p.MultipartTextTypes = clone(p.MultipartTextTypes)
	p.Precis = append([]PrecisField(nil), p.Precis...)
	return p
}

func clone(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}
