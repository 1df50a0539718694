// Command mktables writes normalize/tables.go, the quick-check tables of
// package normalize, and with -compose normalize/compose_tables.go, the
// data of its normalizer, from the files of the Unicode Character Database:
//
//	go run ./normalize/internal/mktables -ucd testdata/ucd/15.0.0 -o normalize/tables.go -compose normalize/compose_tables.go
//
// (go generate ./normalize runs it so). It reads the files that
// normalize/internal/ucd lists, and refuses them unless their headers name
// the version given by -version, by default the norm.Version of the
// golang.org/x/text this module builds with: the tables must describe the
// same Unicode data as the norm package that the scanner falls back to.
package main

import (
	"flag"
	"fmt"
	"os"

	"golang.org/x/text/unicode/norm"

	"github.com/utf8guard/utf8guard/normalize/internal/ucd"
)

func main() {
	dir := flag.String("ucd", "", "directory holding the Unicode Character Database files (required)")
	version := flag.String("version", norm.Version, "Unicode version the files must be of")
	out := flag.String("o", "", "file to write (default standard output)")
	compose := flag.String("compose", "", "file to write the normalizer's data to (default: not written)")
	flag.Parse()
	if *dir == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: mktables -ucd dir [-version v] [-o file]")
		os.Exit(2)
	}
	src, err := ucd.Generate(*dir, *version)
	if err == nil && *compose != "" {
		var c []byte
		if c, err = ucd.GenerateCompose(*dir, *version); err == nil {
			err = os.WriteFile(*compose, c, 0o644)
		}
	}
	if err == nil {
		if *out == "" {
			_, err = os.Stdout.Write(src)
		} else {
			err = os.WriteFile(*out, src, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mktables:", err)
		os.Exit(1)
	}
}
