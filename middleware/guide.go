// # What is checked where
//
// Each location of the request, as the rejection and the log name it:
//
//   - path: the escaped path, strictly percent-decoded, then validated;
//     each path parameter; the rest of the request target a handler can
//     read. URL.Path and c.Param(...) are the validated values, whatever
//     the hex case of the escapes; a leading BOM is refused at the start
//     of each parameter and each path segment. An absolute-form target's
//     host (Request.Host, field host) and user information (URL.User,
//     field userinfo), which net/url percent-decodes, and an opaque target
//     (GET http:x, URL.Opaque) are checked under the path's classes and
//     never rewritten. A request line (Request.RequestURI) that a rewrite
//     before utf8guard left standing for another path or query than the
//     URL's is checked too.
//   - query: every key and value. A malformed escape is rejected, not
//     skipped as url.ParseQuery does; counts, field lengths and the whole
//     escaped query's length are limited.
//   - form: application/x-www-form-urlencoded bodies, as the query.
//   - json: application/json, +json types, application/csp-report (the
//     violation reports browsers post), and what Echo's binder decodes
//     as JSON (application/json... by prefix). The raw octets are valid;
//     no string or key holds a lone \uD800-\uDFFF escape or an escaped
//     refused character; duplicate member names are refused in the strict
//     preset; the field is the JSON pointer.
//   - xml: application/xml, text/xml, +xml types. The raw octets, and
//     every numeric character reference decoded and checked against the
//     classes and XML's Char production (&#0; and &#xD800; refused); named
//     entities other than XML's five, and malformed references, are
//     bad_escape; an XML declaration naming another encoding is
//     bad_charset where charsets are refused; never repaired or rewritten.
//   - multipart: every multipart/* type (form-data and mixed, which
//     Request.MultipartReader reads). Header values, field names, file
//     names (filename* too: an extended value must be UTF-8 with
//     well-formed escapes), the JSON and XML escapes in all of them (an
//     XML decoder reads a part's header block as text), form fields and,
//     where the route takes file contents as text, text file parts; a
//     field's or text part's declared charset as a body's. File contents
//     that are data are not read, nor is their charset (see Uploads and
//     limits).
//   - body: text/* and the media types a policy lists. A charset other
//     than UTF-8 or US-ASCII is bad_charset in the strict preset, unchecked
//     in the default one.
//   - header: the header names a policy lists; every cookie's name and
//     value (Cookies); chunked trailers of those names. Listed headers are
//     off by default; Host listed checks Request.Host, where net/http puts
//     it; cookies are on in the strict preset, not percent-decoded (RFC
//     6265), trimmed of SP and HTAB only, field Cookie:name; trailers have
//     field Trailer:Name.
//
// A body's media type is read as mime.ParseMediaType (and so net/http's
// form parsers) reads it, quoted strings and RFC 2231 charset* included,
// and as Echo's binder reads it (a prefix of the raw value:
// "application/jsonx" is JSON to it). A Content-Type that
// mime.ParseMediaType cannot parse, several different ones, or one that
// the binder and the media type's suffix read as two different kinds
// (application/xml+json) is bad_media_type on a route that checks bodies.
//
// A charset parameter does not turn the checks off for forms, JSON and
// multipart bodies: Go's readers of those ignore it and read the octets as
// UTF-8. A text or XML body in another charset is refused by the strict
// preset (RefuseCharsets) and passed unread by the default one. A text
// body of unknown length (chunked) that the route does not check (its
// location off, another charset) is read through the body limit all the
// same, so that one over it is refused, never handed on cut off.
//
// Bodies are read once, through the limit (413 past it, without reading
// the rest into memory; a multipart body is checked as it streams in), and
// handed to the handler complete and byte-identical (or repaired, where
// the policy repairs) through a fresh Request.Body with a correct
// ContentLength.
//
// A request has a body to check only when it holds an octet: an empty body
// of unknown length (chunked, or HTTP/2 DATA frames without
// content-length) is no body, and its trailers are still checked. So a
// bodyless GET, HEAD, OPTIONS or DELETE passes the strict preset over
// HTTP/2 (h2c or TLS) as over HTTP/1.1, although Go's HTTP/2 server hands
// it a Body of length 0 that is not http.NoBody.
//
// Trailers of a chunked body are checked as the headers of the same names
// when utf8guard reads the body. Where it does not (a listed binary type,
// or a route that reads no body at all), a trailer the client announces
// in a Trailer header that names a checked header (a listed header, or
// Cookie when cookies are checked) is refused (forbidden_trailer); one it
// does not announce and that fails the check fails the handler's read at
// the end of the body and is removed from r.Trailer. net/http merges
// trailers the client did not announce into the request it parsed; where
// a middleware before utf8guard has made a copy (r.WithContext), they land
// in that first request only, which neither utf8guard nor the handler
// sees: code before utf8guard that reads r.Trailer after the handler must
// check them itself.
//
// # Character classes and right-to-left text
//
// rules.Strict() refuses NUL, C1 controls and the bidi controls of Trojan
// Source (bidi_control: U+202A-U+202E, U+2066-U+2069) everywhere; the
// bidi marks (bidi_mark: LRM, RLM, ALM) in the path and in names only
// (query and form keys, JSON member names, multipart field and file
// names, cookie names); in path and query all C0 controls and a leading
// BOM; in bodies C0 controls but TAB, LF and CR; in names and header text
// (multipart field and file names, cookies, checked header values) every
// C0 control, TAB, LF and CR included. rules.Default() refuses NUL alone.
//
// Right-to-left text passes the strict preset as people write it: LRM,
// RLM and ALM are ordinary characters of Hebrew, Arabic and Persian text,
// and values (query and form values, JSON strings, XML text and attribute
// values, multipart text, text bodies, cookie and header values) may hold
// them, raw or escaped. An identifier is another matter: a mark makes two
// names that look alike differ, so the path and every name refuse them
// (Check.Names, "forbid_names" in a policy file). The controls that
// reorder text (\u202e, &#x202e;) are refused everywhere:
//
//	{"title":"פגישה \u200fב-10:00\u200f"}   200: a mark in a value
//	{"title":"\u202eפגישה"}                 400 forbidden_char, class bidi_control
//	{"a\u200fb":1}                           400 forbidden_char, class bidi_mark, field /a
//
// # Media types each preset checks
//
// A body's check is chosen by its media type; every check is under the
// route's classes for its location. Every body checked as text is also
// scanned for the escapes any decoder would read in it (see Escapes in
// bodies).
//
//   - application/x-www-form-urlencoded: each key and value,
//     percent-decoded (form). Strict and Default check it.
//   - application/json, any +json type, application/csp-report, what
//     Echo's binder takes for JSON (application/json...): strings and
//     keys with their escapes decoded, depth, duplicate member names in
//     the strict preset (json). Strict and Default.
//   - application/x-ndjson, application/ndjson, application/jsonl,
//     application/jsonlines, application/x-jsonlines: JSON lines, each
//     non-blank line (ended by LF or a lone CR, as Python's readers end
//     them too) a JSON text under the JSON check; a value left open across
//     lines is bad_media_type; the field is /N (the Nth value, from 0,
//     blank lines not counted) and the pointer within it, such as
//     /3/user/name (json). Checked when the route checks JSON (json.on),
//     passed on unchecked when it does not.
//   - application/xml, text/xml, any +xml type: octets and character
//     references (xml). Strict and Default.
//   - multipart/*: names, fields, text file parts (multipart). Strict and
//     Default.
//   - text/*: as text (body). Strict and Default.
//   - application/yaml, application/x-yaml, application/graphql,
//     application/javascript (rules.TextTypes(), in BodyTypes): as text
//     (body). Strict and Default.
//   - what BodyTypes ("body_types") lists, as type/subtype, type/* or
//     type/*+suffix: as text (body).
//   - what BinaryTypes ("binary_types") lists: passed on unread.
//   - any other type, and no Content-Type: 415 unsupported_media_type in
//     the strict preset (RefuseUnlistedTypes); passed on unread in the
//     default one.
//
// rules.Unchecked() reads no body. The strict preset's positive list, as
// OWASP CRS rule 920420 keeps one, means that JSON sent as
// application/octet-stream to a handler that calls json.NewDecoder(r.Body)
// never arrives unchecked. A route that takes binary bodies lists their
// types in BinaryTypes, and must not decode such a body as text: utf8guard
// passes it on unread, bounded by the binary body limit.
//
// A type the middleware reads as a structure keeps that structure's check
// whether BodyTypes lists it or not: listing application/*+xml or
// application/x-ndjson there changes nothing. A suffix pattern is for the
// suffixes it does not know, such as application/*+yaml. BodyTypes (and
// "body_types" in a policy file) replaces the preset's list: a route that
// sets its own and still takes YAML lists application/yaml too (in Go,
// append(rules.TextTypes(), ...)).
//
// # Compressed bodies
//
// A body the route checks as text may come compressed (Content-Encoding,
// RFC 9110 section 8.4). utf8guard decodes it, checks the decoded text,
// and hands the handler the decoded text:
//
//   - gzip and x-gzip (RFC 1952): every member of a multi-member stream,
//     each member's CRC-32 and length checked; anything after the last
//     member, zero padding included, is a corrupt stream;
//   - deflate: the zlib format (RFC 1950, Adler-32 checked) that RFC 9110
//     names, and, when the body does not start with a zlib header, a raw
//     DEFLATE stream (RFC 1951), which some clients send under that name;
//     octets after the end of either are a corrupt stream;
//   - identity, and empty list elements, are no coding; names are matched
//     without regard to case, with spaces and tabs around them trimmed;
//   - any other coding (br, zstd, compress, an unknown name, a name with
//     parameters) is refused 415 unsupported_encoding, and so is more than
//     one coding (gzip, gzip, or two Content-Encoding lines): no client in
//     use stacks them, each layer multiplies what a small body expands to,
//     and readers disagree on the order;
//   - a stream that does not decode is refused 400 body_unreadable, field
//     Content-Encoding, with the decoder's error in the log's error (gzip:
//     invalid checksum, gzip: unexpected EOF); an empty body is empty
//     whatever its coding, as Echo's Decompress takes it.
//
// For a body read whole (a form, JSON, XML, text), the body limit
// (Limits.BodyBytes) holds for the octets received and for the decoded
// ones: over either, 413 too_large with the limit in the log line. The
// decoder is stopped after at most the limit plus one buffer of decoded
// octets, so a small body that expands without end costs what the limit
// allows: 512 MiB of zeros, 519 KiB of gzip on the wire, is refused 413
// after about 1.5 MiB has been allocated for it (TestDecompressionBomb).
// With no body limit (-1) there is none on the decoded size either.
// Offsets in a rejection are offsets in the decoded text.
//
// A multipart body is not read whole: it is decoded as it arrives and
// streams into its spool as an uncompressed one does (see Uploads and
// limits), its text checked within the text limit and the contents of its
// data files unread, bounded by FileBytes and BinaryBodyBytes. So an
// upload route takes a compressed body as it takes the same body
// uncompressed: a 2 MiB file of zeros, 2.2 KiB of gzip on the wire, is
// accepted on the demo's /upload/* and the handler reads the 2 MiB
// (TestCodedUploadAccepted). The decoded octets are bounded by the route's
// limits (text, each file, the data, and over the two together 413, as
// for a declared length), and the octets received by the two together, so
// the decoder stops after at most the limits plus one buffer: 512 MiB of
// zeros in a file part, 519 KiB of gzip, is refused 413 after the
// middleware has read 20 KiB of it and allocated about 1.3 MiB on a route
// with 1 MiB of text and 16 MiB of data (TestCodedUploadBomb); on the
// demo's /upload/* (256 MiB of data), after 260 KiB read and 257 MiB
// decoded into the spool's temporary file, as the same upload sent
// uncompressed would be. In a field, the same stream stops at the text
// limit (4 KiB read). Limits of -1 lift the bound as they do for an
// uncompressed body.
//
// The handler gets the decoded body (or its canonical form) with
// Content-Encoding removed and ContentLength, and the Content-Length
// header when the client sent one, set to its length: a handler that
// decompresses bodies itself must look at Content-Encoding first, not
// assume its route's clients always compress. A multipart body is handed
// on the same way, from its spool: c.FormFile, c.FormValue,
// Request.MultipartReader and c.Bind read the decoded form. In Monitor
// mode the request is passed on as it came, still compressed and with its
// Content-Encoding (a multipart body from a second spool that keeps it
// so), and what the decoded text would be refused for is flagged.
//
// A body utf8guard does not check as text (a type BinaryTypes lists, a
// location turned off, a charset other than UTF-8 where such bodies pass
// unchecked) is not decoded: it is passed on as it came, Content-Encoding
// included. Where to mount Echo's Decompress is said under Where to mount
// it; what decoding costs is in bench/README.md.
//
// # Uploads and limits
//
// Text and data have limits of their own (rules.Limits; in a policy file,
// the "limits" object):
//
//   - BodyBytes (body_bytes), default 1 MiB: a text body (form, JSON, XML,
//     text), and the text of a multipart body: all of it but the contents
//     of its data files.
//   - BinaryBodyBytes (binary_body_bytes), default 32 MiB: a body
//     utf8guard does not read (a binary type), and the data files of one
//     multipart body together.
//   - FileBytes (file_bytes), default 32 MiB: one data file of a multipart
//     body.
//   - FieldBytes, Fields, MultipartParts (field_bytes, fields,
//     multipart_parts), defaults 64 KiB, 1000, 100: each field, the
//     fields, the parts.
//   - MultipartHeaderLines (multipart_header_lines), default 6: the header
//     lines of one multipart part (a folded field counts each of its
//     lines), nested parts included.
//   - PathBytes, QueryBytes, JSONDepth (path_bytes, query_bytes,
//     json_depth), defaults 8 KiB, 64 KiB (the escaped query as a whole),
//     512. Multipart bodies nest at most 8 deep.
//
// -1 lifts a limit. 32 MiB is what Go's own Request.FormFile and
// ParseMultipartForm keep in memory before spilling to disk: uploads of
// that size are ones Go servers already expect (documents, photos). A
// route that takes video or backups raises the two data limits.
//
// Go's multipart reader allocates for every header line of a part and
// accepts 10,000 lines per part, so a body of short header lines cost up
// to 13 times a text body of the same size. utf8guard counts each part's
// header lines as the body arrives, before the reader parses them, and
// refuses a part with more than MultipartHeaderLines as too_large in
// location multipart, 400; the parts before it are checked first. The
// header work of a request is then bounded by MultipartParts ×
// MultipartHeaderLines (600 lines by default). RFC 7578 clients send one
// to three header lines per part; a route that takes mail-like MIME parts
// with folded fields can raise the limit.
//
// Multipart bodies stream. A multipart body is checked as it arrives and
// kept in a spool: in memory up to 1 MiB, then in a temporary file
// (os.TempDir(), or TempDir in the adapter's config and PipelineConfig).
// Field names, file names, part headers, fields and text files are read
// into memory a part at a time and checked; the contents of data files go
// by unread. So a text field after a 50 MiB file is checked before the
// handler runs (a bad octet there is refused, and the 50 MiB were never in
// memory), and the memory an upload takes does not grow with it. The
// handler reads the spool: c.FormFile, c.FormValue,
// Request.MultipartReader and c.Bind get, octet for octet, the body that
// was checked. The temporary file is removed when the handler returns,
// also when it panics (every adapter defers Verdict.Release; an adapter of
// your own over Pipeline must too); a read of the body after that fails.
//
// Refusals: text over body_bytes 413, a file over file_bytes 413 (the log
// names its field), data over binary_body_bytes 413, a declared length
// over the two together 413 before anything is read; a temporary file that
// cannot be written (a full disk) is body_unreadable, 500. The spools of
// all requests share one disk budget, SpoolBytes in the adapter's config
// (default 1 GiB, DefaultSpoolBytes; -1 lifts it): an upload that would
// take them past it is refused 503 spool_full, with a log line, so that
// many concurrent uploads cannot fill the temporary file system. A body of
// declared length takes its whole length when it first goes to disk, and
// gives it back when its request ends, however it ends (done, refused, its
// client gone mid-body, its handler panicking, a timeout). A multipart
// body sent with a Content-Encoding (which no browser does, but scripts
// and apps may) is decoded as it arrives, in front of the spool, and
// streams the same way within the same limits.
//
// Binary bodies are not read. A body of a type utf8guard does not check
// as text (binary_types, or any unlisted type on the default preset) is
// passed on unread, bounded by binary_body_bytes: with a Content-Length
// over it, refused (413) before the handler runs; sent chunked, it is cut
// off in the handler's read, which fails with an error that errors.As
// finds to be an *http.MaxBytesError, and utf8guard logs a too_large line
// in body then. On Echo (v4 and v5), a handler that returns that error (as
// is or wrapped) and has written nothing gets the refusal a declared
// length would have had: OnReject, then the ErrorHandler, 413 too_large.
// A handler that swallows the error answers what it chooses. On net/http
// the handler answers it itself (413, as the demo does); an adapter of
// your own over Pipeline finds the refusal with CutOff(err).
//
// File contents: text or data. Names are always text: a file name reaches
// logs, file systems and pages. Whether a file's contents are text the
// application will interpret or data it stores is the route's choice, one
// setting, rules.Policy.FileContents ("file_contents" in a policy file).
// A multipart part is a file when it has a non-empty file name, as
// multipart.Part.FileName says, and a file part without a Content-Type is
// text/plain (RFC 7578); any other part, one without a
// Content-Disposition included, is a field and checked as text, its
// declared charset as a body's.
//
//   - rules.TextFiles (the strict and default presets, and the zero
//     value): the contents of the file parts whose type MultipartTextTypes
//     lists (text/*) are checked as UTF-8 text, like fields. For a route
//     that imports CSV or reads config files.
//   - rules.DataFiles: every file's contents pass unread, as data, bounded
//     by the data limits. For a route that stores what it is sent. Two
//     ordinary files show why: a .txt that Windows Notepad saved as
//     "Unicode" is UTF-16 with a byte order mark (FF FE 48 00 ...), and a
//     CSV that Excel saved is Windows-1252 (Zo\xeb;M\xfcnchen); browsers
//     send them as text/plain and text/csv, and TextFiles refuses both
//     (invalid_byte, truncated). DataFiles takes them as they are, while a
//     bidi control in their names is still refused.
//
// For example:
//
//	upload := rules.Strict()
//	upload.FileContents = rules.DataFiles
//	upload.Limits.BinaryBodyBytes = 256 << 20
//	upload.Limits.FileBytes = 256 << 20
//
// A file's name and header block are text either way: every header value
// and parameter, the JSON and XML escapes in them included, RFC 2231
// extended values decoded strictly, and, under RefuseAmbiguousParts, no
// field or parameter given twice. On a route that normalizes, a spooled
// body is rebuilt spool to spool (the files copied through, never held in
// memory, and compared with the original octet for octet before the
// handler runs); the rebuilt body gets a fresh boundary (and
// Content-Type), holds no transfer encoding, and a normalized file name
// keeps the form the client wrote: filename="Café.jpg" stays a quoted
// UTF-8 value, where mime.FormatMediaType would write the extended form,
// which browsers never send and many form parsers do not read:
//
//	filename*=utf-8''Caf%C3%A9.jpg
//
// The demo's /upload/* is such a route, on both Echo versions: it streams
// the form with Request.MultipartReader and answers each file's size and
// SHA-256:
//
//	curl -F title=été -F file=@video.mp4 http://127.0.0.1:8080/upload/x
//	# {"fields":{"title":["été"]},"files":[{"field":"file","filename":"video.mp4","size":...,"sha256":"..."}]}
//
// In operation: each upload in flight holds up to its limits on the
// spool's disk (bound the concurrency, or the limits); keep the temporary
// directory on a disk, not a tmpfs, which is memory; and give the server a
// ReadTimeout that lets the largest upload arrive at your clients' speed
// (the demo's 30 s is for a fast network). What an upload costs is in
// bench/README.md.
//
// # Canonical text, normalization and PRECIS
//
// Canonically equivalent strings (é as U+00E9, or e + U+0301) are both
// well-formed; a check in one layer and a comparison in another can
// disagree on them. A route can ask for one form:
//
//	p := rules.Strict()
//	p.Normalization = normalize.NFC   // or normalize.NFKC, for identifiers only
//	p.RejectUnnormalized = false       // rewrite (default); true rejects with not_normalized
//	p.Precis = []rules.PrecisField{
//		{Location: rules.Query, Field: "user", Profile: normalize.UsernameCaseMapped},
//		{Location: rules.JSON, Field: "/profile/nick", Profile: normalize.Nickname},
//		{Location: rules.Path, Field: "id", Profile: normalize.UsernameCasePreserved},
//	}
//
// In a policy file: "normalization": "nfc", "reject_unnormalized": true,
// "precis": {"query": {"user": "username_case_mapped"}}.
//
// Rewriting means the handler sees only the canonical form, wherever it
// looks: c.Param, c.ParamValues, URL.Path and URL.RawPath (re-escaped, %2F
// kept), c.QueryParam(s) and URL.RawQuery, form bodies, JSON strings and
// keys (escapes decoded first: "e\u0301" is normalized too), multipart
// field names, file names and text parts (the body rebuilt with a fresh
// boundary and verified part by part; binary parts byte-identical), and
// text bodies; ContentLength follows. A query or form pair that holds a
// raw ';', which url.ParseQuery (and so ParseForm and both Echos) skips,
// is checked and then kept as sent in a rewritten text: re-encoded, it
// would become a pair every parser reads. XML is checked, not rewritten:
// on a normalizing route, XML whose decoded text is not in the form is
// not_normalized. So are the header values and cookies the route checks
// (a header may be signed, or compared octet for octet further on), and a
// multipart part's header values other than its field and file names
// (any header but the Content-Disposition, a Content-Disposition parameter
// but name and filename, a Content-Type parameter). Normalization runs
// only after every check has passed, never on ill-formed text, and only on
// routes that ask for it. Monitor mode rewrites nothing, but computes the
// canonical form as well, to flag what Enforce would refuse.
//
// A canonical form must pass the policy its input passed. NFKC maps ％
// (U+FF05) and ﹪ (U+FE6A) to %, ／ to /, ． and ․ to dots, ＼ to \, and
// NFC itself maps U+037E to ';'; NFKC expands U+FDFA to 18 octets. So:
//
//   - in the path and each path parameter, a canonical form that adds /,
//     \, %, ;, ?, # or a dot segment the decoded input did not have is
//     refused (canonical_syntax), never rewritten: /k/％２ｅ％２ｅ does not
//     become /k/%2e%2e, nor ．．／etc a c.Param of ../etc; a multipart file
//     name whose canonical form adds /, \, % or a dot segment likewise;
//   - every canonical value is checked again against its location's
//     classes, double-encoding refusal and limits, and the canonical body
//     against the body limit (413), and for the escapes any decoder would
//     read in it (NFKC makes "\u202E" of "＼ｕ２０２Ｅ");
//   - two distinct keys of one query, form, multipart body or JSON object
//     that have one canonical form (é and e U+0301 under NFC, ｑ and q
//     under NFKC) are refused (key_collision): after the rewrite one
//     handler would read the first value and a binder the last;
//   - under e.Pre, a rewrite that moves the request to another route runs
//     that route's policy too.
//
// Request.RequestURI is set to the rewritten path and query (Echo's
// Rewrite middleware builds a new URL from it). What the rewrite cannot
// reach: a middleware that calls c.QueryParams() before utf8guard leaves
// Echo's cached, unnormalized copy for the handler (mount utf8guard
// first); URL.Path carries the normalized path, not a PRECIS-enforced
// parameter (/users/MIKE gives c.Param("id") == "mike", the path still
// says MIKE). PRECIS field names match the way binders match them,
// ignoring case (?USER= is the user field too), and a field named for the
// query, a form body or a multipart body has its profile in all three,
// unless the policy names a field of that name there itself: c.FormValue
// and Echo's form binder read a name from whichever the client sent it
// in. Under e.Pre a PRECIS path parameter the profile disallows is
// rejected, but its enforced form reaches the handler only when the
// middleware runs after routing.
//
// PRECIS (RFC 8264, 8265, 8266) fixes the form of identifiers and refuses
// what a profile disallows (reason precis). Choose knowingly:
//
//   - UsernameCaseMapped: MIKE and ｍｉｋｅ become mike; mıke (dotless ı)
//     stays mıke and does not collide with mike.
//   - Nickname is NFKC-based: ᴮᴵᴳᴮᴵᴿᴰ becomes BIGBIRD and compares equal to
//     bigbird. That is the 2013 Spotify account-takeover pattern: never use
//     a nickname's enforced form as an account key.
//   - utf8guard refuses empty usernames and ill-formed octets before
//     PRECIS runs (x/text alone accepts "" and turns pw\xff into
//     pw\uFFFD).
//
// The Unicode version of the normalization tables is
// normalize.UnicodeVersion: 15.0.0 with Go 1.26 (golang.org/x/text picks
// 17.0.0 from Go 1.27 on; the fast path's tables then fall back to norm
// until they are regenerated).
//
// # Escapes in bodies
//
// A handler does not always decode a body as its type says:
// json.NewDecoder(r.Body) reads a text/plain body as JSON, and an XML
// decoder skips the text before an element. So every body checked as text
// (text bodies, form bodies whole and each decoded key and value, each
// text part of a multipart body and its preamble and epilogue, which no
// multipart reader hands out but a raw reader does, and JSON and XML
// bodies beside their own check) is also scanned for the escapes of every
// structured text type the strict preset accepts, not the declared type's
// alone: JSON \uXXXX escapes, YAML's, GraphQL's and JavaScript's escapes
// inside the string literals where their decoders read them, XML and HTML
// character references (&#x202E;, and the named entities of
// xml.HTMLEntity, such as &rlm;, which an XML decoder with Strict = false
// and that map decodes), YAML binary scalars, and XML declarations naming
// another encoding. Such a body is refused (failing closed) where one
// decodes to a refused character, a lone surrogate or a value above
// U+10FFFF. Escapes of allowed characters pass, and so does an escaped
// backslash (\\u202e). In a JSON body, an escape JSON does not have (\x85,
// \0, \U0000202E, \u{202E}, a short \u00) and a backslash outside a string
// are bad_escape.
//
// Data (a body of a listed binary type, the content of a multipart file
// part taken as data) is not read, escapes included: a handler must not
// decode it as text. SECURITY.md at the module's root states exactly where
// each syntax is read, and what the scan does not cover; the module
// middleware/decoders holds the scan to real decoders (yaml.v3, goja,
// gqlparser, golang.org/x/net/html, encoding/xml, encoding/json).
package middleware
