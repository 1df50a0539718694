package adaptertest

import (
	"bytes"
	"errors"
	"mime/multipart"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// A table is a named list of rows.
type table struct {
	name string
	rows func() ([]row, error)
}

// tables are every row of the kit, by subject.
var tables = []table{
	{"conformance", func() ([]row, error) { return confRows(), nil }},
	{"querylimit", func() ([]row, error) { return queryLimitRows(), nil }},
	{"encoding", func() ([]row, error) { return encodingRows(), nil }},
	{"escapes", func() ([]row, error) { return escapesRows(), nil }},
	{"documents", documentsRows},
	{"sentences", sentencesRows},
	{"jsonlines", func() ([]row, error) { return jsonLinesRows(), nil }},
	{"partheaders", func() ([]row, error) { return partHeaderRows(), nil }},
	{"texttypes", func() ([]row, error) { return textTypesRows(), nil }},
}

// row is one request, with its policy and what must come of it: the
// status, the refusal's reason and location, the log line, what the
// handler reads.
type row struct {
	name string
	// table gives the policies, keyed by the kit's patterns; nil means
	// checked() on every route.
	table func() *rules.Table
	// The request: method (GET if empty), request-target as sent (raw
	// octets allowed), Content-Type, body, extra header lines.
	method, target, ct, body string
	header                   []string
	// trailer is the request's trailers, "Name: value" lines, as net/http
	// fills Request.Trailer for a chunked body: the names, announced by the
	// Trailer header, at once (with a nil value for "Name:"), the values
	// once the body has been read.
	trailer []string
	// declared keeps the body's declared length beside its trailers, as
	// only HTTP/2 can send them (a request of HTTP/2 in process; over a
	// wire, HTTP/2 only).
	declared bool
	// frames sends the request frame by frame over h2c, header lines as
	// written (a host field beside :authority), and nowhere else: no
	// client library sends such a request.
	frames bool
	// bodyErr makes the body fail with errBroken after its octets.
	bodyErr bool
	// noRequestID sends no X-Request-Id; every other request sends
	// requestID.
	noRequestID bool
	// parsedFirst parses the request's form (Request.ParseForm) before
	// the server sees it, as a middleware mounted before utf8guard would.
	parsedFirst bool
	// needsAlso is what the row needs of a target beyond what its request
	// implies (rowNeeds).
	needsAlso Capability
	// pending, when set, says why no adapter meets the row yet: it is
	// skipped, with that reason, until the pipeline does.
	pending string

	// status is the answer's status: 200 when the handler runs.
	status int
	// rej is the violation: refused (status not 200; the answer is
	// {"location", "reason"}) or flagged (Monitor, status 200); nil when
	// the request is clean.
	rej *rejection
	// reads is what the handler reads when it runs.
	reads *Reads
	// diffs are what a target with a Difference meets instead.
	diffs []diff
}

// rejection is a violation as the log line names it.
type rejection struct {
	reason, location, field string
	offset                  int
	class                   string
	// sample is checked when not empty; a target must agree with the
	// reference on it in any case.
	sample string
	// route is the kit's pattern of the route the line names; "" means
	// the route the target's path falls under.
	route string
	mode  string // "enforce" (default) or "monitor"
	// limit is the limit a too_large rejection names (the log's limit).
	limit int64
	// err is the log's error for body_unreadable, when not errBroken's.
	err string
}

// diff is what a target with the Difference when meets instead of the
// row's expectations.
type diff struct {
	when Difference
	// reads is what the handler reads instead, when not nil.
	reads *Reads
	// log holds the log fields written instead: a value, or anyValue for a
	// value the framework chooses, or noValue for a field left out.
	log map[string]any
}

// requestID is the X-Request-Id every request but a noRequestID row's
// sends.
const requestID = "conf-id"

type special int

const (
	anyValue special = iota + 1 // any non-empty value
	noValue                     // the field is absent
)

var errBroken = errors.New("broken body")

// checked is the strict preset with a listed header and 1 KiB bodies.
func checked() rules.Policy {
	p := rules.Strict()
	p.Header.On = true
	p.Headers = []string{ListedHeader}
	p.Limits.BodyBytes = 1024
	return p
}

// with returns checked() changed by edit.
func with(edit func(p *rules.Policy)) func() *rules.Table {
	return func() *rules.Table {
		p := checked()
		edit(&p)
		return &rules.Table{Default: p}
	}
}

func nfc(p *rules.Policy)  { p.Normalization = normalize.NFC }
func nfkc(p *rules.Policy) { p.Normalization = normalize.NFKC }

func monitor(p *rules.Policy) { *p = p.AsMonitor() }

// mpBody is a multipart/form-data body of name and value pairs, with a
// fixed boundary.
func mpBody(pairs ...string) string {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	_ = w.SetBoundary("conformance-boundary")
	for i := 0; i+1 < len(pairs); i += 2 {
		_ = w.WriteField(pairs[i], pairs[i+1])
	}
	_ = w.Close()
	return b.String()
}

const ctMP = "multipart/form-data; boundary=conformance-boundary"

const (
	decomposed = "e\u0301" // e + COMBINING ACUTE ACCENT
	composed   = "\u00e9"  // é
)
