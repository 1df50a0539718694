module github.com/utf8guard/utf8guard/examples/chi

go 1.26.0

replace github.com/utf8guard/utf8guard => ../..

require (
	github.com/go-chi/chi/v5 v5.5.0
	github.com/rs/zerolog v1.35.1
	github.com/utf8guard/utf8guard v0.0.0-00010101000000-000000000000
)

require (
	github.com/mattn/go-colorable v0.1.15 // indirect
	github.com/mattn/go-isatty v0.0.22 // indirect
	golang.org/x/net v0.57.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)
