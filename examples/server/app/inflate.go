package app

import (
	"bufio"
	"compress/flate"
	"compress/zlib"
	"io"
	"net/http"
	"strings"
)

// Inflate decodes a request body that still has Content-Encoding: deflate
// when it reaches it, up to limit decoded octets (past them the handler's
// read fails with an *http.MaxBytesError), and removes the header: the
// deflate counterpart of Echo's Decompress, which decodes gzip only.
//
// The demo mounts both after utf8guard, as the README recommends. On a
// route in Enforce mode utf8guard has decoded the body and removed
// Content-Encoding, and neither does anything; on a route in Monitor mode
// utf8guard passes the body on as the client sent it, and they decode it,
// so that the handler reads the same body in both modes. Like utf8guard,
// it reads deflate as the zlib format (RFC 1950) RFC 9110 names, or as a
// raw DEFLATE stream when the first two octets are not a zlib header.
func Inflate(limit int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.EqualFold(strings.TrimSpace(r.Header.Get("Content-Encoding")), "deflate") {
				next.ServeHTTP(w, r)
				return
			}
			br := bufio.NewReader(r.Body)
			var zr io.ReadCloser
			if h, err := br.Peek(2); err == nil && zlibHeader(h[0], h[1]) {
				if zr, err = zlib.NewReader(br); err != nil {
					http.Error(w, "deflate: "+err.Error(), http.StatusBadRequest)
					return
				}
			} else {
				zr = flate.NewReader(br)
			}
			defer zr.Close()
			r.Body = http.MaxBytesReader(w, zr, limit)
			r.ContentLength = -1
			r.Header.Del("Content-Encoding")
			next.ServeHTTP(w, r)
		})
	}
}

// zlibHeader reports whether cmf, flg start a zlib stream: the DEFLATE
// method with a window of at most 32 KiB, and a header that is a multiple
// of 31 (RFC 1950 section 2.2).
func zlibHeader(cmf, flg byte) bool {
	return cmf&0x0F == 8 && cmf>>4 <= 7 && (uint16(cmf)<<8|uint16(flg))%31 == 0
}
