package xmllex

import (
	"fmt"
	"strings"
	"testing"
)

// tokens returns the tokens of p as "kind name=value" lines, names and
// values cut from p at the token's offsets.
func tokens(p string) []string {
	lx := &Lexer{P: []byte(p)}
	var out []string
	for {
		t := lx.Next()
		if t.Kind == EOF {
			return out
		}
		s := fmt.Sprintf("%d %q", t.Kind, p[t.From:t.To])
		if t.Name != [2]int{} {
			s += " name=" + p[t.Name[0]:t.Name[1]]
		}
		if t.Val != [2]int{} {
			s += " val=" + p[t.Val[0]:t.Val[1]]
		}
		out = append(out, s)
		if t.Kind == Broken {
			return out
		}
	}
}

// TestTokens: the lexer cuts a document into its tokens, by offsets into
// the body, each kind with its name and value; a syntax error makes the
// rest of the body one Broken token.
func TestTokens(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`<a b="1">x</a>`, []string{
			fmt.Sprintf(`%d "<a" name=a`, Start),
			fmt.Sprintf(`%d "b=\"1\"" name=b val=1`, Attr),
			fmt.Sprintf(`%d ">"`, StartEnd),
			fmt.Sprintf(`%d "x" val=x`, Text),
			fmt.Sprintf(`%d "</a>" name=a`, End),
		}},
		{`<?xml version="1.0"?><!-- c --><![CDATA[<&]]>`, []string{
			fmt.Sprintf(`%d "<?xml version=\"1.0\"?>" name=xml val=version="1.0"`, PI),
			fmt.Sprintf(`%d "<!-- c -->" val= c `, Comment),
			fmt.Sprintf(`%d "<![CDATA[<&]]>" val=<&`, CDATA),
		}},
		{`text</`, []string{
			fmt.Sprintf(`%d "text" val=text`, Text),
			fmt.Sprintf(`%d "</" val=</`, Broken),
		}},
	} {
		got := tokens(tc.in)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestScanHelpers: names end where the XML name octets end, white space
// is skipped, and a two-octet separator is found past a lone first octet.
func TestScanHelpers(t *testing.T) {
	p := []byte("ab-c.d e  ?x?>")
	if got := NameEnd(p, 0); got != 6 {
		t.Errorf("NameEnd = %d, want 6", got)
	}
	if got := SkipSpace(p, 8); got != 10 {
		t.Errorf("SkipSpace = %d, want 10", got)
	}
	if got := IndexPair(p, 0, "?>"); got != 12 {
		t.Errorf(`IndexPair("?>") = %d, want 12`, got)
	}
	if got := IndexPair(p, 0, "]]"); got != -1 {
		t.Errorf(`IndexPair("]]") = %d, want -1`, got)
	}
}
