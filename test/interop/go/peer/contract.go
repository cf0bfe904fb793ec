package main

// The part of agenttool v0.0.15's root package that the peer needs, written from the
// contract (shared/contract/CONTRACT.md §1): agenttool itself cannot be fetched from the
// Go module proxy these machines reach, so this stands in for it. Names follow the Go
// binding's, so that the day the module can be had, each use here maps to its call.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// NoArgsSchema is the parameters of a tool that takes no arguments (§1.1).
var NoArgsSchema = json.RawMessage(`{"type":"object","properties":{},"required":[]}`)

// Call is one call of a tool (§1.1).
type Call struct {
	ID       string
	Args     json.RawMessage
	OnUpdate func(Result)
}

// Update reports progress; a no-op without OnUpdate.
func (c Call) Update(r Result) {
	if c.OnUpdate != nil {
		c.OnUpdate(r)
	}
}

// Output is openresponses.FunctionCallOutputData: Parts when non-nil, else Text.
type Output struct {
	Text  string
	Parts []map[string]any
}

// MarshalJSON writes the parts array, or the text as a JSON string.
func (o Output) MarshalJSON() ([]byte, error) {
	if o.Parts != nil {
		return json.Marshal(o.Parts)
	}
	return json.Marshal(o.Text)
}

// String is the text of the textual parts, or Text.
func (o Output) String() string {
	if o.Parts == nil {
		return o.Text
	}
	var b strings.Builder
	for _, p := range o.Parts {
		switch p["type"] {
		case "input_text", "output_text", "text", "summary_text", "reasoning_text":
			s, _ := p["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// Result is what a tool produced.
type Result struct {
	Output  Output
	Details any
}

// Text builds a text result.
func Text(s string) Result { return Result{Output: Output{Text: s}} }

// ErrorResult is the output the model sees for a failure: "Error: " once.
func ErrorResult(err error) Result { return Text("Error: " + err.Error()) }

// Annotations are MCP's hints; the zero value is "unstated".
type Annotations struct {
	Title                                        string
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

// Tool is a tool from plain values (the NewFunc counterpart) with the properties the
// peer's fixtures declare.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
	Annotations Annotations
	Strict      bool
	Sequential  bool
	Resource    string
	Execute     func(ctx context.Context, call Call) (Result, error)
}

// ResourceOf is "" for a sequential tool, whatever it names (§1.2).
func ResourceOf(t *Tool) string {
	if t == nil || t.Sequential {
		return ""
	}
	return t.Resource
}

// PanicError is a tool's panic as the executor completes it (§1.8).
type PanicError struct {
	Tool  string
	Value any
}

func (e *PanicError) Error() string { return fmt.Sprintf("tool %q panicked: %v", e.Tool, e.Value) }

// ProgressInfo is the details of a progress update (§1.12).
type ProgressInfo struct {
	Progress, Total float64
	Message         string
}

type callKey struct{}

// WithCall puts the call on the context.
func WithCall(ctx context.Context, call Call) context.Context {
	return context.WithValue(ctx, callKey{}, call)
}

// CallFrom reads the call from the context.
func CallFrom(ctx context.Context) (Call, bool) {
	call, ok := ctx.Value(callKey{}).(Call)
	return call, ok
}

// Progress reports an update for the call on ctx.
func Progress(ctx context.Context, r Result) {
	if call, ok := CallFrom(ctx); ok {
		call.Update(r)
	}
}

// ── Records (§1.10) ─────────────────────────────────────────────────────────────────

// Recordable details name their namespace.
type Recordable interface{ RecordNS() string }

// Record is a namespace and the JSON of the details.
type Record struct {
	NS   string
	Data json.RawMessage
}

// RecordOf is the record of recordable details, nil for anything else.
func RecordOf(details any) (*Record, error) {
	r, ok := details.(Recordable)
	if !ok || details == nil {
		return nil, nil
	}
	ns := r.RecordNS()
	if ns == "" {
		return nil, fmt.Errorf("agenttool: record %T: empty namespace", details)
	}
	data, err := json.Marshal(details)
	if err != nil {
		return nil, fmt.Errorf("agenttool: record %s: %w", ns, err)
	}
	return &Record{NS: ns, Data: data}, nil
}

// RecordFunc writes a record durably before it returns.
type RecordFunc func(ctx context.Context, rec *Record) error

type recorderKey struct{}

// ContextWithRecorder installs a recorder.
func ContextWithRecorder(ctx context.Context, fn RecordFunc) context.Context {
	return context.WithValue(ctx, recorderKey{}, fn)
}

// WriteRecord writes details through the recorder on ctx; a no-op without one.
func WriteRecord(ctx context.Context, details any) error {
	fn, _ := ctx.Value(recorderKey{}).(RecordFunc)
	if fn == nil || details == nil {
		return nil
	}
	rec, err := RecordOf(details)
	if err != nil || rec == nil {
		return err
	}
	return fn(ctx, rec)
}

// ── Elicitation (§1.11) ─────────────────────────────────────────────────────────────

// Elicitation is a question for the user.
type Elicitation struct {
	Message string
	Schema  json.RawMessage
	URL     string
}

// Answer is the user's answer.
type Answer struct {
	Action  string
	Content json.RawMessage
}

// Elicitor asks the user; an error means asking failed.
type Elicitor func(ctx context.Context, e Elicitation) (Answer, error)

type elicitorKey struct{}

// ContextWithElicitor installs an elicitor.
func ContextWithElicitor(ctx context.Context, fn Elicitor) context.Context {
	return context.WithValue(ctx, elicitorKey{}, fn)
}

// Ask puts a question through the elicitor on ctx; without one the answer is cancel.
func Ask(ctx context.Context, e Elicitation) (Answer, error) {
	fn, _ := ctx.Value(elicitorKey{}).(Elicitor)
	if fn == nil {
		return Answer{Action: "cancel"}, nil
	}
	return fn(ctx, e)
}

// ── Definitions and their hash (§1.14) ──────────────────────────────────────────────

// FunctionTool is the Open Responses function tool, members in the RFC's order.
type FunctionTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict,omitempty"`
}

// Definition is the function tool of t; no parameters are the no-arguments schema.
func Definition(t *Tool) FunctionTool {
	params := t.Parameters
	if len(params) == 0 {
		params = NoArgsSchema
	}
	def := FunctionTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params}
	if t.Strict {
		strict := true
		def.Strict = &strict
	}
	return def
}

// DefinitionHash is "sha256:" and the hex SHA-256 of the definition's RFC 8785 JSON.
func DefinitionHash(def FunctionTool) (string, error) {
	raw, err := json.Marshal(def)
	if err != nil {
		return "", err
	}
	canon, err := Canonical(raw)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// Canonical is the RFC 8785 (JCS) form of a JSON text.
func Canonical(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := writeCanonical(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeCanonical(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		writeCanonicalString(b, x)
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return err
		}
		s, err := esNumber(f)
		if err != nil {
			return err
		}
		b.WriteString(s)
	case []any:
		b.WriteByte('[')
		for i, item := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeCanonical(b, item); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		// RFC 8785 sorts members by their names' UTF-16 code units.
		sort.Slice(keys, func(i, j int) bool { return utf16Less(keys[i], keys[j]) })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonicalString(b, k)
			b.WriteByte(':')
			if err := writeCanonical(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("canonical: unexpected %T", v)
	}
	return nil
}

func utf16Less(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

func writeCanonicalString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// esNumber writes a number as ECMAScript's Number.prototype.toString does (RFC 8785 §3.2.2.3).
func esNumber(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", errors.New("canonical: number out of range")
	}
	if f == 0 {
		return "0", nil
	}
	if abs := math.Abs(f); abs >= 1e21 || abs < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		mantissa, exp, _ := strings.Cut(s, "e")
		return mantissa + "e" + exp[:1] + strings.TrimLeft(exp[1:], "0"), nil
	}
	return strconv.FormatFloat(f, 'f', -1, 64), nil
}
