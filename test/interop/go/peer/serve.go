package main

// Serving tools over MCP as agenttool's mcpserver v0.0.15 does (CONTRACT.md §1.17), on
// the MCP Go SDK that mcpserver v0.0.15 is built on, and the peer's fixture tools.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RecordMetaKey is where a record crosses MCP.
const RecordMetaKey = "io.github.christopherdavenport.agenttool/record"

// NewServer builds an SDK server that serves tools; recorder, when set, is on every
// call's context (what a host installs with ContextWithRecorder).
func NewServer(name, version string, tools []*Tool, recorder RecordFunc) (*mcp.Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: version}, nil)
	handlers := make([]mcp.ToolHandler, 0, len(tools))
	for _, t := range tools {
		h, err := handler(t, recorder)
		if err != nil {
			return nil, err
		}
		handlers = append(handlers, h)
	}
	for i, t := range tools {
		s.AddTool(mcpDefinition(t), handlers[i])
	}
	return s, nil
}

// mcpDefinition is the MCP tool: parameters verbatim, annotations only when stated,
// each hint spelt out.
func mcpDefinition(t *Tool) *mcp.Tool {
	schema := t.Parameters
	if len(schema) == 0 {
		schema = NoArgsSchema
	}
	def := &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: schema}
	if a := t.Annotations; a != (Annotations{}) {
		destructive, openWorld := a.Destructive, a.OpenWorld
		def.Title = a.Title
		def.Annotations = &mcp.ToolAnnotations{
			Title:           a.Title,
			ReadOnlyHint:    a.ReadOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  a.Idempotent,
			OpenWorldHint:   &openWorld,
		}
	}
	return def
}

var callSeq atomic.Int64

// errNeedsInput stops a run whose question goes back to a 2026-07-28 client with the
// call's result; the SDK puts it to a 2025-era client itself and runs the call again.
var errNeedsInput = errors.New("needs input")

type rounds struct {
	mu        sync.Mutex
	responses mcp.InputResponseMap
	asked     int
	pending   mcp.InputRequestMap
}

func (r *rounds) ask(_ context.Context, e Elicitation) (Answer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked++
	key := "elicit_" + strconv.Itoa(r.asked)
	if resp, ok := r.responses[key]; ok {
		res, ok := resp.(*mcp.ElicitResult)
		if !ok {
			return Answer{}, fmt.Errorf("mcpserver: elicitation answer: the client answered with %T", resp)
		}
		answer := Answer{Action: res.Action}
		if res.Action == "accept" {
			content, err := json.Marshal(res.Content)
			if err != nil {
				return Answer{}, err
			}
			answer.Content = content
		}
		return answer, nil
	}
	params := &mcp.ElicitParams{Message: e.Message}
	if e.URL != "" {
		params.Mode, params.URL, params.ElicitationID = "url", e.URL, key
	} else {
		params.Mode = "form"
		params.RequestedSchema = json.RawMessage(`{"type":"object","properties":{}}`)
		if len(e.Schema) > 0 {
			params.RequestedSchema = e.Schema
		}
	}
	if r.pending == nil {
		r.pending = mcp.InputRequestMap{}
	}
	r.pending[key] = params
	return Answer{}, errNeedsInput
}

func handler(t *Tool, recorder RecordFunc) (mcp.ToolHandler, error) {
	resolved, err := resolveSchema(t.Parameters)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: tool %q: schema: %w", t.Name, err)
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		call := Call{ID: "mcp_" + strconv.FormatInt(callSeq.Add(1), 10), Args: req.Params.Arguments}
		if len(call.Args) == 0 {
			call.Args = json.RawMessage("{}")
		}
		if err := validate(resolved, call.Args); err != nil {
			return errorResult(err, nil), nil
		}
		asks := &rounds{responses: req.Params.InputResponses}
		if caps := req.ClientCapabilities(); caps != nil && caps.Elicitation != nil {
			ctx = ContextWithElicitor(ctx, asks.ask)
		}
		if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
			var n atomic.Int64
			session := req.Session
			call.OnUpdate = func(r Result) {
				params := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n.Add(1)), Message: r.Output.String()}
				if p, ok := r.Details.(ProgressInfo); ok {
					params.Progress, params.Total = p.Progress, p.Total
					if p.Message != "" {
						params.Message = p.Message
					}
				}
				_ = session.NotifyProgress(ctx, params) // best effort
			}
		}
		if recorder != nil {
			ctx = ContextWithRecorder(ctx, recorder)
		}
		res, err := t.Execute(WithCall(ctx, call), call)
		if len(asks.pending) > 0 {
			return &mcp.CallToolResult{InputRequests: asks.pending, RequestState: "go-peer-" + call.ID}, nil
		}
		if err != nil {
			return errorResult(err, res.Details), nil
		}
		out := &mcp.CallToolResult{Content: ContentOf(res.Output)}
		withRecord(out, res.Details)
		return out, nil
	}, nil
}

// errorResult is the isError result: the message once, no "Error:" (the consumer adds it).
func errorResult(err error, details any) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
	withRecord(out, details)
	return out
}

func withRecord(out *mcp.CallToolResult, details any) {
	rec, err := RecordOf(details)
	switch {
	case err != nil:
		out.Meta = mcp.Meta{RecordMetaKey: map[string]any{"error": err.Error()}}
	case rec != nil:
		out.Meta = mcp.Meta{RecordMetaKey: map[string]any{"ns": rec.NS, "data": string(rec.Data)}}
	}
}

func resolveSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	if len(raw) == 0 {
		raw = NoArgsSchema
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, err
	}
	switch schema.Schema {
	case "", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema":
	default:
		return nil, fmt.Errorf("unsupported $schema %q: the validator handles draft-07 and 2020-12", schema.Schema)
	}
	return schema.Resolve(nil)
}

func validate(resolved *jsonschema.Resolved, raw json.RawMessage) error {
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	if err := resolved.Validate(instance); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	return nil
}

// ContentOf maps an output to MCP content (§1.17).
func ContentOf(out Output) []mcp.Content {
	if out.Parts == nil {
		return []mcp.Content{&mcp.TextContent{Text: out.Text}}
	}
	content := make([]mcp.Content, 0, len(out.Parts))
	for _, p := range out.Parts {
		str := func(k string) string { s, _ := p[k].(string); return s }
		switch p["type"] {
		case "text", "input_text", "output_text":
			content = append(content, &mcp.TextContent{Text: str("text")})
		case "input_image":
			if mime, data, ok := parseDataURL(str("image_url")); ok {
				content = append(content, &mcp.ImageContent{MIMEType: mime, Data: data})
			} else {
				content = append(content, &mcp.ResourceLink{URI: str("image_url"), Name: "image"})
			}
		case "input_file":
			content = append(content, fileContent(str("filename"), str("file_data"), str("file_url")))
		default:
			content = append(content, &mcp.TextContent{Text: typeFirstJSON(p)})
		}
	}
	return content
}

func fileContent(filename, fileData, fileURL string) mcp.Content {
	switch {
	case fileData != "":
		data, err := base64.StdEncoding.DecodeString(fileData)
		if err != nil {
			return &mcp.TextContent{Text: fileData}
		}
		uri := fileURL
		if uri == "" {
			uri = "file:///" + strings.TrimPrefix(filename, "/")
		}
		return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, Blob: data}}
	case fileURL != "":
		return &mcp.ResourceLink{URI: fileURL, Name: filename}
	default:
		return &mcp.TextContent{Text: filename}
	}
}

// typeFirstJSON writes a part as Go's openresponses structs do: "type" first.
func typeFirstJSON(p map[string]any) string {
	rest := map[string]any{}
	for k, v := range p {
		if k != "type" {
			rest[k] = v
		}
	}
	typ, _ := json.Marshal(p["type"])
	others, _ := json.Marshal(rest)
	if len(rest) == 0 {
		return `{"type":` + string(typ) + `}`
	}
	return `{"type":` + string(typ) + `,` + string(others[1:])
}

func parseDataURL(url string) (string, []byte, bool) {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return "", nil, false
	}
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return "", nil, false
	}
	mime, b64 := strings.CutSuffix(meta, ";base64")
	if !b64 {
		return "", nil, false
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return "", nil, false
	}
	if mime == "" {
		mime = "application/octet-stream"
	}
	return mime, data, true
}

// ── The fixture tools ───────────────────────────────────────────────────────────────

// processGroup is recordable details whose JSON Go writes in field order, with an
// integer past 2^53 and characters json.Marshal escapes.
type processGroup struct {
	Z    int    `json:"z"`
	A    int64  `json:"a"`
	Note string `json:"note"`
	At   string `json:"at"`
}

func (processGroup) RecordNS() string { return "shell:process-group" }

// NoopSchema is the benchmarks' five-argument tool (bench/mcp-noop.ts).
var NoopSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"Where"},"count":{"type":"integer","description":"How many"},"ratio":{"type":"number","description":"A ratio"},"enabled":{"type":"boolean","description":"On or off"},"mode":{"type":"string","enum":["fast","safe","dry"],"description":"Which mode"}},"required":["path","count","ratio","enabled","mode"]}`)

var confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)

// FixtureTools are the tools the peer serves. everything's parameters are the golden
// schema that Go's reflection produced for the corpus's "everything" struct.
func FixtureTools(fixtures string) ([]*Tool, error) {
	everything, err := os.ReadFile(filepath.Join(fixtures, "schema", "everything.json"))
	if err != nil {
		return nil, err
	}
	return []*Tool{
		{
			Name: "everything", Description: "Every shape of the golden corpus", Parameters: everything,
			Execute: func(context.Context, Call) (Result, error) { return Text("received"), nil },
		},
		{
			Name: "upper", Description: "Upper-cases text",
			Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"What to upper-case"}},"required":["text"]}`),
			Execute: func(_ context.Context, call Call) (Result, error) {
				var a struct{ Text string }
				if err := json.Unmarshal(call.Args, &a); err != nil {
					return Result{}, err
				}
				return Text(strings.ToUpper(a.Text)), nil
			},
		},
		{
			Name: "fails", Description: "Always fails",
			Execute: func(context.Context, Call) (Result, error) {
				return Result{}, errors.New("disk on fire")
			},
		},
		{
			Name: "panics", Description: "A programming fault",
			Execute: func(context.Context, Call) (Result, error) {
				panic("oh no")
			},
		},
		{
			Name: "progress", Description: "Reports progress",
			Execute: func(ctx context.Context, _ Call) (Result, error) {
				Progress(ctx, Text("one"))
				Progress(ctx, Result{Output: Output{Text: "half way"}, Details: ProgressInfo{Progress: 1, Total: 2, Message: "half way"}})
				Progress(ctx, Result{Output: Output{Text: "nearly"}, Details: ProgressInfo{Progress: 2}})
				return Text("done"), nil
			},
		},
		{
			Name: "records", Description: "Writes a record as it starts and returns another",
			Execute: func(ctx context.Context, _ Call) (Result, error) {
				if err := WriteRecord(ctx, processGroup{Z: 1, A: 9007199254740993, Note: "<b>&", At: "start"}); err != nil {
					return Result{}, err
				}
				return Result{Output: Output{Text: "done"}, Details: processGroup{Z: 2, A: 9007199254740993, Note: "<b>&", At: "end"}}, nil
			},
		},
		{
			Name: "asks", Description: "Asks before it deploys",
			Execute: func(ctx context.Context, _ Call) (Result, error) {
				answer, err := Ask(ctx, Elicitation{Message: "deploy to production?", Schema: confirmSchema})
				if err != nil {
					return Result{}, err
				}
				return Text(answer.Action + " " + string(answer.Content)), nil
			},
		},
		{
			Name: "annotated", Description: "Looks things up",
			Annotations: Annotations{Title: "Look up", ReadOnly: true, Idempotent: true},
			Execute: func(context.Context, Call) (Result, error) {
				return Text("looked"), nil
			},
		},
		{
			Name: "picture", Description: "Mixed content",
			Execute: func(context.Context, Call) (Result, error) {
				return Result{Output: Output{Parts: []map[string]any{
					{"type": "input_text", "text": "caption"},
					{"type": "input_image", "image_url": "data:image/png;base64,AQID"},
					{"type": "input_file", "filename": "notes.bin", "file_data": "CQ=="},
					{"type": "input_file", "filename": "audio.wav", "file_data": "UklGRg=="},
					{"type": "input_file", "filename": "report.pdf", "file_url": "https://example.com/r.pdf"},
					{"type": "input_image", "image_url": "https://example.com/cat.png"},
					{"type": "refusal", "refusal": "no"},
				}}}, nil
			},
		},
		{
			Name: "noop", Description: "Does nothing with five arguments.", Parameters: NoopSchema,
			Execute: func(context.Context, Call) (Result, error) { return Text("ok"), nil },
		},
	}, nil
}
