package adaptertest_test

import (
	"fmt"
	"net/url"
	"reflect"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/adaptertest"
)

// ExampleReads_MarshalJSON shows the document a handler answers: every
// string Go-quoted, so that an octet that is not UTF-8 survives JSON.
func ExampleReads_MarshalJSON() {
	rd := &adaptertest.Reads{Path: "/api/f/\xc0\xae", Params: map[string]string{"rest": "\xc0\xae"},
		Query: url.Values{"q": {"a\x00b"}}, Body: `{"a":"é"}`, ContentLength: 10}
	b, _ := rd.MarshalJSON()
	fmt.Println(string(b))
	// Output:
	// {"path":"/api/f/\\xc0\\xae","params":{"rest":"\\xc0\\xae"},"query":{"q":["a\\x00b"]},"first":null,"header":null,"cookies":null,"body":"{\\\"a\\\":\\\"é\\\"}","content_length":10,"form":null,"body_error":""}
}

// TestReadsRoundTripsOctets: what a handler read comes back from its JSON
// octet for octet, map keys included.
func TestReadsRoundTripsOctets(t *testing.T) {
	t.Parallel()
	in := &adaptertest.Reads{Path: "/\xff\"\\", Params: map[string]string{"\xed\xa0\x80": "\x00"},
		Query: url.Values{"k\xc0": {"\xe2\x80\xae", ""}}, First: map[string]string{"k\xc0": "\xe2\x80\xae"},
		Header: map[string][]string{"X-Name": {"\xc0\xae"}}, Cookies: map[string]string{"sid": "a\x7fb"},
		Body: "\xff\xfe\r\n", ContentLength: -1, Form: url.Values{}, BodyErr: "broken\n"}
	b, err := in.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	out := &adaptertest.Reads{}
	if err := out.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("read back\n%s\nwant\n%s", out, in)
	}
}
