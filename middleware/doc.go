// Package middleware mounts utf8guard in front of handlers: Echo v4
// middleware (New, WithConfig, Config.ToMiddleware) and a net/http adapter
// (Handler, HTTPConfig.ToHandler) that apply the same rules.Policy and write
// the same log lines.
//
// # What it does
//
// Before the handler runs, the middleware checks each location the route's
// policy turns on:
//
//   - path: the escaped path is strictly percent-decoded and validated;
//     the handler's c.Param values and URL.Path are the validated ones;
//   - query: every key and value, strictly decoded (a malformed escape is
//     rejected, where url.ParseQuery would skip the pair);
//   - form, json, xml, multipart and text bodies: read once through the
//     body limit, checked as what they are and scanned for the escapes a
//     JSON or XML decoder would read in them whatever their type
//     (escapes.go), and handed to the handler complete and byte-identical
//     (or repaired, where the policy repairs) with a correct ContentLength;
//   - header: the header values the policy lists, cookies, and the
//     trailers of those names.
//
// The first violation ends the check: within a value, the one at the
// lowest offset. In Enforce mode the request is rejected (400, 413 for a
// body over its limit, 415 for a media type the policy does not accept;
// too many fields or parts, a field, a path, a query or a JSON nesting
// over its limit are 400) and the handler does not run; in Monitor mode it is
// passed on as it came. Either way one zerolog event at warn
// level describes it.
//
// A body's location is chosen by its Content-Type read as
// mime.ParseMediaType (and so net/http's form parsers) reads it:
// application/x-www-form-urlencoded, application/json and any type with
// the +json suffix, application/xml, text/xml and +xml, every multipart/*
// type, text/* and the policy's BodyTypes; and as Echo's binder reads it
// (a prefix of the raw value: "application/jsonx" is JSON to it). A value
// the two read as different structured kinds, or that mime.ParseMediaType
// refuses, is bad_media_type; under RefuseUnlistedTypes any other type is
// unsupported_media_type (415) unless BinaryTypes lists it.
//
// A multipart part is a file when it has a non-empty file name, as
// multipart.Part.FileName says, and a file part without a Content-Type is
// text/plain (RFC 7578); any other part, one without
// a Content-Disposition included, is a field and checked as text. A
// multipart body rewritten to its canonical form gets a fresh boundary
// (and Content-Type), holds no transfer encoding, and is parsed again and
// compared with the parts it was built from before the handler sees it.
//
// # Adapters and the pipeline
//
// Every adapter runs one pipeline: the Echo v4 middleware (Config), the
// Echo v5 middleware (package middleware/echov5) and the net/http adapter
// (HTTPConfig) find a request's route and path parameters in their
// framework's terms and hand them to Pipeline.Check, which checks,
// rewrites and logs, and returns a Verdict each carries out in its own
// terms. One conformance table holds the three to the same answers, log
// lines and reads. Pipeline is exported, rather than kept internal, so
// that an adapter for another router (Gin, chi, Fiber) is a few lines over
// it and behaves exactly as these do, instead of a fourth copy of the
// sequence drifting from the others.
//
// # The body and the handler
//
// A body the policy checks is read through pooled working memory that no
// handler sees, then copied once into memory of its own, which the
// handler gets as r.Body. Nothing reuses that memory: a handler that keeps
// reading after a timeout wrapper (Echo's Timeout, http.TimeoutHandler)
// has answered, or from a goroutine after it returned, reads its own
// request's octets. Echo's HTTPErrorHandler, which runs after the
// middleware has returned, can read the body as the handler left it.
//
// # Allocations
//
// Echo v4 applies every middleware per request (e.Use, e.Pre, groups and
// routes alike): the handler the middleware returns, a closure over the
// next one, is one allocation per request, as for every Echo v4
// middleware, and the only one for a clean request without a body. The
// net/http adapter allocates nothing for it. A checked body costs two
// allocations: its memory and its reader.
//
// # The log line
//
// Fields: reason, location, field, offset, sample (hex-escaped, never raw
// request bytes), method, route, request_id, remote_ip, mode, and class for
// forbidden_char. The message is "utf8guard: request rejected" or
// "utf8guard: request flagged".
//
// # The source, by location
//
// Each file holds everything the middleware does to one part of a
// request, checks and canonical forms together: path.go (the path and
// route parameters: check, repair, canonicalize), pairs.go (query and
// form pairs), header.go (header values, cookies, trailers), media.go
// (Content-Type: which check a body gets), body.go (reading, limiting and
// handing on bodies), json.go and json_members.go (JSON values; member
// names), xml.go and xml_lex.go (XML; its lexer), multipart.go (parts,
// checked and rebuilt), escapes.go (the escape scan every text body gets).
// policy.go compiles a rules.Policy, canon.go holds what every location's
// canonical form shares, rejection.go and log.go what a refusal is and
// how it is logged, pipeline.go the sequence every adapter runs, and
// echo.go, echov5/ and nethttp.go the adapters.
//
// # Where to mount it
//
// Mount it before any middleware that reads the body or the query, so that
// nothing reads unchecked text. With e.Use (or on a group or route) the
// policy is chosen by route template; with e.Pre the path is checked
// before the router sees it.
package middleware
