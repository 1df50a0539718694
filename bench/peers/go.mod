module github.com/utf8guard/utf8guard/bench/peers

go 1.26.0

require (
	github.com/bytedance/sonic v1.15.5
	github.com/segmentio/asm v1.2.1
	github.com/utf8guard/utf8guard v0.0.0-00010101000000-000000000000
)

require (
	github.com/bytedance/sonic/loader v0.5.3 // indirect
	github.com/cloudwego/base64x v0.1.6 // indirect
	github.com/klauspost/cpuid/v2 v2.2.9 // indirect
	golang.org/x/arch v0.0.0-20210923205945-b76863e36670 // indirect
	golang.org/x/sys v0.47.0 // indirect
)

replace github.com/utf8guard/utf8guard => ../..
