package middleware

import (
	"fmt"
	"strings"
	"testing"
)

// TestOracleClients sends clean requests exactly as common clients write
// them (browsers, curl, Python requests and httpx, Node fetch and axios,
// Go's net/http with mime/multipart) to strict routes: each must be
// accepted on every mount, the oracle must find nothing, and the handler
// must read the path, the query and the body unchanged: in process, and
// over HTTP/2 (h2c and h2, oracle_wire_test.go).
func TestOracleClients(t *testing.T) {
	t.Parallel()
	for _, tc := range orcClients() {
		t.Run(tc.name, func(t *testing.T) {
			for _, m := range orcAllMounts {
				t.Run(m.String(), func(t *testing.T) {
					res, ok := orcServe(t, m, []byte(tc.wire))
					if !ok {
						t.Fatalf("net/http does not parse the request %q", tc.wire)
					}
					orcClientCheck(t, res)
				})
			}
			orcOverWires(t, []byte(tc.wire), orcAllMounts, orcClientCheck)
		})
	}
}

// orcClientCheck asserts that a client's request was accepted and read
// unchanged.
func orcClientCheck(t *testing.T, res orcResult) {
	t.Helper()
	orcOK.check(t, res)
	rep, orig := res.rep, res.rep.orig
	if rep.path != orig.path || rep.rawQuery != orig.rawQuery || string(rep.body) != string(orig.body) {
		t.Errorf("the handler read path %+q, query %q, body %+q; the client sent %+q, %q, %+q",
			rep.path, rep.rawQuery, rep.body, orig.path, orig.rawQuery, orig.body)
	}
}

// orcClient is a request as a client writes it. "{len}" in the head is the
// length of body.
type orcClient struct{ name, wire string }

func orcWireOf(name, head, body string) orcClient {
	head = strings.ReplaceAll(strings.ReplaceAll(head, "\n", "\r\n"), "{len}", fmt.Sprint(len(body)))
	return orcClient{name, head + "\r\n\r\n" + body}
}

// orcChunks frames parts as chunks of a chunked body, ending it.
func orcChunks(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		fmt.Fprintf(&b, "%x\r\n%s\r\n", len(p), p)
	}
	return b.String() + "0\r\n\r\n"
}

func orcClients() []orcClient {
	const (
		chrome  = "----WebKitFormBoundary7MA4YWxkTrZu0gW"
		firefox = "---------------------------974767299852498929531610575"
		curlB   = "------------------------d74496d66958873e"
		pyB     = "a5d0ab3b1a2d4f6e9c2b1d0e8f7a6c5b"
		undici  = "----formdata-undici-032462398437"
		goB     = "3f2b9c6a1d8e4f7a0b5c2d9e6f1a4b7c8d0e3f6a9b2c5d8e1f4a7b0c3d6e"
	)
	return []orcClient{
		orcWireOf("chrome-form-urlencoded", `POST /t/strict/profile HTTP/1.1
Host: example.com
Connection: keep-alive
Content-Length: {len}
Cache-Control: max-age=0
Origin: https://example.com
Content-Type: application/x-www-form-urlencoded
User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36
Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8
Referer: https://example.com/profile
Accept-Encoding: gzip, deflate, br
Accept-Language: de-DE,de;q=0.9,en;q=0.8
Cookie: _ga=GA1.1.1234567890.1700000000; theme=dark`,
			"name=Jos%C3%A9+Garc%C3%ADa&city=K%C3%B8benhavn&bio=Hello%0D%0A%E4%BD%A0%E5%A5%BD+%F0%9F%91%8B&tags=%D7%A2%D7%91%D7%A8%D7%99%D7%AA&mark=e%CC%81"),
		orcWireOf("chrome-multipart-upload", `POST /t/strict/upload HTTP/1.1
Host: example.com
Content-Length: {len}
Content-Type: multipart/form-data; boundary=`+chrome+`
User-Agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36
Accept: */*`,
			"--"+chrome+"\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nCr\u00e8me br\u00fbl\u00e9e \U0001F36E\r\n"+
				"--"+chrome+"\r\nContent-Disposition: form-data; name=\"file\"; filename=\"r\u00e9sum\u00e9 2024.pdf\"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n\x00\xff\xfe\x80binary\r\n"+
				"--"+chrome+"\r\nContent-Disposition: form-data; name=\"notes\"; filename=\"na\u00efve.txt\"\r\nContent-Type: text/plain\r\n\r\nGr\u00fc\u00dfe aus K\u00f6ln\r\nZeile 2\r\n"+
				"--"+chrome+"--\r\n"),
		orcWireOf("firefox-multipart-photo", `POST /t/strict/photos HTTP/1.1
Host: example.com
User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0
Accept-Language: fr-FR,fr;q=0.8
Content-Type: multipart/form-data; boundary=`+firefox+`
Content-Length: {len}`,
			"--"+firefox+"\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\n\u00c7a va? \u0645\u0631\u062d\u0628\u0627 \U0001F44D\r\n"+
				"--"+firefox+"\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"\U0001F4F7 \u00e9t\u00e9.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n\xff\xd8\xff\xe0\x00\x10JFIF\x00\r\n"+
				"--"+firefox+"--\r\n"),
		orcWireOf("browser-fetch-json", `POST /t/strict/api/posts HTTP/1.1
Host: example.com
Content-Length: {len}
sec-ch-ua-platform: "Linux"
Content-Type: application/json
Accept: */*
Origin: https://example.com`,
			"{\"title\":\"Gr\u00fc\u00dfe \U0001F44B\",\"tags\":[\"\u65e5\u672c\u8a9e\",\"\u05e2\u05d1\u05e8\u05d9\u05ea\",\"e\u0301\"],\"family\":\"\U0001F469\u200d\U0001F469\u200d\U0001F467\",\"flag\":\"\U0001F1EF\U0001F1F5\",\"heart\":\"\u2764\ufe0f\",\"text\":\"line1\\nline2\\ttab\"}"),
		orcWireOf("browser-fetch-text", `POST /t/strict/notes HTTP/1.1
Host: example.com
Content-Length: {len}
Content-Type: text/plain;charset=UTF-8`, "Zo\u00eb says \u4f60\u597d\r\nand \u0928\u092e\u0938\u094d\u0924\u0947"),
		orcWireOf("browser-get-query", `GET /t/strict/search?q=%E6%97%A5%E6%9C%AC%E8%AA%9E&lang=ja&emoji=%F0%9F%98%80&ar=%D9%85%D8%B1%D8%AD%D8%A8%D8%A7 HTTP/1.1
Host: example.com
Accept-Language: ja,en-US;q=0.7
Cookie: session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc; lang=ja`, ""),
		orcWireOf("curl-form-lowercase-hex", `POST /t/strict/search HTTP/1.1
Host: example.com
User-Agent: curl/8.5.0
Accept: */*
Content-Length: {len}
Content-Type: application/x-www-form-urlencoded`, "q=caf%c3%a9&n=na%C3%AFve&c=e%cc%81"),
		orcWireOf("curl-multipart-file", `POST /t/strict/upload HTTP/1.1
Host: example.com
User-Agent: curl/8.5.0
Accept: */*
Content-Length: {len}
Content-Type: multipart/form-data; boundary=`+curlB,
			"--"+curlB+"\r\nContent-Disposition: form-data; name=\"file\"; filename=\"na\u00efve.txt\"\r\nContent-Type: text/plain\r\n\r\ncaf\u00e9 \u2615\n\r\n"+
				"--"+curlB+"\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nZo\u00eb\r\n"+
				"--"+curlB+"--\r\n"),
		orcWireOf("curl-json-chunked", `POST /t/strict/api HTTP/1.1
Host: example.com
User-Agent: curl/8.5.0
Accept: */*
Transfer-Encoding: chunked
Content-Type: application/json; charset=UTF-8`, orcChunks("{\"name\":\"Jos\u00e9\",", "\"city\":\"Z\u00fcrich\"}")),
		orcWireOf("curl-post-without-body", `POST /t/strict/ping HTTP/1.1
Host: example.com
User-Agent: curl/8.5.0
Accept: */*`, ""),
		orcWireOf("python-requests-json", `POST /t/strict/api HTTP/1.1
Host: example.com
User-Agent: python-requests/2.31.0
Accept-Encoding: gzip, deflate
Accept: */*
Connection: keep-alive
Content-Length: {len}
Content-Type: application/json`, `{"name": "Jos\u00e9", "emoji": "\ud83d\ude00", "mark": "e\u0301", "rtl": "\u05e9\u05dc\u05d5\u05dd"}`),
		orcWireOf("python-requests-files", `POST /t/strict/upload?album=%C3%A9t%C3%A9 HTTP/1.1
Host: example.com
User-Agent: python-requests/2.31.0
Accept-Encoding: gzip, deflate
Accept: */*
Connection: keep-alive
Content-Length: {len}
Content-Type: multipart/form-data; boundary=`+pyB,
			"--"+pyB+"\r\nContent-Disposition: form-data; name=\"k\"\r\n\r\n\u00fc\r\n"+
				"--"+pyB+"\r\nContent-Disposition: form-data; name=\"file\"; filename=\"na\u00efve.txt\"\r\nContent-Type: text/plain\r\n\r\ncaf\u00e9\n\r\n"+
				"--"+pyB+"--\r\n"),
		orcWireOf("python-requests-get", `GET /t/strict/search?q=caf%C3%A9&tag=%F0%9F%98%80&mark=e%CC%81 HTTP/1.1
Host: example.com
User-Agent: python-requests/2.31.0
Accept-Encoding: gzip, deflate
Accept: */*
Connection: keep-alive`, ""),
		orcWireOf("python-httpx-json", `POST /t/strict/api HTTP/1.1
Host: example.com
Accept: */*
Accept-Encoding: gzip, deflate
Connection: keep-alive
User-Agent: python-httpx/0.27.0
Content-Length: {len}
Content-Type: application/json`, "{\"name\":\"Jos\u00e9\",\"tags\":[\"\U0001F600\",\"\u00c5ngstr\u00f6m\"]}"),
		orcWireOf("node-fetch-urlsearchparams", `POST /t/strict/form HTTP/1.1
host: example.com
connection: keep-alive
content-type: application/x-www-form-urlencoded;charset=UTF-8
accept: */*
accept-language: *
sec-fetch-mode: cors
user-agent: node
accept-encoding: gzip, deflate
content-length: {len}`, "name=Jos%C3%A9+Garc%C3%ADa&emoji=%F0%9F%98%80&note=a%2Bb%3Dc"),
		orcWireOf("node-fetch-formdata", `POST /t/strict/upload HTTP/1.1
host: example.com
connection: keep-alive
content-type: multipart/form-data; boundary=`+undici+`
accept: */*
user-agent: node
content-length: {len}`,
			"--"+undici+"\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n\u00c5se \u2013 \u00f8l\r\n"+
				"--"+undici+"\r\nContent-Disposition: form-data; name=\"doc\"; filename=\"na\u00efve r\u00e9sum\u00e9.txt\"\r\nContent-Type: text/plain\r\n\r\nhello w\u00f6rld\r\n"+
				"--"+undici+"--\r\n"),
		orcWireOf("node-axios-json", `POST /t/strict/comments HTTP/1.1
Accept: application/json, text/plain, */*
Content-Type: application/json
User-Agent: axios/1.6.8
Content-Length: {len}
Accept-Encoding: gzip, compress, deflate, br
Host: example.com
Connection: keep-alive`, "{\"comment\":\"\u00c7a va? \U0001F44D\",\"lang\":\"fr\"}"),
		orcWireOf("go-mime-multipart", `POST /t/strict/upload HTTP/1.1
Host: example.com
User-Agent: Go-http-client/1.1
Content-Length: {len}
Content-Type: multipart/form-data; boundary=`+goB+`
Accept-Encoding: gzip`,
			"--"+goB+"\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nK\u00f8benhavn \u2192 Malm\u00f6\r\n"+
				"--"+goB+"\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"na\u00efve.txt\"\r\nContent-Type: application/octet-stream\r\n\r\n\xef\xbb\xbfBOM and bytes \x00\x01\r\n"+
				"--"+goB+"--\r\n"),
		orcWireOf("go-json-chunked", `PUT /t/strict/p/caf%c3%a9?v=%e2%82%ac HTTP/1.1
Host: example.com
User-Agent: Go-http-client/1.1
Transfer-Encoding: chunked
Content-Type: application/json
Accept-Encoding: gzip`, orcChunks("{\"city\":\"S\u00e3o Paulo\",\"n\":[1,2]}\n")),
		orcWireOf("soap-text-xml", `POST /t/strict/soap HTTP/1.1
Host: example.com
Content-Type: text/xml; charset=utf-8
SOAPAction: "urn:GetCity"
Content-Length: {len}`, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><m:City xmlns:m=\"urn:x\" lang=\"da\">\u00c6r\u00f8sk\u00f8bing &amp; caf&#233;</m:City></soap:Body></soap:Envelope>"),
		orcWireOf("browser-json-nfc-route", `POST /t/nfc/api HTTP/1.1
Host: example.com
Content-Type: application/json
Content-Length: {len}`, "{\"name\":\"Jos\u00e9\",\"city\":\"K\u00f8benhavn\"}"),
	}
}
