package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/pipeline"
)

var testPlugin = &pipeline.PluginInfo{Plugin: "example-skills", Marketplace: "anthropic-agent-skills", Version: "1.2.3"}

// fixtureSpecs is a small mixed set: user and project skills, a plugin
// skill, characters that need escaping and a body with CRLF line ends, a
// CJK text, trailing spaces and no final newline.
func fixtureSpecs() []skillSpec {
	return []skillSpec{
		{provider: "claude", loc: pipeline.LocationUser, name: "pdf", desc: "Read & write PDF <files> -> text"},
		{provider: "codex", loc: pipeline.LocationUser, name: "docx", desc: "Word documents"},
		{provider: "claude", loc: pipeline.LocationProject, name: "a<b>&c", desc: "odd name"},
		{provider: "claude", loc: pipeline.LocationPlugin, name: "example-skills:xlsx", desc: "Spreadsheets", plugin: testPlugin},
		{provider: "agents", loc: pipeline.LocationProject, name: "cjk", desc: "中文技能",
			body: "---\r\nname: cjk\r\ndescription: 中文技能\r\n---\r\n# 标题  \r\n\r\n正文：使用这个技能。   \r\n最后一行没有换行   "},
	}
}

func TestToolsList(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), fixtureSpecs()...)
	srv := New(snapOf(recs), Options{Version: "1.2.3-test"})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)

			init := cs.InitializeResult()
			if got, want := init.ProtocolVersion, wantNegotiated(pv); got != want {
				t.Errorf("negotiated protocol %q, want %q", got, want)
			}
			if init.ServerInfo == nil || init.ServerInfo.Name != "ccski" || init.ServerInfo.Version != "1.2.3-test" {
				t.Errorf("serverInfo = %+v, want name ccski version 1.2.3-test", init.ServerInfo)
			}
			if strings.TrimSpace(init.Instructions) == "" {
				t.Error("instructions are empty")
			}
			if init.Capabilities == nil || init.Capabilities.Tools == nil || !init.Capabilities.Tools.ListChanged {
				t.Errorf("capabilities %+v do not advertise tools.listChanged", init.Capabilities)
			}

			tool := onlyTool(t, ctx, cs)
			if tool.Name != "skill" {
				t.Errorf("tool name %q, want skill", tool.Name)
			}
			checkInputSchema(t, tool.InputSchema)
			if !strings.HasPrefix(tool.Description, preamble) {
				t.Errorf("description does not start with the preamble:\n%s", tool.Description)
			}
			if got, want := parseSkills(t, tool.Description), []skillEntry{
				// Each named by the shortest name that loads it.
				{"pdf", "Read &amp; write PDF &lt;files&gt; -&gt; text", "claude", "user"},
				{"docx", "Word documents", "codex", "user"},
				{"a&lt;b&gt;&amp;c", "odd name", "claude", "project"},
				{"xlsx", "Spreadsheets", "claude", "plugin"},
				{"cjk", "中文技能", "agents", "project"},
			}; !cmp.Equal(got, want) {
				t.Errorf("skills in the description (-got +want):\n%s", cmp.Diff(got, want))
			}
		})
	}
}

// checkInputSchema asserts the schema is an object that requires a string
// "name".
func checkInputSchema(t *testing.T, schema any) {
	t.Helper()
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("input schema %s: %v", raw, err)
	}
	if s.Type != "object" || s.Properties["name"].Type != "string" || !cmp.Equal(s.Required, []string{"name"}) {
		t.Errorf("input schema %s: want an object requiring a string \"name\"", raw)
	}
}

type skillEntry struct{ Name, Description, Provider, Location string }

var (
	blockRE = regexp.MustCompile(`(?s)<available_skills>\n(.*)</available_skills>$`)
	skillRE = regexp.MustCompile(`(?s)<skill>\n<name>(.*?)</name>\n<description>(.*?)</description>\n(?:<provider>(.*?)</provider>\n<location>(.*?)</location>\n)?</skill>\n`)
)

// parseSkills extracts the <skill> entries of a description, raw (still
// escaped), and fails if the block holds anything else. With no skill,
// the note that none is installed follows the block.
func parseSkills(t *testing.T, desc string) []skillEntry {
	t.Helper()
	desc = strings.TrimSuffix(desc, noSkills)
	m := blockRE.FindStringSubmatch(desc)
	if m == nil {
		t.Fatalf("no <available_skills> block at the end of:\n%s", desc)
	}
	var out []skillEntry
	rest := skillRE.ReplaceAllStringFunc(m[1], func(s string) string {
		e := skillRE.FindStringSubmatch(s)
		out = append(out, skillEntry{e[1], e[2], e[3], e[4]})
		return ""
	})
	if rest != "" {
		t.Errorf("unexpected text in <available_skills>: %q", rest)
	}
	return out
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		name  string
		specs []skillSpec
		want  []skillEntry
	}{
		{"none", nil, nil},
		{"escaping", []skillSpec{{provider: "claude", name: "x&y", desc: `a < b && c > d "quoted" 'single'`}},
			[]skillEntry{{"claude:x&amp;y", `a &lt; b &amp;&amp; c &gt; d "quoted" 'single'`, "claude", "user"}}},
		{"order kept", []skillSpec{
			{provider: "codex", name: "zeta", desc: "z"},
			{provider: "claude", name: "alpha", desc: "a"},
		}, []skillEntry{{"codex:zeta", "z", "codex", "user"}, {"claude:alpha", "a", "claude", "user"}}},
		{"empty description", []skillSpec{{provider: "claude", name: "bare"}},
			[]skillEntry{{"claude:bare", "", "claude", "user"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := makeRecords(t, t.TempDir(), tt.specs...)
			got := Describe(recs)
			if !strings.HasPrefix(got, preamble) {
				t.Fatalf("missing preamble:\n%s", got)
			}
			want := tt.want
			if len(recs) == 0 {
				// No made-up entry: the prose says none is installed.
				if !strings.HasSuffix(got, blockOpen+blockClose+noSkills) || strings.Contains(got, "<skill>") {
					t.Fatalf("no skills: want an empty block and the note, got:\n%s", got)
				}
				return
			}
			if diff := cmp.Diff(want, parseSkills(t, got)); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolsListNoSkills(t *testing.T) {
	srv := New(snapOf(nil), Options{Version: "v0"})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)
			tool := onlyTool(t, ctx, cs)
			if !strings.HasSuffix(tool.Description, "<available_skills>\n</available_skills>"+noSkills) {
				t.Errorf("no note that no skill is installed in:\n%s", tool.Description)
			}
			res, err := call(ctx, cs, map[string]any{"name": "none"})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(resultText(t, res), "not found") {
				t.Errorf("loading \"none\": isError=%v %q, want a not-found error", res.IsError, resultText(t, res))
			}
		})
	}
}

// wantLoad is the exact text a load of r returns.
func wantLoad(t *testing.T, r *pipeline.Record) string {
	t.Helper()
	data, err := os.ReadFile(r.File)
	if err != nil {
		t.Fatal(err)
	}
	plugin := ""
	if r.Plugin != nil {
		plugin = fmt.Sprintf("Plugin: %s@%s (%s)\n", r.Plugin.Plugin, r.Plugin.Marketplace, r.Plugin.Version)
	}
	return fmt.Sprintf("Loading: %s\nBase directory: %s\nProvider: %s\nLocation: %s\n%s\n", r.ID, r.Dir, r.Agent, r.Location, plugin) + string(data)
}

func TestLoadText(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), fixtureSpecs()...)
	tests := []struct {
		rec  *pipeline.Record
		want string
	}{
		{recs[0], "Loading: claude:pdf\nBase directory: " + recs[0].Dir + "\nProvider: claude\nLocation: user\n\nBODY"},
		{recs[3], "Loading: claude:@example-skills:xlsx\nBase directory: " + recs[3].Dir +
			"\nProvider: claude\nLocation: plugin\nPlugin: example-skills@anthropic-agent-skills (1.2.3)\n\nBODY"},
	}
	for _, tt := range tests {
		t.Run(tt.rec.ID, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, LoadText(tt.rec, []byte("BODY"))); diff != "" {
				t.Errorf("LoadText (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolsCall(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), fixtureSpecs()...)
	srv := New(snapOf(recs), Options{Version: "v"})
	byID := map[string]*pipeline.Record{}
	byName := map[string]*pipeline.Record{} // each record by the name the description lists it by
	for _, r := range recs {
		byID[r.ID] = r
		byName[r.ShortName()] = r
	}
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)

			// Every listed name loads its skill, byte for byte.
			for _, e := range parseSkills(t, onlyTool(t, ctx, cs).Description) {
				id := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(e.Name)
				r := byName[id]
				if r == nil {
					t.Fatalf("listed name %q is not a record's short name", id)
				}
				res, err := call(ctx, cs, map[string]any{"name": id})
				if err != nil {
					t.Fatalf("load %q: %v", id, err)
				}
				if res.IsError {
					t.Fatalf("load %q: isError %q", id, resultText(t, res))
				}
				if diff := cmp.Diff(wantLoad(t, r), resultText(t, res)); diff != "" {
					t.Errorf("load %q (-want +got):\n%s", id, diff)
				}
			}

			tests := []struct {
				name    string
				args    any
				wantID  string   // a successful load of this id
				errHas  []string // an isError result containing all of these
				rpcCode int64    // a JSON-RPC error with this code
				rpcHas  string   // ... whose message contains this
			}{
				{name: "upper case id", args: map[string]any{"name": "CLAUDE:PDF"}, wantID: "claude:pdf"},
				{name: "short name mixed case", args: map[string]any{"name": "DocX"}, wantID: "codex:docx"},
				{name: "surrounding space", args: map[string]any{"name": "  cjk "}, wantID: "agents:cjk"},
				{name: "plugin name", args: map[string]any{"name": "example-skills:XLSX"}, wantID: "claude:@example-skills:xlsx"},
				{name: "not found with suggestions", args: map[string]any{"name": "pdff"},
					errHas: []string{`"pdff" not found`, "Did you mean", "claude:pdf"}},
				{name: "not found without suggestions", args: map[string]any{"name": "qqqqqqqqqqqqqqqq"},
					errHas: []string{`"qqqqqqqqqqqqqqqq" not found`, "<available_skills>"}},
				{name: "missing name", args: map[string]any{}, errHas: []string{`"name"`}},
				{name: "nil arguments", args: nil, errHas: []string{`"name"`}},
				{name: "number name", args: map[string]any{"name": 5}, errHas: []string{`"name"`}},
				{name: "null name", args: map[string]any{"name": nil}, errHas: []string{`"name"`}},
				{name: "array name", args: map[string]any{"name": []string{"pdf"}}, errHas: []string{`"name"`}},
				{name: "empty name", args: map[string]any{"name": ""}, errHas: []string{`"name"`}},
				{name: "blank name", args: map[string]any{"name": " \t "}, errHas: []string{`"name"`}},
				{name: "other key only", args: map[string]any{"skill": "pdf"}, errHas: []string{`"name"`}},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					res, err := call(ctx, cs, tt.args)
					if tt.rpcCode != 0 {
						var we *jsonrpc.Error
						if !errors.As(err, &we) {
							t.Fatalf("got result %+v, err %v; want a JSON-RPC error", res, err)
						}
						if we.Code != tt.rpcCode || !strings.Contains(we.Message, tt.rpcHas) {
							t.Errorf("JSON-RPC error %d %q, want code %d mentioning %q", we.Code, we.Message, tt.rpcCode, tt.rpcHas)
						}
						return
					}
					if err != nil {
						t.Fatalf("call: %v", err)
					}
					text := resultText(t, res)
					if tt.wantID != "" {
						if res.IsError {
							t.Fatalf("isError %q", text)
						}
						if diff := cmp.Diff(wantLoad(t, byID[tt.wantID]), text); diff != "" {
							t.Errorf("(-want +got):\n%s", diff)
						}
						return
					}
					if !res.IsError {
						t.Fatalf("got a successful load %q, want isError", text)
					}
					for _, s := range tt.errHas {
						if !strings.Contains(text, s) {
							t.Errorf("error %q does not contain %q", text, s)
						}
					}
				})
			}
		})
	}
}

func TestToolsCallSuggestionsAndAmbiguity(t *testing.T) {
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "claude", name: "pdf", desc: "a"},
		skillSpec{provider: "codex", name: "pdf", desc: "b"},
		skillSpec{provider: "agents", name: "pdf", desc: "c"},
		skillSpec{provider: "gemini", name: "pdf", desc: "d"},
		skillSpec{provider: "claude", loc: pipeline.LocationProject, name: "pdf", desc: "e"},
		skillSpec{provider: "claude", name: "pptx", desc: "f"},
	)
	snap := snapOf(recs)
	srv := New(snap, Options{})
	allPDF := []string{"claude@user:pdf", "codex:pdf", "agents:pdf", "gemini:pdf", "claude@project:pdf"}
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)

			res, err := call(ctx, cs, map[string]any{"name": "PDF"})
			if err != nil {
				t.Fatal(err)
			}
			text := resultText(t, res)
			if !res.IsError || !strings.Contains(text, "ambiguous") {
				t.Fatalf("ambiguous name: isError=%v %q", res.IsError, text)
			}
			for _, id := range allPDF {
				if !strings.Contains(text, id) {
					t.Errorf("ambiguity error %q does not list %q", text, id)
				}
			}

			res, err = call(ctx, cs, map[string]any{"name": "pdx"})
			if err != nil {
				t.Fatal(err)
			}
			text = resultText(t, res)
			_, rerr := snap.Resolve("pdx")
			var nf *pipeline.NotFoundError
			if !errors.As(rerr, &nf) {
				t.Fatalf("Resolve(pdx) = %v, want not found", rerr)
			}
			if len(nf.Suggestions) == 0 || len(nf.Suggestions) > 3 {
				t.Fatalf("suggestions %v: want 1 to 3", nf.Suggestions)
			}
			want := fmt.Sprintf("Did you mean: %s?", strings.Join(nf.Suggestions, ", "))
			if !res.IsError || !strings.Contains(text, want) {
				t.Errorf("not found: isError=%v %q, want it to contain %q", res.IsError, text, want)
			}
			named := 0
			for _, id := range append(allPDF, "claude:pptx") {
				if strings.Contains(text, id) {
					named++
				}
			}
			if named > 3 {
				t.Errorf("not-found error names %d ids, want at most 3: %q", named, text)
			}
		})
	}
}

func TestToolsCallDeletedFile(t *testing.T) {
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			recs := makeRecords(t, t.TempDir(),
				skillSpec{provider: "claude", name: "gone", desc: "deleted after the scan"},
				skillSpec{provider: "claude", name: "kept", desc: "still there"})
			srv := New(snapOf(recs), Options{})
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)
			if err := os.RemoveAll(recs[0].Dir); err != nil {
				t.Fatal(err)
			}
			res, err := call(ctx, cs, map[string]any{"name": "gone"})
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			text := resultText(t, res)
			if !res.IsError || !strings.Contains(text, "claude:gone") || !strings.Contains(text, "no such file or directory") {
				t.Errorf("isError=%v %q, want an error naming the skill and the reason", res.IsError, text)
			}
			// The server is still up.
			res, err = call(ctx, cs, map[string]any{"name": "kept"})
			if err != nil || res.IsError {
				t.Fatalf("load after a failed one: %v %+v", err, res)
			}
		})
	}
}

// changeCounter counts tools/list_changed notifications.
type changeCounter struct {
	mu sync.Mutex
	n  int
	ch chan struct{}
}

func newChangeCounter() *changeCounter { return &changeCounter{ch: make(chan struct{}, 100)} }

func (c *changeCounter) options() *sdk.ClientOptions {
	return &sdk.ClientOptions{ToolListChangedHandler: func(_ context.Context, _ *sdk.ToolListChangedRequest) {
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
		c.ch <- struct{}{}
	}}
}

// wait reports whether a notification arrives within d.
func (c *changeCounter) wait(d time.Duration) bool {
	select {
	case <-c.ch:
		return true
	case <-time.After(d):
		return false
	}
}

func TestUpdateNotifies(t *testing.T) {
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			base := t.TempDir()
			first := makeRecords(t, base, skillSpec{provider: "claude", name: "pdf", desc: "first"})
			srv := New(snapOf(first), Options{})
			changes := newChangeCounter()
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, changes.options())
			if d := onlyTool(t, ctx, cs).Description; !strings.Contains(d, "first") {
				t.Fatalf("initial description:\n%s", d)
			}

			// Identical visible set (fresh records, same content): no
			// change, no notification, but the snapshot is swapped in.
			same := snapOf(makeRecords(t, base, skillSpec{provider: "claude", name: "pdf", desc: "first"}))
			if srv.Update(same) {
				t.Error("Update with an identical visible set returned true")
			}
			if srv.Snapshot() != same {
				t.Error("Update did not make the snapshot current")
			}
			if changes.wait(300 * time.Millisecond) {
				t.Error("list_changed sent for an identical visible set")
			}

			steps := []struct {
				name  string
				specs []skillSpec
				want  []skillEntry
			}{
				{"description changed", []skillSpec{{provider: "claude", name: "pdf", desc: "second"}},
					[]skillEntry{{"pdf", "second", "claude", "user"}}},
				{"skill added", []skillSpec{{provider: "claude", name: "pdf", desc: "second"}, {provider: "codex", name: "new", desc: "added"}},
					[]skillEntry{{"pdf", "second", "claude", "user"}, {"new", "added", "codex", "user"}}},
				{"all removed", nil, nil},
			}
			for _, st := range steps {
				if !srv.Update(snapOf(makeRecords(t, base, st.specs...))) {
					t.Fatalf("%s: Update returned false", st.name)
				}
				if !changes.wait(5 * time.Second) {
					t.Fatalf("%s: no list_changed within 5s", st.name)
				}
				got := parseSkills(t, onlyTool(t, ctx, cs).Description)
				want := st.want
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: listed skills (-want +got):\n%s", st.name, diff)
				}
			}
		})
	}
}

func TestUpdateConcurrentCalls(t *testing.T) {
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			a := makeRecords(t, t.TempDir(),
				skillSpec{provider: "claude", name: "pdf", desc: "old", body: "old body"},
				skillSpec{provider: "claude", name: "docx", desc: "only in old"})
			b := makeRecords(t, t.TempDir(),
				skillSpec{provider: "claude", name: "pdf", desc: "new", body: "new body\r\n"},
				skillSpec{provider: "claude", name: "xlsx", desc: "only in new"})
			snapA, snapB := snapOf(a), snapOf(b)
			okA := wantLoad(t, a[0])
			okTexts := map[string]bool{okA: true, wantLoad(t, b[0]): true}
			var seenOld, seenNew atomic.Int32

			srv := New(snapA, Options{})
			ctx := testCtx(t, 20*time.Second)
			cs := connect(t, srv, pv, nil)

			stop := make(chan struct{})
			swapped := make(chan int)
			go func() {
				n := 0
				for {
					select {
					case <-stop:
						swapped <- n
						return
					default:
					}
					if n%2 == 0 {
						srv.Update(snapB)
					} else {
						srv.Update(snapA)
					}
					n++
					time.Sleep(time.Millisecond)
				}
			}()

			const callers, rounds = 20, 5
			errs := make(chan error, callers*rounds)
			var wg sync.WaitGroup
			for i := range callers {
				wg.Go(func() {
					for range rounds {
						res, err := call(ctx, cs, map[string]any{"name": "claude:pdf"})
						if err != nil {
							errs <- fmt.Errorf("caller %d: %w", i, err)
							continue
						}
						text, err := textOf(res)
						switch {
						case err != nil:
							errs <- fmt.Errorf("caller %d: %w", i, err)
						case res.IsError:
							errs <- fmt.Errorf("caller %d: isError %q", i, text)
						case !okTexts[text]:
							errs <- fmt.Errorf("caller %d: text from neither snapshot: %q", i, text)
						default:
							if text == okA {
								seenOld.Add(1)
							} else {
								seenNew.Add(1)
							}
						}
					}
				})
			}
			wg.Wait()
			close(stop)
			n := <-swapped
			t.Logf("%d swaps; %d loads saw the old snapshot, %d the new", n, seenOld.Load(), seenNew.Load())
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			// The server is consistent afterwards.
			if tool := onlyTool(t, ctx, cs); tool.Description != describeOf(srv.Snapshot(), 0) {
				t.Errorf("listed description does not match the current snapshot")
			}
		})
	}
}

func TestDrain(t *testing.T) {
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "d"})
			srv := New(snapOf(recs), Options{})
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)
			if res, err := call(ctx, cs, map[string]any{"name": "pdf"}); err != nil || res.IsError {
				t.Fatalf("load before Drain: %v %+v", err, res)
			}
			start := time.Now()
			if !srv.Drain(time.Second) {
				t.Fatal("Drain with nothing in flight returned false")
			}
			if d := time.Since(start); d > 200*time.Millisecond {
				t.Errorf("Drain with nothing in flight took %v", d)
			}
			res, err := call(ctx, cs, map[string]any{"name": "pdf"})
			if err != nil {
				t.Fatalf("call after Drain: %v", err)
			}
			if text := resultText(t, res); !res.IsError || !strings.Contains(text, "shutting down") {
				t.Errorf("call after Drain: isError=%v %q, want a shutting-down error", res.IsError, text)
			}
			if !srv.Drain(10 * time.Millisecond) {
				t.Error("a refused call stayed in flight")
			}
		})
	}
}
