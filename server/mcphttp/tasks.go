package mcphttp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
)

// The tasks extension (io.modelcontextprotocol/tasks, SEP-2663) lets a
// tools/call outlive its request: the server answers with a task (a
// CreateTaskResult: resultType "task", taskId, status, timestamps, ttlMs)
// and the client polls tasks/get until the task ends, with its result, or
// its error, inlined; answers input the task asks for with tasks/update; or
// ends it with tasks/cancel. The server decides which calls become tasks,
// and only for a client that declared the extension in its capabilities
// (per request in 2026-07-28's _meta, or at initialize); any other client
// gets the call's result at once, or -32021 for a tool that only runs as a
// task.
//
// An endpoint opts a tool in with [Tool.Task], and its handler hands the
// work that should outlive the call to [RunAsTask]. The front door keeps
// the tasks of this process in memory, each for [TaskTTL] after its last
// change: tasks/get on another replica does not find them.

// TaskSupport says whether a tool may run as a task.
type TaskSupport int

const (
	// TaskForbidden (the zero value): the tool never runs as a task;
	// [RunAsTask] runs its work at once.
	TaskForbidden TaskSupport = iota
	// TaskOptional: the tool runs as a task for a client that declared the
	// extension, and at once for any other.
	TaskOptional
	// TaskRequired: the tool runs only as a task; a client that did not
	// declare the extension is refused with -32021 before the handler runs,
	// its data naming the extension (SEP-2575, "Missing Required Client
	// Capability").
	TaskRequired
)

// TasksExtension is the tasks extension's identifier, under which the
// endpoint declares it in capabilities.extensions and clients declare it.
const TasksExtension = "io.modelcontextprotocol/tasks"

const (
	methodTasksGet    = "tasks/get"
	methodTasksUpdate = "tasks/update"
	methodTasksCancel = "tasks/cancel"

	// TaskTTL is how long a task stays readable after it last changed:
	// its ttlMs. A task still waiting then is cancelled.
	TaskTTL = 10 * time.Minute
	// taskPollInterval is the pollIntervalMs suggested to clients.
	taskPollInterval = 250 * time.Millisecond
	// maxTasks bounds the tasks kept; above it the oldest ended ones go.
	maxTasks = 10000
)

// The statuses of a task.
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskFailed        = "failed"
	taskCancelled     = "cancelled"
)

// RunAsTask hands work, the rest of a tools/call, to a task when the
// tool's [Tool.Task] allows one and the client declared the extension: the
// call is answered at once with the task, and work runs on with a context
// of its own, ended by tasks/cancel. Otherwise work runs now and its answer
// is the call's. A handler may first ask for input (an input_required
// result, SEP-2322) and hand the rest to a task on the retry.
//
// work is called with req, and its answers are taken as the front door
// takes a handler's ([ToolError], [ArgumentError], a panic). When it
// answers with input requests, the task waits in input_required with them
// until tasks/update has answered every one, then work is called again with
// the answers (req.Params.InputResponses) and the requestState it
// returned. work must not use req.Session: the request it came with is
// over.
func RunAsTask(ctx context.Context, req *mcp.CallToolRequest, work mcp.ToolHandler) (*mcp.CallToolResult, error) {
	if slot, ok := ctx.Value(taskSlotKey{}).(*taskSlot); ok && slot.work == nil {
		slot.work, slot.req = work, req
		return &mcp.CallToolResult{}, nil // not sent: taskMiddleware answers with the task
	}
	return work(ctx, req)
}

// taskSlot is where RunAsTask leaves the work of a call that becomes a
// task, for taskMiddleware to start.
type taskSlot struct {
	work mcp.ToolHandler
	req  *mcp.CallToolRequest
}

type taskSlotKey struct{}

func (d *door) hasTaskTools() bool {
	for _, t := range d.ep.Tools {
		if t.Task != TaskForbidden {
			return true
		}
	}
	return false
}

func (d *door) taskSupport(name string) TaskSupport {
	for _, t := range d.ep.Tools {
		if t.Def.Name == name {
			return t.Task
		}
	}
	return TaskForbidden
}

// taskMiddleware runs around every method, on both paths: it refuses a
// task-only tool to a client without the extension, lets RunAsTask turn a
// call of a task tool into a task for one with it, and gates the tasks
// methods on the extension.
func (d *door) taskMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if d.tasks == nil {
			return next(ctx, method, req)
		}
		switch method {
		case methodCallTool:
			call, ok := req.(*mcp.CallToolRequest)
			if !ok {
				break
			}
			support := d.taskSupport(call.Params.Name)
			if support == TaskForbidden {
				break
			}
			if !declaresTasks(call.ClientCapabilities()) {
				if support == TaskRequired {
					return nil, missingTasksCapability()
				}
				break
			}
			slot := &taskSlot{}
			res, err := next(context.WithValue(ctx, taskSlotKey{}, slot), method, req)
			if err != nil || slot.work == nil {
				return res, err
			}
			work := d.observeTool(call.Params.Name, slot.work)
			return d.tasks.start(ctx, slot.req, work), nil
		case methodTasksGet, methodTasksUpdate, methodTasksCancel:
			if !declaresTasks(requestCapabilities(req)) {
				return nil, missingTasksCapability()
			}
		}
		return next(ctx, method, req)
	}
}

// declaresTasks reports whether the client capabilities name the extension.
func declaresTasks(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

// requestCapabilities are the client capabilities a request of the tasks
// methods carries in its _meta (2026-07-28), else those of its session.
func requestCapabilities(req mcp.Request) *mcp.ClientCapabilities {
	if p := req.GetParams(); p != nil {
		if raw, ok := p.GetMeta()[mcp.MetaKeyClientCapabilities]; ok {
			var caps mcp.ClientCapabilities
			if b, err := json.Marshal(raw); err == nil && json.Unmarshal(b, &caps) == nil {
				return &caps
			}
			return nil
		}
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		if p := ss.InitializeParams(); p != nil {
			return p.Capabilities
		}
	}
	return nil
}

// missingTasksCapability is the -32021 of a request that needs the
// extension from a client that did not declare it.
func missingTasksCapability() error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{
		"extensions": map[string]any{TasksExtension: map[string]any{}}}})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities,
		Message: "Missing required client capability: the " + TasksExtension + " extension", Data: data}
}

// checkTaskName applies SEP-2663's routing header to the tasks methods at
// 2026-07-28: the Mcp-Name header must carry params.taskId (SEP-2243's
// rule for tools/call, resources/read and prompts/get, which the go-sdk
// checks itself). A missing or different one is 400 with -32020
// (HeaderMismatch). It reports whether the request may go on.
func (d *door) checkTaskName(w http.ResponseWriter, r *http.Request, method string, id, params json.RawMessage) bool {
	if d.tasks == nil || !isStatelessRevision(r.Header.Get(headerProtocolVersion)) {
		return true
	}
	switch method {
	case methodTasksGet, methodTasksUpdate, methodTasksCancel:
	default:
		return true
	}
	var p struct {
		TaskID string `json:"taskId"`
	}
	json.Unmarshal(params, &p) // a taskId that is not a string is the method's -32602
	if got := strings.TrimSpace(r.Header.Get("Mcp-Name")); got != p.TaskID {
		writeRPCError(w, http.StatusBadRequest, id, mcp.CodeHeaderMismatch,
			"Header mismatch: Mcp-Name "+quote(got)+" does not match params.taskId "+quote(p.TaskID))
		return false
	}
	return true
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// The tasks methods' params and results.

type taskIDParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

type taskUpdateParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// taskEnvelope is a task as the wire shows it: flat, the Task fields beside
// resultType ("task" in a CreateTaskResult, "complete" in tasks/get's
// DetailedTask, which also inlines the result, error or input requests).
type taskEnvelope struct {
	mcp.ResultBase
	ResultType     string              `json:"resultType"`
	TaskID         string              `json:"taskId"`
	Status         string              `json:"status"`
	StatusMessage  string              `json:"statusMessage,omitempty"`
	CreatedAt      string              `json:"createdAt"`
	LastUpdatedAt  string              `json:"lastUpdatedAt"`
	TTLMs          int64               `json:"ttlMs"`
	PollIntervalMs int64               `json:"pollIntervalMs,omitempty"`
	Result         json.RawMessage     `json:"result,omitempty"`
	Error          *jsonrpc.Error      `json:"error,omitempty"`
	InputRequests  mcp.InputRequestMap `json:"inputRequests,omitempty"`
}

// taskAck is the empty answer of tasks/update and tasks/cancel.
type taskAck struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

func ack() *taskAck { return &taskAck{ResultType: "complete"} }

// addTaskMethods registers the tasks methods on srv; taskMiddleware has
// checked the client's capabilities before they run.
func addTaskMethods(srv *mcp.Server, d *door) error {
	return errors.Join(
		mcp.AddReceivingCustomMethod(srv, methodTasksGet, func(_ context.Context, _ *mcp.ServerSession, p *taskIDParams) (*taskEnvelope, error) {
			return d.tasks.get(p.TaskID)
		}),
		mcp.AddReceivingCustomMethod(srv, methodTasksUpdate, func(_ context.Context, _ *mcp.ServerSession, p *taskUpdateParams) (*taskAck, error) {
			return ack(), d.tasks.update(p.TaskID, p.InputResponses)
		}),
		mcp.AddReceivingCustomMethod(srv, methodTasksCancel, func(_ context.Context, _ *mcp.ServerSession, p *taskIDParams) (*taskAck, error) {
			return ack(), d.tasks.cancel(p.TaskID)
		}),
	)
}

// task is one task of the store; its fields are the store's to guard.
type task struct {
	id               string
	status           string
	created, updated time.Time
	result           json.RawMessage     // completed
	err              *jsonrpc.Error      // failed
	pending          mcp.InputRequestMap // input_required: the requests not yet answered
	answers          mcp.InputResponseMap
	state            string // the requestState of work's last input_required result
	req              *mcp.CallToolRequest
	work             mcp.ToolHandler
	ctx              context.Context
	stop             context.CancelFunc
}

func (t *task) ended() bool {
	return t.status == taskCompleted || t.status == taskFailed || t.status == taskCancelled
}

// taskStore holds the tasks of one endpoint in this process.
type taskStore struct {
	mu    sync.Mutex
	tasks map[string]*task
	now   func() time.Time
}

func newTaskStore() *taskStore { return &taskStore{tasks: map[string]*task{}, now: time.Now} }

func unknownTask(id string) error {
	return RPCError(errcodes.InvalidArguments, Message(errcodes.InvalidArguments, "field", "taskId", "reason", "no task "+quote(id)))
}

// start makes a task of work and runs it; the task can be read as soon as
// its CreateTaskResult is answered.
func (s *taskStore) start(ctx context.Context, req *mcp.CallToolRequest, work mcp.ToolHandler) *taskEnvelope {
	tctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	now := s.now()
	t := &task{id: rand.Text(), status: taskWorking, created: now, updated: now, req: req, work: work, ctx: tctx, stop: stop}
	s.mu.Lock()
	s.sweep(now)
	s.tasks[t.id] = t
	env := s.envelope(t, "task")
	s.mu.Unlock()
	go s.run(t, req)
	return env
}

// run calls the task's work with req and settles the task by its answer.
func (s *taskStore) run(t *task, req *mcp.CallToolRequest) {
	res, err := t.work(t.ctx, req)
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.status == taskCancelled {
		return // its answer came too late
	}
	t.updated = s.now()
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		t.status, t.err = taskFailed, je
	case err != nil: // observeTool turns every other error into a JSON-RPC one
		t.status, t.err = taskFailed, RPCError(errcodes.InternalError, Message(errcodes.InternalError))
	case res == nil:
		t.status, t.err = taskFailed, RPCError(errcodes.InternalError, Message(errcodes.InternalError))
	case len(res.InputRequests) > 0:
		t.status, t.pending, t.state, t.answers = taskInputRequired, res.InputRequests, res.RequestState, mcp.InputResponseMap{}
	default:
		if res.Content == nil {
			r := *res
			r.Content = []mcp.Content{}
			res = &r
		}
		b, merr := json.Marshal(res)
		if merr != nil {
			t.status, t.err = taskFailed, RPCError(errcodes.InternalError, Message(errcodes.InternalError))
			break
		}
		t.status, t.result = taskCompleted, b
	}
	if t.ended() {
		t.stop()
	}
}

func (s *taskStore) get(id string) (*taskEnvelope, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(s.now())
	t, ok := s.tasks[id]
	if !ok {
		return nil, unknownTask(id)
	}
	return s.envelope(t, "complete"), nil
}

// update answers input requests of a waiting task: answers to requests it
// is not waiting for are ignored; once every request is answered, the
// task's work runs again with the answers.
func (s *taskStore) update(id string, answers map[string]json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tasks[id]
	if !ok {
		return unknownTask(id)
	}
	if t.status != taskInputRequired {
		return nil
	}
	wanted := map[string]json.RawMessage{}
	for k, v := range answers {
		if _, ok := t.pending[k]; ok {
			wanted[k] = v
		}
	}
	if len(wanted) == 0 {
		return nil
	}
	b, _ := json.Marshal(wanted)
	var decoded mcp.InputResponseMap
	if err := json.Unmarshal(b, &decoded); err != nil {
		return RPCError(errcodes.InvalidArguments, Message(errcodes.InvalidArguments, "field", "inputResponses", "reason", err.Error()))
	}
	for k, v := range decoded {
		t.answers[k] = v
		delete(t.pending, k)
	}
	t.updated = s.now()
	if len(t.pending) > 0 {
		return nil
	}
	p := *t.req.Params
	p.InputResponses, p.RequestState = t.answers, t.state
	r := *t.req
	r.Params = &p
	t.status, t.pending, t.answers = taskWorking, nil, nil
	go s.run(t, &r)
	return nil
}

// cancel ends a task that has not ended; an ended one is left as it is.
// Either way the answer is the same empty one.
func (s *taskStore) cancel(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tasks[id]
	if !ok {
		return unknownTask(id)
	}
	if !t.ended() {
		t.status, t.updated, t.pending = taskCancelled, s.now(), nil
		t.stop()
	}
	return nil
}

// envelope is t on the wire, with resultType rt. Called with the lock held.
func (s *taskStore) envelope(t *task, rt string) *taskEnvelope {
	e := &taskEnvelope{
		ResultType: rt, TaskID: t.id, Status: t.status,
		CreatedAt: t.created.UTC().Format(time.RFC3339Nano), LastUpdatedAt: t.updated.UTC().Format(time.RFC3339Nano),
		TTLMs: TaskTTL.Milliseconds(), PollIntervalMs: taskPollInterval.Milliseconds(),
	}
	if rt == "task" {
		return e // a CreateTaskResult carries no result, error or requests
	}
	switch t.status {
	case taskCompleted:
		e.Result = t.result
	case taskFailed:
		e.Error = t.err
	case taskInputRequired:
		e.InputRequests = t.pending
	}
	return e
}

// sweep drops the tasks unchanged for TaskTTL, cancelling a waiting one,
// and above maxTasks the ended ones changed longest ago. Called with the
// lock held.
func (s *taskStore) sweep(now time.Time) {
	for id, t := range s.tasks {
		if now.Sub(t.updated) > TaskTTL {
			t.stop()
			delete(s.tasks, id)
		}
	}
	for len(s.tasks) >= maxTasks {
		var oldest *task
		for _, t := range s.tasks {
			if t.ended() && (oldest == nil || t.updated.Before(oldest.updated)) {
				oldest = t
			}
		}
		if oldest == nil {
			return // all running: the bound holds once some end
		}
		delete(s.tasks, oldest.id)
	}
}
