package main

// A host that uses a server's tools as agenttool's mcpclient v0.0.15 maps them
// (CONTRACT.md §1.15), on the MCP Go SDK that mcpclient v0.0.15 is built on, and renders
// what the model would see as the Go harness does (ErrorResult: "Error: " once). Every
// line it prints is one JSON object.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HostScript is what the host does once connected: list, then each call in turn.
type HostScript struct {
	Calls []HostCall `json:"calls"`
}

// HostCall is one call; Answer is what the user answers to every question it asks.
type HostCall struct {
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args"`
	Progress bool            `json:"progress"`
	Answer   *struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content,omitempty"`
	} `json:"answer,omitempty"`
}

type host struct {
	out     *lines
	mu      sync.Mutex
	current int
	script  HostScript
}

// RunHost connects over target (an http URL, or a command and its arguments), pinned to
// protocol ("" lets the SDK negotiate), and runs the script.
func RunHost(ctx context.Context, out *lines, target []string, protocol string, script HostScript) error {
	h := &host{out: out, script: script}
	client := mcp.NewClient(&mcp.Implementation{Name: "agenttool", Version: "0"}, &mcp.ClientOptions{
		Logger:                      debugLogger(),
		ElicitationHandler:          h.elicit,
		ProgressNotificationHandler: h.progress,
		// WithElicitation's capabilities, beside the SDK's default roots.
		Capabilities: &mcp.ClientCapabilities{
			RootsV2:     &mcp.RootCapabilities{ListChanged: true},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		},
	})
	var transport mcp.Transport
	if len(target) == 1 && (strings.HasPrefix(target[0], "http://") || strings.HasPrefix(target[0], "https://")) {
		transport = &mcp.StreamableClientTransport{Endpoint: target[0], MaxRetries: -1}
	} else if len(target) > 0 {
		transport = &mcp.CommandTransport{Command: exec.Command(target[0], target[1:]...)}
	} else {
		return errors.New("host: no target")
	}
	var opts *mcp.ClientSessionOptions
	if protocol != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: protocol}
	}
	cs, err := client.Connect(ctx, transport, opts)
	if err != nil {
		return fmt.Errorf("mcp: connect: %w", err)
	}
	defer cs.Close()
	init := cs.InitializeResult()
	server := map[string]any{"kind": "server", "protocol": init.ProtocolVersion}
	if init.ServerInfo != nil {
		server["name"], server["version"] = init.ServerInfo.Name, init.ServerInfo.Version
	}
	out.print(server)

	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("mcp: list tools: %w", err)
		}
		schema := json.RawMessage(`{"type":"object"}`)
		if tool.InputSchema != nil {
			if schema, err = json.Marshal(tool.InputSchema); err != nil {
				return fmt.Errorf("mcp: tool %q: input schema: %w", tool.Name, err)
			}
		}
		def := Definition(&Tool{Name: tool.Name, Description: tool.Description, Parameters: schema})
		hash, err := DefinitionHash(def)
		if err != nil {
			return err
		}
		line := map[string]any{"kind": "tool", "name": tool.Name, "definition": def, "hash": hash}
		if a, ok := annotationsOf(tool); ok {
			line["annotations"] = map[string]any{"title": a.Title, "readOnly": a.ReadOnly, "destructive": a.Destructive, "idempotent": a.Idempotent, "openWorld": a.OpenWorld}
		}
		out.print(line)
	}

	for i, c := range script.Calls {
		h.mu.Lock()
		h.current = i
		h.mu.Unlock()
		args := c.Args
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		params := &mcp.CallToolParams{Name: c.Tool, Arguments: args}
		if c.Progress {
			params.SetProgressToken(fmt.Sprintf("agenttool-%d", i+1))
		}
		line := map[string]any{"kind": "result", "call": i}
		res, err := cs.CallTool(ctx, params)
		if err == nil && res.NeedsInput() {
			err = errors.New("the server needs input the client did not give; multi round-trip handling is off")
		}
		if err != nil {
			line["error"] = ErrorResult(fmt.Errorf("mcp: call %q: %w", c.Tool, err)).Output.Text
			out.print(line)
			continue
		}
		result, record, err := resultOf(res)
		if err != nil {
			line["error"] = ErrorResult(err).Output.Text
		} else {
			line["output"] = result.Output
		}
		if record != nil {
			line["record"] = map[string]any{"ns": record.NS, "data": string(record.Data)}
		}
		out.print(line)
	}
	return nil
}

func (h *host) call() (int, HostCall) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.current, h.script.Calls[h.current]
}

func (h *host) elicit(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	i, c := h.call()
	schema, _ := json.Marshal(req.Params.RequestedSchema)
	h.out.print(map[string]any{"kind": "asked", "call": i, "message": req.Params.Message, "mode": req.Params.Mode, "url": req.Params.URL, "schema": json.RawMessage(schema)})
	if c.Answer == nil {
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	return &mcp.ElicitResult{Action: c.Answer.Action, Content: c.Answer.Content}, nil
}

func (h *host) progress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	token, ok := req.Params.ProgressToken.(string)
	if !ok || !strings.HasPrefix(token, "agenttool-") {
		return // mcpclient ignores tokens that are not its own
	}
	// The token names the call: notifications may arrive after the call returned.
	var i int
	_, _ = fmt.Sscanf(token, "agenttool-%d", &i)
	h.out.print(map[string]any{"kind": "progress", "call": i - 1, "token": token, "progress": req.Params.Progress, "total": req.Params.Total, "message": req.Params.Message})
}

// annotationsOf reads a tool's hints with MCP's defaults; false when none are stated.
func annotationsOf(t *mcp.Tool) (Annotations, bool) {
	if t.Annotations == nil {
		return Annotations{}, false
	}
	a := Annotations{
		Title:       t.Annotations.Title,
		ReadOnly:    t.Annotations.ReadOnlyHint,
		Destructive: t.Annotations.DestructiveHint == nil || *t.Annotations.DestructiveHint,
		Idempotent:  t.Annotations.IdempotentHint,
		OpenWorld:   t.Annotations.OpenWorldHint == nil || *t.Annotations.OpenWorldHint,
	}
	if t.Title != "" {
		a.Title = t.Title
	}
	return a, true
}

var audioExt = map[string]string{
	"audio/wav": ".wav", "audio/x-wav": ".wav", "audio/wave": ".wav", "audio/mpeg": ".mp3", "audio/mp3": ".mp3",
	"audio/mp4": ".m4a", "audio/aac": ".aac", "audio/ogg": ".ogg", "audio/opus": ".opus", "audio/flac": ".flac", "audio/webm": ".webm",
}

func audioName(mime string) string {
	t, _, _ := strings.Cut(mime, ";")
	return "audio" + audioExt[strings.ToLower(strings.TrimSpace(t))]
}

// resultOf maps a call's result (§1.15): content to text and parts, isError to an error
// with the joined text, and the record under RecordMetaKey.
func resultOf(res *mcp.CallToolResult) (Result, *Record, error) {
	if res == nil {
		return Result{}, nil, errors.New("mcp: empty result")
	}
	type mapped struct {
		text string
		part map[string]any
	}
	var all []mapped
	for _, c := range res.Content {
		switch b := c.(type) {
		case *mcp.TextContent:
			all = append(all, mapped{text: b.Text})
		case *mcp.ImageContent:
			mime := b.MIMEType
			if mime == "" {
				mime = "application/octet-stream"
			}
			all = append(all, mapped{part: map[string]any{"type": "input_image", "image_url": "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b.Data)}})
		case *mcp.AudioContent:
			all = append(all, mapped{part: map[string]any{"type": "input_file", "filename": audioName(b.MIMEType), "file_data": base64.StdEncoding.EncodeToString(b.Data)}})
		case *mcp.EmbeddedResource:
			if b.Resource == nil {
				continue
			}
			if len(b.Resource.Blob) > 0 {
				all = append(all, mapped{part: map[string]any{"type": "input_file", "filename": b.Resource.URI, "file_data": base64.StdEncoding.EncodeToString(b.Resource.Blob)}})
			} else {
				all = append(all, mapped{text: b.Resource.Text})
			}
		case *mcp.ResourceLink:
			all = append(all, mapped{text: "resource: " + b.URI})
		default:
			data, _ := json.Marshal(c)
			all = append(all, mapped{text: string(data)})
		}
	}
	if res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		all = append(all, mapped{text: string(data)})
	}
	record := remoteRecord(res.Meta)
	var texts []string
	for _, m := range all {
		if m.part == nil {
			texts = append(texts, m.text)
		}
	}
	if res.IsError {
		msg := strings.Join(texts, "\n")
		if msg == "" {
			msg = "tool call failed"
		}
		return Result{}, record, errors.New(msg)
	}
	if len(texts) == len(all) {
		return Text(strings.Join(texts, "\n")), record, nil
	}
	parts := make([]map[string]any, 0, len(all))
	for _, m := range all {
		if m.part != nil {
			parts = append(parts, m.part)
		} else {
			parts = append(parts, map[string]any{"type": "text", "text": m.text})
		}
	}
	return Result{Output: Output{Parts: parts}}, record, nil
}

// remoteRecord is the record under RecordMetaKey: a non-empty ns and data that is a
// string of valid JSON, kept byte for byte.
func remoteRecord(meta mcp.Meta) *Record {
	m, ok := meta[RecordMetaKey].(map[string]any)
	if !ok {
		return nil
	}
	ns, _ := m["ns"].(string)
	data, ok := m["data"].(string)
	if ns == "" || !ok || !json.Valid([]byte(data)) {
		return nil
	}
	return &Record{NS: ns, Data: json.RawMessage(data)}
}

// lines prints JSON lines, one writer at a time.
type lines struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lines) print(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		data, _ = json.Marshal(map[string]any{"kind": "peer-error", "error": err.Error()})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(append(data, '\n'))
}

// debugLogger logs the SDK's client to stderr when AGENTTOOL_GO_PEER_DEBUG is set.
func debugLogger() *slog.Logger {
	if os.Getenv("AGENTTOOL_GO_PEER_DEBUG") == "" {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// withTimeout bounds a whole host run, so a peer that never answers cannot hang a test.
func withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, 60*time.Second)
}
