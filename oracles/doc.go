// Package oracles holds the decoders a handler may run on a request body
// (YAML, JavaScript, GraphQL, HTML, XML, JSON), used as independent
// references for utf8guard's escape scan: a module of its own, so that the
// library's module requires none of them.
package oracles
