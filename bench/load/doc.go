// Package load holds utf8guard's load test, which is built only with the
// "load" build tag, so that the default go test ./... does not run it:
//
//	go test -tags load -run TestLoad -v ./bench/load/ -duration 30s
//
// TestLoad builds and starts the demo server (examples/server) on
// 127.0.0.1 and drives it with 64 keep-alive connections, first with a mix
// of clean and hostile requests against /strict, then with clean requests
// only, against /strict and /open (no checks) in alternating slices, for
// the requests/s with and without the middleware. TestLoadInProcess does the same against
// the same Echo set-up in the test process, where the goroutine count can
// be sampled. README.md says what each checks.
package load
