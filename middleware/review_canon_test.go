package middleware

// A fifth adversarial review's findings on routes that canonicalize: a
// PRECIS field named for one of the places a form field comes from, left
// behind by sending the field in another; header, cookie and multipart
// part header values that reached the handler unnormalized; and a query
// rewrite that revived pairs Go's parsers drop.

import (
	"net/http"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// TestReviewPrecisFormFieldOtherLocation: a profile named for the form
// field "user" holds when the client sends "user" in the query or in a
// multipart body, which c.FormValue and Echo's form binder read alike; one
// named for the query holds in a form body.
func TestReviewPrecisFormFieldOtherLocation(t *testing.T) {
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
