// Package decoders holds, in its tests, a handler-side oracle for
// utf8guard: servers that mount the middleware with the strict preset
// (Echo v4, Echo v5, net/http, over HTTP/1.1 and HTTP/2) and a handler that
// decodes whatever body it was handed with the decoders real handlers use
// (YAML, XML, HTML, GraphQL, JavaScript, JSON), whatever the body's
// Content-Type says, and fails the test when one of them reads a character
// the strict preset refuses in values from a request the middleware let
// through. Any body may reach any decoder, so what was checked must be what
// every decoder reads. A refused request passes: its handler never ran.
//
// The handler decodes the whole body, each form key and value, and each
// multipart part's header values (and their parameters, as
// mime.ParseMediaType, RFC 2231 and mime.WordDecoder read them), file and
// field names and contents, and a body or part in the charset it declares
// (UTF-7 included). The contents of a file part whose type is not text/*
// are data the strict preset passes unread by design, and are not decoded
// on their own.
//
// It is a module of its own so that the decoders it needs stay out of
// utf8guard's dependencies. Run it with
//
//	cd middleware/decoders && go test ./...
package decoders
