package adaptertest

import (
	"net/url"
	"strings"

	"github.com/utf8guard/utf8guard/rules"
)

// The query limit (rules.Limits.QueryBytes) through every adapter and
// mount of the conformance table: the escaped query as a whole, counted
// before anything is decoded, refused past the limit as too_large in
// location query with no field, answered 400 as a path over its limit is;
// and the query a repair or the canonical form makes held to it too.

// queryLimitRows are the rows.
func queryLimitRows() []row {
	limit := func(n int, edit ...func(*rules.Policy)) func() *rules.Table {
		return with(func(p *rules.Policy) {
			p.Limits.QueryBytes = n
			for _, e := range edit {
				e(p)
			}
		})
	}
	// q returns a query of exactly n octets: "q=" and n-2 'a's.
	q := func(n int) string { return "q=" + strings.Repeat("a", n-2) }
	vals := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return v
	}
	none := map[string]string{}
	tooLarge := func(limit int64) *rejection { return &rejection{reason: "too_large", location: "query", limit: limit} }
	repair := func(p *rules.Policy) { p.Query.Repair = true }
	// 1000 fields of 66 octets: within Fields and FieldBytes, and 66,999
	// octets, over the default limit of 64 KiB.
	var many strings.Builder
	for i := range 1000 {
		if i > 0 {
			many.WriteByte('&')
		}
		many.WriteString("k=" + strings.Repeat("v", 64))
	}
	// Ten U+FDFA, 90 octets escaped; their NFKC form is 330 octets, some
	// 900 escaped.
	fdfa := "q=" + strings.Repeat("%EF%B7%BA", 10)

	return []row{
		{name: "query at the limit", table: limit(64), target: "/api/e?" + q(64),
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Query: vals("q", q(64)[2:])}},
		{name: "query one over the limit", table: limit(64), target: "/api/e?" + q(65),
			status: 400, rej: tooLarge(64)},
		{name: "escapes count as sent", table: limit(64), target: "/api/e?q=" + strings.Repeat("%C3%A9", 21),
			// 65 octets escaped, 44 decoded: the escaped text is limited.
			status: 400, rej: tooLarge(64)},
		{name: "default limit: 1000 fields of 66 octets", target: "/api/e?" + many.String(),
			status: 400, rej: tooLarge(rules.DefaultQueryBytes)},
		{name: "no limit", table: limit(-1), target: "/api/e?" + q(40<<10) + "&" + q(40<<10),
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Query: vals("q", q(40 << 10)[2:], "q", q(40 << 10)[2:])}},
		{name: "monitor flags a query over the limit", table: limit(64, monitor), target: "/api/e?" + q(65),
			status: 200, rej: &rejection{reason: "too_large", location: "query", mode: "monitor", limit: 64},
			reads: &Reads{Path: "/api/e", Params: none, Query: vals("q", q(65)[2:])}},
		{name: "the limit before a violation", table: limit(64), target: "/api/e?q=%00" + strings.Repeat("a", 62),
			status: 400, rej: tooLarge(64)},
		{name: "a repair over the limit", table: limit(64, repair), target: "/api/e?q=" + strings.Repeat("%FF", 20),
			// 62 octets as sent; each %FF becomes %EF%BF%BD: 182.
			status: 400, rej: tooLarge(64)},
		{name: "a repair within the limit", table: limit(64, repair), target: "/api/e?q=%FF",
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Query: vals("q", "\ufffd")}},
		{name: "a canonical form over the limit", table: limit(128, nfkc), target: "/api/e?" + fdfa,
			status: 400, rej: tooLarge(128)},
		{name: "a canonical form within the limit", table: limit(128, nfkc), target: "/api/e?q=%EF%BC%A1",
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Query: vals("q", "A")}},
		{name: "a form body is not a query", table: limit(64), method: "POST", target: "/api/e?" + q(64),
			ct: "application/x-www-form-urlencoded", body: q(200),
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Query: vals("q", q(64)[2:]), Body: q(200),
				Form: vals("q", q(200)[2:])}},
		{name: "a query off the policy is not limited", table: limit(64, func(p *rules.Policy) { p.Query.On = false }),
			target: "/api/e?" + q(65),
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Query: vals("q", q(65)[2:])}},
	}
}
