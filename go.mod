module github.com/utf8guard/utf8guard

go 1.26
