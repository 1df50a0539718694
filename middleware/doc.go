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
//   - form, json, multipart and text bodies: read once through the body
//     limit, checked, and handed to the handler complete and byte-identical
//     (or repaired, where the policy repairs) with a correct ContentLength;
//   - header: the header values the policy lists.
//
// The first violation ends the check. In Enforce mode the request is
// rejected (400, or 413 for a body over its limit) and the handler does not
// run; in Monitor mode it is passed on unchanged. Either way one zerolog
// event at warn level describes it.
//
// # The log line
//
// Fields: reason, location, field, offset, sample (hex-escaped, never raw
// request bytes), method, route, request_id, remote_ip, mode, and class for
// forbidden_char. The message is "utf8guard: request rejected" or
// "utf8guard: request flagged".
//
// # Where to mount it
//
// Mount it before any middleware that reads the body or the query, so that
// nothing reads unchecked text. With e.Use (or on a group or route) the
// policy is chosen by route template; with e.Pre the path is checked
// before the router sees it.
package middleware
