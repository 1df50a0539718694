package middleware

// Probes of routes that canonicalize: a
// PRECIS field named for one of the places a form field comes from, left
// behind by sending the field in another; header, cookie and multipart
// part header values that reached the handler unnormalized; and a query
// rewrite that revived pairs Go's parsers drop.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// TestPrecisFormFieldOnlyInForms: a profile named for the form
// field "user" holds when the client sends "user" in the query or in a
// multipart body, which c.FormValue and Echo's form binder read alike; one
// named for the query holds in a form body.
func TestPrecisFormFieldOnlyInForms(t *testing.T) {
	for _, named := range []rules.Location{rules.Form, rules.Query, rules.Multipart} {
		pol := rules.Strict()
		pol.Precis = []rules.PrecisField{{Location: named, Field: "user", Profile: normalize.UsernameCaseMapped}}
		for name, wire := range map[string]string{
			"form":      rvPost("application/x-www-form-urlencoded", "user=MIKE"),
			"query":     "POST /x?user=MIKE HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n\r\nq=1",
			"multipart": rvPost("multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nMIKE\r\n--b--\r\n"),
		} {
			var fv, bound string
			code := rvServe(t, pol, wire, func(c echo.Context) error {
				var doc struct {
					User string `form:"user" query:"user"`
				}
				fv = c.FormValue("user")
				_ = c.Bind(&doc)
				bound = doc.User
				return nil
			})
			if code != http.StatusOK || fv != "mike" || bound != "mike" {
				t.Errorf("profile named in %v, field sent in the %s: status %d; c.FormValue(user) %q, c.Bind form:\"user\" %q; want \"mike\"",
					named, name, code, fv, bound)
			}
		}
	}
	// A field named in the other place itself keeps its own profile.
	pol := rules.Strict()
	pol.Precis = []rules.PrecisField{
		{Location: rules.Form, Field: "user", Profile: normalize.UsernameCaseMapped},
		{Location: rules.Query, Field: "user", Profile: normalize.UsernameCasePreserved},
	}
	var q string
	code := rvServe(t, pol, "GET /x?user=MIKE HTTP/1.1\r\nHost: a\r\n\r\n", func(c echo.Context) error {
		q = c.QueryParam("user")
		return nil
	})
	if code != http.StatusOK || q != "MIKE" {
		t.Errorf("query field with a profile of its own: status %d, c.QueryParam(user) %q, want \"MIKE\"", code, q)
	}
}

// TestHeadersNotNormalAreRefused: on a route that normalizes, a checked header
// value or cookie not in the form is refused (not_normalized), whether the
// route rewrites or rejects: header values are never rewritten, so one
// would reach the handler unnormalized. In the form, they pass.
func TestHeadersNotNormalAreRefused(t *testing.T) {
	for _, reject := range []bool{false, true} {
		pol := rules.Strict()
		pol.Normalization = normalize.NFC
		pol.RejectUnnormalized = reject
		pol.Header.On = true
		pol.Headers = []string{"X-Name"}
		pol.Cookies = true
		for _, tc := range []struct {
			name, headers, reason string
			status                int
		}{
			{"header", "X-Name: cafe\u0301\r\n", "not_normalized", http.StatusBadRequest},
			{"cookie", "Cookie: n=cafe\u0301\r\n", "not_normalized", http.StatusBadRequest},
			{"in the form", "X-Name: caf\u00e9\r\nCookie: n=caf\u00e9\r\n", "", http.StatusOK},
		} {
			wire := "GET /x HTTP/1.1\r\nHost: a\r\n" + tc.headers + "\r\n"
			ran := false
			code := rvServe(t, pol, wire, func(c echo.Context) error {
				ran = true
				for _, v := range []string{c.Request().Header.Get("X-Name"), c.Request().Header.Get("Cookie")} {
					if !normalize.NFC.IsNormalString(v) {
						t.Errorf("%s: handler read %+q", tc.name, v)
					}
				}
				return nil
			})
			if code != tc.status || ran != (tc.status == http.StatusOK) {
				t.Errorf("RejectUnnormalized=%v, %s: Echo v4 status %d, handler ran %v; want %d", reject, tc.name, code, ran, tc.status)
			}
			if code := rvHTTP(t, pol, wire, func(w http.ResponseWriter, r *http.Request) {}); code != tc.status {
				t.Errorf("RejectUnnormalized=%v, %s: net/http status %d, want %d", reject, tc.name, code, tc.status)
			}
		}
	}
}

// TestMultipartPartHeaderNotNormalIsRefused: on a route that normalizes, a
// part header value the rebuild leaves as it is (any header but the
// Content-Disposition, a parameter of it but name and filename) is refused
// when not in the form; name and filename are rewritten; values in the
// form pass, and what the handler reads of every part header is normal.
func TestMultipartPartHeaderNotNormalIsRefused(t *testing.T) {
	pol := rules.Strict()
	pol.Normalization = normalize.NFC
	for _, tc := range []struct {
		name, part string
		status     int
	}{
		{"other header", "Content-Disposition: form-data; name=\"q\"\r\nX-Note: cafe\u0301\r\n\r\nx", http.StatusBadRequest},
		{"Content-Type parameter", "Content-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\nContent-Type: text/plain; x=\"cafe\u0301\"\r\n\r\nx", http.StatusBadRequest},
		{"Content-Disposition parameter", "Content-Disposition: form-data; name=\"q\"; note=\"cafe\u0301\"\r\n\r\nx", http.StatusBadRequest},
		{"name and filename, rewritten", "Content-Disposition: form-data; name=\"cafe\u0301\"; filename=\"e\u0301.txt\"\r\nContent-Type: text/plain\r\n\r\nx", http.StatusOK},
		{"in the form", "Content-Disposition: form-data; name=\"q\"; note=\"caf\u00e9\"\r\nX-Note: caf\u00e9\r\n\r\nx", http.StatusOK},
	} {
		body := "--b\r\n" + tc.part + "\r\n--b--\r\n"
		var seen []string
		code := rvServe(t, pol, rvPost("multipart/form-data; boundary=b", body), func(c echo.Context) error {
			mr, err := c.Request().MultipartReader()
			if err != nil {
				return err
			}
			for p, err := mr.NextPart(); err == nil; p, err = mr.NextPart() {
				seen = append(seen, p.FormName(), p.FileName())
				for k, vs := range p.Header {
					for _, v := range vs {
						seen = append(seen, k+": "+v)
					}
				}
			}
			return nil
		})
		if code != tc.status {
			t.Errorf("%s: status %d, want %d", tc.name, code, tc.status)
		}
		for _, s := range seen {
			if !normalize.NFC.IsNormalString(s) {
				t.Errorf("%s: status %d; handler read %+q", tc.name, code, s)
			}
		}
	}
}

// TestSemicolonPairsStayDropped: url.ParseQuery skips a pair that
// holds a raw ';' (and so Request.ParseForm, c.QueryParam and Echo v5's
// lookup do). Rewriting the query or form for another pair re-encoded the
// ';' as %3B and made the pair one every parser reads; it is now kept as
// sent, whether the text is brought to NFC or repaired, and whether the
// canonical text fits the working memory or spills past it.
func TestSemicolonPairsStayDropped(t *testing.T) {
	nfc := rules.Strict()
	nfc.Normalization = normalize.NFC
	repair := rules.Strict()
	repair.Query.Repair, repair.Form.Repair = true, true
	long := "&pad=" + strings.Repeat("x", 70<<10) // past maxPooledPairBytes: the second pass writes the rest
	for _, tc := range []struct {
		name  string
		pol   rules.Policy
		query string
	}{
		{"as sent", nfc, "role=admin;x=1&q=caf%C3%A9"},
		{"nfc", nfc, "q=cafe%CC%81&role=admin;x=1"},
		{"nfc, ; before the change", nfc, "role=admin;x=1&q=cafe%CC%81"},
		{"nfc, ; in the key", nfc, "q=cafe%CC%81&role;x=admin"},
		{"nfc, spilled", nfc, "q=cafe%CC%81" + long + "&role=admin;x=1"},
		{"repair", repair, "q=b%FF&role=admin;x=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol := tc.pol
			pol.Limits.QueryBytes, pol.Limits.FieldBytes = -1, -1
			var got map[string][]string
			code := rvHTTP(t, pol, "GET /x?"+tc.query+" HTTP/1.1\r\nHost: a\r\n\r\n", func(w http.ResponseWriter, r *http.Request) {
				got = r.URL.Query()
				if !strings.Contains(r.URL.RawQuery, "admin;x") && !strings.Contains(r.URL.RawQuery, "&role;x=admin") {
					t.Errorf("the pair with ';' is not kept as sent: RawQuery %.80q", r.URL.RawQuery)
				}
			})
			if code != http.StatusOK {
				t.Fatalf("status %d", code)
			}
			for k := range got {
				if strings.HasPrefix(k, "role") {
					t.Errorf("the handler reads %q=%q, which url.ParseQuery drops from the query as sent", k, got[k])
				}
			}
			if q := got["q"]; len(q) != 1 || !normalize.NFC.IsNormalString(q[0]) || strings.Contains(q[0], "\xff") {
				t.Errorf("q = %+q", q)
			}
			body := tc.query
			code = rvHTTP(t, pol, rvPost("application/x-www-form-urlencoded", body), func(w http.ResponseWriter, r *http.Request) {
				_ = r.ParseForm()
				for k := range r.PostForm {
					if strings.HasPrefix(k, "role") {
						t.Errorf("form: the handler reads %q=%q, which ParseForm drops from the body as sent", k, r.PostForm[k])
					}
				}
			})
			if code != http.StatusOK {
				t.Errorf("form: status %d", code)
			}
		})
	}
}

// TestRepairKeyCollisionIsRefused: two distinct keys that repair to one
// ("a%FF" and "a%FE", or "a%FF" and an escaped U+FFFD) are refused as
// key_collision, as two keys with one canonical form are: after the
// repair, c.QueryParam would read the first value and a binder the last.
// Distinct repaired keys pass, and so does one key sent twice.
func TestRepairKeyCollisionIsRefused(t *testing.T) {
	pol := rules.Strict()
	pol.Query.Repair, pol.Form.Repair = true, true
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"a%FF=1&a%FE=2", http.StatusBadRequest},
		{"a%EF%BF%BD=1&a%FF=2", http.StatusBadRequest},
		{"a%F0%9F%98=1&a%EF%BF%BD=2", http.StatusBadRequest}, // three octets repaired to three
		{"a%FF=1&b%FE=2", http.StatusOK},
		{"a%FF=1&a%FF=2", http.StatusOK},
	} {
		if code := rvHTTP(t, pol, "GET /x?"+tc.query+" HTTP/1.1\r\nHost: a\r\n\r\n", func(w http.ResponseWriter, r *http.Request) {}); code != tc.want {
			t.Errorf("query %s: status %d, want %d", tc.query, code, tc.want)
		}
		if code := rvHTTP(t, pol, rvPost("application/x-www-form-urlencoded", tc.query), func(w http.ResponseWriter, r *http.Request) {}); code != tc.want {
			t.Errorf("form %s: status %d, want %d", tc.query, code, tc.want)
		}
	}
}
