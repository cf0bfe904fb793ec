// Command agenttool-go-peer is the Go end of the interop tests in test/interop/go: it
// serves the fixture tools over Streamable HTTP or stdio, acts as a host against a
// server, or runs a batch through the executor. Every result is printed as JSON lines.
//
//	agenttool-go-peer serve-http --fixtures DIR        prints {"url":...}; runs until stdin closes
//	agenttool-go-peer serve-stdio --fixtures DIR       MCP on stdin and stdout
//	agenttool-go-peer host --script JSON [--protocol V] -- URL | COMMAND ARGS...
//	agenttool-go-peer batch --spec JSON
//	agenttool-go-peer definitions --fixtures DIR       each fixture's definition and hash
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: agenttool-go-peer serve-http|serve-stdio|host|batch|definitions ..."))
	}
	cmd, args := os.Args[1], os.Args[2:]
	flags := flag.NewFlagSet(cmd, flag.ExitOnError)
	fixtures := flags.String("fixtures", "", "the contract's testdata folder (schema/everything.json)")
	script := flags.String("script", `{"calls":[]}`, "the host's calls, as JSON")
	protocol := flags.String("protocol", "", "the protocol version the host asks for")
	spec := flags.String("spec", "", "the batch, as JSON")
	_ = flags.Parse(args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stdout := &lines{w: os.Stdout}
	stderr := &lines{w: os.Stderr}

	switch cmd {
	case "serve-http", "serve-stdio":
		tools, err := FixtureTools(*fixtures)
		if err != nil {
			fail(err)
		}
		// Records written during a call go to stderr, as a host's session log would keep them.
		recorder := func(ctx context.Context, rec *Record) error {
			call, _ := CallFrom(ctx)
			stderr.print(map[string]any{"kind": "record", "call": call.ID, "ns": rec.NS, "data": string(rec.Data)})
			return nil
		}
		server, err := NewServer("agenttool-go-peer", "0.0.15", tools, recorder)
		if err != nil {
			fail(err)
		}
		if cmd == "serve-stdio" {
			if err := server.Run(ctx, &mcp.StdioTransport{}); err != nil && !errors.Is(err, context.Canceled) {
				fail(err)
			}
			return
		}
		serveHTTP(ctx, server, stdout)
	case "host":
		var s HostScript
		if err := json.Unmarshal([]byte(*script), &s); err != nil {
			fail(fmt.Errorf("--script: %w", err))
		}
		ctx, cancel := withTimeout(ctx)
		defer cancel()
		if err := RunHost(ctx, stdout, flags.Args(), *protocol, s); err != nil {
			stdout.print(map[string]any{"kind": "host-error", "error": err.Error()})
			os.Exit(1)
		}
	case "batch":
		var s BatchSpec
		if err := json.Unmarshal([]byte(*spec), &s); err != nil {
			fail(fmt.Errorf("--spec: %w", err))
		}
		stdout.print(map[string]any{"kind": "batch", "events": RunBatch(s)})
	case "definitions":
		tools, err := FixtureTools(*fixtures)
		if err != nil {
			fail(err)
		}
		for _, t := range tools {
			def := Definition(t)
			hash, err := DefinitionHash(def)
			if err != nil {
				fail(err)
			}
			stdout.print(map[string]any{"kind": "tool", "name": t.Name, "definition": def, "hash": hash})
		}
	default:
		fail(fmt.Errorf("unknown command %q", cmd))
	}
}

// serveHTTP serves on a free loopback port, prints the endpoint, and stops when stdin
// closes (the test that started it ended) or on a signal.
func serveHTTP(ctx context.Context, server *mcp.Server, out *lines) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	// The SDK serves 2026-07-28 over HTTP only statelessly (its stateful handler leaves
	// that version out of server/discover), and server requests of the 2025 era only
	// statefully: one endpoint routes each request by the protocol it names.
	get := func(*http.Request) *mcp.Server { return server }
	legacy := mcp.NewStreamableHTTPHandler(get, nil)
	modern := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			modern.ServeHTTP(w, r)
			return
		}
		legacy.ServeHTTP(w, r)
	})}
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		_ = srv.Close()
	}()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	out.print(map[string]any{"kind": "listening", "url": "http://" + listener.Addr().String() + "/mcp"})
	if err := srv.Serve(listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "agenttool-go-peer:", err)
	os.Exit(2)
}
