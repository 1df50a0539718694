// Command replay tells what a policy file would refuse of recorded
// traffic, before it is deployed: it replays HAR files and raw HTTP/1.1
// captures, in process, through utf8guard with the policy and the
// service's routes (package middleware/replay), and prints, per route,
// location and reason, how many requests the policy refuses (enforce)
// or flags (monitor), with one example each; with -against, which
// requests one policy refuses and the other does not.
//
//	go run ./examples/replay -policy FILE [-against FILE2] [-routes FILE | -echo-routes FILE] [-json] RECORDING...
//
// Flags:
//
//	-policy FILE       the policy file under test (required)
//	-against FILE2     a policy file to compare it with, such as the one deployed
//	-routes FILE       the service's ServeMux patterns, one a line: requests are
//	                   routed by a real http.ServeMux, and the policy's keys are patterns
//	-echo-routes FILE  the service's Echo routes, one a line ("/users/:id", or with
//	                   methods, "GET,POST /users/:id"): requests are routed by a real
//	                   Echo v5 router, and the policy's keys are route templates
//	-json              print the report as JSON instead of text
//
// In a routes file, empty lines and lines that start with '#' are
// skipped. Without -routes or -echo-routes every request gets the
// policy's default, and a policy that names routes is refused. A
// RECORDING is a HAR file (its first octet other than white space is
// '{') or a raw capture of one or more HTTP/1.1 requests. Requests that
// cannot be read are counted and listed, never replayed. The exit status
// is 0 once the report is printed, 1 for an error (a policy or routes
// file with a mistake, a policy key that names none of the routes, a
// file that cannot be opened), 2 for a wrong command line.
//
// The demo's recorded traffic (middleware/replay/testdata/demo.har),
// through a stricter policy than the demo's, run from the module's root:
//
//	go run ./examples/replay -policy middleware/replay/testdata/stricter.json \
//		-against examples/server/policy.json \
//		-echo-routes middleware/replay/testdata/demo.routes \
//		middleware/replay/testdata/demo.har
//
// prints (the test of this command checks that it still does):
//
//	policy middleware/replay/testdata/stricter.json: 11 requests replayed from 1 file, 0 unreadable
//
//	refused (enforce): 8
//	  count  route       location   reason          class
//	      1  /monitor/*  query      invalid_byte    -
//	         e.g. GET /monitor/search?q=%FF -> 400, field "q", offset 0, sample "\xff"
//	              (middleware/replay/testdata/demo.har: log.entries[8])
//	      1  /nfc/*      form       not_normalized  -
//	         e.g. POST /nfc/profile -> 400, field "name", offset 3, sample "Rene\xcc\x81e"
//	              (middleware/replay/testdata/demo.har: log.entries[7])
//	      1  /nfc/*      json       not_normalized  -
//	         e.g. POST /nfc/profile -> 400, field "/name", offset 12, sample "me":"Jose\xcc\x81"}"
//	              (middleware/replay/testdata/demo.har: log.entries[6])
//	      1  /open/*     query      forbidden_char  nul
//	         e.g. GET /open/anything?q=%00 -> 400, field "q", offset 0, sample "\x00"
//	              (middleware/replay/testdata/demo.har: log.entries[9])
//	      1  /strict/*   json       forbidden_char  bidi_control
//	         e.g. POST /strict/comment -> 400, field "/text", offset 12, sample "xt":"ok \xe2\x80\xaegnp.e"
//	              (middleware/replay/testdata/demo.har: log.entries[5])
//	      1  /strict/*   path       overlong        -
//	         e.g. GET /strict/%C0%AE%C0%AE/secret.txt -> 400, field "", offset 8, sample "/strict/\xc0\xae\xc0\xae/sec"
//	              (middleware/replay/testdata/demo.har: log.entries[2])
//	      1  /strict/*   path       too_large       -
//	         e.g. GET /strict/long/long/long/long/long/long/long/long/long/long/long/long/long/long/long/long/long/long/lo... -> 400, field "", offset 0, sample ""
//	              (middleware/replay/testdata/demo.har: log.entries[4])
//	      1  /upload/*   multipart  invalid_byte    -
//	         e.g. POST /upload/notes -> 400, field "file", offset 0, sample "\xff\xfeh\x00i\x00\xe9\x00"
//	              (middleware/replay/testdata/demo.har: log.entries[10])
//
//	flagged (monitor): 0
//
//	against examples/server/policy.json: 4 refused there, 8 here
//
//	refused by middleware/replay/testdata/stricter.json, not by examples/server/policy.json: 5
//	  count  route       location   reason          class
//	      1  /monitor/*  query      invalid_byte    -
//	         e.g. GET /monitor/search?q=%FF -> 400, field "q", offset 0, sample "\xff"
//	              (middleware/replay/testdata/demo.har: log.entries[8])
//	      1  /nfc/*      form       not_normalized  -
//	         e.g. POST /nfc/profile -> 400, field "name", offset 3, sample "Rene\xcc\x81e"
//	              (middleware/replay/testdata/demo.har: log.entries[7])
//	      1  /nfc/*      json       not_normalized  -
//	         e.g. POST /nfc/profile -> 400, field "/name", offset 12, sample "me":"Jose\xcc\x81"}"
//	              (middleware/replay/testdata/demo.har: log.entries[6])
//	      1  /open/*     query      forbidden_char  nul
//	         e.g. GET /open/anything?q=%00 -> 400, field "q", offset 0, sample "\x00"
//	              (middleware/replay/testdata/demo.har: log.entries[9])
//	      1  /upload/*   multipart  invalid_byte    -
//	         e.g. POST /upload/notes -> 400, field "file", offset 0, sample "\xff\xfeh\x00i\x00\xe9\x00"
//	              (middleware/replay/testdata/demo.har: log.entries[10])
//
//	refused by examples/server/policy.json, not by middleware/replay/testdata/stricter.json: 1
//	  count  route      location  reason          class
//	      1  /strict/*  query     forbidden_char  nul
//	         e.g. GET /strict/search?q=a%00b -> 400, field "q", offset 1, sample "a\x00b"
//	              (middleware/replay/testdata/demo.har: log.entries[3])
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/utf8guard/utf8guard/middleware/replay"
	"github.com/utf8guard/utf8guard/rules"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command with args, and returns its exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	policy := fs.String("policy", "", "the policy file under test (required)")
	against := fs.String("against", "", "a policy file to compare it with")
	muxRoutes := fs.String("routes", "", "a file of the service's ServeMux patterns, one a line")
	echoRoutes := fs.String("echo-routes", "", "a file of the service's Echo routes, one a line")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: replay -policy FILE [-against FILE2] [-routes FILE | -echo-routes FILE] [-json] RECORDING...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case *policy == "":
		fmt.Fprintln(stderr, "replay: -policy is required")
		fs.Usage()
		return 2
	case *muxRoutes != "" && *echoRoutes != "":
		fmt.Fprintln(stderr, "replay: give -routes or -echo-routes, not both")
		return 2
	case fs.NArg() == 0:
		fmt.Fprintln(stderr, "replay: no recording")
		fs.Usage()
		return 2
	}
	rep, err := report(*policy, *against, *muxRoutes, *echoRoutes, fs.Args())
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// report loads the policy and routes files and replays the recordings.
func report(policy, against, muxRoutes, echoRoutes string, recordings []string) (*replay.Report, error) {
	cfg := replay.Config{PolicyName: policy, AgainstName: against}
	tb, err := rules.LoadFile(policy)
	if err != nil {
		return nil, err
	}
	cfg.Policy = tb
	named := len(tb.Routes) > 0
	if against != "" {
		old, err := rules.LoadFile(against)
		if err != nil {
			return nil, err
		}
		cfg.Against = old
		named = named || len(old.Routes) > 0
	}
	switch {
	case muxRoutes != "":
		routes, err := replay.LoadRoutes(muxRoutes)
		if err != nil {
			return nil, err
		}
		cfg.Router = replay.MuxRoutes(routes...)
	case echoRoutes != "":
		routes, err := replay.LoadRoutes(echoRoutes)
		if err != nil {
			return nil, err
		}
		cfg.Router = replay.EchoRoutes(routes...)
	case named:
		return nil, errors.New("replay: the policy names routes: give the service's routes with -routes or -echo-routes")
	default:
		cfg.Router = replay.Handler(http.HandlerFunc(answer), nil)
	}
	return replay.Run(cfg, recordings...)
}

// answer is the handler of a replay without routes: it reads the body,
// as a service's handler does, and answers 200.
func answer(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
}
