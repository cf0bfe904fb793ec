package main

// The batch executor of the contract (CONTRACT.md §1.9), standing in for
// agenttool.Executor v0.0.15, which cannot be fetched here.

import (
	"context"
	"fmt"
	"iter"
	"sync"
	"sync/atomic"
)

// DefaultMaxParallel is the bound when none is given.
const DefaultMaxParallel = 8

// Job is one call of a batch.
type Job struct {
	Tool *Tool
	Call Call
}

// Event is a job's progress (Final false) or its end (Final true, exactly once).
type Event struct {
	Index  int
	Final  bool
	Result Result
	Err    error
}

// Executor runs a batch.
type Executor struct {
	MaxParallel int
	Sequential  bool
	Recorder    RecordFunc
	OnStart     func(ctx context.Context, job Job) error
}

func (e Executor) limit(jobs []Job) int {
	if e.Sequential {
		return 1
	}
	for _, j := range jobs {
		if j.Tool != nil && j.Tool.Sequential {
			return 1
		}
	}
	if e.MaxParallel <= 0 {
		return DefaultMaxParallel
	}
	return e.MaxParallel
}

// Chains groups the jobs as the batch runs them: one chain for a serial batch, else a
// chain per resource (where its first job is) and one per job that names none.
func (e Executor) Chains(jobs []Job) [][]int {
	if len(jobs) == 0 {
		return nil
	}
	if e.limit(jobs) == 1 {
		all := make([]int, len(jobs))
		for i := range jobs {
			all[i] = i
		}
		return [][]int{all}
	}
	var chains [][]int
	at := map[string]int{}
	for i, j := range jobs {
		res := ResourceOf(j.Tool)
		if res == "" {
			chains = append(chains, []int{i})
			continue
		}
		if c, ok := at[res]; ok {
			chains[c] = append(chains[c], i)
			continue
		}
		at[res] = len(chains)
		chains = append(chains, []int{i})
	}
	return chains
}

// Execute runs jobs and yields their events on the caller's goroutine. A job's slot
// and its chain's turn are given back only after the consumer took its final event.
func (e Executor) Execute(ctx context.Context, jobs []Job) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		if len(jobs) == 0 {
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		if e.Recorder != nil {
			ctx = ContextWithRecorder(ctx, e.Recorder)
		}
		// Slots go to jobs in the order they became ready, chain heads in job order: a
		// goroutine per chain racing for a channel would hand them out at random.
		slots := newFifoSlots(e.limit(jobs))
		events := make(chan Event)
		var wg sync.WaitGroup
		for _, chain := range e.Chains(jobs) {
			ticket := slots.enqueue()
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k, i := range chain {
					if k > 0 {
						ticket = slots.enqueue()
					}
					select {
					case <-ticket:
					case <-ctx.Done():
						slots.abandon(ticket)
						events <- Event{Index: i, Final: true, Err: ctx.Err()}
						continue
					}
					res, err := e.run(ctx, i, jobs[i], events)
					events <- Event{Index: i, Final: true, Result: res, Err: err}
					slots.release()
				}
			}()
		}
		go func() {
			wg.Wait()
			close(events)
		}()
		stopped := false
		for ev := range events {
			if stopped {
				continue // drained until every running tool returned
			}
			if !ev.Final {
				jobs[ev.Index].Call.Update(ev.Result)
			}
			if !yield(ev) {
				stopped = true
				cancel()
			}
		}
	}
}

func (e Executor) run(ctx context.Context, i int, job Job, events chan<- Event) (res Result, err error) {
	if job.Tool == nil {
		return Result{}, fmt.Errorf("no tool for call %q", job.Call.ID)
	}
	var ended atomic.Bool
	call := job.Call
	call.OnUpdate = func(r Result) {
		if ended.Load() {
			return // progress after the final is dropped
		}
		select {
		case events <- Event{Index: i, Result: r}:
		case <-ctx.Done():
		}
	}
	defer ended.Store(true)
	ctx = WithCall(ctx, call)
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	if e.OnStart != nil {
		if err := e.onStart(ctx, Job{Tool: job.Tool, Call: call}); err != nil {
			return Result{}, err
		}
	}
	defer func() {
		if v := recover(); v != nil {
			res, err = Result{}, &PanicError{Tool: job.Tool.Name, Value: v}
		}
	}()
	return job.Tool.Execute(ctx, call)
}

func (e Executor) onStart(ctx context.Context, job Job) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("agenttool: OnStart for call %q panicked: %v", job.Call.ID, v)
		}
	}()
	return e.OnStart(ctx, job)
}

// fifoSlots hands out at most n slots, to waiters in the order they enqueued.
type fifoSlots struct {
	mu    sync.Mutex
	free  int
	queue []chan struct{}
}

func newFifoSlots(n int) *fifoSlots { return &fifoSlots{free: n} }

// enqueue returns a ticket, closed once the slot is the holder's.
func (s *fifoSlots) enqueue() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	ticket := make(chan struct{})
	if s.free > 0 && len(s.queue) == 0 {
		s.free--
		close(ticket)
	} else {
		s.queue = append(s.queue, ticket)
	}
	return ticket
}

// release gives a slot back: to the first waiter, or to the free count.
func (s *fifoSlots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) > 0 {
		close(s.queue[0])
		s.queue = s.queue[1:]
		return
	}
	s.free++
}

// abandon gives up a ticket: taken out of the queue, or given back when already granted.
func (s *fifoSlots) abandon(ticket chan struct{}) {
	s.mu.Lock()
	for k, waiting := range s.queue {
		if waiting == ticket {
			s.queue = append(s.queue[:k], s.queue[k+1:]...)
			s.mu.Unlock()
			return
		}
	}
	s.mu.Unlock()
	s.release()
}
