package xmlbody

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/normalize"
)

// xmlCanonWide checks that Canon's compact state (xmlCanon[uint32],
// what every body under 1 GiB gets) and its wide one (xmlCanon[uint64],
// for larger bodies, which no test can afford) reach the same verdict on
// body: the same rejection, or none.
func xmlCanonWide(t *testing.T, form normalize.Form, body []byte) {
	t.Helper()
	narrow := new(xmlCanon[uint32]).check(form, body)
	wide := new(xmlCanon[uint64]).check(form, body)
	if (narrow == nil) != (wide == nil) ||
		narrow != nil && (narrow.Offset != wide.Offset || narrow.Field != wide.Field || narrow.Reason != wide.Reason) {
		t.Fatalf("%v, %q: uint32 state gives %+v, uint64 state %+v", form, body, narrow, wide)
	}
}

// TestXMLCanonWide runs xmlCanonCases and the hostile bodies through both
// widths of Canon's state.
func TestXMLCanonWide(t *testing.T) {
	t.Parallel()
	for _, form := range []normalize.Form{normalize.NFC, normalize.NFKC} {
		for _, tc := range xmlCanonCases {
			xmlCanonWide(t, form, []byte(tc.body))
		}
		for _, name := range []string{"deep", "autoclose", "pieces", "combining"} {
			xmlCanonWide(t, form, xmlCanonHostile(16<<10, name))
		}
	}
}

// xmlCanonHostile returns a body of about n octets that is costly for
// Canon's working memory, by name: deep nesting with text in every
// element and after every end tag (an open element and a piece for every
// few octets), <br> elements that the HTML pass closes, one element whose
// text is many pieces joined, and a decomposed run (refused).
func xmlCanonHostile(n int, name string) []byte {
	var b bytes.Buffer
	switch name {
	case "deep":
		depth := n / len("<a>é</a>é")
		b.WriteString(strings.Repeat("<a>é", depth))
		b.WriteString(strings.Repeat("</a>é", depth))
	case "autoclose":
		b.WriteString("<a>")
		b.WriteString(strings.Repeat("é<br>é<!---->é", n/len("é<br>é<!---->é")))
		b.WriteString("</a>")
	case "pieces":
		b.WriteString("<a>")
		b.WriteString(strings.Repeat("\u00e9<!---->&#xE9;<!---->", n/len("\u00e9<!---->&#xE9;<!---->")))
		b.WriteString("</a>")
	case "combining":
		b.WriteString("<a>e")
		b.WriteString(strings.Repeat("&#x301;", n/len("&#x301;")))
		b.WriteString("</a>")
	}
	return b.Bytes()
}

// TestXMLGrow checks that xmlGrow makes room for one more element, and
// never grows a slice past what the body can need.
func TestXMLGrow(t *testing.T) {
	t.Parallel()
	for _, most := range []int{1, 2, 63, 64, 65, 1000, maxPooledXMLEntries} {
		t.Run(fmt.Sprint(most), func(t *testing.T) {
			var s []uint32
			for range most {
				s = append(xmlGrow(s, most), 1)
				if cap(s) > max(most, 64) {
					t.Fatalf("len %d: cap %d, past %d", len(s), cap(s), most)
				}
			}
			// Past the bound (had it been wrong): still room, and still
			// by doubling, not an allocation per element.
			for range 4 * most {
				s = append(xmlGrow(s, most), 1)
			}
			if len(s) != 5*most || cap(s) > 2*max(5*most, 64) {
				t.Fatalf("len %d cap %d, want len %d", len(s), cap(s), 5*most)
			}
		})
	}
}

// TestXMLRoom checks that xmlRoom makes room for what is asked, grows by
// doubling, and never past most unless asked for more.
func TestXMLRoom(t *testing.T) {
	t.Parallel()
	tests := []struct {
		len, cap, n, most int
		wantCap           int
	}{
		{0, 0, 1, 1000, 64},        // the least it allocates
		{0, 0, 100, 1000, 100},     // what is asked, if more
		{10, 64, 54, 1000, 64},     // room enough: its own memory
		{10, 64, 55, 1000, 128},    // doubled
		{10, 600, 600, 1000, 1000}, // doubled, but not past most
		{10, 600, 995, 1000, 1200}, // most was wrong: doubled all the same
	}
	for _, tc := range tests {
		buf := make([]byte, tc.len, tc.cap)
		for i := range buf {
			buf[i] = 'x'
		}
		got := xmlRoom(buf, tc.n, tc.most)
		if cap(got) != tc.wantCap || string(got) != string(buf) {
			t.Errorf("%+v: len %d cap %d", tc, len(got), cap(got))
		}
	}
}
