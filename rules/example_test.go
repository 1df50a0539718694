package rules_test

import (
	"fmt"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

func ExampleParse() {
	table, err := rules.Parse([]byte(`{
	  "routes": {
	    "/users/:id": {"preset": "strict",
	                   "query": {"forbid": ["default_ignorable"]},
	                   "limits": {"body_bytes": 4194304}},
	    "/rollout/*": {"preset": "strict", "mode": "monitor"}
	  }
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	users, _ := table.Lookup("/users/:id")
	fmt.Println("/users/:id query refuses:", users.Query.Forbid)
	fmt.Println("/users/:id body limit:", users.Limits.BodyBytes)
	rollout, _ := table.Lookup("/rollout/*")
	fmt.Println("/rollout/* mode:", rollout.Mode)
	other, found := table.Lookup("/health")
	fmt.Println("/health:", found, other.Query.Forbid)
	// Output:
	// /users/:id query refuses: nul|c0|tab_newline|c1|bidi_control|bom|default_ignorable
	// /users/:id body limit: 4194304
	// /rollout/* mode: monitor
	// /health: false nul
}

func ExampleParse_error() {
	_, err := rules.Parse([]byte(`{"routes": {"/users/:id": {"preset": "strict", "query": {"forbid": ["bidy"]}}}}`))
	fmt.Println(err)
	// Output:
	// rules: routes["/users/:id"].query.forbid[0]: unknown character class "bidy": want one of "nul", "c0", "tab_newline", "del", "c1", "bidi_control", "bidi_mark", "bidi", "noncharacter", "private_use", "bom", "default_ignorable"
}

func ExampleLoadFile() {
	table, err := rules.LoadFile("../testdata/rules/example.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, route := range []string{"/strict/*", "/nfc/*", "/monitor/*", "/open/*", "/users/:id", "/other"} {
		p, _ := table.Lookup(route)
		fmt.Printf("%-10s mode=%s normalization=%s off=%v headers=%q\n", route, p.Mode, p.Normalization.Name(), p.Off(), p.Headers)
	}
	// Output:
	// /strict/*  mode=enforce normalization=none off=false headers=[]
	// /nfc/*     mode=enforce normalization=nfc off=false headers=[]
	// /monitor/* mode=monitor normalization=none off=false headers=[]
	// /open/*    mode=enforce normalization=none off=true headers=[]
	// /users/:id mode=enforce normalization=none off=false headers=["User-Agent" "X-Forwarded-For"]
	// /other     mode=enforce normalization=none off=false headers=[]
}

func ExampleStrict() {
	p := rules.Strict()
	fmt.Println("path: ", p.Path.Forbid)
	fmt.Println("body: ", p.Body.Forbid)
	// The bidi marks (LRM, RLM, ALM) of right-to-left text pass in
	// values, but not in names: keys, member names, field names.
	fmt.Println("json names:", p.JSON.Forbid|p.JSON.Names)
	// Refuse invisible characters in the query too.
	p.Query.Forbid |= sanitize.DefaultIgnorable
	fmt.Println("query:", p.Query.Forbid)
	// Output:
	// path:  nul|c0|tab_newline|c1|bidi_control|bidi_mark|bom
	// body:  nul|c0|c1|bidi_control
	// json names: nul|c0|c1|bidi_control|bidi_mark
	// query: nul|c0|tab_newline|c1|bidi_control|bom|default_ignorable
}

func ExamplePolicy_AsMonitor() {
	strict := rules.Strict()
	rollout := strict.AsMonitor()
	fmt.Println(strict.Mode, rollout.Mode)
	// Output:
	// enforce monitor
}

func ExampleTable_Lookup() {
	table := rules.Table{
		Default: rules.Default(),
		Routes: map[string]rules.Policy{
			"/users/:id": rules.Strict(),
			"/proxy/*":   rules.Unchecked(),
		},
	}
	// Lookup takes the route template, as Echo's c.Path() gives it.
	for _, route := range []string{"/users/:id", "/proxy/*", "/users/42"} {
		p, found := table.Lookup(route)
		fmt.Println(route, found, p.Off(), p.RefuseCharsets)
	}
	// Output:
	// /users/:id true false true
	// /proxy/* true true false
	// /users/42 false false false
}
