// The Go peer of the interop tests (test/interop/go). It pins the MCP Go SDK and
// jsonschema-go at the versions that agenttool's mcpserver and mcpclient v0.0.15
// require. agenttool itself (root, mcpserver, mcpclient) is not served by the Go module
// proxy these machines reach, so contract.go, executor.go, serve.go and host.go stand in
// for it; see docs/go-interop.md.
module agenttool-go-peer

go 1.25.0

require (
	github.com/google/jsonschema-go v0.4.3
	github.com/modelcontextprotocol/go-sdk v1.8.0
)

require (
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
