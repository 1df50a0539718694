package middleware_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// documentsCases are the documents of testdata/documents, each sent as its
// own type, as text/plain, as a JSON string and as a double-quoted YAML
// value, and the sentences of testdata/sentences as text, JSON and YAML
// values: all must pass the strict preset unchanged.
func documentsCases(t *testing.T) []confCase {
	t.Helper()
	types := map[string]string{
		".yml": "application/yaml", ".json": "application/json", ".js": "text/javascript",
		".graphql": "application/graphql", ".html": "text/html; charset=utf-8", ".txt": "text/plain; charset=utf-8",
	}
	paths, err := filepath.Glob("../testdata/documents/*.*")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no documents: %v", err)
	}
	none := map[string]string{}
	post := func(name, ct, body string) confCase {
		return confCase{name: name, method: "POST", target: "/api/e", ct: ct, body: body,
			status: 200, reads: &confReads{Path: "/api/e", Params: none, Body: body}}
	}
	var cases []confCase
	add := func(name, ct, text string) {
		q, _ := json.Marshal(text)
		cases = append(cases,
			post(name+"/as "+ct, ct, text),
			post(name+"/as text", "text/plain; charset=utf-8", text),
			post(name+"/in JSON", "application/json", `{"doc":`+string(q)+`}`),
			post(name+"/in YAML", "application/yaml", "doc: "+string(q)+"\n"),
		)
	}
	for _, p := range paths {
		ct, ok := types[filepath.Ext(p)]
		if !ok {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		add(filepath.Base(p), ct, string(b))
	}
	for i, s := range sentences(t) {
		add(fmt.Sprintf("sentence %02d", i), "text/plain; charset=utf-8", s)
	}
	return cases
}

// TestEscapeScanPassesDocuments: the documents editors write and the
// sentences people write pass the escape scan of every syntax, on every
// adapter and mount, over every wire.
func TestEscapeScanPassesDocuments(t *testing.T) {
	t.Parallel()
	runConformance(t, documentsCases(t))
}
