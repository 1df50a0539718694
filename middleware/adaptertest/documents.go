package adaptertest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// testdata returns the module's testdata directory, found from the kit's
// own source file: the documents and sentences rows read it. It is not
// there when the kit was built with -trimpath; those rows are then
// skipped, and the report says so.
func testdata() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("the kit's source file is unknown")
	}
	dir := filepath.Join(filepath.Dir(file), "..", "..", "testdata")
	if _, err := os.Stat(filepath.Join(dir, "documents")); err != nil {
		return "", fmt.Errorf("no testdata beside the kit's source: %w", err)
	}
	return dir, nil
}

// documentsRows are the documents of testdata/documents, each sent as its
// own type, as text/plain, as a JSON string and as a double-quoted YAML
// value, and the sentences of testdata/sentences as text, JSON and YAML
// values: all must pass the strict preset unchanged.
func documentsRows() ([]row, error) {
	dir, err := testdata()
	if err != nil {
		return nil, err
	}
	types := map[string]string{
		".yml": "application/yaml", ".json": "application/json", ".js": "text/javascript",
		".graphql": "application/graphql", ".html": "text/html; charset=utf-8", ".txt": "text/plain; charset=utf-8",
	}
	paths, err := filepath.Glob(filepath.Join(dir, "documents", "*.*"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no documents: %v", err)
	}
	none := map[string]string{}
	post := func(name, ct, body string) row {
		return row{name: name, method: "POST", target: "/api/e", ct: ct, body: body,
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: body}}
	}
	var rows []row
	add := func(name, ct, text string) {
		q, _ := json.Marshal(text)
		rows = append(rows,
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
			return nil, err
		}
		add(filepath.Base(p), ct, string(b))
	}
	sentences, err := readSentences(filepath.Join(dir, "sentences", "strict-accepts.txt"))
	if err != nil {
		return nil, err
	}
	for i, s := range sentences {
		add(fmt.Sprintf("sentence %02d", i), "text/plain; charset=utf-8", s)
	}
	return rows, nil
}

// readSentences reads a file of Go-quoted sentences, one a line, "#"
// lines and empty ones left out.
func readSentences(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := strconv.Unquote(`"` + line + `"`)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no sentences", name)
	}
	return out, nil
}
