package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agnivade/levenshtein"
	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/pipeline"
)

// vocabulary is what the generated bodies are made of: words that share
// prefixes and substrings, mixed case, punctuation, CJK and Cyrillic,
// Unicode white space, a Turkish dotted I (whose lower case is longer),
// and an invalid UTF-8 byte.
var vocabulary = []string{"Chart", "charts", "chart-API", "PDF", "pdftotext", "forms", "form:", "(fill)", "fill",
	"layout", "Layout", "git", "diff", "--staged", "commit", "commit-message", "文档", "文档处理", "表格",
	"データ", "скилл", "Скиллы", "İstanbul", "naïve", "café", "x\xffy", "a", "an", "the", "theme", "them",
	"kubernetes", "k8s", "yaml", "YAML:", "e.g.", "foo_bar", "foo.bar", "v1.2.3", "#heading", "**bold**"}

var spaces = []string{" ", " ", "\n", "\t", "\u00a0", "\u3000", "\r\n", "  "}

// corpus writes n skills with bodies drawn from vocabulary and returns
// their records; a few have no body, an unreadable file, or a body past
// MaxBody.
func corpus(t *testing.T, n int, seed uint64) []*pipeline.Record {
	t.Helper()
	// Files written now settle in filestamp.Window; the tests judge
	// them an hour later.
	clock = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { clock = time.Now })
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(seed, 1))
	recs := make([]*pipeline.Record, 0, n)
	for i := range n {
		word := strings.Trim(vocabulary[rng.IntN(len(vocabulary))], "-:()#*.")
		if i%4 != 1 { // some names keep their case
			word = strings.ToLower(word)
		}
		name := fmt.Sprintf("%s-%d", word, i)
		if i%10 == 3 { // a plugin's: its short name is after the colon
			name = "Tools:" + name
		}
		var body strings.Builder
		for range rng.IntN(60) {
			body.WriteString(vocabulary[rng.IntN(len(vocabulary))])
			body.WriteString(spaces[rng.IntN(len(spaces))])
		}
		desc := ""
		for range rng.IntN(6) {
			desc += vocabulary[rng.IntN(len(vocabulary))] + " "
		}
		file := filepath.Join(dir, fmt.Sprint(i), "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		content := "---\nname: " + name + "\ndescription: x\n---\n" + body.String()
		switch {
		case i%50 == 7: // no frontmatter at all
			content = body.String()
		case i == 11: // a body past MaxBody: the words after it are not searched
			content += strings.Repeat("padding ", MaxBody/8) + "beyondthecap"
		}
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if i%50 == 13 { // gone: no body
			os.Remove(file)
		}
		r := &pipeline.Record{Name: name, Agent: "claude", Description: strings.TrimSpace(desc), File: file}
		if i%9 == 0 {
			r.Alias = vocabulary[rng.IntN(len(vocabulary))]
		}
		recs = append(recs, r)
	}
	pipeline.AssignIDs(recs)
	old := time.Now().Add(-time.Hour)
	for _, r := range recs {
		os.Chtimes(r.File, old, old)
	}
	return recs
}

// queries is the table both paths answer.
var queries = []string{
	"chart", "Chart api", "pdf", "pdftotext", "PDF forms", "fill", "(fill)", "form:", "layout", "git diff",
	"--staged", "commit", "comit", "文档", "处理", "表", "データ", "скилл", "СКИЛЛЫ", "i̇stanbul", "istanbul",
	"naïve", "CAFÉ", "\ufffd", "x", "y", "a", "e", "the", "them", "theme", "kubernetes", "k8s yaml", "yaml:",
	"e.g.", "foo", "_bar", ".bar", "1.2", "#", "**", "bold", "beyondthecap", "padding", "nothing-like-it",
	"chart nothing-like-it", "a e i", "t h e",
	// Typos of name words, and words of plugin names.
	"chrat", "kubernets", "kuberntes", "layot", "stanbul", "İstanbul", "tools", "tools:chart", "tools:", "pdftotxt",
	"commmit", "yaml-1", "chart-1", "skil",
}

// TestIndexMatchesRank runs every query of the table through Rank reading
// bodies and through Rank with an Index, and wants the same hits in the
// same order, with the same scores, snippets and totals.
func TestIndexMatchesRank(t *testing.T) {
	recs := corpus(t, 300, 1)
	ix, err := (*Index)(nil).Update(context.Background(), recs, Source{})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != len(recs) {
		t.Fatalf("indexed %d files, want %d", ix.Len(), len(recs))
	}
	compare(t, recs, ix)
}

func compare(t *testing.T, recs []*pipeline.Record, ix *Index) {
	t.Helper()
	// The old path, then Rank without an index, with the index, and with
	// it primed (the meta index: only candidates scored).
	type path struct {
		name string
		ix   *Index
	}
	for _, primed := range []bool{false, true} {
		paths := []path{{"no index", nil}, {"index", ix}}
		if primed {
			ix.Prime()
			paths = []path{{"primed index", ix}}
		}
		for _, q := range queries {
			for _, content := range []bool{true, false} {
				// The old path once per query: a limit only cuts its hits.
				all, wantTotal := refRank(recs, q, Options{Content: content})
				for _, limit := range []int{0, 1, 5} {
					want := all
					if limit > 0 && len(want) > limit {
						want = want[:limit]
					}
					for _, p := range paths {
						if p.ix == nil && limit != 5 { // reads every body: once is enough
							continue
						}
						got, gotTotal := Rank(recs, q, Options{Content: content, Limit: limit, Index: p.ix})
						if d := cmp.Diff(summarize(want), summarize(got)); d != "" || wantTotal != gotTotal {
							t.Errorf("query %q limit %d content %v, %s: total %d, want %d; hits (-old +new):\n%s",
								q, limit, content, p.name, gotTotal, wantTotal, d)
						}
					}
				}
			}
		}
	}
}

func summarize(hits []Hit) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s %d %q", h.Record.ID, h.Score, h.Snippet))
	}
	return out
}

// TestIndexUpdate changes, adds and removes files and wants an Update to
// read those alone and to answer as Rank reading every body does.
func TestIndexUpdate(t *testing.T) {
	recs := corpus(t, 120, 2)
	ix, err := (*Index)(nil).Update(context.Background(), recs, Source{})
	if err != nil {
		t.Fatal(err)
	}
	// Change two bodies, remove one record, add one.
	old := time.Now().Add(-time.Minute)
	for _, i := range []int{3, 40} {
		if err := os.WriteFile(recs[i].File, []byte("---\nname: x\n---\nzebra Kubernetes\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(recs[i].File, old, old)
	}
	added := filepath.Join(filepath.Dir(recs[0].File), "..", "added", "SKILL.md")
	os.MkdirAll(filepath.Dir(added), 0o755)
	os.WriteFile(added, []byte("zebras and the theme"), 0o644)
	os.Chtimes(added, old, old)
	recs = append(recs[:10:10], recs[11:]...)
	recs = append(recs, &pipeline.Record{Name: "added", Agent: "codex", File: added})
	pipeline.AssignIDs(recs)

	var reads int
	counted := Source{Body: func(r *pipeline.Record) string { reads++; return readBody(r.File) }, Workers: 1}
	ix2, err := ix.Update(context.Background(), recs, counted)
	if err != nil {
		t.Fatal(err)
	}
	if reads != 3 {
		t.Errorf("Update read %d files, want 3 (two changed, one added)", reads)
	}
	if ix2.Len() != len(recs) || !ix2.Changed() {
		t.Errorf("Len %d, want %d; Changed %v", ix2.Len(), len(recs), ix2.Changed())
	}
	compare(t, recs, ix2)
	if hits, _ := Rank(recs, "zebra", Options{Content: true, Index: ix2}); len(hits) != 3 {
		t.Errorf("zebra: %v, want the two changed and the added", summarize(hits))
	}

	// Nothing changed: nothing read.
	reads = 0
	ix3, err := ix2.Update(context.Background(), recs, counted)
	if err != nil {
		t.Fatal(err)
	}
	st3, st2 := ix3.Stats(), ix2.Stats()
	st3.MetaBytes, st2.MetaBytes = 0, 0 // ix2 was primed by compare
	if reads != 0 || st3 != st2 {
		t.Errorf("an Update with nothing changed read %d files; stats %+v, was %+v", reads, st3, st2)
	}
	// Another salt reads everything again.
	reads = 0
	counted.Salt = func(*pipeline.Record) string { return "judged" }
	if _, err := ix2.Update(context.Background(), recs, counted); err != nil {
		t.Fatal(err)
	}
	exist := 0
	for _, r := range recs {
		if _, err := os.Stat(r.File); err == nil {
			exist++
		}
	}
	if reads != exist { // a file that is gone is not read
		t.Errorf("an Update under another salt read %d files, want %d", reads, exist)
	}
}

// TestIndexPersist saves an index, loads it in a "new run", and wants the
// loaded one to answer the same, and to read no file on its first Update.
func TestIndexPersist(t *testing.T) {
	recs := corpus(t, 150, 3)
	ix, err := (*Index)(nil).Update(context.Background(), recs, Source{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "search.bin")
	if err := ix.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Stats() != ix.Stats() {
		t.Errorf("loaded stats %+v, saved %+v", loaded.Stats(), ix.Stats())
	}
	compare(t, recs, loaded)
	reads := 0
	again, err := loaded.Update(context.Background(), recs,
		Source{Body: func(r *pipeline.Record) string { reads++; return readBody(r.File) }})
	if err != nil {
		t.Fatal(err)
	}
	// The file that is gone has no stamp, so it is read (and found
	// missing) again; every other file is served from the loaded index.
	if reads != 0 || again.Changed() {
		t.Errorf("the first Update after a load read %d files (Changed %v), want 0", reads, again.Changed())
	}

	// A corrupt or foreign file is refused whole.
	data, _ := os.ReadFile(path)
	for i, bad := range [][]byte{data[:len(data)-3], append([]byte("ccski search index\n\x09"), data[20:]...), []byte("nope")} {
		p := filepath.Join(t.TempDir(), fmt.Sprint(i))
		os.WriteFile(p, bad, 0o600)
		if got, err := LoadIndex(p); err == nil {
			t.Errorf("case %d: loaded %d files from a bad file, want an error", i, got.Len())
		}
	}
}

// TestWithin compares within with the levenshtein package on random words
// of a small alphabet (ASCII and multi-byte), long ones included.
func TestWithin(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	alphabet := []rune("abcé文x")
	word := func() string {
		n := rng.IntN(12)
		if rng.IntN(20) == 0 {
			n = 30 + rng.IntN(8) // past the stack arrays
		}
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(rs)
	}
	for range 20000 {
		a, b := word(), word()
		if rng.IntN(3) == 0 { // near each other
			b = a
			if len(b) > 0 {
				rs := []rune(b)
				rs[rng.IntN(len(rs))] = alphabet[rng.IntN(len(alphabet))]
				b = string(rs)
			}
		}
		for k := 0; k <= 2; k++ {
			if got, want := within(a, b, k), levenshtein.ComputeDistance(a, b) <= k; got != want {
				t.Fatalf("within(%q, %q, %d) = %v, want %v", a, b, k, got, want)
			}
		}
	}
}

// TestIndexReusedRecords: an Update with the very records of the last one
// (a rescan that found nothing changed hands them back) states no file;
// a record made again (its file changed) has its file read.
func TestIndexReusedRecords(t *testing.T) {
	recs := corpus(t, 40, 4)
	recs = slices.DeleteFunc(recs, func(r *pipeline.Record) bool { _, err := os.Stat(r.File); return err != nil })
	ix, err := (*Index)(nil).Update(context.Background(), recs, Source{})
	if err != nil {
		t.Fatal(err)
	}
	// The file changes; the scan would make a new record for it.
	if err := os.WriteFile(recs[5].File, []byte("wombat"), 0o644); err != nil {
		t.Fatal(err)
	}
	reads := 0
	src := Source{Body: func(r *pipeline.Record) string { reads++; return readBody(r.File) }}
	again := slices.Clone(recs)
	same, err := ix.Update(context.Background(), again, src)
	if err != nil || reads != 0 || !same.aligned(again) {
		t.Fatalf("Update with the same records: %d reads, aligned %v, err %v", reads, same.aligned(again), err)
	}
	remade := *recs[5]
	again = slices.Clone(again) // a new snapshot's slice
	again[5] = &remade
	changed, err := same.Update(context.Background(), again, src)
	if err != nil || reads != 1 {
		t.Fatalf("Update with a record made again: %d reads, want 1 (err %v)", reads, err)
	}
	if hits, _ := Rank(again, "wombat", Options{Content: true, Index: changed}); len(hits) != 1 || hits[0].Record != &remade {
		t.Errorf("wombat: %v", summarize(hits))
	}
}

// TestIndexBatches builds the same index reading one file at a time, a
// few at a time and all at once, and wants the same terms, postings and
// docs, and Rank's answers: Update adds each batch's words to its
// postings before it reads the next (pending), which must neither lose
// nor reorder a doc across a batch's edge. An Update of a changed tree
// read in batches must answer as one read whole.
func TestIndexBatches(t *testing.T) {
	recs := corpus(t, 300, 5)
	build := func(batch int, from *Index, recs []*pipeline.Record) *Index {
		t.Helper()
		was := readBatch
		readBatch = batch
		defer func() { readBatch = was }()
		ix, err := from.Update(context.Background(), recs, Source{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	whole := build(len(recs)+1, nil, recs)
	for _, batch := range []int{1, 7, 64} {
		ix := build(batch, nil, recs)
		if ix.terms != whole.terms || !slices.Equal(ix.termAt, whole.termAt) || !slices.Equal(ix.post, whole.post) ||
			!slices.Equal(ix.postAt, whole.postAt) || !slices.Equal(ix.docs, whole.docs) {
			t.Errorf("batch %d: the index differs from the one read whole (%+v, want %+v)", batch, ix.Stats(), whole.Stats())
		}
	}
	compare(t, recs, build(7, nil, recs))

	// Change a body and drop a record: the update reads the changed file
	// in a batch of its own, after the kept docs.
	old := time.Now().Add(-time.Minute)
	if err := os.WriteFile(recs[5].File, []byte("---\nname: x\n---\nzebra Kubernetes théme\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(recs[5].File, old, old)
	recs = append(recs[:20:20], recs[21:]...)
	a, b := build(2, whole, recs), build(len(recs)+1, whole, recs)
	if a.terms != b.terms || !slices.Equal(a.post, b.post) || !slices.Equal(a.docs, b.docs) {
		t.Errorf("an update read in batches differs from one read whole (%+v, want %+v)", a.Stats(), b.Stats())
	}
	compare(t, recs, a)
}

// TestPending adds postings with gaps of every varint width and wants
// them back in order, each term's apart.
func TestPending(t *testing.T) {
	var p pending
	want := map[string][]uint32{}
	d := uint32(0)
	for i, gap := range []uint32{0, 1, 127, 128, 16383, 16384, 1 << 21, 1<<28 + 5} {
		d += gap
		for _, term := range []string{"a", "b", fmt.Sprint("t", i%3)} {
			p.add(term, d)
			want[term] = append(want[term], d)
		}
	}
	for term, list := range want {
		if got := p.appendTo([]uint32{42}, term); !slices.Equal(got, append([]uint32{42}, list...)) {
			t.Errorf("%s: %v, want 42 then %v", term, got, list)
		}
	}
	if got := p.appendTo(nil, "missing"); got != nil {
		t.Errorf("a term never added: %v", got)
	}
}
