package bench

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// The middleware-level hostile benchmarks serve, through Echo
// v4's ServeHTTP with the middleware, requests built to be slow for it
// beside benign requests of the same size at the same entry point (query,
// form, JSON, XML, multipart, text) on the same route. The names carry the
// case, its route (without the slash), the bound of its ratio, the size and
// last the input, so that the benign and the worst request of one size run
// back to back:
//
//	BenchmarkHostileMW/case=pairs-nfd/route=nfc/bound=20/size=64K/impl=benign
//	BenchmarkHostileMW/case=pairs-nfd/route=nfc/bound=20/size=64K/impl=worst
//
// The size is that of the body, or of the query for the query cases, at
// 16K, 64K, 256K and 1M (KiB and MiB). The targets: the worst input costs
// at most 10 times the benign one on the strict route and 20 times on a
// normalizing or PRECIS route (the bound= component), and every case grows
// linearly, the time exponent log(t(1M)/t(16K)) / log(64) at most 1.1.
// Besides cpu-ns/op (see reportCPU), each reports handed-B/op: the octets
// the handler is handed per request, the body it reads and the query it
// sees, for the allocation goal (at most 1.1 times the body allocated
// beyond what the handler is handed). bench/run.sh -only hostile runs them
// in its rounds and bench/cmd/hostile -mw summarizes them into
// hostile-mw.md; by hand:
//
//	go test -run '^$' -bench '^BenchmarkHostileMW$' -benchmem -cpu=1 -count=5 ./bench/ > mw.txt
//	go run ./bench/cmd/hostile -mw mw.txt
//
// The routes, each the strict preset with queries allowed as long as the
// largest size (Limits.QueryBytes 2 MiB; the default, 64 KiB, refuses the
// larger query cases before they are read):
//
//	/strict   as it is
//	/nfc      Normalization NFC
//	/nfkc     Normalization NFKC
//	/precis   PRECIS fields, no normalization: "user"
//	          (UsernameCaseMapped) and "nick" (Nickname) in the query, the
//	          form and multipart bodies; /profile/nick (Nickname) in JSON
//
// Each case names its route and entry point; its benign input is the
// entry point's (mwBenign). The cases are listed in mwCases with what
// each construction aims at.

// mwSizes are the sizes of BenchmarkHostileMW.
var mwSizes = []struct {
	name string
	n    int
}{{"16K", 16 << 10}, {"64K", 64 << 10}, {"256K", 256 << 10}, {"1M", 1 << 20}}

// mwEntry is where a request carries its text.
type mwEntry uint8

const (
	mwQuery mwEntry = iota
	mwForm
	mwJSON
	mwXML
	mwMultipart
	mwTextEntry
)

// mwRequest is one request of a benchmark: its target (path and query),
// and its body with its Content-Type, if any.
type mwRequest struct {
	target, ct string
	body       []byte
}

// mwCase is one construction: its name, its route ("/strict", "/nfc",
// "/nfkc", "/precis"), its entry point, and its builder, which returns
// the text (query or body) of n octets.
type mwCase struct {
	name, route string
	entry       mwEntry
	worst       func(n int) []byte
	// status is the answer the worst input gets: 200 unless the case is
	// refused (its cost is the cost of finding out), or mwAnyStatus where
	// that depends on the size (a canonical form that outgrows the body
	// limit at the larger sizes).
	status int
}

// mwAnyStatus is mwCase.status for a case answered differently by size.
const mwAnyStatus = -1

// request returns the request that carries text at e on route.
func (e mwEntry) request(route string, text []byte) mwRequest {
	switch e {
	case mwQuery:
		return mwRequest{target: route + "?" + string(text)}
	case mwForm:
		return mwRequest{target: route, ct: "application/x-www-form-urlencoded", body: text}
	case mwJSON:
		return mwRequest{target: route, ct: "application/json", body: text}
	case mwXML:
		return mwRequest{target: route, ct: "application/xml", body: text}
	case mwMultipart:
		return mwRequest{target: route, ct: "multipart/form-data; boundary=" + mwBoundary, body: text}
	}
	return mwRequest{target: route, ct: "text/plain; charset=utf-8", body: text}
}

// mwCases are the constructions.
var mwCases = []mwCase{
	// Query and form pairs.
	//
	// pairs-escapes: 1000 fields whose every octet is escaped (%C3%A9
	// runs), the decoding's worst.
	{name: "pairs-escapes", route: "/strict", entry: mwQuery, worst: func(n int) []byte {
		return mwPairsText(n, 1000, func(i int) string { return fmt.Sprintf("k%d", i) },
			func(_, room int) string { return mwRepeatRunes(mwEscE, room) })
	}},
	// pairs-empty: a few fields among '&' runs (empty pairs: counted
	// against no limit, skipped by every parser).
	{name: "pairs-empty", route: "/strict", entry: mwQuery, worst: func(n int) []byte {
		return mwRepeatTo(n, "a=1", strings.Repeat("&", 1200)+"b=2", "&z=", 'x')
	}},
	// pairs-nfd: 1000 fields of NFD text on the NFC route: every value is
	// rewritten (26-39x, canonPairs/canonText).
	{name: "pairs-nfd", route: "/nfc", entry: mwQuery, worst: func(n int) []byte {
		return mwPairsText(n, 1000, func(i int) string { return fmt.Sprintf("k%d", i) },
			func(_, room int) string { return mwRepeatRunes(mwEscNFD, room) })
	}},
	{name: "form-nfd", route: "/nfc", entry: mwForm, worst: func(n int) []byte {
		return mwPairsText(n, 1000, func(i int) string { return fmt.Sprintf("k%d", i) },
			func(_, room int) string { return mwRepeatRunes(mwEscNFD, room) })
	}},
	// keys-nfd: 1000 distinct NFD keys as long as the fields allow: every
	// key changes, so every key goes into the collision table.
	{name: "keys-nfd", route: "/nfc", entry: mwForm, worst: func(n int) []byte {
		var b bytes.Buffer
		per := n/1000 - len("&=v")
		for i := range 999 {
			if i > 0 {
				b.WriteByte('&')
			}
			k := fmt.Sprintf("%d", i)
			b.WriteString(k + mwRepeatRunes(mwEscNFD, per-len(k)) + "=v")
		}
		b.WriteString("&z=")
		return mwFit(&b, n, 'x', "")
	}},
	// pairs-nfkc: 1000 fields of fullwidth letters, each made ASCII.
	{name: "pairs-nfkc", route: "/nfkc", entry: mwQuery, worst: func(n int) []byte {
		return mwPairsText(n, 1000, func(i int) string { return fmt.Sprintf("k%d", i) },
			func(_, room int) string { return mwRepeatRunes("%EF%BC%A1", room) })
	}},
	// pairs-precis: 1000 fields named user and nick, upper-case and
	// fullwidth, each enforced (PRECIS maps them).
	{name: "pairs-precis", route: "/precis", entry: mwQuery, worst: func(n int) []byte {
		return mwPairsText(n, 1000, func(i int) string { return [2]string{"user", "nick"}[i%2] },
			func(_, room int) string { return mwRepeatRunes("%EF%BC%A1B", room) })
	}},
	{name: "form-precis", route: "/precis", entry: mwForm, worst: func(n int) []byte {
		return mwPairsText(n, 1000, func(i int) string { return [2]string{"user", "nick"}[i%2] },
			func(_, room int) string { return mwRepeatRunes("%EF%BC%A1B", room) })
	}},

	// JSON.
	//
	// json-many-members: one object with as many short distinct members
	// as fit (24 MB allocated at 1 MiB, memberCheck).
	{name: "json-many-members", route: "/strict", entry: mwJSON, worst: hostileManyKeys},
	{name: "json-small-objects", route: "/strict", entry: mwJSON, worst: hostileSmallObjects},
	{name: "json-long-keys", route: "/strict", entry: mwJSON, worst: hostileLongKeys},
	{name: "json-precis-pointer", route: "/precis", entry: mwJSON, worst: hostilePrecisPointer},
	// json-escapes: strings of \u00e9 escapes, the scanner's slow path.
	{name: "json-escapes", route: "/strict", entry: mwJSON, worst: func(n int) []byte {
		return mwRepeatTo(n, `["`, `\u00e9\u00e8\"\\`, `"]`, 'x')
	}},
	// json-brackets: more brackets than the depth limit, none deep
	// (jsonClean's bracket count sends it to the scanner).
	{name: "json-brackets", route: "/strict", entry: mwJSON, worst: func(n int) []byte {
		return mwRepeatTo(n, `[`, `[],`, `[]]`, ' ')
	}},
	// json-deep: arrays nested as deep as the limit allows, again and
	// again.
	{name: "json-deep", route: "/strict", entry: mwJSON, worst: func(n int) []byte {
		unit := strings.Repeat("[", 511) + strings.Repeat("]", 511) + ","
		return mwRepeatTo(n, `[`, unit, `0]`, ' ')
	}},
	// json-combining: one string of U+0301 after an "e" on the NFC route
	// (18-24x; the canonical path is json.go's). Its NFC form
	// holds a U+034F every 30 marks (the stream-safe format): at 1M, over
	// the body limit.
	{name: "json-combining", route: "/nfc", entry: mwJSON, worst: func(n int) []byte {
		return mwRepeatTo(n, `{"s":"e`, mwAcute, `"}`, ' ')
	}, status: mwAnyStatus},
	// json-combining-strings: strings of 4 KiB, each a letter and a run
	// of U+0301 (a hostile construction: 18-24x). As json-combining, at
	// 1M over the body limit once normalized.
	{name: "json-combining-strings", route: "/nfc", entry: mwJSON, worst: func(n int) []byte {
		return mwRepeatTo(n, `[""`, `,"e`+strings.Repeat(mwAcute, 2047)+`"`, `]`, ' ')
	}, status: mwAnyStatus},
	// json-nfd: many short NFD strings, each rewritten.
	{name: "json-nfd", route: "/nfc", entry: mwJSON, worst: func(n int) []byte {
		return mwRepeatTo(n, `[""`, `,"`+mwNFDE+`"`, `]`, ' ')
	}},
	// json-nfd-escaped: the same as escapes.
	{name: "json-nfd-escaped", route: "/nfc", entry: mwJSON, worst: func(n int) []byte {
		return mwRepeatTo(n, `[""`, `,"`+mwJSONU+`"`, `]`, ' ')
	}},
	// json-nfd-keys: one object of many distinct NFD member names: each
	// normalized, kept and compared.
	{name: "json-nfd-keys", route: "/nfc", entry: mwJSON, worst: func(n int) []byte {
		var b bytes.Buffer
		b.WriteString(`{"k":0`)
		for i := 0; ; i++ {
			m := fmt.Sprintf(`,"%x%s":0`, i, mwNFDE)
			if b.Len()+len(m)+len(`,"z":""}`) > n {
				break
			}
			b.WriteString(m)
		}
		b.WriteString(`,"z":"`)
		return mwFit(&b, n, 'x', `"}`)
	}},
	// json-nfkc-growth: U+FDFA, which NFKC writes as 33 octets, as many
	// as the body limit lets through once rewritten (refused above it).
	{name: "json-nfkc-growth", route: "/nfkc", entry: mwJSON, worst: func(n int) []byte {
		return mwRepeatTo(n, `["`, mwFDFA, `"]`, ' ')
	}, status: mwAnyStatus},
	// json-precis-long: the PRECIS field as long as the body.
	{name: "json-precis-long", route: "/precis", entry: mwJSON, worst: func(n int) []byte {
		return mwRepeatTo(n, `{"profile":{"nick":"`, "Zoë ", `"}}`, 'x')
	}},

	// XML.
	//
	// xml-attrs: one element with as many attributes as fit, each with a
	// character reference, behind a comment (the lexer decides).
	{name: "xml-attrs", route: "/strict", entry: mwXML, worst: func(n int) []byte {
		var b bytes.Buffer
		b.WriteString("<!-- c --><a")
		for i := 0; ; i++ {
			a := fmt.Sprintf(` a%x="&#xE9;"`, i)
			if b.Len()+len(a)+len(`>x</a>`) > n {
				break
			}
			b.WriteString(a)
		}
		b.WriteString(">")
		return mwFit(&b, n, 'x', "</a>")
	}},
	// xml-deep: elements nested as deep as the body allows.
	{name: "xml-deep", route: "/strict", entry: mwXML, worst: func(n int) []byte {
		depth := (n - 64) / len("<a></a>&#xE9;")
		var b bytes.Buffer
		b.WriteString("<!-- c -->")
		for range depth {
			b.WriteString("<a>&#xE9;")
		}
		for range depth {
			b.WriteString("</a>")
		}
		return mwFit(&b, n, ' ', "")
	}},
	// xml-refs: character data of character references, behind a comment.
	{name: "xml-refs", route: "/strict", entry: mwXML, worst: func(n int) []byte {
		return mwRepeatTo(n, "<!-- c --><a>", "&#xE9;&#233;&amp;", "</a>", 'x')
	}},
	// xml-dtd: a DOCTYPE of entity values full of character references.
	{name: "xml-dtd", route: "/strict", entry: mwXML, worst: func(n int) []byte {
		return mwRepeatTo(n, `<!DOCTYPE a [<!ENTITY e "`, "&#xE9;", `">]><a/>`, 'x')
	}},
	// xml-markup: the densest markup there is, two to seven octets a
	// token, in a random order for the branch predictor to miss: empty
	// elements, one octet of text, empty comments and instructions,
	// attributes without a value or with an empty one; behind a comment and
	// a reference (the lexer decides).
	{name: "xml-markup", route: "/strict", entry: mwXML, worst: func(n int) []byte {
		rng := rand.New(rand.NewPCG(1, 4))
		pieces := [...]string{"<a/>", "<a>x</a>", "<!---->", "<?a?>", "<a b c/>", "<a>&lt;</a>", "<a b=''/>", "</a>", "<a>", "x"}
		var b bytes.Buffer
		b.WriteString("<!-- c --><r>&amp;")
		for {
			s := pieces[rng.IntN(len(pieces))]
			if b.Len()+len(s)+len("</r>") > n {
				break
			}
			b.WriteString(s)
		}
		return mwFit(&b, n, ' ', "</r>")
	}},
	// xml-bare: one element with as many attributes without a value as
	// fit, two octets each (encoding/xml with Strict off gives each its
	// name as value).
	{name: "xml-bare", route: "/strict", entry: mwXML, worst: func(n int) []byte {
		return mwRepeatTo(n, "<!-- c --><r>&amp;</r><a", " b", "/>", ' ')
	}},
	// xml-combining: U+0301 as character references after an "e", on the
	// NFC route (XML is checked, not rewritten: refused at the first).
	{name: "xml-combining", route: "/nfc", entry: mwXML, worst: func(n int) []byte {
		return mwRepeatTo(n, "<a>e", "&#x301;", "</a>", ' ')
	}, status: http.StatusBadRequest},
	// xml-pieces: one element whose text is split by comments into
	// pieces that are each normal, joined by the check.
	{name: "xml-pieces", route: "/nfc", entry: mwXML, worst: func(n int) []byte {
		return mwRepeatTo(n, "<a>", "\u00e9<!---->&#xE9;<!---->", "</a>", ' ')
	}},
	// xml-deep-nfc: deep nesting with text in every element.
	{name: "xml-deep-nfc", route: "/nfc", entry: mwXML, worst: func(n int) []byte {
		depth := (n - 16) / len("<a>é</a>é")
		var b bytes.Buffer
		for range depth {
			b.WriteString("<a>é")
		}
		for range depth {
			b.WriteString("</a>é")
		}
		return mwFit(&b, n, ' ', "")
	}},
	// xml-autoclose: <br> elements, which the second, HTML pass closes.
	{name: "xml-autoclose", route: "/nfc", entry: mwXML, worst: func(n int) []byte {
		return mwRepeatTo(n, "<a>", "é<br>é<!---->é", "</a>", ' ')
	}},

	// Multipart.
	//
	// mp-nfd: 100 fields of NFD text on the NFC route: the body is
	// rebuilt (20-24x).
	{name: "mp-nfd", route: "/nfc", entry: mwMultipart, worst: func(n int) []byte {
		return mwMPFields(n, 100, func(i int) string { return fmt.Sprintf("f%d", i) },
			func(_, room int) string { return mwRepeatRunes(mwNFDE, room) }, " ")
	}},
	// mp-nfd-names: 100 parts with long NFD field names, each rewritten
	// to NFC in its quoted name="..." parameter (only a name sent as an
	// RFC 2231 name*= parameter is written back as one).
	{name: "mp-nfd-names", route: "/nfc", entry: mwMultipart, worst: func(n int) []byte {
		per := min(60<<10, n/100-120)
		return mwMPFields(n, 100, func(i int) string { return fmt.Sprint(i) + mwRepeatRunes(mwNFDE, per) },
			func(int, int) string { return "v" }, " ")
	}, status: mwAnyStatus},
	// mp-precis: 100 user and nick fields, upper-case and fullwidth.
	{name: "mp-precis", route: "/precis", entry: mwMultipart, worst: func(n int) []byte {
		return mwMPFields(n, 100, func(i int) string { return [2]string{"user", "nick"}[i%2] },
			func(_, room int) string { return mwRepeatRunes(mwFullA+"B", room) }, "B")
	}},
	// mp-nested-nfd: multipart bodies nested as deep as allowed, each
	// with NFD fields, rebuilt at every level.
	{name: "mp-nested-nfd", route: "/nfc", entry: mwMultipart, worst: func(n int) []byte {
		return mwMPNested(n, 8, mwNFDE)
	}},
	// mp-nested: the same, NFC text, on the strict route (checked, not
	// rebuilt).
	{name: "mp-nested", route: "/strict", entry: mwMultipart, worst: func(n int) []byte {
		return mwMPNested(n, 8, "é")
	}},
	// mp-headers: 99 parts with as many header lines as the policy lets
	// through (Limits.MultipartHeaderLines, 8 by default: Go's reader
	// allocates per line), sharing the room, then a field that takes
	// the rest.
	{name: "mp-headers", route: "/strict", entry: mwMultipart, worst: func(n int) []byte {
		return mwMPHeaders(n, rules.DefaultMultipartHeaderLines, rules.DefaultMultipartHeaderLines)
	}},
	// mp-headers-over: the same, with one header line more than the
	// limit in the last part: refused there, once the parts before it
	// are checked (400, a count).
	{name: "mp-headers-over", route: "/strict", entry: mwMultipart, worst: func(n int) []byte {
		return mwMPHeaders(n, rules.DefaultMultipartHeaderLines, rules.DefaultMultipartHeaderLines+1)
	}, status: http.StatusBadRequest},
	// mp-qp: quoted-printable fields, all escapes.
	{name: "mp-qp", route: "/strict", entry: mwMultipart, worst: func(n int) []byte {
		var m mwMPBuilder
		per := n/100 - 120
		line := strings.Repeat("=C3=A9", 12) + "=\r\n"
		for i := range 99 {
			m.part([]string{fmt.Sprintf(`Content-Disposition: form-data; name="f%d"`, i),
				"Content-Transfer-Encoding: quoted-printable"}, mwRepeatRunes(line, per))
		}
		m.open(`Content-Disposition: form-data; name="z"`)
		return m.close(n, 'x')
	}},
	// mp-delims: content full of lines that start like a delimiter.
	{name: "mp-delims", route: "/strict", entry: mwMultipart, worst: func(n int) []byte {
		var m mwMPBuilder
		m.open(`Content-Disposition: form-data; name="f"; filename="f.txt"`, "Content-Type: text/plain")
		line := "\r\n--" + mwBoundary + "x"
		m.WriteString(mwRepeatRunes(line, n-m.Len()-64))
		return m.close(n, 'x')
	}},

	// Text.
	//
	// text-combining: U+0301 after an "e", on the NFC route.
	{name: "text-combining", route: "/nfc", entry: mwTextEntry, worst: func(n int) []byte {
		return mwRepeatTo(n, "e", mwAcute, "", ' ')
	}, status: mwAnyStatus}, // at 1M, over the limit as json-combining
	// text-nfd: NFD text, rewritten.
	{name: "text-nfd", route: "/nfc", entry: mwTextEntry, worst: func(n int) []byte {
		return mwRepeatTo(n, "", "caf"+mwNFDE+" ", "", ' ')
	}},
}

// mwMPHeaders returns a body of n octets: 99 parts with the given number
// of header lines each (a Content-Disposition and lines of "X-H<k>: "
// and text that share the part's room), then a last part (the field "z")
// with last lines and padding.
func mwMPHeaders(n, lines, last int) []byte {
	var m mwMPBuilder
	per := n/100 - 100
	header := func(name string, lines int) []string {
		h := []string{fmt.Sprintf(`Content-Disposition: form-data; name="%s"`, name)}
		room := (per - len(h[0])) / (lines - 1)
		for k := 1; k < lines; k++ {
			h = append(h, fmt.Sprintf("X-H%d: ", k)+mwRepeatRunes("v\u00e9", room-10))
		}
		return h
	}
	for i := range 99 {
		m.part(header(fmt.Sprintf("f%d", i), lines), "v")
	}
	m.open(header("z", last)...)
	return m.close(n, 'x')
}

// hostileMWEcho returns Echo with the middleware and the routes of
// BenchmarkHostileMW, each with a handler that reads the whole body; the
// log goes to log (nil: nowhere). The handlers add the octets they are
// handed, the body they read and the query they see, to *handed.
func hostileMWEcho(tb testing.TB, log io.Writer, handed *int64) *echo.Echo {
	strict := rules.Strict()
	strict.Limits.QueryBytes = 2 << 20
	nfc, nfkc, precis := strict, strict, strict
	nfc.Normalization = normalize.NFC
	nfkc.Normalization = normalize.NFKC
	precis.Precis = []rules.PrecisField{
		{Location: rules.Query, Field: "user", Profile: normalize.UsernameCaseMapped},
		{Location: rules.Query, Field: "nick", Profile: normalize.Nickname},
		{Location: rules.Form, Field: "user", Profile: normalize.UsernameCaseMapped},
		{Location: rules.Form, Field: "nick", Profile: normalize.Nickname},
		{Location: rules.Multipart, Field: "user", Profile: normalize.UsernameCaseMapped},
		{Location: rules.Multipart, Field: "nick", Profile: normalize.Nickname},
		{Location: rules.JSON, Field: "/profile/nick", Profile: normalize.Nickname},
	}
	table := &rules.Table{Default: strict, Routes: map[string]rules.Policy{
		"/strict": strict, "/nfc": nfc, "/nfkc": nfkc, "/precis": precis,
	}}
	logger := zerolog.Nop()
	if log != nil {
		logger = zerolog.New(log)
	}
	mw, err := echov4.Config{Rules: table, Logger: &logger}.ToMiddleware()
	if err != nil {
		tb.Fatal(err)
	}
	e := echo.New()
	e.Use(mw)
	h := func(c echo.Context) error {
		n, err := io.Copy(io.Discard, c.Request().Body)
		if err != nil {
			return err
		}
		if handed != nil {
			*handed += n + int64(len(c.Request().URL.RawQuery))
		}
		return c.NoContent(http.StatusOK)
	}
	for _, route := range []string{"/strict", "/nfc", "/nfkc", "/precis"} {
		e.GET(route, h)
		e.POST(route, h)
	}
	return e
}

func BenchmarkHostileMW(b *testing.B) {
	var handed int64
	e := hostileMWEcho(b, nil, &handed)
	for _, hc := range mwCases {
		// The route and its bound travel in the name, for the summary
		// (bench/cmd/hostile -mw) to read.
		name := fmt.Sprintf("case=%s/route=%s/bound=%d", hc.name, strings.TrimPrefix(hc.route, "/"), mwBound(hc.route))
		b.Run(name, func(b *testing.B) {
			for _, size := range mwSizes {
				b.Run("size="+size.name, func(b *testing.B) {
					for _, input := range []string{"benign", "worst"} {
						b.Run("impl="+input, func(b *testing.B) {
							text, status := mwBenign(hc.entry, size.n), http.StatusOK
							if input == "worst" {
								text = hc.worst(size.n)
								if hc.status != 0 {
									status = hc.status
								}
							}
							mwServe(b, e, &handed, hc.entry.request(hc.route, text), status)
						})
					}
				})
			}
		})
	}
}

// mwBound returns the highest worst/benign ratio the hostile-input goals
// allow on route:
// that of a route that only checks, or of one that normalizes or enforces
// PRECIS.
func mwBound(route string) int {
	if route == "/strict" {
		return boundStrictRoute
	}
	return boundNormRoute
}

// mwServe serves req through e in a loop; the answer must be status.
// handed is the counter of e's handlers, reported per request as
// handed-B/op.
func mwServe(b *testing.B, e *echo.Echo, handed *int64, req mwRequest, status int) {
	method := http.MethodGet
	if req.body != nil {
		method = http.MethodPost
	}
	r := httptest.NewRequest(method, req.target, nil)
	if req.ct != "" {
		r.Header.Set(echo.HeaderContentType, req.ct)
	}
	rawQuery, requestURI := r.URL.RawQuery, r.RequestURI
	w := &mwWriter{h: http.Header{}}
	reset := func() {
		// A rewrite to the canonical form changes them.
		r.URL.RawQuery, r.RequestURI = rawQuery, requestURI
		if req.body != nil {
			r.Body = io.NopCloser(bytes.NewReader(req.body))
			r.ContentLength = int64(len(req.body))
			r.GetBody = nil
		}
		if req.ct != "" {
			r.Header.Set(echo.HeaderContentType, req.ct) // a rebuilt multipart body changes it
		}
		w.code = 0
	}
	reset()
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, r)
	if status != mwAnyStatus && rec.Code != status {
		b.Fatalf("status %d, want %d: %s", rec.Code, status, rec.Body)
	}
	size := len(req.body)
	if req.body == nil {
		size = len(rawQuery)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	*handed = 0
	reportCPU(b, func() {
		for b.Loop() {
			reset()
			mwServeOnce(e, w, r)
		}
	})
	if b.N > 0 {
		b.ReportMetric(float64(*handed)/float64(b.N), "handed-B/op")
	}
}

// mwServeOnce serves one request: a function of its own, so that an
// instruction counter (valgrind --tool=callgrind
// --toggle-collect='*bench.mwServeOnce') can count the requests alone.
//
//go:noinline
func mwServeOnce(e *echo.Echo, w http.ResponseWriter, r *http.Request) { e.ServeHTTP(w, r) }

// TestHostileMWInputs holds the inputs of BenchmarkHostileMW to their
// sizes and answers at the two smaller sizes (the benchmark checks the
// larger ones as it runs), and shows the log line of a wrong answer.
func TestHostileMWInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every input")
	}
	var log bytes.Buffer
	e := hostileMWEcho(t, &log, nil)
	for _, hc := range mwCases {
		for _, size := range mwSizes[:2] {
			for _, input := range []string{"benign", "worst"} {
				text, status := mwBenign(hc.entry, size.n), http.StatusOK
				if input == "worst" {
					text = hc.worst(size.n)
					if hc.status != 0 {
						status = hc.status
					}
				}
				if len(text) != size.n {
					t.Errorf("%s/%s/%s: %d octets", hc.name, input, size.name, len(text))
				}
				req := hc.entry.request(hc.route, text)
				r := httptest.NewRequest(http.MethodGet, req.target, nil)
				if req.body != nil {
					r = httptest.NewRequest(http.MethodPost, req.target, bytes.NewReader(req.body))
				}
				if req.ct != "" {
					r.Header.Set(echo.HeaderContentType, req.ct)
				}
				log.Reset()
				w := httptest.NewRecorder()
				e.ServeHTTP(w, r)
				if status != mwAnyStatus && w.Code != status {
					t.Errorf("%s/%s/%s: status %d, want %d; log %s", hc.name, input, size.name, w.Code, status, log.String())
				}
			}
		}
	}
}
