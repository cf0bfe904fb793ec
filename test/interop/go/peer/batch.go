package main

// A batch of deterministic tools through the executor, printing its events in order.
// The same spec runs through the TypeScript executor in test/interop/go/batch.ts: each
// job's tool waits until the events it names are in the log, so the order every event
// may take is fixed by the spec and by the contract's rules, never by timing.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// BatchSpec is a batch and the executor's options.
type BatchSpec struct {
	MaxParallel int        `json:"maxParallel"`
	Sequential  bool       `json:"sequential"`
	CancelOn    string     `json:"cancelOn"`
	StopOn      string     `json:"stopOn"`
	Jobs        []BatchJob `json:"jobs"`
}

// BatchJob is one job: its tool's properties and what it waits for.
type BatchJob struct {
	ID          string   `json:"id"`
	Sequential  bool     `json:"sequential"`
	Resource    string   `json:"resource"`
	StartAfter  []string `json:"startAfter"`
	FinishAfter []string `json:"finishAfter"`
	Progress    int      `json:"progress"`
	Fail        string   `json:"fail"`
	Panic       string   `json:"panic"`
	NoTool      bool     `json:"noTool"`
}

// waitLimit bounds every wait: a wait that runs out is logged and fails the comparison.
const waitLimit = 5 * time.Second

type eventLog struct {
	mu       sync.Mutex
	changed  chan struct{}
	events   []string
	cancelOn string
	cancel   func()
}

func newEventLog() *eventLog { return &eventLog{changed: make(chan struct{})} }

// add logs an event; the event the spec cancels on is followed by "cancel" and the
// batch's cancellation, wherever it was logged (a job's start, the consumer's loop).
func (l *eventLog) add(event string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, event)
	if l.cancelOn != "" && (event == l.cancelOn || strings.HasPrefix(event, l.cancelOn+":")) {
		l.events = append(l.events, "cancel")
		l.cancel()
	}
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *eventLog) has(events []string) (bool, chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range events {
		// "final:a" is met by "final:a:<what the model sees>".
		if !slices.ContainsFunc(l.events, func(got string) bool { return got == e || strings.HasPrefix(got, e+":") }) {
			return false, l.changed
		}
	}
	return true, nil
}

// wait returns when every event is logged, ctx's error when it ends first, or an error
// naming the events after waitLimit.
func (l *eventLog) wait(ctx context.Context, who string, events []string) error {
	limit := time.After(waitLimit)
	for {
		ok, changed := l.has(events)
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-limit:
			l.add("timeout:" + who)
			return fmt.Errorf("%s waited too long for %v", who, events)
		}
	}
}

// RunBatch runs spec and returns its log.
func RunBatch(spec BatchSpec) []string {
	log := newEventLog()
	jobs := make([]Job, len(spec.Jobs))
	byTool := map[*Tool]BatchJob{}
	for i, j := range spec.Jobs {
		j := j
		jobs[i].Call = Call{ID: j.ID, Args: []byte("{}")}
		if j.NoTool {
			continue
		}
		tool := &Tool{
			Name: "job_" + j.ID, Description: "a deterministic job", Sequential: j.Sequential, Resource: j.Resource,
			Execute: func(ctx context.Context, call Call) (Result, error) {
				for n := 1; n <= j.Progress; n++ {
					call.Update(Text(fmt.Sprintf("%d", n)))
				}
				if err := log.wait(ctx, "finish:"+j.ID, j.FinishAfter); err != nil {
					return Result{}, err
				}
				if j.Panic != "" {
					panic(j.Panic)
				}
				if j.Fail != "" {
					return Result{}, errors.New(j.Fail)
				}
				return Text("done " + j.ID), nil
			},
		}
		byTool[tool] = j
		jobs[i].Tool = tool
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log.cancelOn, log.cancel = spec.CancelOn, cancel
	exec := Executor{
		MaxParallel: spec.MaxParallel,
		Sequential:  spec.Sequential,
		OnStart: func(ctx context.Context, job Job) error {
			j := byTool[job.Tool]
			if err := log.wait(ctx, "start:"+j.ID, j.StartAfter); err != nil {
				return err
			}
			log.add("start:" + j.ID)
			return nil
		},
	}
	for _, c := range exec.Chains(jobs) {
		ids := make([]string, len(c))
		for k, i := range c {
			ids[k] = spec.Jobs[i].ID
		}
		log.add(fmt.Sprintf("chain:%v", ids))
	}
	for ev := range exec.Execute(ctx, jobs) {
		id := spec.Jobs[ev.Index].ID
		var event string
		switch {
		case !ev.Final:
			event = "progress:" + id + ":" + ev.Result.Output.String()
		case ev.Err != nil:
			event = "final:" + id + ":" + ErrorResult(ev.Err).Output.Text
		default:
			event = "final:" + id + ":" + ev.Result.Output.String()
		}
		log.add(event)
		if ev.Final && spec.StopOn == "final:"+id {
			log.add("stop")
			break
		}
	}
	log.add("end")
	log.mu.Lock()
	defer log.mu.Unlock()
	return slices.Clone(log.events)
}
