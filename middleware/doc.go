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
//   - form, json (JSON lines included), xml, multipart and text bodies:
//     read once through the body limit, decoded from their content coding
//     (gzip, deflate: encoding.go), checked as what they are and scanned
//     for the escapes the decoder of any text type the strict preset
//     accepts would read in them whatever their type (JSON, YAML, GraphQL,
//     JavaScript, HTML, XML: escapes.go), and handed to the handler complete and
//     byte-identical (or repaired, where the policy repairs; decoded, with
//     Content-Encoding removed) with a correct ContentLength;
//     a multipart body is checked as it streams in, and spooled (see
//     Uploads below);
//   - header: the header values the policy lists, cookies, and the
//     trailers of those names.
//
// The first violation ends the check: within a value, the one at the
// lowest offset. In Enforce mode the request is rejected (400, 413 for a
// body over its limit, 415 for a media type the policy does not accept or
// a content coding it cannot decode; too many fields or parts, a field, a
// path, a query or a JSON nesting over its limit are 400) and the handler
// does not run; in Monitor mode it is passed on as it came. Either way one
// zerolog event at warn level describes it.
//
// A body's location is chosen by its Content-Type read as
// mime.ParseMediaType (and so net/http's form parsers) reads it:
// application/x-www-form-urlencoded, application/json and any type with
// the +json suffix, the JSON-lines types (application/x-ndjson,
// application/jsonl and their kin: each line a JSON text, jsonlines.go),
// application/xml, text/xml and +xml, every multipart/* type, text/* and
// the policy's BodyTypes (type/* and type/*+suffix patterns); and as
// Echo's binder reads it (a prefix of the raw value: "application/jsonx"
// is JSON to it). A value the two read as different structured kinds, or
// that mime.ParseMediaType refuses, is bad_media_type; under
// RefuseUnlistedTypes any other type is unsupported_media_type (415)
// unless BinaryTypes lists it.
//
// A text body of unknown length (chunked) that the route does not check
// (its location off, another charset) is read through the body limit all
// the same, so that one over it is refused, never handed on cut off.
//
// A multipart part is a file when it has a non-empty file name, as
// multipart.Part.FileName says, and a file part without a Content-Type is
// text/plain (RFC 7578); any other part, one without
// a Content-Disposition included, is a field and checked as text, its
// declared charset as a body's. Whether a file's contents are text
// (checked) or data (passed on unread) is the route's
// rules.Policy.FileContents; its name and header block are text either
// way: every header value and parameter, the JSON and XML escapes in
// them included, RFC 2231 extended values decoded strictly, and, under
// RefuseAmbiguousParts, no field or parameter given twice. A
// multipart body rewritten to its canonical form gets a fresh boundary
// (and Content-Type), holds no transfer encoding, keeps each rewritten
// name in the form the client wrote it (filename="..."), and is parsed
// again and compared with the parts it was built from before the handler
// sees it.
//
// # Uploads
//
// A multipart body is checked as it arrives and kept in a spool: in memory
// up to 1 MiB, then in a temporary file (PipelineConfig.TempDir, and the
// TempDir of each adapter's Config). Its text (names, part headers,
// fields, text file parts, what lies outside the parts) is read into
// memory a part at a time, checked, and bounded by rules.Limits.BodyBytes;
// the contents of its data file parts go by unread, bounded by
// Limits.FileBytes each and Limits.BinaryBodyBytes together. So a field
// after a file of any size is checked before the handler runs, and the
// memory a body takes does not grow with it. The handler reads the spool,
// octet for octet the body that was checked. The temporary file is
// removed when the handler returns, after a panic too (Verdict.Release,
// which every adapter defers); a read of the body after that fails. A
// spool that cannot be written is body_unreadable, answered 500. A
// multipart body with a content coding (gzip, deflate) is decoded as it
// arrives, in front of the spool, within the same limits: the spool, and
// the handler, get the decoded body, Content-Encoding removed.
//
// A binary body (a media type not checked as text) is never read: it is
// bounded by Limits.BinaryBodyBytes, refused (413) before the handler runs
// when its Content-Length says it is over, and cut off in the handler's
// read (an *http.MaxBytesError) when it is chunked, with a too_large line
// logged then; a handler that returns that error gets the 413 refusal
// (CutOff).
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
// A body the policy checks is read whole before the handler runs, and the
// handler gets it as r.Body. In Enforce mode a body declared at most
// 1 MiB long (the default body limit) is read into pooled memory: one
// declared at most 64 KiB at once, a longer one once a sixteenth of it has
// come through pooled working memory, so that a client that declares much
// and sends little holds little. An accepted request's handler reads it
// through a reader of its own (lentBody), and the memory goes back to its
// pool once the handler has returned, after the octets the handler had not
// read yet, if any, have moved to memory of their own. When the body is
// rewritten to its canonical form, the handler reads that, memory of its
// own, and the memory the body came in goes back too. A refused request's
// body memory goes back at once: its Rejection refers to memory of its
// own, and its body reads as empty. A longer body, one of unknown length,
// and every body in Monitor mode, is read through pooled working memory
// that no handler sees and then copied once into memory of its own
// (readBody). So a handler that keeps reading after a timeout wrapper
// (Echo's Timeout, http.TimeoutHandler) has answered, or from a goroutine
// after it returned, reads the rest of its own request's octets, never
// another request's. Echo's HTTPErrorHandler, which runs after the
// middleware has returned, can read an accepted request's body as the
// handler left it.
//
// # Allocations
//
// Echo v4 applies every middleware per request (e.Use, e.Pre, groups and
// routes alike): the handler the middleware returns, a closure over the
// next one, is one allocation per request, as for every Echo v4
// middleware, and the only one for a clean request without a body. The
// net/http adapter allocates nothing for it. A checked body costs one
// allocation, its reader, when it is declared at most 1 MiB long and
// handed on as it came or rewritten (its memory is pooled, lent to the
// handler: see The body and the handler; a rewritten body's canonical form
// is one allocation more); two otherwise, its memory and its reader.
//
// # The log line
//
// Fields: reason, location, field, offset, sample (hex-escaped, never raw
// request bytes), method, route, request_id, remote_ip, mode, class for
// forbidden_char, and limit (the limit exceeded) for too_large. The
// message is "utf8guard: request rejected" or "utf8guard: request
// flagged".
//
// # The source, by location
//
// Each file holds everything the middleware does to one part of a
// request, checks and canonical forms together: path.go (the path and
// route parameters: check, repair, canonicalize), pairs.go (query and
// form pairs), header.go (header values, cookies, trailers), media.go
// (Content-Type: which check a body gets), body.go (reading, limiting and
// handing on bodies), encoding.go (content codings; chunked text bodies
// not checked), json.go and json_members.go (JSON values; member names),
// jsonlines.go (JSON lines), xml.go and xml_lex.go (XML; its lexer),
// multipart.go (parts, checked and rebuilt), upload.go (a multipart body
// checked as it streams, and rebuilt spool to spool), spool.go (the spool,
// and the cut-off of binary bodies), outside.go (a streaming body's
// preamble and epilogue), disposition.go (a Content-Disposition rewritten
// in the client's form), escapes.go and escapes_syntax.go (the escape
// scan every text body gets, one decoder per syntax; htmlentities.go is
// generated from the standard library's HTML table).
// policy.go compiles a rules.Policy, canon.go holds what every location's
// canonical form shares, rejection.go and log.go what a refusal is and
// how it is logged, pipeline.go the sequence every adapter runs, and
// echo.go, echov5/ and nethttp.go the adapters; validate.go, routes.go and
// preparsed.go hold the checks of the configuration and of the mounting.
//
// # Where to mount it
//
// Mount it before any middleware that reads the body or the query, so that
// nothing reads unchecked text. Mount Echo's Decompress after it: it finds
// no Content-Encoding on a body utf8guard decoded, and decodes the body
// Monitor mode passes on as sent, so a clean request reads alike in both
// modes. Before utf8guard it works too: utf8guard reads and checks what it
// decoded (encoding.go). With e.Use (or on a group or route) the
// policy is chosen by route template; with e.Pre the path is checked
// before the router sees it. A request whose form something before it
// parsed already is refused with 500 parsed_before_check (preparsed.go).
//
// # Mistakes are start-up errors
//
// Every adapter's constructor validates its rules (rules.Table.Validate)
// and the syntax of a table's keys (ValidateEchoRoutes on Echo, ServeMux
// patterns on net/http); call CheckRoutes (CheckMuxRoutes on net/http and
// chi) at start-up, once the routes are registered, to find a key that
// names no route, which the Echo middleware otherwise logs at its first
// request (routes.go, mux.go), and a PRECIS path field of the default
// policy that no route it applies to has.
package middleware
