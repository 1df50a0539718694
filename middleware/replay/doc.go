// Package replay tells, before a policy is deployed, what it would do to
// traffic that was recorded: which requests it would refuse (Enforce)
// or flag (Monitor), on which route, in which location and for which
// reason, and how that differs from the policy deployed now. A team
// changing a policy file runs it in CI over yesterday's traffic
// (examples/replay is the command).
//
// # Recordings
//
// Two formats are read, one request at a time (Open, Recording.Next):
//
//   - HAR 1.2, as browsers (Chrome and Firefox "Save all as HAR"),
//     proxies and API tools export it. Of each entry of log.entries the
//     replay reads startedDateTime and request: method, url,
//     httpVersion, headers, queryString (only when url has no query),
//     cookies (only when headers hold no Cookie), and postData: text,
//     base64-decoded when its encoding is "base64", or a body rebuilt
//     from params (a form-urlencoded body, percent-encoded again, or a
//     multipart/form-data one) when it has no text. HTTP/2 pseudo-headers
//     (":authority") are skipped, Content-Length is that of the recorded
//     body, and Host, when missing, is the url's.
//   - Raw HTTP/1.1: one request, or several back to back as nc or a
//     proxy captures a connection: request line, header fields, an empty
//     line, and the body its header frames (Content-Length, or chunked
//     with its trailer).
//
// The file is decoded token by token down to log.entries, and then one
// entry at a time: the HAR is never in memory, only the entry being
// replayed, with its body. A raw request's body is read from the file as
// the replay reads it, never held whole.
//
// A HAR is JSON text: postData.text can carry only what UTF-8 text can.
// A body that is not valid UTF-8, the very bodies utf8guard refuses, is
// in a HAR only when it is base64-encoded (postData.encoding "base64",
// which some tools write and others do not); a browser that records such
// a body as text has already replaced its octets with U+FFFD, and the
// replay sees that text, not what was sent. So an entry that is not
// valid UTF-8, or whose JSON holds a lone surrogate escape (\ud800),
// both of which JSON decoders turn into U+FFFD without a word, is an
// error rather than a replay of something else. Raw captures hold the
// octets as sent.
//
// Nothing is lost silently. An entry or a request that cannot be read
// (no method or url, a malformed header, a body cut short, a request a
// net/http server would refuse before any handler) is a *ReadError that
// names the file and the entry (log.entries[3]) or the line, and Run
// counts it in Report.Unreadable. An error in the structure of a file
// (malformed JSON, a body whose end cannot be found) ends that file:
// ReadError.Rest says so.
//
// # Routes
//
// A policy table chooses a policy by route, so requests must find their
// route as the service's router finds it. A Router says how:
//
//   - EchoRoutes: a real Echo v5 router with the service's route
//     templates, behind the Echo v5 adapter (middleware/echov5) under
//     e.Use, as the demo mounts it;
//   - MuxRoutes: a real http.ServeMux with the service's patterns, each
//     handler wrapped by the net/http adapter;
//   - Handler: the service's own http.Handler, wrapped whole by the
//     net/http adapter, for any other router (with HTTPConfig.Route's
//     function to name routes).
//
// New refuses a policy whose table names a route the router does not
// have, as the service refuses to start with one (echov5.CheckRoutes,
// middleware.CheckMuxRoutes): a typo in a key would otherwise give its
// requests the default policy in the report too.
//
// Requests are never sent anywhere: each is served in process, through
// ServeHTTP and an httptest.ResponseRecorder, by the same adapter and
// pipeline that the service runs, which reads its body as the service
// would (the routes' handlers read bodies to their end, so that a body
// cut off past its limit is refused as in the service).
//
// # Report
//
// Run replays every request of the recordings through Config.Policy and
// groups the refused and flagged ones by route, location, reason and, for
// forbidden_char, class, each group with its first request as an example:
// method, request target (its query cut to MaxQuery octets, its path to
// MaxPath), the Rejection's field, offset and sample, and where it was
// read. With Config.Against it replays them through that policy too, and
// reports the requests refused by one and not by the other, both ways,
// grouped the same way. Report.WriteText writes the report for people; it
// encodes as JSON for machines. Like the rejection log, a report never
// holds a raw octet of a request outside printable ASCII.
package replay
